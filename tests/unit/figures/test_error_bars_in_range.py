"""Every figure of the three wings that draws error bars or bands of a bounded quantity — shares, accuracies,
failure rates, AER — keeps them inside [0, 1], on hand cases near the bounds: Aitken's Fig. 5a and bottleneck
(the interval of a mean, :func:`attnrepro.verdicts.descriptive.mean_interval`), Snell's Fig. 3 failure band
(Clopper–Pearson), Kobayashi's Fig. 7 (the seeds' range). Snell's Fig. 7 draws ± sd of a log-odds, unbounded."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import LineCollection, PolyCollection  # noqa: E402

from attnrepro.aitken2021.decomposition import TERMS  # noqa: E402
from attnrepro.aitken2021.figures_compare import bottleneck, fig5a  # noqa: E402
from attnrepro.kobayashi2020.figures import fig7 as kobayashi_fig7  # noqa: E402
from attnrepro.snell2021.figures import fig3_failures  # noqa: E402


def drawn_extent(fig) -> tuple[float, float]:
    """The lowest and highest y of every error bar (line collections) and band (polygons) the figure draws."""
    ys = []
    for ax in fig.axes:
        for c in ax.collections:
            if isinstance(c, LineCollection):
                ys += [y for seg in c.get_segments() for y in np.asarray(seg)[:, 1]]
            elif isinstance(c, PolyCollection):
                ys += [y for path in c.get_paths() for y in path.vertices[:, 1]]
    assert ys, "the figure draws no error bar or band"
    plt.close(fig)
    return min(ys), max(ys)


def _shares(mu_mu, mu_input):
    """Per seed: μμ and μχ + μΔ as given, the other six terms splitting the rest."""
    mu_mu, mu_input = np.asarray(mu_mu), np.asarray(mu_input)
    rest = (1 - mu_mu - mu_input) / 6
    df = pd.DataFrame({"seed": range(len(mu_mu)), "share_mu_mu": mu_mu, "share_mu_chi": mu_input / 2,
                       "share_mu_delta": mu_input / 2, "share_mu_input": mu_input})
    for k in TERMS:
        if f"share_{k}" not in df:
            df[f"share_{k}"] = rest
    return df


def test_fig5a_bars_stay_inside_a_share_of_one():
    # three seeds with a share near 1 and one off it: Student-t ran past 1 at μμ's edge and at the stack's top
    summaries = {"aed": _shares([0.99, 0.6, 0.95], [0.005, 0.3, 0.03]),
                 "ao": _shares([0.2, 0.5, 0.35], [0.79, 0.2, 0.6])}
    meta = {n: {"task_kind": "escan", "arch": n} for n in summaries}
    fig, data = fig5a(summaries, meta)
    low, high = drawn_extent(fig)
    assert high <= 1.0 and 0.0 <= low
    assert ((data.ci_low >= 0) & (data.ci_high <= 1)).all()
    three = data[(data.part == "three") & (data.experiment == "aed")].iloc[0]
    assert three["mean"] == pytest.approx(np.mean([0.995, 0.9, 0.98]))   # the second boundary's share


def test_bottleneck_band_stays_inside_an_accuracy_of_one():
    acc = pd.DataFrame({"seed": [0, 1, 2] * 2, "length": [5, 5, 5, 9, 9, 9],
                        "token_acc": [1.0, 1.0, 0.5, 0.02, 0.3, 0.0], "seq_acc": [1.0, 0.9, 0.2, 0.0, 0.1, 0.0]})
    fig, data = bottleneck({"aed": acc}, {"aed": "AED"})
    low, high = drawn_extent(fig)
    assert 0.0 <= low and high <= 1.0


def test_snell_failure_band_and_kobayashi_range_stay_inside():
    failures = pd.DataFrame({"run": "copy_same", "step": [0, 50, 100], "n_seeds": 6, "n_below": [6, 3, 0]})
    assert 0.0 <= drawn_extent(fig3_failures(failures, {"same": "permutations"}, 90)[0])[0]
    assert drawn_extent(fig3_failures(failures, {"same": "permutations"}, 90)[0])[1] <= 1.0
    per_layer = pd.DataFrame({"experiment": "t", "method": ["weight", "norm"] * 6, "layer": np.repeat([0, 1, 2], 4),
                              "seed": np.tile([0, 0, 1, 1], 3), "aer": np.linspace(0.0, 1.0, 12)})
    low, high = drawn_extent(kobayashi_fig7(per_layer)[0])
    assert 0.0 <= low and high <= 1.0
