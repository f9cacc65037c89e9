"""Activation export: one Parquet file per table, readable with plain pandas or pyarrow.

For a fixed evaluation set (the first ``n_examples`` of the test split) and every seed of a trained stack, one
pass of :meth:`EncoderDecoder.run_with_cache` is written as three tables: the teacher-forced pass
(``teacher_forced``, the default: the decoder reads ``<sos>`` then the previous target word) or the free-running
greedy pass (``greedy``: it reads ``<sos>`` then its own previous prediction, the decodes Aitken et al.'s notebook
analyses, χ^D keyed by the previous *predicted* word; see "The greedy pass" below). Rows exist only for real
positions — the end-of-sentence mask of Aitken et al. Eq. 1 is the absence of rows, nothing needs masking.

``encoder.parquet`` — one row per encoder state h_t^E:
    seed int32 · example int32 · t int16 (0-based; the ``<eos>`` step is t = src_len − 1) · token string
    (the input word x_t^E read at step t) · src_len int16 · h fixed_size_list<float32>[H]

``decoder.parquet`` — one row per decoder state h_s^D:
    seed · example · s int16 · token string (the decoder input x_s^D: ``<sos>``, then the previous target word;
    under the greedy pass the seed's own previous prediction)
    · target string (the word to emit) · predicted string (greedy decoding, fed back its own words) · tgt_len
    int16 · hypothesis string (the example's whole greedy decode, words joined by single spaces, up to and
    including its first ``<eos>``; all of the decode's steps where it emits none) · h fixed_size_list<float32>[H]
    · alpha list<float32> (attention weights over t < src_len; null for
    VED) · scores list<float32> (alignments a_st, same length; null for VED) · query fixed_size_list<float32>[d]
    (q_s with the 1/√d folded in, so that a_st = q_s·k_t; only for ``attention: qkv``)

``readout.parquet`` — one row per output word y and seed:
    seed · token string · weight fixed_size_list<float32>[R] (the readout vector; R = H for VED/AO, 2H for AED
    with the first H acting on h_s^D and the last H on c_s) · bias float32

``predicted`` stops at the target's length, as every per-step column does; ``hypothesis`` (the same value on
each of an example's rows, as ``tgt_len``) is the decode the word error rate and BLEU read, so that words a decode
emits past the target's end count as insertions. The decode runs as many steps as the split's longest target has
positions (``tgt_out``'s width), as :func:`attnrepro.seq2seq.evaluation.greedy_predictions`.

The greedy pass: the states are the teacher-forced pass of the model over the inputs its own greedy decode read
(``<sos>``, then ``predicted`` shifted by one step): the decoder's state depends only on the words it reads, so
this is the free-running decode's states, attention and read-outs, computed by the one decoder, not by a second
loop. Rows are cut at each example's target length, as in the teacher-forced pass, so that position s means the
same step in both and the decomposition's μ_s averages the same examples. A decode that emits ``<eos>`` before the
target's end keeps going on its own words (``<eos>``, then whatever it predicts next) up to the target length:
those steps are the model's, never the target's (no teacher-forced step is mixed in); a decode longer than its
target is cut there, as ``predicted`` always is (``hypothesis`` still holds the whole decode).

Why this layout: one row per state with the vector as a fixed-size list, written with one row group per seed
and dictionary encoding only for the word columns (:func:`parquet_options`), measured fastest to read into an
``[N, H]`` array for the analyses' access pattern (all states of one seed) and smallest on disk of the layouts in
``bench/export_layout.py``; numbers in ``docs/activations.md``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import torch

from ..data.vocab import Encoded, Vocab
from ..errors import AttnReproError
from ..io import padded_lists, ragged_prefixes
from .model import EncoderDecoder
from ..data.tokens import EOS, SOS


def _vectors(x: np.ndarray) -> pa.FixedSizeListArray:
    x = np.ascontiguousarray(x, dtype=np.float32)
    return pa.FixedSizeListArray.from_arrays(pa.array(x.reshape(-1)), x.shape[1])


def hypotheses(pred: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Greedy decodes ``pred`` [B, L] (ids into ``words``) as text, one string per row: the words up to and
    including the first ``<eos>`` (all L where there is none), joined by single spaces."""
    bad = [w for w in words if not w or w != w.strip() or len(w.split()) != 1]
    if bad:  # the text must split back into the decode's words
        raise AttnReproError(f"target vocabulary words {bad[:5]!r} are empty or hold white space")
    eos = int(np.flatnonzero(words == EOS)[0])
    ends = np.where((pred == eos).any(1), (pred == eos).argmax(1) + 1, pred.shape[1])
    return np.array([" ".join(words[row[:end]]) for row, end in zip(pred, ends)], dtype=object)


#: the decoder passes an export can write (module docstring); the first is the default
PASSES = ("teacher_forced", "greedy")


def check_pass(pass_: str) -> None:
    if pass_ not in PASSES:
        raise AttnReproError(f"export pass {pass_!r}: expected one of {', '.join(PASSES)}")


def decoder_inputs(tgt_in: torch.Tensor, pred: torch.Tensor, pass_: str) -> torch.Tensor:
    """The words the decoder reads, [S,B,L]: ``tgt_in`` (``<sos>``, then the previous target word) for the
    teacher-forced pass; ``<sos>``, then the seed's own previous greedy prediction ``pred`` [S,B,L] for ``greedy``."""
    check_pass(pass_)
    if pass_ == "teacher_forced":
        return tgt_in
    return torch.cat([tgt_in[..., :1], pred[..., :-1]], -1)


@torch.no_grad()
def export_activations(model: EncoderDecoder, data: Encoded, vocab: Vocab, device="cpu",
                       pass_: str = "teacher_forced") -> dict[str, pa.Table]:
    """Run ``data`` through every seed of ``model`` in the decoder pass ``pass_`` (:data:`PASSES`); returns the
    ``encoder``, ``decoder`` and ``readout`` tables."""
    check_pass(pass_)  # before the decode: a bad value costs nothing
    model.eval()
    n = model.n_seeds
    expand = lambda x: x.unsqueeze(0).expand(n, *x.shape).to(device)
    src, src_len, tgt_in, tgt_out = (expand(x) for x in (data.src, data.src_len, data.tgt_in, data.tgt_out))
    sos = vocab.tgt.index(SOS)
    pred_ids = model.greedy_decode(src, src_len, tgt_out.shape[-1], sos)
    inputs = decoder_inputs(tgt_in, pred_ids, pass_)
    _, cache = model.run_with_cache(src, src_len, inputs)
    pred, inputs = pred_ids.cpu().numpy(), inputs.cpu().numpy()
    src_words, tgt_words = np.array(vocab.src, dtype=object), np.array(vocab.tgt, dtype=object)

    s_len, t_len = data.src_len.numpy(), data.tgt_len.numpy()
    enc_ex, enc_t = np.nonzero(np.arange(data.src.shape[1])[None, :] < s_len[:, None])
    dec_ex, dec_s = np.nonzero(np.arange(data.tgt_in.shape[1])[None, :] < t_len[:, None])
    enc_h, dec_h = cache["encoder.h"].cpu().numpy(), cache["decoder.h"].cpu().numpy()
    has_attention = "attention.alpha" in cache
    if has_attention:
        alpha, scores = cache["attention.alpha"].cpu().numpy(), cache["attention.scores"].cpu().numpy()
    learned = has_attention and model.cfg.attention != "dot"  # queries and keys differ from the states
    if learned:
        query, key = cache["attention.query"].cpu().numpy(), cache["attention.key"].cpu().numpy()

    enc_tables, dec_tables, readout_tables = [], [], []
    for k, seed in enumerate(model.seeds):
        enc = {
            "seed": pa.array(np.full(len(enc_ex), seed, np.int32)),
            "example": pa.array(enc_ex.astype(np.int32)),
            "t": pa.array(enc_t.astype(np.int16)),
            "token": pa.array(src_words[data.src.numpy()[enc_ex, enc_t]].tolist(), pa.string()),
            "src_len": pa.array(s_len[enc_ex].astype(np.int16)),
            "h": _vectors(enc_h[k, enc_ex, enc_t]),
        }
        if learned:
            enc["key"] = _vectors(key[k, enc_ex, enc_t])
        enc_tables.append(pa.table(enc))
        dec = {
            "seed": pa.array(np.full(len(dec_ex), seed, np.int32)),
            "example": pa.array(dec_ex.astype(np.int32)),
            "s": pa.array(dec_s.astype(np.int16)),
            "token": pa.array(tgt_words[inputs[k, dec_ex, dec_s]].tolist(), pa.string()),
            "target": pa.array(tgt_words[data.tgt_out.numpy()[dec_ex, dec_s]].tolist(), pa.string()),
            "predicted": pa.array(tgt_words[pred[k, dec_ex, dec_s]].tolist(), pa.string()),
            "tgt_len": pa.array(t_len[dec_ex].astype(np.int16)),
            # a new column here: raise layout.EXPORT_FORMAT, so existing results folders are re-exported
            "hypothesis": pa.array(hypotheses(pred[k], tgt_words)[dec_ex].tolist(), pa.string()),
            "h": _vectors(dec_h[k, dec_ex, dec_s]),
        }
        if has_attention:
            dec["alpha"] = ragged_prefixes(alpha[k, dec_ex, dec_s], s_len[dec_ex])
            dec["scores"] = ragged_prefixes(scores[k, dec_ex, dec_s], s_len[dec_ex])
        else:
            dec["alpha"] = pa.nulls(len(dec_ex), pa.list_(pa.float32()))
            dec["scores"] = pa.nulls(len(dec_ex), pa.list_(pa.float32()))
        if learned:
            dec["query"] = _vectors(query[k, dec_ex, dec_s])
        dec_tables.append(pa.table(dec))
        w = model.readout.weight[k].cpu().numpy().T  # [V, R]
        # a read-out without a bias (readout_bias: false, the authors') is written with bias 0: the same function
        bias = np.zeros(len(w)) if model.readout.bias is None else model.readout.bias[k, 0].cpu().numpy()
        readout_tables.append(pa.table({
            "seed": pa.array(np.full(len(vocab.tgt), seed, np.int32)),
            "token": pa.array(list(vocab.tgt), pa.string()),
            "weight": _vectors(w),
            "bias": pa.array(bias.astype(np.float32)),
        }))
    return {"encoder": pa.concat_tables(enc_tables), "decoder": pa.concat_tables(dec_tables),
            "readout": pa.concat_tables(readout_tables)}


def parquet_options(table: pa.Table) -> dict:
    """Writer settings of the exported tables: a row group per seed (a seed's rows are read without touching the
    others) and dictionary encoding for the word columns only (floats do not repeat; a hypothesis repeats on each
    of its example's rows)."""
    per_seed = int(np.unique(table.column("seed").to_numpy(), return_counts=True)[1].max())
    words = [c for c in ("token", "target", "predicted", "hypothesis") if c in table.column_names]
    return {"row_group_size": per_seed, "use_dictionary": words}


def vectors(table: pa.Table, column: str = "h") -> np.ndarray:
    """The fixed-size-list column ``column`` as an ``[N, H]`` float32 array (zero-copy where possible)."""
    col = table.column(column).combine_chunks()
    return col.values.to_numpy(zero_copy_only=False).reshape(len(col), col.type.list_size)


def states(table: pa.Table, seed: int, order: tuple[str, str]) -> tuple[pd.DataFrame, dict[str, np.ndarray]]:
    """Rows of one seed sorted by ``order`` (e.g. ``("example", "t")``): the scalar columns, every vector column
    (``h``, and ``query``/``key`` where exported) as an [N, H] array, and every ragged column with a value
    (``alpha``, ``scores``) as an [N, T] array, NaN beyond each row's input."""
    import pyarrow.compute as pc

    sub = table.filter(pc.equal(table.column("seed"), seed)).sort_by([(c, "ascending") for c in order])
    lists = [f.name for f in sub.schema if pa.types.is_list(f.type) or pa.types.is_fixed_size_list(f.type)]
    arrays = {f.name: vectors(sub, f.name) for f in sub.schema if pa.types.is_fixed_size_list(f.type)}
    ragged = {f.name: padded_lists(sub.column(f.name)) for f in sub.schema if pa.types.is_list(f.type)}
    arrays.update({name: values for name, values in ragged.items() if values is not None})
    return sub.drop_columns(lists).to_pandas(), arrays
