"""Soft source-target alignments of a trained model, read per layer from its attention as weights and as vector
norms (Kobayashi et al. 2020, §5), with a check of Eq. 3 on the way.

- :class:`attnrepro.seq2seq.transformer.Transformer`: every decoder layer's multi-head source-target attention;
  f^h(x) = v^h(x) W^O_h.
- :class:`attnrepro.seq2seq.model.EncoderDecoder` with attention (AED, AO; dot or query/key/value): one layer, one
  head, no output map, so f(x) = v(x) (h^E itself for dot attention) and the module's output is the context.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import torch

from .aer import aer_by_layer, best_and_mean, soft_alignments
from .norms import check_eq3, decomposed_output
from .periods import period_shares
from .soft_examples import soft_alignment_table
from ..seq2seq.model import EncoderDecoder
from ..seq2seq.transformer import Transformer


def _layers(model, cache) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """(α [S,B,H,Q,K], f [S,B,H,K,d], rebuilt − real output) per attention layer."""
    if isinstance(model, Transformer):
        out = []
        for layer, (w_o, b_o) in enumerate(model.output_maps()):
            alpha = cache[f"decoder.{layer}.cross.alpha"]
            f = torch.einsum("sbhkv,shvd->sbhkd", cache[f"decoder.{layer}.cross.value"], w_o)
            diff = decomposed_output(alpha, f, b_o[:, None, None, :]) - cache[f"decoder.{layer}.cross.out"]
            out.append((alpha, f, diff))
        return out
    alpha, f = cache["attention.alpha"][:, :, None], cache["attention.value"][:, :, None]
    return [(alpha, f, decomposed_output(alpha, f) - cache["attention.context"])]


def has_source_target_attention(model) -> bool:
    return isinstance(model, Transformer) or (isinstance(model, EncoderDecoder) and model.cfg.arch != "ved")


@torch.no_grad()
def source_target_alignments(model, src, src_len, tgt_in, chunk: int = 128):
    """Per seed and layer, {``weight``: α averaged over heads, ``norm``: ‖Σ_h α^h f^h(x_j)‖} as numpy arrays
    [B, Q, K], and the largest |Σ_h Σ_j α f + b^O − output| (Eq. 3). Inputs are [B, ...], shared by all seeds."""
    model.eval()
    n = model.n_seeds
    parts = None
    error = 0.0
    for start in range(0, src.shape[0], chunk):
        sl = slice(start, start + chunk)
        expand = lambda x: x[sl].unsqueeze(0).expand(n, *x[sl].shape)
        _, cache = model.run_with_cache(expand(src), expand(src_len), expand(tgt_in))
        layers = _layers(model, cache)
        if parts is None:
            parts = [[{"weight": [], "norm": []} for _ in layers] for _ in range(n)]
        for li, (alpha, f, diff) in enumerate(layers):
            error = max(error, float(diff.abs().max()))
            soft = soft_alignments(alpha, f)
            for s in range(n):
                for method in ("weight", "norm"):
                    parts[s][li][method].append(soft[method][s].numpy())
    return [[{m: np.concatenate(v) for m, v in layer.items()} for layer in seed] for seed in parts], error


def aer_tables(models, data, sure, possible, log=None, periods=None, words=None, n_soft: int = 3
               ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame | None]:
    """Per-layer AER (columns seed, layer, method, aer) and its per-seed summary for every seed of every model of
    ``models`` ((name, model) pairs), read with teacher forcing on ``data`` against the gold links ``sure`` /
    ``possible`` (§5). ``periods`` ([B, K] mask of the source periods, real text only) adds Fig. 8's
    ``period_share_drop`` and ``period_weight_excess`` to the summary. ``words`` ((source, target) word lists of
    ``data``'s pairs) adds the third table: the soft alignments of the first ``n_soft`` pairs, every layer, for
    the first seed of the first model (Fig. 8; :mod:`.soft_examples`); None without ``words``."""
    src_words, tgt_words = (data.src_len - 1).numpy(), (data.tgt_len - 1).numpy()  # <eos> is no word
    per_layer, summary, examples = [], [], None
    for name, model in models:
        soft, error = source_target_alignments(model, data.src, data.src_len, data.tgt_in)
        check_eq3(error, f"{name}: ")
        if words is not None and examples is None:
            examples = soft_alignment_table(soft[0], words[0], words[1], sure, possible, model.seeds[0], n_soft)
        for seed, layers in zip(model.seeds, soft):
            df = aer_by_layer(layers, src_words, tgt_words, sure, possible)
            per_layer.append(df.assign(seed=seed))
            row = {"seed": seed, **best_and_mean(df)}
            if periods is not None:
                row.update(period_shares(layers, periods, data.src_len.numpy(), tgt_words))
            summary.append(row)
        if log is not None:
            print(f"{name}: decomposition error {error:.2g}", file=log)
    per_layer = pd.concat(per_layer, ignore_index=True)[["seed", "layer", "method", "aer"]]
    return per_layer, pd.DataFrame(summary), examples
