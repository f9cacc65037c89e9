"""``attnrepro snell2021 …``: the Snell et al. 2021 stages the workflow's rules call (train → export → analyze;
the figures: ``attnrepro figure snell2021``), each reading and writing files only here; the work is in
:mod:`attnrepro.snell2021.runs`, :mod:`attnrepro.snell2021.multihead` and this wing's pure analyses."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..cli.common import SPEC_HELP, device_threads, json_option, pick_device, sub, threads
from ..errors import AttnReproError


def cmd_train(args) -> None:
    import pandas as pd

    from ..io import read_parquet, write_csv, write_parquet
    from . import multihead, runs

    threads(args.threads)
    device = pick_device(args.device)
    spec = json.loads(args.spec_json)
    out = Path(args.out_dir)
    if args.run == "multihead_candidates":
        metrics, table = multihead.candidates(spec, args.ckpt_dir, name=args.run, device=device)
        write_csv(metrics, out / "metrics.csv")
        write_parquet(table, out / "candidates.parquet")  # last: its presence means the job finished
        print(table.drop_duplicates("candidate").label.value_counts().to_string(), file=sys.stderr)
        return
    if "combo" in spec:
        if not args.candidates:
            raise AttnReproError(f"{args.run}: --candidates (the candidates.parquet of multihead_candidates) is needed")
        m = spec["multihead"]
        sets = multihead.draw_heads(read_parquet(args.candidates), spec["combo"], m["heads"], m["n_combos"],
                                    m["sampling_seed"])
        spec = {**spec, "members": multihead.khead_members(m["backbone_seed"], sets)}
    result, valid = runs.train(spec, args.ckpt_dir, name=args.run, device=device)
    runs.write_run(spec, result, valid, out)
    last = result.metrics[result.metrics.step == result.metrics.step.max()]
    print(pd.DataFrame({"seed": last.seed, "token_acc": last.token_acc.round(4),
                        "diverged": last.diverged}).to_string(index=False), file=sys.stderr)


def cmd_export(args) -> None:
    from ..io import write_parquet
    from . import runs

    threads(args.threads)
    saliency, decodes = runs.export(args.model, pick_device(args.device))
    write_parquet(decodes, Path(args.out_dir) / "decodes.parquet")
    write_parquet(saliency, Path(args.out_dir) / "saliency.parquet")
    print(f"saliency: {saliency.num_rows} rows, decodes: {decodes.num_rows} rows", file=sys.stderr)


def cmd_alpha_opt(args) -> None:
    from ..io import write_parquet
    from . import runs

    threads(args.threads)
    table = runs.export_alpha_opt(args.model, args.iterations, pick_device(args.device))
    write_parquet(table, Path(args.out_dir) / "alpha_opt.parquet")
    print(f"alpha_opt: {table.num_rows} rows", file=sys.stderr)


def _table2(spec: dict, models: Path, activations: Path):
    """Table 2's rows of one task from its runs' tables (:func:`attnrepro.snell2021.agreement_table`)."""
    from .agreement_table import checkpoint_bleu, member_bleu, table2_from_runs
    from ..io import read_csv_checked, read_json, read_parquet
    from .runs import read_metrics
    from .parallel import joint_vocab

    roles = spec["runs"]
    probes = {role: read_parquet(models / run / "probes.parquet") for role, run in roles.items()}
    metrics = read_metrics(models / roles["learned"] / "metrics.csv")
    translation = spec.get("translation")
    words = references = None  # the BLEU columns' vocabulary and reference targets: translation rows only
    if translation:
        vocab = read_json(Path(translation) / "vocab.json")
        words = joint_vocab(vocab["src"], vocab["tgt"])[0]
        references = read_parquet(models / roles["learned"] / "eval.parquet")

    def appendix(run: str, file: str):  # written by the train job before its model.pt (App. A.4's records)
        path = models / run / file
        if not path.exists():
            raise AttnReproError(f"{path}: missing, though the config asks for it (snell2021.table2.train_sample / "
                                 f"translation.bleu_curve); the run {run} predates that setting: delete its model.pt "
                                 "and rerun the workflow")
        return read_parquet(path)

    train_probes = ({role: appendix(roles[role], "train_probes.parquet") for role in ("learned", "uniform")}
                    if spec.get("train_sample") else None)
    bleu = (checkpoint_bleu(references, appendix(roles["learned"], "checkpoint_decodes.parquet"), words)
            if spec.get("bleu_curve") else None)
    saliency = read_parquet(activations / spec["exported"] / "saliency.parquet")
    rows, xi_curves = table2_from_runs(probes, metrics, saliency,
                                       proxy_metrics=read_csv_checked(models / roles["proxy"] / "metrics.csv"),
                                       train_probes=train_probes, bleu=bleu)
    if translation:
        from ..seq2seq.bleu import source_gain

        decodes = read_parquet(activations / spec["exported"] / "decodes.parquet")
        rows["bleu"] = member_bleu(references, decodes, words)
        rows["bleu_source_gain"] = member_bleu(references, decodes, words, score=source_gain)
    if spec.get("alpha_opt"):  # App. A.1: the Eq. 32 run's A(α^opt, β), per seed beside this set's rows
        from .optimal_attention import alpha_opt_summary

        opt = alpha_opt_summary(read_parquet(activations / spec["alpha_opt"] / "alpha_opt.parquet",
                                            require=["seed", "src_len", "alpha_opt", "beta"], nonempty=True))
        rows = rows.merge(opt, on="seed", how="outer")
    return rows, xi_curves


def cmd_analyze(args) -> None:
    import pandas as pd

    from . import run_tables as sr
    from ..io import read_parquet, write_csv, write_parquet
    from .runs import read_metrics

    spec = json.loads(args.spec_json)
    models, out = Path(args.models_dir), Path(args.out_dir)
    kind = spec["kind"]
    if kind == "copy":
        metrics = read_metrics(models / spec["runs"]["run"] / "metrics.csv")
        write_parquet(sr.curves(metrics), out / "curves.parquet")
        write_csv(sr.failure_curve(metrics, spec["fail_below"], args.name), out / "failures.csv")
        summary = sr.curve_summary(metrics, spec["fail_below"], spec["good_above"], spec.get("judge_step"))
        if "proxy" in spec["runs"]:  # App. A.3: this distribution's proxies, one per seed
            proxy = models / spec["runs"]["proxy"]
            spread = sr.proxy_spread(read_parquet(proxy / "probes.parquet"), read_metrics(proxy / "metrics.csv"),
                                     spec["words"])
            summary = summary.merge(spread, on="seed", how="left")
    elif kind == "multihead":
        roles = spec["runs"]
        outcomes = read_parquet(models / roles["candidates"] / "candidates.parquet")
        candidates = sr.candidate_table(outcomes)
        write_parquet(candidates, out / "candidates.parquet")
        curves = []
        for combo in (c for c in roles if c != "candidates"):
            metrics = read_metrics(models / roles[combo] / "metrics.csv")
            heads = read_parquet(models / roles[combo] / "heads.parquet")
            s = sr.multihead_summary(metrics, heads, candidates, combo, spec["fail_below"], spec["good_above"],
                                     spec.get("judge_step"))
            write_csv(s, out / f"summary_{combo}.csv")
            curves.append(sr.curves(metrics).assign(combo=combo))
            print(s.to_string(), file=sys.stderr)
        write_parquet(pd.concat(curves, ignore_index=True), out / "curves.parquet")
        return
    elif kind == "keyword":
        from .tasks import keyword_position

        import torch

        run = models / spec["runs"]["run"]
        held_out = read_parquet(run / "eval.parquet").sort_values("example")
        position = keyword_position(torch.as_tensor(pd.DataFrame(list(held_out.src)).to_numpy())).numpy()
        curves = sr.keyword_curves(read_parquet(run / "probes.parquet"), position,
                                   read_metrics(run / "metrics.csv"))
        write_parquet(curves, out / "curves.parquet")
        summary = sr.keyword_summary(curves)
    elif kind == "counts":
        from .count_table import count_tables

        tables, summary = count_tables(spec["counts"], spec["counts"]["seeds"])
        write_parquet(tables, out / "tables.parquet")
    else:
        summary, xi_curves = _table2(spec, models, Path(args.activations_dir))
        write_csv(xi_curves, out / "xi_curves.csv")
    write_csv(summary, out / "summary.csv")  # last: what the claims read
    print(summary.to_string(), file=sys.stderr)


def add_parser(subparsers) -> None:
    sn = sub(subparsers, "snell2021", "Snell et al. 2021: train, export, analyze and draw its experiments", None)
    steps = sn.add_subparsers(dest="step", required=True, metavar="STEP")
    t = sub(steps, "train", "train one run (a stack of members) of the snell2021 block", cmd_train)
    t.add_argument("run", help="the run's name (snell2021.config.runs)")
    json_option(t, "--spec-json", ("train", "data", "model", "divergence"),
                required=True, help="the resolved run spec " + SPEC_HELP)
    t.add_argument("--ckpt-dir", required=True, help="checkpoints; a rerun resumes from the last one")
    t.add_argument("--out-dir", required=True, help="model.pt, metrics.csv, probes.parquet, eval.parquet")
    t.add_argument("--candidates", help="K-head models: the candidates.parquet of multihead_candidates")
    device_threads(t)
    e = sub(steps, "export", "gradient saliency and greedy decodes of a run's model (model.pt or model_best.pt)", cmd_export)
    e.add_argument("--model", required=True, help="the run's model.pt (final) or model_best.pt (keep_best)")
    e.add_argument("--out-dir", required=True, help="where the run's activation tables go (docs/activations.md)")
    device_threads(e)
    o = sub(steps, "alpha-opt", "App. A.1: α^opt and β of a linear-read-out (Eq. 32) run's final model", cmd_alpha_opt)
    o.add_argument("--model", required=True, help="the Eq. 32 run's model.pt")
    o.add_argument("--out-dir", required=True, help="where alpha_opt.parquet goes")
    o.add_argument("--iterations", type=int, required=True, help="projected-gradient iterations per target token")
    device_threads(o)
    a = sub(steps, "analyze", "summaries and Table 2 rows from the runs' tables", cmd_analyze)
    a.add_argument("name", help="the analysis (a run group of the snell2021 block)")
    json_option(a, "--spec-json", ("kind",), required=True, help="the resolved analysis spec " + SPEC_HELP)
    a.add_argument("--models-dir", default="results/models/snell2021", help="where the runs' models are")
    a.add_argument("--activations-dir", default="results/activations/snell2021", help="where the exports are")
    a.add_argument("--out-dir", required=True, help="where the analysis tables go")
