"""The scale ladder's figure: per claim and base experiment, its measure (mean over seeds, 95% interval as error
bars) against width and against training steps, with the claim's threshold (dashed) and the paper's number
(dotted) where it prints one."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

AXES = {"hidden": "hidden units", "steps": "training steps"}


def ladder_figure(table: pd.DataFrame, thresholds: dict[str, float]) -> tuple[plt.Figure, pd.DataFrame]:
    """One row of panels per (claim, experiment) of :func:`attnrepro.verdicts.ladder.ladder_table`, one column per axis;
    ``thresholds``: claim id -> the claim's threshold."""
    pairs = list(table[["claim_id", "experiment"]].drop_duplicates().itertuples(index=False, name=None))
    fig, axes = plt.subplots(max(len(pairs), 1), 2, figsize=(8, 2.4 * max(len(pairs), 1)), squeeze=False)
    for row, (claim, experiment) in enumerate(pairs):
        rows = table[(table.claim_id == claim) & (table.experiment == experiment)]
        for col, axis in enumerate(AXES):
            ax = axes[row, col]
            pts = rows[rows.axis == axis].sort_values(axis)
            ax.errorbar(pts[axis], pts.measured_mean, yerr=[pts.measured_mean - pts.ci_low,
                                                            pts.ci_high - pts.measured_mean],
                        fmt="o-", capsize=3, color="C0")
            threshold = thresholds.get(claim)
            for level in (threshold if isinstance(threshold, tuple) else (threshold,)):
                if level is not None:
                    ax.axhline(level, ls="--", color="0.4", lw=1)
            ref = pts.reference_value.dropna()
            if len(ref):
                ax.axhline(ref.iloc[0], ls=":", color="C3", lw=1)
            ax.set_xscale("log", base=2)
            ax.minorticks_off()
            ax.set_xticks(pts[axis].tolist(), [str(int(v)) for v in pts[axis]])
            ax.set_xlabel(AXES[axis])
            ax.set_title(f"{claim}\n{experiment}", fontsize=8)
            if col == 0:
                ax.set_ylabel(pts.measure.iloc[0] if len(pts) else "")
    fig.tight_layout()
    return fig, table
