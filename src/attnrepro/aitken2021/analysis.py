"""Per-seed analysis of one trained encoder-decoder (Aitken et al. 2021): the decomposition of §2.1 for encoder
and decoder, the nine alignment terms of Eq. 3 at the top alignments, and the per-seed summary the claims read.

Pure functions of the exported tables (as DataFrames and arrays); the command line does the reading and writing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..training.learning_curve import seed_steps_to_threshold
from ..data.tokens import PAD
from .accuracy import (accuracy_by_length, corpus_bleu, corpus_source_gain, early_late_accuracy, early_late_gap,
                       short_long_gap, word_accuracy)
from .alignment import (PARTS, attention_maps, hide_measures, offset_alignment, peak_measures, predicted_offset,
                        temporal_antidiagonal, temporal_argmax_correlation, temporal_diagonal_share, temporal_peaks,
                        word_offset_measures, word_temporal_dots)
from .decomposition import (TERMS, Decomposition, alignment_shares, alignment_terms, decompose, map_agreement,
                            projected_relative_delta, random_abs_cosine, temporal_input_delta_cosine,
                            top_alignment_shares)
from .mechanisms import context_vectors, section3_measures
from .escan_mechanisms import section4_measures
from .readout import readout_alignment, readout_match
from .variance import variance_drop, variance_drop_pooled, word_variance

OPTIONAL_TABLES = {  # tables only attention models have, with their columns
    "terms": ["example", "s", "rank", "t_star", "a", *TERMS],
    "maps": ["example", "s", "t", *PARTS],
    "offsets": ["by", "word", "offset", "n", "a", "mu_mu", "mu_input", "rest"],
}
LEARNED = 0.6  # the validation token accuracy at which steps_to_acc counts a run as learning its task (post 003)
N_MAPS = 4  # test examples whose full alignment matrices are kept (Fig. 2h, 3a, 4a)


def _codes(tokens: pd.Series, vocab: list[str]) -> np.ndarray:
    index = {w: i for i, w in enumerate(vocab)}
    return tokens.map(index).to_numpy(dtype=np.int64)


def vector_frame(vectors: np.ndarray, prefix: str, **columns) -> pd.DataFrame:
    """Scalar ``columns`` beside the rows of ``vectors`` spread over ``{prefix}0 .. {prefix}{H-1}``."""
    df = pd.DataFrame(columns)
    vec = pd.DataFrame(vectors, columns=[f"{prefix}{i}" for i in range(vectors.shape[1])])
    return pd.concat([df.reset_index(drop=True), vec], axis=1)


def analyze_seed(enc: pd.DataFrame, enc_h: np.ndarray, dec: pd.DataFrame, dec_h: np.ndarray,
                 src_vocab: list[str], tgt_vocab: list[str], has_attention: bool,
                 enc_key: np.ndarray | None = None, dec_query: np.ndarray | None = None,
                 readout: np.ndarray | None = None, dictionary: dict[str, str] | None = None,
                 readout_state: np.ndarray | None = None, alpha: np.ndarray | None = None,
                 translation: bool = False) -> dict[str, pd.DataFrame]:
    """``enc``/``dec``: the scalar columns of one seed's exported rows; ``*_h``: their hidden states.
    ``enc_key``/``dec_query``: the attention's keys and queries where they are not the states themselves
    (learned query/key/value attention); the nine alignment terms then split k = μ + χ + Δ and q likewise, which
    is exact because a_st = q_s·k_t.

    ``readout``: the readout rows acting on the context (on h_s^D for VED), [len(tgt_vocab), H];
    ``dictionary``: output word -> its input word, where the task has one; ``readout_state``: the AED's readout
    rows acting on h_s^D (footnote 6); ``alpha``: each decoder state's attention weights over its encoder steps,
    [len(dec), T] (NaN beyond the input), from which the AED's context vectors c_s are rebuilt (dot attention:
    the learned attention's values are not exported); ``translation``: the task is En-Fr, whose summary adds
    ``bleu_source_gain`` (:func:`attnrepro.seq2seq.bleu.source_gain`).

    Returns DataFrames ``temporal`` (side, pos, mu*), ``input`` (side, token, chi*), ``input_delta``
    (side, example, pos, token, v*), ``word_variance`` (Fig. 5c), ``accuracy`` (by input length),
    ``readout_alignment`` (Fig. 4c, 5d), for attention models ``terms`` (Eq. 3 at the top five alignments of
    every decoder step, column ``rank``), ``maps`` (alignment matrices of the first test examples) and ``offsets``
    (Fig. 6b–d), and ``summary`` (one row of per-seed measures: the authors' shares ``share_*``, the top-1
    pooled ones ``share_top1_*``, the map agreement ``agree_*``).
    """
    E = decompose(enc_h, enc["t"].to_numpy(), _codes(enc["token"], src_vocab), n_tokens=len(src_vocab))
    D = decompose(dec_h, dec["s"].to_numpy(), _codes(dec["token"], tgt_vocab), n_tokens=len(tgt_vocab))
    out: dict[str, pd.DataFrame] = {}
    out["temporal"] = pd.concat([
        vector_frame(E.mu, "mu", side="encoder", pos=np.arange(len(E.mu))),
        vector_frame(D.mu, "mu", side="decoder", pos=np.arange(len(D.mu))),
    ], ignore_index=True)
    out["input"] = pd.concat([
        vector_frame(E.chi, "chi", side="encoder", token=src_vocab),
        vector_frame(D.chi, "chi", side="decoder", token=tgt_vocab),
    ], ignore_index=True).dropna()
    out["input_delta"] = pd.concat([
        vector_frame(E.input_delta, "v", side="encoder", example=enc["example"].to_numpy(), pos=E.pos,
                     token=enc["token"].to_numpy()),
        vector_frame(D.input_delta, "v", side="decoder", example=dec["example"].to_numpy(), pos=D.pos,
                     token=dec["token"].to_numpy()),
    ], ignore_index=True)

    real = dec["target"] != PAD
    correct = dec["predicted"] == dec["target"]
    src_len = enc.groupby("example")["t"].max()  # the <eos> step's index = the number of input words
    out["accuracy"] = accuracy_by_length(dec, src_len)
    out["word_variance"] = word_variance(E, src_vocab)
    # every example reaches these steps, so μ there averages over the same examples on both sides
    n_steps = int(min(src_len.min(), dec.groupby("example")["s"].max().min())) + 1
    antidiagonal = temporal_antidiagonal(D.mu, E.mu, n_steps)
    summary = {
        "token_acc": float(correct[real].mean()),
        "seq_acc": float(correct.groupby(dec["example"]).all().mean()),
        "word_acc": word_accuracy(dec),
        "bleu": corpus_bleu(dec),
        # 20 BLEUs a seed: only where it is the gate's measure
        "bleu_source_gain": corpus_source_gain(dec) if translation else float("nan"),
        "encoder_delta_norm": _relative_norm(E),
        "encoder_delta_norm_projected": projected_relative_delta(E),
        "decoder_delta_norm": _relative_norm(D),
        "variance_drop": variance_drop(out["word_variance"]),
        "variance_drop_pooled": variance_drop_pooled(out["word_variance"]),
        "temporal_argmax_rho": temporal_argmax_correlation(D.mu, E.mu, n_steps),
        # translation's shortest pairs leave few steps every example reaches; Fig. 4b plots those half of them reach
        "temporal_argmax_rho_half": temporal_argmax_correlation(D.mu, E.mu, n_half(dec)),
        "temporal_diagonal_share": temporal_diagonal_share(D.mu, E.mu, n_steps),
        "temporal_antidiagonal_share": antidiagonal[0],
        "temporal_antidiagonal_offset": antidiagonal[1],
        "temporal_diagonal_share_half": temporal_diagonal_share(D.mu, E.mu, n_half(dec)),
        "short_long_gap": short_long_gap(out["accuracy"]),
        "early_late_gap": early_late_gap(dec),
        **early_late_accuracy(dec),
    }
    if readout is not None:
        out["readout_alignment"] = readout_alignment(E.chi, src_vocab, readout, tgt_vocab).dropna()
        summary["readout_match"] = readout_match(out["readout_alignment"], dictionary) if dictionary else np.nan
    if has_attention:
        if dec_query is not None:
            D_a = decompose(dec_query, D.pos, D.token, n_tokens=len(tgt_vocab))
            E_a = decompose(enc_key, E.pos, E.token, n_tokens=len(src_vocab))
        else:
            D_a, E_a = D, E
        dec_ex, enc_ex = dec["example"].to_numpy(), enc["example"].to_numpy()
        terms = alignment_terms(D_a, dec_ex, E_a, enc_ex)
        out["terms"] = terms
        out["maps"] = attention_maps(D_a, dec_ex, E_a, enc_ex, sorted(set(dec_ex))[:N_MAPS])
        offsets = offset_alignment(D_a, dec_ex, E_a, enc_ex, E_a.token)
        offsets["word"] = np.asarray(src_vocab)[offsets["word"].to_numpy()]
        out["offsets"] = offsets
        summary.update(share_measures(alignment_shares(terms), "share_"))
        summary.update(share_measures(top_alignment_shares(terms), "share_top1_"))
        summary.update({f"agree_{k}": float(v) for k, v in map_agreement(D_a, dec_ex, E_a, enc_ex).items()})
        summary["cos_temporal_input_delta"] = temporal_input_delta_cosine(D_a, E_a)
        summary["cos_temporal_input_delta_excess"] = (summary["cos_temporal_input_delta"]
                                                      - random_abs_cosine(D_a.mu.shape[1]))
        lengths = lambda df, pos: df.groupby("example")[pos].max().to_numpy() + 1  # noqa: E731 (<eos> included)
        predicted = predicted_offset(lengths(enc, "t"), lengths(dec, "s"), len(D_a.mu))
        summary.update(peak_measures(temporal_peaks(D_a.mu, E_a.mu, predicted[predicted.s < n_half(dec)])))
        summary.update(word_offset_measures(offsets))
        n_enc, n_dec = enc.groupby("example")["t"].max() + 1, dec.groupby("example")["s"].max() + 1
        same_length = (n_enc == n_dec.reindex(n_enc.index)).reindex(enc["example"]).fillna(False).to_numpy(bool)
        curve = word_temporal_dots(D_a.mu, E_a)
        summary.update(hide_measures(curve, src_vocab))
        summary.update(section4_measures(enc, E, E_a, D_a.mu, terms, offsets, curve, out.get("readout_alignment"),
                                         n_enc, n_dec, n_half(dec), src_vocab))
        if same_length.any():
            summary.update(hide_measures(word_temporal_dots(D_a.mu, E_a, rows=same_length), src_vocab, "_equal"))
    context = (context_vectors(alpha, dec["example"].to_numpy(), D.pos, np.asarray(enc_h, float),
                               enc["example"].to_numpy(), E.pos)
               if has_attention and alpha is not None and dec_query is None and readout_state is not None else None)
    summary.update(section3_measures(E, D, enc, dec, enc_h, dec_h, readout=readout, readout_state=readout_state,
                                     context=context, **({"attention": (D_a, E_a), "terms": terms}
                                                         if has_attention else {})))
    out["summary"] = pd.DataFrame([summary])
    return out


def share_measures(shares: pd.Series, prefix: str) -> dict[str, float]:
    """The nine shares and the sums the claims read: μ^D·(χ^E + Δh^E), the three terms with μ^D, the largest
    share, and Δh^D·χ^E's margin over the largest other."""
    out = {f"{prefix}{k}": float(shares[k]) for k in TERMS}
    out[f"{prefix}mu_input"] = float(shares["mu_chi"] + shares["mu_delta"])
    out[f"{prefix}three"] = float(shares["mu_mu"] + shares["mu_chi"] + shares["mu_delta"])
    out[f"{prefix}max"] = float(shares.max())
    out[f"{prefix}delta_chi_margin"] = float(shares["delta_chi"] - shares.drop("delta_chi").max())
    return out


def n_half(dec: pd.DataFrame) -> int:
    """The number of decoder steps that at least half of the examples reach (their μ_s is well estimated)."""
    return int(np.median(dec.groupby("example")["s"].max().to_numpy() + 1))


def _relative_norm(dec: Decomposition) -> float:
    """Mean ‖Δh‖ / mean ‖h − μ‖: how much of the input-delta component the input component leaves unexplained."""
    id_norm = np.linalg.norm(dec.input_delta, axis=1).mean()
    return float(np.linalg.norm(dec.delta, axis=1).mean() / id_norm) if id_norm > 0 else float("nan")


def analyze_exports(groups, vocab: dict[str, list[str]], has_attention: bool,
                    dictionary: dict[str, str] | None, metrics: pd.DataFrame | None = None,
                    translation: bool = False) -> dict[str, pd.DataFrame]:
    """Every seed of every exported seed group: ``groups`` holds one (encoder, decoder, readout) triple of Arrow
    tables per group (docs/activations.md). Returns table name -> rows of all seeds (column ``seed``); a VED has no
    attention, and its attention-only tables are empty so that every architecture writes the same files.
    ``metrics``: the training evaluations of every seed (metrics.csv), read into the summary's ``steps_to_acc``."""
    from ..seq2seq.export import states, vectors

    collected: dict[str, list[pd.DataFrame]] = {}
    for enc, dec, readout in groups:
        ro = readout.to_pandas()
        ro_w = vectors(readout, "weight")
        for seed in sorted(set(enc.column("seed").to_pylist())):
            enc_meta, enc_v = states(enc, seed, ("example", "t"))
            dec_meta, dec_v = states(dec, seed, ("example", "s"))
            hidden = enc_v["h"].shape[1]
            rows = (ro.seed == seed).to_numpy()
            # the readout part that acts on the context c_s (AED: the last H columns); h_s^D for VED
            weights = pd.DataFrame(ro_w[rows][:, -hidden:], index=ro.token[rows]).reindex(vocab["tgt"]).to_numpy()
            state = (pd.DataFrame(ro_w[rows][:, :hidden], index=ro.token[rows]).reindex(vocab["tgt"]).to_numpy()
                     if ro_w.shape[1] == 2 * hidden else None)  # the AED's readout of [h_s^D; c_s]
            result = analyze_seed(enc_meta, enc_v["h"], dec_meta, dec_v["h"], vocab["src"], vocab["tgt"],
                                  has_attention, enc_key=enc_v.get("key"), dec_query=dec_v.get("query"),
                                  readout=weights, dictionary=dictionary, readout_state=state,
                                  alpha=dec_v.get("alpha"), translation=translation)
            for name, df in result.items():
                df.insert(0, "seed", seed)
                collected.setdefault(name, []).append(df)
        collected.setdefault("readout", []).append(
            vector_frame(ro_w, "weight", seed=ro.seed, token=ro.token, bias=ro.bias))
    for name, columns in OPTIONAL_TABLES.items():
        collected.setdefault(name, [pd.DataFrame(columns=["seed", *columns], dtype=float)])
    out = {name: pd.concat(frames, ignore_index=True) for name, frames in collected.items()}
    if metrics is not None:
        out["summary"] = out["summary"].merge(seed_steps_to_threshold(metrics, LEARNED), on="seed", how="left")
    return out
