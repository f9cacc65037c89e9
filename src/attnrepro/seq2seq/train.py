"""Training of the encoder-decoders (Aitken et al. 2021) and the Transformer (Kobayashi et al. 2020, §5) through
the one engine (:func:`attnrepro.training.engine.fit`), and their model files.

Each seed is a member of the stack with data seed = seed; evaluation is greedy decoding of the first ``n_eval``
validation examples (token and sequence accuracy) beside the teacher-forced validation loss.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, TextIO

import pandas as pd
import torch

from ..training.config import TrainConfig
from ..data.vocab import Encoded
from ..training.engine import Member, fit, token_loss
from ..errors import AttnReproError
from .evaluation import accuracies
from ..io import quarantine, save_torch
from .model import EncoderDecoder, ModelConfig
from ..provenance import KEY, check, fingerprint, refuse, stamp
from .transformer import Transformer

METRIC_COLUMNS = ["step", "seed", "train_loss", "valid_loss", "token_acc", "seq_acc"]


def build_model(cfg: ModelConfig, seeds: list[int]) -> torch.nn.Module:
    """The model of ``cfg.arch``: the recurrent encoder-decoder of :mod:`attnrepro.seq2seq.model`, or the Transformer of
    :mod:`attnrepro.seq2seq.transformer` (arch ``transformer``, Kobayashi et al. 2020 §5)."""
    return Transformer(cfg, seeds) if cfg.arch == "transformer" else EncoderDecoder(cfg, seeds)


def greedy_evaluation(sos: int) -> Callable:
    """Teacher-forced validation loss, and token / sequence accuracy of greedy decodes: each [S]."""
    def evaluate(model, batch: Encoded) -> dict[str, torch.Tensor]:
        loss = token_loss(model(batch.src, batch.src_len, batch.tgt_in), batch)
        pred = model.greedy_decode(batch.src, batch.src_len, batch.tgt_out.shape[-1], sos)
        token_acc, seq_acc = accuracies(pred, torch.where(batch.tgt_mask(), batch.tgt_out, 0))
        return {"valid_loss": loss, "token_acc": token_acc, "seq_acc": seq_acc}
    return evaluate


def train(model_cfg: ModelConfig, cfg: TrainConfig, seeds: list[int], train_data: Encoded, valid_data: Encoded,
          ckpt_dir: str | Path, *, sos: int, name: str = "train", device: str | torch.device = "cpu",
          log: TextIO = sys.stderr, on_step: Callable[[int], None] | None = None) -> tuple[EncoderDecoder, pd.DataFrame]:
    """Train ``seeds`` stacked; returns the model and the metrics (one row per seed per evaluation). A non-finite
    loss or gradient stops the run with an error naming ``name``, the seed and the step."""
    result = fit(build_model(model_cfg, seeds), [Member.plain(s) for s in seeds], train_data,
                 valid_data.subset(slice(0, cfg.n_eval)), cfg, ckpt_dir, name=name, spec={"model": model_cfg.to_dict()},
                 evaluate=greedy_evaluation(sos), device=device, log=log, on_step=on_step)
    return result.model, result.metrics[METRIC_COLUMNS]


def save_model(model: EncoderDecoder, vocab: dict, path: str | Path, *, experiment: str | None = None,
               task: str | None = None, spec: dict | None = None) -> None:
    """``model.pt``: the weights, their config and vocabulary, stamped with the experiment, task and the
    fingerprint of the spec that trained them (:mod:`attnrepro.provenance`)."""
    blob = {"model_config": model.cfg.to_dict(), "seeds": model.seeds, "vocab": vocab,
            "state_dict": model.state_dict(),
            KEY: stamp("model", experiment=experiment, task=task, spec=fingerprint(spec))}
    save_torch(blob, path)


def load_model(path: str | Path, device="cpu", *, experiment: str | None = None,
               option: str = "--model") -> tuple[EncoderDecoder, dict]:
    """The model of ``path`` (its stamp as ``model.provenance``) and its vocabulary; the stamp must be of
    ``experiment`` (asked by ``--experiment``) when given. A file that is itself bad (unreadable, a
    checkpoint, another experiment's model in this one's folder) is moved aside under the results root; a good
    file that is not what was asked for, or not a ``model.pt`` at all, is named with ``option`` and left."""
    path = Path(path)
    if not path.exists():
        raise AttnReproError(f"{option} {path}: model file not found")
    try:
        blob = torch.load(path, map_location="cpu", weights_only=False)
    except Exception as err:  # torch.load of a truncated file raises anything from EOFError to RuntimeError
        first = (str(err).strip().splitlines() or [""])[0]  # torch's pickle errors run over several lines
        raise refuse(path, "model", f"not a readable model file ({type(err).__name__}: {first})", option) from err
    found = check(path, blob.get(KEY) if isinstance(blob, dict) else None, "model", option=option,
                  experiment=(experiment, "--experiment"))
    try:
        model = build_model(ModelConfig(**blob["model_config"]), blob["seeds"])
        model.load_state_dict(blob["state_dict"])
    except (KeyError, TypeError, RuntimeError, ValueError) as err:
        raise quarantine(path, f"its weights do not fit its config ({err})") from err
    model.provenance = found
    return model.to(device), blob["vocab"]
