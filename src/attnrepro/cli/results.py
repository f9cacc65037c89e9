"""The core's last stages, the same for every paper: every paper's figures through the figure registry, the
claims table, the scale ladder, the artifact and its check, report pages
(``attnrepro figure|claims|ladder|archive|verify|report-table``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..errors import AttnReproError
from .common import SPEC_HELP, figure_files, json_option, positive, sub, write_figure


# -- figures ------------------------------------------------------------------------------------------------
def cmd_figure(args) -> None:
    from ..figures import output  # noqa: F401  (the display-less backend, before anything is drawn)
    from ..figures import registry

    write_figure(*registry.draw(args.paper, args.name, json.loads(args.inputs_json)), args)


# -- claims -------------------------------------------------------------------------------------------------
def cmd_claims(args) -> None:
    from ..verdicts.claims import merge_replicates, model_quality, summarize, unmeasured
    from ..verdicts.combine import by_claim
    from ..verdicts.markdown import to_markdown
    from ..verdicts.papers import CLAIMS, model_check, tested_on
    from ..io import atomic_path, read_csv_checked, write_csv
    from ..run.layout import ClaimSource

    tables, experiments = {}, {}
    for s in ClaimSource.from_json(args.sources_json):
        key = (s.task_kind, s.arch, s.cell, s.attention)
        if experiments.setdefault(s.experiment, key) != key:
            raise AttnReproError(f"--sources-json: experiment {s.experiment} given as {experiments[s.experiment]} "
                                 f"and as {key}")
        # a header-only table is a real result (no K-head model)
        tables.setdefault(s.experiment, []).append((s.path, read_csv_checked(s.path)))
    summaries = {name: merge_replicates(name, ts) for name, ts in tables.items()}
    left_sources, left_claims = _left_out(args.left_out_json)
    claims = tuple(c for c in CLAIMS if c.claim_id not in left_claims)
    table = summarize(summaries, experiments, claims, confidence=args.confidence, checks=model_check,
                      tested_on=tested_on)
    write_csv(table, args.out)
    if args.by_claim:
        write_csv(by_claim(table, args.confidence), args.by_claim)
    if args.markdown:
        missing = _with_left_out(unmeasured(table, summaries, experiments, claims), CLAIMS, left_claims,
                                 left_sources)
        references = {}
        for item in args.reference:
            label, sep, path = item.partition("=")
            if not sep or not label or not path:
                raise AttnReproError(f"--reference {item!r}: expected LABEL=claims.csv")
            references[label] = read_csv_checked(path, require=["paper", "claim_id", "experiment", "origin",
                                                                "reference_value", "measured_mean", "ci_low",
                                                                "ci_high", "n", "unit", "interval", "verdict"])
        with atomic_path(args.markdown) as tmp:
            tmp.write_text(to_markdown(table, model_quality(summaries, args.confidence), missing, references,
                                       by_claim(table, args.confidence)) + "\n")
    print(table[["paper", "claim_id", "experiment", "measured_mean", "ci_low", "ci_high", "n", "verdict"]]
          .to_string(), file=sys.stderr)


def _left_out(text: str | None) -> tuple[list, set[str]]:
    """(sources of the experiments, claim ids) a config leaves to another (``--left-out-json``)."""
    from ..run.layout import ClaimSource

    if not text:
        return [], set()
    spec = json.loads(text)  # valid JSON: parse_json_options checked it
    if not isinstance(spec, dict) or set(spec) - {"sources", "claims"} or not isinstance(spec.get("claims", []), list):
        raise AttnReproError('--left-out-json: expected {"sources": [...], "claims": [claim ids]}')
    from ..verdicts.papers import CLAIMS

    unknown = sorted(set(spec.get("claims", [])) - {c.claim_id for c in CLAIMS})
    if unknown:
        raise AttnReproError(f"--left-out-json: unknown claim ids {unknown}")
    return ClaimSource.from_json(json.dumps(spec.get("sources", [])), "--left-out-json sources"), set(spec.get("claims", []))


def _with_left_out(missing, claims, left_claims: set[str], left_sources: list):
    """``missing`` (the claims with no row) with each left-out claim, and the reason of each claim whose only
    experiments were left out, as this config's choice: another config decides them."""
    import pandas as pd

    by_id = {c.claim_id: c for c in claims}
    elsewhere = lambda c: f"; measured by {c.measured_by}" if c.measured_by else ""  # noqa: E731
    rows = [{"paper": c.paper, "claim_id": c.claim_id, "origin": c.origin,
             "why": "left out by this config (claims.leave_out.claims): its threshold needs more replicates than "
                    "this config trains" + elsewhere(c)} for c in claims if c.claim_id in left_claims]
    missing = missing.copy()
    for i, r in missing.iterrows():
        names = [s.experiment for s in left_sources
                 if by_id[r.claim_id].applies_to(s.task_kind, s.arch, s.cell, s.attention)]
        if names:
            missing.at[i, "why"] = (f"{', '.join(names)} train here for their figures only (claims.leave_out."
                                    f"experiments), at too few seeds to decide it" + elsewhere(by_id[r.claim_id]))
    return pd.concat([missing, pd.DataFrame(rows, columns=missing.columns)], ignore_index=True)


def cmd_ladder(args) -> None:
    from ..figures import save
    from ..figures.ladder import ladder_figure
    from ..io import read_csv_checked, write_csv
    from ..verdicts.ladder import ladder_table
    from ..verdicts.papers import CLAIMS

    spec = json.loads(args.spec_json)
    claims = {}
    for item in args.claims:
        point, sep, path = item.partition("=")
        if not sep or point not in spec["points"]:
            raise AttnReproError(f"--claims {item!r}: expected POINT=claims.csv with POINT one of {sorted(spec['points'])}")
        claims[point] = read_csv_checked(path)
    table = ladder_table(claims, spec["points"], spec["bases"], spec.get("claims"))
    write_csv(table, args.csv)
    fig, _ = ladder_figure(table, {c.claim_id: c.threshold for c in CLAIMS})
    save(fig, args.png, args.pdf, dpi=args.dpi)


# -- archive / verify ---------------------------------------------------------------------------------------
def cmd_archive(args) -> None:
    from ..archive.artifact import build
    from ..io import read_json

    import yaml

    config_yaml = yaml.safe_dump(json.loads(args.config_json), sort_keys=False)
    jobs = read_json(args.jobs)
    n = build(Path(args.repo), config_yaml, Path(args.out), jobs, args.results, activations=args.activations,
              models=args.models, analysis=args.analysis)
    print(f"{args.out}: {n} payload files from {len(jobs)} jobs", file=sys.stderr)


def cmd_report_table(args) -> None:
    from ..verdicts.claims import PAPERS
    from ..io import atomic_path, read_csv_checked
    from ..archive.report import page, sections

    frame = read_csv_checked(args.csv)
    if args.group_by and args.group_by not in frame:
        raise AttnReproError(f"{args.csv}: no column {args.group_by!r} to group by")
    with atomic_path(args.out) as tmp:
        tmp.write_text(page(args.title, sections(frame, args.group_by, PAPERS), args.note), encoding="utf-8")


def cmd_verify(args) -> None:
    import tempfile

    from ..archive.artifact import unpack, verify

    target = Path(args.artifact)
    if not target.exists():
        raise AttnReproError(f"{target}: not found")
    with tempfile.TemporaryDirectory() as tmp:
        root = unpack(target, Path(tmp)) if target.is_file() else target
        problems = verify(root)
    if problems:
        raise AttnReproError(f"{target} is not a valid artifact bag:\n  " + "\n  ".join(problems))
    print(f"{target}: a valid bag (every file matches its manifest) holding a valid Workflow Run RO-Crate")


def add_parsers(subparsers) -> None:
    from ..figures.registry import PAPERS

    f = sub(subparsers, "figure", "draw one figure or table of a paper (registry: attnrepro.figures.registry)",
            cmd_figure)
    f.add_argument("paper", choices=PAPERS, help=", ".join(PAPERS))
    f.add_argument("name", help="the figure, e.g. fig2a (each wing's panels.FIGURES)")
    json_option(f, "--inputs-json", (), required=True,
                help="what the figure reads, as its wing's reader takes it (the wing's panels.py) " + SPEC_HELP)
    figure_files(f)

    c = sub(subparsers, "claims", "aggregate per-seed measures into the claims table, with intervals and verdicts",
             cmd_claims)
    c.add_argument("--sources-json", required=True,
                   help='[{"experiment", "task_kind", "arch", "cell", "path"}, ...]: the per-seed tables '
                        "(attnrepro.run.layout.claim_sources; cell may be empty; an experiment's tables are joined on seed)")
    c.add_argument("--confidence", type=float, default=0.95, help="interval level (default 0.95)")
    c.add_argument("--out", required=True, help="results/claims.csv")
    c.add_argument("--markdown", help="also write the claims as Markdown (results/claims.md)")
    c.add_argument("--by-claim", help="also write one verdict per paper claim (results/claims_by_claim.csv)")
    json_option(c, "--left-out-json", (), default=None,
                help='{"sources": [...], "claims": [claim ids]}: the experiments (as --sources-json, no table '
                     "read) and claims this config leaves to another, named under claims with no row")
    c.add_argument("--reference", action="append", default=[], metavar="LABEL=CSV",
                   help="a committed claims table (another config's claims.csv) shown beside this run's in the "
                        "Markdown, per claim (repeatable)")

    la = sub(subparsers, "ladder", "the scale ladder: each claim's measure against width and training steps", cmd_ladder)
    la.add_argument("--claims", nargs="+", required=True, metavar="POINT=CSV", help="each ladder point's claims table")
    json_option(la, "--spec-json", ("points", "bases"),
                required=True, help="points, base experiments' width and steps, claims shown " + SPEC_HELP)
    la.add_argument("--csv", required=True, help="the stacked table (results/ladder/ladder.csv)")
    la.add_argument("--png", required=True, help="the figure (results/figures/ladder/ladder.png)")
    la.add_argument("--pdf", help="the figure as PDF too")
    la.add_argument("--dpi", type=positive, default=150, help="resolution of the PNG (default 150)")

    ar = sub(subparsers, "archive", "write the paper artifact: a BagIt bag holding a Workflow Run RO-Crate (code, "
             "config, environment, results, every job's provenance)", cmd_archive)
    ar.add_argument("--repo", required=True, help="the git checkout of the workflow")
    ar.add_argument("--results", required=True, help="the results folder")
    json_option(ar, "--config-json", (), required=True, help="the resolved config " + SPEC_HELP)
    ar.add_argument("--activations", action="store_true", help="include results/activations")
    ar.add_argument("--models", action="store_true", help="include the trained models (results/models)")
    ar.add_argument("--analysis", action="store_true",
                    help="include the analysis tables and every other input of the figures, to redraw them")
    ar.add_argument("--jobs", required=True,
                    help="JSON list of the config's jobs: rule, wildcards, input, output, log, benchmark "
                         "(results/artifact.jobs.json)")
    ar.add_argument("--out", required=True, help="the .tar.gz to write")

    rt = sub(subparsers, "report-table", "a CSV table as an HTML page for snakemake --report (grouped by a column)",
              cmd_report_table)
    rt.add_argument("--csv", required=True, help="the table, e.g. results/claims.csv")
    rt.add_argument("--title", required=True, help="the page's heading")
    rt.add_argument("--group-by", help="one section per value of this column (e.g. paper)")
    rt.add_argument("--note", default="", help="a paragraph under the heading")
    rt.add_argument("--out", required=True, help="the HTML page")

    v = sub(subparsers, "verify", "check an artifact (.tar.gz or unpacked folder): the bag's manifests and its RO-Crate",
              cmd_verify)
    v.add_argument("artifact", help="e.g. results/artifact.tar.gz")
