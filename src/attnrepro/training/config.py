"""The optimisation settings of a training run, as one frozen dataclass: what :func:`attnrepro.training.engine.fit`
reads and every checkpoint's fingerprint records."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from ..errors import AttnReproError


@dataclass(frozen=True)
class TrainConfig:
    """Optimisation settings of every trained model (:func:`attnrepro.training.engine.fit`). Aitken et al.'s authors use
    Adam β=(0.9, 0.99), ε=0.1, lr 0.1 decaying ×0.9997 per step, gradient clip 10, L2 1e-5, batch 128; Snell et
    al.'s use PyTorch's Adam defaults (β=(0.9, 0.999), ε=1e-8, lr 1e-3), no decay, no clipping (``grad_clip``
    null), no L2. ``eval_at`` lists evaluations besides every ``eval_every``-th step and the last (0 = before
    training; Snell et al.'s App. A.8 schedule 0, 10, 50, ..., 250, then every 250). ``loss``: "real" (the mean
    over the real target tokens) or "padded" (Aitken et al.'s code: the same sum over B × the padded length,
    :func:`attnrepro.training.engine.token_loss`)."""

    steps: int
    batch_size: int
    lr: float
    lr_decay: float
    betas: tuple[float, float]
    eps: float
    grad_clip: float | None
    l2: float
    checkpoint_every: int
    eval_every: int
    n_eval: int
    eval_at: tuple[int, ...] = ()
    loss: str = "real"

    OPTIONAL = ("eval_at", "loss")
    LOSSES = ("real", "padded")

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "TrainConfig":
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise AttnReproError(f"unknown training key(s) {sorted(unknown)}")
        missing = known - set(d) - set(cls.OPTIONAL)
        if missing:
            raise AttnReproError(f"missing training key(s) {sorted(missing)}")
        if d.get("loss", "real") not in cls.LOSSES:
            raise AttnReproError(f"train.loss: {d['loss']!r} is not one of {list(cls.LOSSES)}")
        return cls(**{**d, "betas": tuple(d["betas"]), "eval_at": tuple(d.get("eval_at", ()))})

    def to_dict(self) -> dict[str, Any]:
        """The fields; ``loss`` only where it is not the default, so that a run that leaves it at the default
        keeps the checkpoints' fingerprint of a config without the key."""
        d = asdict(self)
        d["betas"], d["eval_at"] = list(self.betas), list(self.eval_at)
        if self.loss == "real":
            del d["loss"]
        return d
