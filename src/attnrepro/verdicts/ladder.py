"""The scale ladder: a claim's measure against model width and training steps, so a reader sees at
which scale an effect appears rather than only whether it holds at one.

The optional config block ``ladder`` names base experiments and the widths (``hidden``) and step counts
(``steps``) to try. Each point off the base changes one of the two and keeps everything else; the base itself is
the point of both axes where they cross. A derived experiment is called ``<base>__h<hidden>`` or
``<base>__s<steps>`` and trains, exports and is analysed by the ordinary rules; each point's claims are the claims
step over that point's experiments; :func:`ladder_table` stacks them.
"""

from __future__ import annotations

import copy
from typing import Any

import pandas as pd

from ..errors import AttnReproError

BASE = "base"


def points(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Point name -> which axis it moves and to what value (``base``: neither)."""
    block = config.get("ladder") or {}
    if not block:
        return {}
    out = {BASE: {"axis": BASE, "value": None}}
    out.update({f"h{h}": {"axis": "hidden", "value": h} for h in block["hidden"]})
    out.update({f"s{s}": {"axis": "steps", "value": s} for s in block["steps"]})
    return out


def derived_name(base: str, point: str) -> str:
    return base if point == BASE else f"{base}__{point}"


def experiments(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every experiment a ladder point needs beyond the config's own: name -> experiment block. A point equal to
    its base (the base's own width or steps) is the base experiment, not a copy of it. An experiment of the config
    named as a point's (``<base>__h<hidden>``, ``<base>__s<steps>``) is an error naming it and the ladder's key:
    the point would replace it. Called at the config's edge (:func:`attnrepro.run.config.check`) before the
    points join ``experiments``."""
    out = _derived(config)
    for name in sorted(set(out) & set(config["experiments"])):
        base, point = name.rsplit("__", 1)
        key = "hidden" if point.startswith("h") else "steps"
        raise AttnReproError(f"experiments.{name}: the name of the scale ladder's point {point} of {base!r} "
                             f"(ladder.{key}: {point[1:]}), which would replace it; rename the experiment")
    return out


def _derived(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    block = config.get("ladder") or {}
    if block.get("claims"):
        from .papers import CLAIMS

        unknown = sorted(set(block["claims"]) - {c.claim_id for c in CLAIMS})
        if unknown:
            raise AttnReproError(f"ladder.claims: unknown claim(s) {unknown}")
    out = {}
    for base in block.get("experiments", []):
        if base not in config["experiments"]:
            raise AttnReproError(f"ladder.experiments: unknown experiment {base!r}")
        exp = config["experiments"][base]
        if exp["model"]["arch"] == "transformer":
            raise AttnReproError(f"ladder.experiments: {base} is a transformer; the ladder varies recurrent widths")
        train = {**config["train"], **exp.get("train", {})}
        for point, p in points(config).items():
            if point == BASE or (p["axis"] == "hidden" and p["value"] == exp["model"]["hidden"]) or \
                    (p["axis"] == "steps" and p["value"] == train["steps"]):
                continue
            new = copy.deepcopy(exp)
            if p["axis"] == "hidden":
                new["model"]["hidden"] = p["value"]
            else:  # a shorter run evaluates and checkpoints within its own length
                s = p["value"]
                new["train"] = {**exp.get("train", {}), "steps": s, "eval_every": min(train["eval_every"], s),
                                "checkpoint_every": min(train["checkpoint_every"], s)}
            out[derived_name(base, point)] = new
    return out


def point_experiments(config: dict[str, Any], point: str) -> list[str]:
    """The experiments whose claims make one point: each base's derived experiment, or the base itself (read after
    the points joined ``experiments``)."""
    derived = _derived(config)
    return [derived_name(b, point) if derived_name(b, point) in derived else b
            for b in config["ladder"]["experiments"]]


def spec(config: dict[str, Any]) -> dict[str, Any]:
    """Points, each base experiment's own width and steps, and the claims shown: what :func:`ladder_table` needs
    beside the points' claims tables."""
    block = config.get("ladder") or {}
    bases = {b: {"hidden": config["experiments"][b]["model"]["hidden"],
                 "steps": {**config["train"], **config["experiments"][b].get("train", {})}["steps"]}
             for b in block.get("experiments", [])}
    return {"points": points(config), "bases": bases, "claims": block.get("claims")}


def ladder_table(claims: dict[str, pd.DataFrame], config_points: dict[str, dict[str, Any]],
                 bases: dict[str, dict[str, int]], only: list[str] | None = None) -> pd.DataFrame:
    """One row per claim row of every point: ``claims`` maps a point to its claims table; ``bases`` gives each
    base experiment's own ``hidden`` and ``steps``. Columns: claim, base experiment, axis, hidden, steps, the
    measure with its interval, n and verdict. The base point is a row of both axes. ``only``: those claims."""
    rows = []
    for point, table in claims.items():
        p = config_points[point]
        for r in table.to_dict("records"):
            base = r["experiment"].split("__")[0]
            if base not in bases or (only and r["claim_id"] not in only):
                continue
            hidden, steps = bases[base]["hidden"], bases[base]["steps"]
            if p["axis"] == "hidden":
                hidden = p["value"]
            elif p["axis"] == "steps":
                steps = p["value"]
            for axis in (("hidden", "steps") if p["axis"] == BASE else (p["axis"],)):
                rows.append({"paper": r["paper"], "claim_id": r["claim_id"], "experiment": base, "axis": axis,
                             "hidden": hidden, "steps": steps, "measure": r["measure"], "rule": r["rule"],
                             "reference_value": r["reference_value"], "measured_mean": r["measured_mean"],
                             "ci_low": r["ci_low"], "ci_high": r["ci_high"], "n": r["n"], "verdict": r["verdict"]})
    columns = ["paper", "claim_id", "experiment", "axis", "hidden", "steps", "measure", "rule", "reference_value",
               "measured_mean", "ci_low", "ci_high", "n", "verdict"]
    # a point equal to its base's own width or steps is the base's row again
    out = pd.DataFrame(rows, columns=columns).drop_duplicates(["claim_id", "experiment", "axis", "hidden", "steps"])
    return out.sort_values(["paper", "claim_id", "experiment", "axis", "hidden", "steps"], ignore_index=True)
