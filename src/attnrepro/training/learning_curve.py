"""How fast a training run learns, read from its evaluations (the metrics.csv of :mod:`attnrepro.seq2seq.train` and
:mod:`attnrepro.training.engine`, one row per seed per evaluation): the first evaluated step at which a metric reaches a
threshold (Snell et al. 2021, Fig. 3 "converges slower"; the background post's "easier to optimize")."""

from __future__ import annotations

import numpy as np
import pandas as pd


def steps_to_threshold(steps: np.ndarray, values: np.ndarray, threshold: float) -> tuple[float, float]:
    """(first, censored): the first of ``steps`` (in increasing order) whose value is ≥ ``threshold``, NaN if none;
    and the same with a run that never gets there counted one evaluation past its last step."""
    steps, values = np.asarray(steps, dtype=float), np.asarray(values, dtype=float)
    reached = np.flatnonzero(values >= threshold)
    first = float(steps[reached[0]]) if len(reached) else np.nan
    beyond = float(steps[-1] + (steps[-1] - steps[-2] if len(steps) > 1 else 1))
    return first, beyond if np.isnan(first) else first


def seed_steps_to_threshold(metrics: pd.DataFrame, threshold: float, column: str = "token_acc",
                            name: str = "steps_to_acc") -> pd.DataFrame:
    """Per seed of ``metrics`` (columns step, seed, ``column``): ``name``, the censored steps to reach
    ``threshold`` (:func:`steps_to_threshold`). Columns seed, ``name``."""
    rows = [(seed, steps_to_threshold(c.step.to_numpy(), c[column].to_numpy(), threshold)[1])
            for seed, c in metrics.sort_values("step").groupby("seed")]
    return pd.DataFrame(rows, columns=["seed", name])
