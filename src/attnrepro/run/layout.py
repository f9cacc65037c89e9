"""The results layout: where the workflow's tables live and which of them each paper's claims read.

The rules (``workflow/rules/*.smk``) name their inputs through these functions and hand the claims step the same
:class:`ClaimSource` records as JSON, so a claim's routing is decided once, here, from the validated config.
Paths are relative to the working directory, under the config's results root (key ``results``; ``results/`` by
default; docs/architecture.md, "Outputs"): each shipped config has its own, so no command run with one config
rebuilds or overwrites another's outputs (:func:`attnrepro.io.use_results_root`; the Snakefile sets it once).
"""

from __future__ import annotations

import json
from dataclasses import MISSING, dataclass, fields
from typing import Any

from .config import GOLD_TASK_KINDS, attention, task_spec
from ..errors import AttnReproError
from ..io import results_dir as root

#: the activation tables' format (attnrepro.seq2seq.export): raised when a table gains a column, so that Snakemake re-exports
#: an existing results folder (the export rule passes it as a param; a changed param reruns the job) instead of the
#: analysis finding the column missing. 2: decoder.parquet's `hypothesis`.
EXPORT_FORMAT = 2



def analysis_dir(name: str) -> str:
    return f"{root()}/analysis/{name}"


def kobayashi_model(config: dict) -> str:
    """The one pretrained encoder's results name (its replicates are folds, not seeds): kobayashi2020_<name> of
    the downloaded ``kobayashi2020.encoder``, kobayashi2020_minilm for the offline default."""
    encoder = (config.get("kobayashi2020") or {}).get("encoder")
    return f"kobayashi2020_{encoder['name'] if encoder else 'minilm'}"


def kobayashi_summary(config: dict) -> str:
    return f"{analysis_dir(kobayashi_model(config))}/summary.csv"


@dataclass(frozen=True)
class ClaimSource:
    """One per-seed table a claim may read: the experiment it measures, what the claims match on (task kind, arch,
    cell, attention; a comparison pairs experiments of one cell) and where the table is."""

    experiment: str
    task_kind: str
    arch: str
    cell: str
    path: str
    attention: str = ""  # "dot" or "qkv" for an AED / AO model (Aitken footnote 1); "" where there is no choice

    @staticmethod
    def from_json(text: str, where: str = "--sources-json") -> list["ClaimSource"]:
        try:
            items = json.loads(text)
        except json.JSONDecodeError as err:
            raise AttnReproError(f"{where}: not JSON ({err})") from None
        keys = {f.name for f in fields(ClaimSource)}
        required = {f.name for f in fields(ClaimSource) if f.default is MISSING}
        if not isinstance(items, list) or not all(isinstance(i, dict) and required <= set(i) <= keys for i in items):
            raise AttnReproError(f"{where}: expected a list of objects with keys {sorted(required)} (and optionally "
                                 f"{sorted(keys - required)})")
        return [ClaimSource(**i) for i in items]


def transformer_experiments(config: dict[str, Any]) -> list[str]:
    """Experiments of arch transformer: read by AER per layer (Kobayashi §5), not by the Aitken decomposition."""
    return [name for name, exp in config["experiments"].items() if exp["model"]["arch"] == "transformer"]


def aer_experiments(config: dict[str, Any]) -> list[str]:
    """Experiments whose source-target attention is scored against their task's exact gold alignments (Kobayashi
    §5): every transformer on a synthetic task, and the recurrent ones listed under kobayashi2020_aer.experiments.
    Real translation is scored against the files of kobayashi2020_aer.gold (:func:`aer_gold_sets`)."""
    listed = config.get("kobayashi2020_aer", {}).get("experiments", [])
    synthetic = [name for name in transformer_experiments(config)
                 if task_spec(config, config["experiments"][name]["task"])["kind"] in GOLD_TASK_KINDS]
    return synthetic + [name for name in config["experiments"] if name in listed]


def aer_gold_sets(config: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    """Label EXPERIMENT@GOLD -> (gold set name, experiment, output folder) of every kobayashi2020_aer.gold set."""
    gold = config.get("kobayashi2020_aer", {}).get("gold", {})
    return {f"{g['experiment']}@{name}": (name, g["experiment"], f"{analysis_dir(g['experiment'])}/gold_{name}")
            for name, g in gold.items()}


def aligner_gold_sets(config: dict[str, Any]) -> dict[str, str]:
    """Gold set name -> corpus of every kobayashi2020_aer.gold set that names a corpus (its training text is there
    for a statistical aligner, as Zenkel et al. ran fast_align: Table 3's comparison, rule kobayashi2020_aligner)."""
    gold = config.get("kobayashi2020_aer", {}).get("gold", {})
    return {name: g["corpus"] for name, g in gold.items() if "corpus" in g}


def aligner_dir(gold: str) -> str:
    return f"{root()}/analysis/aligner/{gold}"


def aer_tables(config: dict[str, Any], file: str = "aer.csv") -> dict[str, str]:
    """Label -> aer.csv of every AER table that Kobayashi's Fig. 7 and Table 3 gather: experiments, then gold sets;
    with ``file="soft_alignments.parquet"`` the example soft alignments the same jobs write beside it (Fig. 8)."""
    tables = {name: f"{analysis_dir(name)}/{file}" for name in aer_experiments(config)}
    tables.update({label: f"{out_dir}/{file}" for label, (_, _, out_dir) in aer_gold_sets(config).items()})
    return tables


def experiment_sources(config: dict[str, Any], name: str, paths: list[str]) -> list[ClaimSource]:
    """``paths`` as claim sources of the trained experiment ``name`` (or of a gold set of it)."""
    exp = config["experiments"][name]
    kind, model = task_spec(config, exp["task"])["kind"], exp["model"]
    return [ClaimSource(name, kind, model["arch"], model.get("cell", ""), p, attention(model)) for p in paths]


def summary_sources(config: dict[str, Any], names: list[str]) -> list[ClaimSource]:
    """The Aitken analysis summary of each recurrent experiment in ``names`` (the scale ladder's points)."""
    return [s for name in names for s in experiment_sources(config, name, [f"{analysis_dir(name)}/summary.csv"])]


def claim_sources(config: dict[str, Any], exclude: set[str] | frozenset[str] = frozenset()) -> list[ClaimSource]:
    """Every per-seed table the claims step reads, sorted (the order of a config's keys is no change of it), less
    those of the experiments in ``claims.leave_out.experiments`` (trained for their figures; their claims are
    another config's: :func:`left_out_sources`). ``exclude``: experiments that are not the config's own (the scale
    ladder's points have their own claims)."""
    left = set(left_out_experiments(config))
    return [s for s in all_claim_sources(config, exclude) if s.experiment not in left]


def left_out_experiments(config: dict[str, Any]) -> list[str]:
    return list(config["claims"].get("leave_out", {}).get("experiments", []))


def left_out_sources(config: dict[str, Any]) -> list[ClaimSource]:
    """One source per experiment of ``claims.leave_out.experiments``: what its claims would match on, so that the
    claims step can say why they have no row."""
    left = set(left_out_experiments(config))
    out = {s.experiment: s for s in all_claim_sources(config) if s.experiment in left}
    return [out[name] for name in sorted(out)]


def all_claim_sources(config: dict[str, Any], exclude: set[str] | frozenset[str] = frozenset()) -> list[ClaimSource]:
    """:func:`claim_sources` with the figures-only experiments kept."""
    from ..snell2021 import config as snellcfg

    aer = set(aer_experiments(config))
    transformers = set(transformer_experiments(config))
    out = []
    for name in config["experiments"]:
        if name in exclude:
            continue
        if name in transformers:  # its test evaluation (the claims' model check), and its AER where it has gold
            paths = [f"{analysis_dir(name)}/evaluation.csv"] + ([f"{analysis_dir(name)}/aer_summary.csv"]
                                                                 if name in aer else [])
        else:  # a recurrent model scored for AER has that table too
            paths = [f"{analysis_dir(name)}/summary.csv"] + ([f"{analysis_dir(name)}/aer_summary.csv"]
                                                             if name in aer else [])
        out += experiment_sources(config, name, paths)
    for label, (gold_name, experiment, out_dir) in aer_gold_sets(config).items():  # rows of their experiment's kind, arch
        of = experiment_sources(config, experiment, [""])[0]
        quality = [f"{analysis_dir(experiment)}/evaluation.csv"] if experiment in transformers else []
        # a gold set with a corpus also has the aligner's AER beside each seed's (aer_norm_competitive_with_fast_align)
        gap = [f"{out_dir}/aligner_gap.csv"] if gold_name in aligner_gold_sets(config) else []
        out += [ClaimSource(label, of.task_kind, of.arch, of.cell, path, of.attention)
                for path in quality + [f"{out_dir}/aer_summary.csv"] + gap]
    if "kobayashi2020" in config:
        out.append(ClaimSource(kobayashi_model(config), "news", "pretrained", "", kobayashi_summary(config)))
    if config.get("snell2021"):
        out += [ClaimSource(name, kind, arch, "", path)
                for name, (kind, arch, path) in snellcfg.claim_experiments(config["snell2021"]).items()]
    return sorted(out, key=lambda s: (s.experiment, s.path))


def check_left_out(config: dict[str, Any]) -> None:
    """``claims.leave_out`` names experiments whose tables the claims step would read, and registered claims: the
    config check's rule that needs the layout (the workflow runs it after :func:`attnrepro.run.config.check`)."""
    known = {s.experiment for s in all_claim_sources(config)}
    for name in left_out_experiments(config):
        if name not in known:
            raise AttnReproError(f"claims.leave_out.experiments: {name!r} is no experiment whose tables the claims "
                                 f"read; known: {sorted(known)}")
    claims = config["claims"].get("leave_out", {}).get("claims", [])
    if claims:
        from ..verdicts.papers import CLAIMS

        registered = {c.claim_id for c in CLAIMS}
        for claim in claims:
            if claim not in registered:
                raise AttnReproError(f"claims.leave_out.claims: {claim!r} is no registered claim "
                                     f"(claim_id of docs/claims.md)")
