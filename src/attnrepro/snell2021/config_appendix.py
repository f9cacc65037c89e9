"""The optional App. A.1 part of the ``snell2021:`` block (``translation.alpha_opt``), resolved into its jobs:
apart from :mod:`.config` so that module stays one screenful per concept.

``translation.alpha_opt: {sets: [...], iterations: N}``: per named translation set, one run ``mt_<set>_eq32`` of the
set's Table 2 recipe (seeds, width, dropout, training) with App. A.1's linear read-out, Eq. 32, p_t = σ(W(c_t + d_t))
(model ``readout: linear``), learned attention and no probes recorded (α^opt and β are read from its final model);
the ``snell2021_alpha_opt`` rule solves α^opt per held-out target token with ``iterations`` projected-gradient steps
(:mod:`.optimal_attention`); the set's Table 2 analysis reads that table and adds A(α^opt, β) − Â to its summary.
"""

from __future__ import annotations

from typing import Any

from ..errors import AttnReproError

SUFFIX = "_eq32"


def _block(block: dict[str, Any]) -> dict[str, Any] | None:
    return block.get("translation", {}).get("alpha_opt")


def sets(block: dict[str, Any]) -> list[str]:
    a = _block(block)
    return list(a["sets"]) if a else []


def run_name(name: str) -> str:
    return f"mt_{name}{SUFFIX}"


def check(block: dict[str, Any]) -> None:
    """Every set of ``translation.alpha_opt.sets`` is a translation set of the block, with the authors' model."""
    a = _block(block)
    if not a:
        return
    t = block["translation"]
    for name in a["sets"]:
        if name not in t["sets"]:
            raise AttnReproError(f"snell2021.translation.alpha_opt.sets: {name!r} is not a set of "
                                 f"snell2021.translation.sets ({sorted(t['sets'])})")
    if t.get("architecture") != "authors":
        raise AttnReproError("snell2021.translation.alpha_opt needs translation.architecture: authors (Eq. 32 "
                             "replaces that model's ReLU read-out)")


def runs(block: dict[str, Any], table2_runs: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The Eq. 32 runs: each a copy of its set's learned Table 2 run (``table2_runs``) with the linear read-out and
    nothing recorded (App. A.4's records of the learned run, :func:`.config.appendix_records`, left out too)."""
    out = {}
    for name in sets(block):
        learned = {k: v for k, v in table2_runs[f"mt_{name}_learned"].items()
                   if k not in ("train_sample", "bleu_curve")}
        out[run_name(name)] = {**learned, "model": {**learned["model"], "readout": "linear"}, "record": []}
    return out


def iterations(block: dict[str, Any]) -> int:
    return int(_block(block)["iterations"])


def analysis_roles(block: dict[str, Any], prefix: str) -> dict[str, str]:
    """The Table 2 analysis ``prefix``'s extra spec key: the Eq. 32 run whose α^opt table it reads."""
    name = prefix.removeprefix("mt_")
    return {"alpha_opt": run_name(name)} if prefix.startswith("mt_") and name in sets(block) else {}
