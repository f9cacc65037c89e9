"""The mechanisms of Aitken et al. 2021 §4 beyond the alignment shares: where eSCAN's attention goes (Fig. 3a/d),
the context an AED carries into 'twice' (Fig. 6a, also from the exported ``input_delta`` table), words that hide from attention at every offset (Fig. 6c/d), the
read-out dictionary (Fig. 4c, 5d), and how translation's attention follows the diagonal (Fig. 4a, 5a/b).

Pure functions of the decompositions (:class:`~attnrepro.aitken2021.decomposition.Decomposition`) and the tables
:func:`attnrepro.aitken2021.analysis.analyze_seed` builds; :func:`section4_measures` gathers them for summary.csv.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import AttnReproError
from ..data.tokens import EOS
from .alignment import hide_measures
from .decomposition import Decomposition, alignment_shares, temporal_alignment, top_alignments
from .readout import readout_best, readout_match

SEPARATORS = ("and", "<.>", EOS)  # what ends an eSCAN sub-phrase
INNER = ("and", "<.>")            # those within a command (the word before <eos> also ends the whole input)
HIDDEN = ("and", "twice")         # input words with no output of their own (Fig. 5d, 6d)


def subphrase_ends(enc: pd.DataFrame, separators: tuple[str, ...] = SEPARATORS) -> np.ndarray:
    """Per encoder row (columns example, t, token): whether it is the last word of a sub-phrase, the word just
    before 'and', a command separator or ``<eos>`` (Fig. 3a: 'run left twice' ends at 'twice')."""
    order = enc.sort_values(["example", "t"])
    nxt = order.groupby("example")["token"].shift(-1)
    ends = nxt.isin(separators) & ~order["token"].isin(separators)
    return ends.reindex(enc.index).to_numpy(bool)


def subphrase_end_share(terms: pd.DataFrame, enc: pd.DataFrame, separators: tuple[str, ...] = INNER) -> float:
    """§4, Fig. 3a: the share of decoder steps whose top alignment t* (``terms`` rank 0) is a sub-phrase end, minus
    the share of encoder steps that are (the rate of attention that ignores sub-phrases); > 0 when consecutive
    outputs attend to the end of their sub-phrase. The word before ``<eos>`` counts as no end (default
    ``separators``), so that attention parked at the sentence's end scores below 0."""
    ends = pd.Series(subphrase_ends(enc, separators), index=pd.MultiIndex.from_arrays([enc["example"], enc["t"]]))
    top = top_alignments(terms)
    hit = ends.reindex(pd.MultiIndex.from_arrays([top["example"], top["t_star"]])).fillna(False).to_numpy(bool)
    return float(hit.mean() - ends.mean()) if len(top) else float("nan")


def attends_before(offsets: pd.DataFrame, word: str = "twice") -> float:
    """§4, Fig. 3d/6b: from :func:`~attnrepro.aitken2021.alignment.offset_alignment`'s ``by = "s"`` rows, the mean
    a_st at t = s − 1 minus at t = s when ``word`` is at t = s; > 0 when the decoder attends to the word before it."""
    rows = offsets[(offsets.by == "s") & (offsets.word == word)].set_index("offset")["a"]
    return float(rows.get(-1, np.nan) - rows.get(0, np.nan))


def preceding_words(example, pos, token) -> np.ndarray:
    """Per row, the word the same example read one step earlier (NaN at the first step)."""
    words = pd.Series(np.asarray(token), index=pd.MultiIndex.from_arrays([np.asarray(example), np.asarray(pos)]))
    return words.reindex(pd.MultiIndex.from_arrays([np.asarray(example), np.asarray(pos) - 1])).to_numpy()


def eta_squared(v: np.ndarray, groups: np.ndarray) -> float:
    """Between-group over total sum of squares of the rows of ``v`` [N, H] grouped by ``groups`` [N]; NaN with
    fewer than two rows or two groups, or no spread."""
    if len(v) < 2 or len(set(groups)) < 2:
        return float("nan")
    total = ((v - v.mean(0)) ** 2).sum()
    # summed in sorted group order: a set's order of strings changes with the interpreter's hash seed, and with it
    # the last bits of the sum
    within = sum(((v[groups == g] - v[groups == g].mean(0)) ** 2).sum() for g in sorted(set(groups)))
    return float(1 - within / total) if total > 0 else float("nan")


def context_ratio(enc: Decomposition, enc_rows: pd.DataFrame, vocab: list[str], word: str = "twice") -> float:
    """§4.2, Fig. 6a: the share of the variance of χ_word^E + Δh_t^E over the states reading ``word`` that the
    word before it explains (between-group over total sum of squares, η²): near 1 when the states form one
    cluster per preceding verb (AED's context), near 0 for one cluster (AO, which cannot see the word before)."""
    if word not in vocab:
        return float("nan")
    prev = preceding_words(enc_rows["example"], enc_rows["t"], enc_rows["token"])
    sel = (enc.token == vocab.index(word)) & pd.notna(prev)
    return eta_squared(enc.input_delta[sel], prev[sel])


INPUT_DELTA_COLUMNS = ("side", "example", "pos", "token")  # besides v0 .. v{H-1}


def word_states(input_delta: pd.DataFrame, word: str = "twice", what: str = "input_delta table") -> pd.DataFrame:
    """Fig. 6a's points from an ``input_delta`` table (side, example, pos, token, v*): the encoder rows reading
    ``word`` after another word, with column ``preceding`` (that word). A table without those columns, or
    without ``word``, is an error naming ``what`` (the table's file): the figure would otherwise be empty."""
    missing = [c for c in INPUT_DELTA_COLUMNS if c not in input_delta.columns]
    if missing or not any(c.startswith("v") and c[1:].isdigit() for c in input_delta.columns):
        raise AttnReproError(f"{what}: missing columns {missing or ['v0', '...']} "
                         f"(has {list(input_delta.columns)[:8]})")
    enc = input_delta[input_delta.side == "encoder"]
    prev = preceding_words(enc["example"], enc["pos"], enc["token"])
    out = enc.assign(preceding=prev)[(enc.token == word).to_numpy() & pd.notna(prev)]
    if out.empty:
        raise AttnReproError(f"{what}: no encoder state reads {word!r} after another word")
    return out


def word_context_ratio(states: pd.DataFrame) -> float:
    """η² of :func:`word_states`' vectors by ``preceding``: the table form of :func:`context_ratio`."""
    cols = sorted((c for c in states.columns if c.startswith("v") and c[1:].isdigit()), key=lambda c: int(c[1:]))
    return eta_squared(states[cols].to_numpy(dtype=float), states["preceding"].to_numpy())


def hide_everywhere(curve: pd.DataFrame, vocab: list[str], words: tuple[str, ...] = HIDDEN) -> dict[str, float]:
    """§4.2, Fig. 6d: ``hide_max_<w>``, the largest over offsets k of the authors' μ_{t+k}^D·(χ_w^E + Δh_t^E)
    (:func:`~attnrepro.aitken2021.alignment.word_temporal_dots`); < 0 when w is negative at all offsets."""
    return {f"hide_max_{w}": float(curve.loc[curve.word == vocab.index(w), "dot"].max()) for w in words if w in vocab}


def readout_max_hidden(table: pd.DataFrame, words: tuple[str, ...] = HIDDEN) -> float:
    """§4.1, Fig. 5d: the number of word readouts (special tokens ``<…>`` left out) whose largest alignment is with one of
    ``words``; the paper: 'and' and 'twice' are not the maximum of any readout (0)."""
    best = readout_best(table)
    best = best[~best.index.str.startswith("<")]
    return float(best.isin(words).sum()) if len(best) else float("nan")


def readout_maps_to(table: pd.DataFrame, targets: tuple[str, ...] = ("la", "le", "les"), source: str = "the"
                    ) -> float:
    """§4.1, Fig. 4c: the fraction of ``targets`` (those in the vocabulary) whose readout aligns most with
    χ_source^E; the paper: la, le and les all with χ_the^E (1)."""
    return readout_match(table, {y: source for y in targets}) if source in set(table.source) else float("nan")


def near_diagonal_share(terms: pd.DataFrame, src_len: pd.Series, tgt_len: pd.Series, width: int = 1) -> float:
    """§4, Fig. 4a: the share of decoder steps whose top alignment t* lies within ``width`` steps of the diagonal
    stretched to each example's lengths, s·T/S (T, S counting ``<eos>``); ``*_len`` indexed by example."""
    top = top_alignments(terms)
    if top.empty:
        return float("nan")
    scale = (src_len / tgt_len).reindex(top["example"]).to_numpy()
    return float(np.mean(np.abs(top["t_star"].to_numpy() - top["s"].to_numpy() * scale) <= width))


def early_mu_mu_margin(terms: pd.DataFrame, n_early: int = 3) -> float:
    """§4.1, Fig. 5a: over the first ``n_early`` decoder steps, the authors' share of μ_s^D·μ_t^E
    (:func:`~attnrepro.aitken2021.decomposition.alignment_shares`) minus the largest other of the nine terms
    (Eq. 3); > 0 when μ^D·μ^E is the largest contribution at early times."""
    early = terms[terms["s"] < n_early]
    if early.empty:
        return float("nan")
    shares = alignment_shares(early)
    return float(shares["mu_mu"] - shares.drop("mu_mu").max())


def temporal_offpeak_gain(dec_mu: np.ndarray, enc_mu: np.ndarray, n_steps: int) -> float:
    """§4.1, Fig. 5b: with softmax_t(μ_s^D·μ_t^E) the attention the temporal components alone give
    (:func:`~attnrepro.aitken2021.decomposition.temporal_alignment`), its mass off the peak (1 − the largest
    weight) averaged over the last third of the first ``n_steps`` decoder steps, minus over the first third; > 0
    when the temporal dot product falls off more slowly at later steps."""
    dec_mu = dec_mu[:n_steps]
    dec_mu = dec_mu[~np.isnan(dec_mu).any(axis=1)]
    mass = 1 - temporal_alignment(dec_mu, enc_mu[~np.isnan(enc_mu).any(axis=1)]).max(axis=1)
    third = len(mass) // 3
    return float(mass[-third:].mean() - mass[:third].mean()) if third else float("nan")


def section4_measures(enc_rows: pd.DataFrame, E: Decomposition, E_a: Decomposition, dec_mu: np.ndarray,
                      terms: pd.DataFrame, offsets: pd.DataFrame, curve: pd.DataFrame, readout: pd.DataFrame | None,
                      src_len: pd.Series, tgt_len: pd.Series, n_steps: int, vocab: list[str]) -> dict[str, float]:
    """The per-seed measures of this module for summary.csv (``E``: the hidden states' decomposition, ``E_a`` and
    ``dec_mu``: those of the vectors the attention multiplies; ``curve``: their
    :func:`~attnrepro.aitken2021.alignment.word_temporal_dots`; ``*_len``: words per example with ``<eos>``)."""
    out = {"subphrase_end_share": subphrase_end_share(terms, enc_rows),
           "twice_before_margin": attends_before(offsets) if "twice" in vocab else np.nan,
           "twice_context_ratio": context_ratio(E, enc_rows, vocab),
           "near_diagonal_share": near_diagonal_share(terms, src_len, tgt_len),
           "early_mu_mu_margin": early_mu_mu_margin(terms),
           "temporal_offpeak_gain": temporal_offpeak_gain(dec_mu, E_a.mu, n_steps)}
    out.update(hide_everywhere(curve, vocab))
    out.update(hide_measures(curve, vocab, hidden=("left",)))  # Fig. 6c: 'left' too is negative at t = s
    if readout is not None:
        out["readout_max_hidden"] = readout_max_hidden(readout) if "twice" in vocab else np.nan
        out["readout_the"] = readout_maps_to(readout)
    return out
