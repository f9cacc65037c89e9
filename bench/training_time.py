"""The default workflow's training time, summed over its training jobs, for two runs of the same config.

Training is most of the default workflow's job time; this compares the training jobs of two work directories of
``bench/workflow.py --keep DIR`` (or of a rerun of only the training rules there), job by job, from Snakemake's
own per-job benchmark files (``results/benchmarks/train/**`` and ``results/benchmarks/snell2021/train/**``: the
Aitken and Transformer models, and every Snell run, its rounds of candidates and its K-head models). Made for
freed memory held (attnrepro.nn.allocator) against malloc as it was, on one machine:

    python bench/workflow.py --config config/config.yaml --keep /tmp/wf_held
    cp -r /tmp/wf_held /tmp/wf_default && rm -rf /tmp/wf_default/results/checkpoints
    ATTNREPRO_HOLD_FREED_MEMORY=0 snakemake --directory /tmp/wf_default --configfile config/config.yaml --cores 2 \\
        --forcerun train snell2021_train snell2021_candidates snell2021_multihead \\
        --until train snell2021_train snell2021_candidates snell2021_multihead
    python bench/training_time.py /tmp/wf_held held /tmp/wf_default default --out bench/results/training_time.json

(the checkpoints go, so that the rerun trains instead of resuming at the last step). The two runs are not
simultaneous, so the machine's load may differ between them (this machine is shared): ``other_jobs`` sums the jobs
both runs ran outside training, whose change is the load's where their code did not change.

Two versions of the code, the same day and under the same load: ``bench/training_time_ab.sh stage`` runs both
training stages at once, one core each (each training job uses one thread, as in the default workflow), each from
its own worktree (``git worktree add /tmp/old REV``), and then the three K-head runs, which ``--until`` leaves
unscheduled:

    bench/training_time_ab.sh stage /tmp/old /tmp/old/config/config.yaml /tmp/ab_old \
        /tmp/new /tmp/new/config/config.yaml /tmp/ab_new
    python bench/training_time.py /tmp/ab_new new /tmp/ab_old old --out bench/results/training_time_same_day.json

``models`` says whether the two runs' models and metrics are the same bytes.

Against the code before the training-time work (085f514, the commit before its first change), whose config had fewer
seeds: the new code runs a copy of today's config with that day's seeds (``/tmp/old_seeds.yaml``: Snell
classification at 3 seeds, ``bleu_curve: false``) beside the old code at its own config. What the raised seeds cost
is a second pair, with the new code: each job the raise changes, at today's config and at the old seeds at once, in
copies of the new run's folder (``pairs``); ``--seeds-raised`` scales each such job of the first pair by its ratio:

    bench/training_time_ab.sh stage /tmp/old /tmp/old/config/config.yaml /tmp/ab_old /tmp/new /tmp/old_seeds.yaml \
        /tmp/ab_new
    cp -a /tmp/ab_new /tmp/ab_raised && cp -a /tmp/ab_new /tmp/ab_same
    bench/training_time_ab.sh pairs /tmp/new /tmp/new/config/config.yaml /tmp/ab_raised /tmp/old_seeds.yaml \
        /tmp/ab_same mt_bible_learned cls_{parlspeech,rotten_tomatoes}_{learned,uniform,frozen_beta}
    python bench/training_time.py /tmp/ab_new new /tmp/ab_old filing --seeds-raised /tmp/ab_raised /tmp/ab_same \
        --out bench/results/training_time_since_filing.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
from attnrepro.io import write_json  # noqa: E402
from runs import digests  # noqa: E402  (tools/runs.py)

TRAINING = ("train", "snell2021/train")  # folders of results/benchmarks holding the training jobs


def job_seconds(workdir: Path) -> pd.Series:
    """Seconds of every job of the run in ``workdir``, by job name (its benchmark file's path)."""
    root = workdir / "results" / "benchmarks"
    return pd.Series({tsv.relative_to(root).as_posix()[:-4]: float(pd.read_csv(tsv, sep="\t").iloc[-1]["s"])
                      for tsv in sorted(root.rglob("*.tsv"))}, name="s", dtype=float)


def is_training(job: str) -> bool:
    return any(job.startswith(folder + "/") for folder in TRAINING)


def training_jobs(jobs: pd.Series, workdir: Path) -> pd.Series:
    """The training jobs among ``jobs`` (:func:`job_seconds` of the run in ``workdir``)."""
    jobs = jobs[[is_training(j) for j in jobs.index]]
    if jobs.empty:
        raise SystemExit(f"{workdir}: no training job's benchmark under results/benchmarks/{{{','.join(TRAINING)}}}")
    return jobs


def control(new: pd.Series, old: pd.Series) -> dict:
    """The other jobs both runs ran (data, export, analysis, figures, ...; ``new`` and ``old`` are
    :func:`job_seconds`), summed: where their code is the same in both runs, their change is the machine's, and the
    training's change is to be read against it."""
    both = [j for j in new.index if j in old.index and not is_training(j)]
    n, o = new[both].sum(), old[both].sum()
    return {"n_jobs": len(both), "new_s": round(n, 1), "old_s": round(o, 1), "change": round(n / o - 1, 4)}


def identical_models(new_dir: Path, old_dir: Path) -> dict:
    """Whether the two runs' trained models and their metrics are the same bytes (``results/models/**``: a speed
    change that keeps the numbers keeps these): how many files were compared and which differ or exist in one run
    only."""
    (new, _), (old, _) = (digests(d / "results" / "models") for d in (new_dir, old_dir))
    return {"n_files": len(new.keys() & old.keys()), "differ": sorted(k for k in new.keys() & old.keys()
                                                                     if new[k] != old[k]),
            "one_run_only": sorted(new.keys() ^ old.keys())}


def compare(new: pd.Series, old: pd.Series) -> dict:
    """Summed seconds of the two runs' training jobs (which must be the same jobs), by rule (Aitken ``train``,
    ``snell2021``) and in all."""
    if set(new.index) != set(old.index):
        raise SystemExit(f"the runs trained different jobs: {sorted(set(new.index) ^ set(old.index))}")
    jobs = pd.DataFrame({"new_s": new, "old_s": old[new.index]}).sort_index()
    sums = jobs.groupby(jobs.index.str.split("/").str[0]).sum()
    change = lambda t: round(t["new_s"] / t["old_s"] - 1, 4)  # noqa: E731
    by_rule = {rule: {"new_s": round(t["new_s"], 1), "old_s": round(t["old_s"], 1), "change": change(t)}
               for rule, t in sums.iterrows()}
    total = jobs.sum()
    return {"n_jobs": len(jobs), "new_s": round(total["new_s"], 1), "old_s": round(total["old_s"], 1),
            "change": change(total), "by_rule": by_rule,
            "jobs": [{"job": j, "new_s": t.new_s, "old_s": t.old_s} for j, t in jobs.iterrows()]}


def seeds_raised(compared: dict, raised: pd.Series, same: pd.Series) -> dict:
    """The new code's summed training time at a config whose seeds are raised, from ``compared`` (:func:`compare`
    of the new and old code at the old config) and a second pair of runs made at once: only the jobs the raise
    changes, at the raised config (``raised``) and at the old one (``same``), both with the new code. Each such job's
    time at the old config in ``compared`` is scaled by its own raised/same ratio, measured under one load."""
    if set(raised.index) != set(same.index):
        raise SystemExit(f"the seed pair trained different jobs: {sorted(set(raised.index) ^ set(same.index))}")
    new = {j["job"]: j["new_s"] for j in compared["jobs"]}
    if missing := sorted(set(raised.index) - new.keys()):
        raise SystemExit(f"jobs of the seed pair that the compared runs did not train: {missing}")
    ratio = raised / same[raised.index]
    total = compared["new_s"] + sum(new[j] * (r - 1) for j, r in ratio.items())
    return {"n_jobs": len(ratio), "new_s": round(total, 1), "old_s": compared["old_s"],
            "change": round(total / compared["old_s"] - 1, 4),
            "jobs": [{"job": j, "raised_s": raised[j], "same_s": same[j], "ratio": round(r, 3)}
                     for j, r in ratio.sort_index().items()]}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("new_dir", type=Path)
    p.add_argument("new_label")
    p.add_argument("old_dir", type=Path)
    p.add_argument("old_label")
    p.add_argument("--out", type=Path, default=Path("bench/results/training_time.json"))
    p.add_argument("--seeds-raised", nargs=2, type=Path, metavar=("RAISED_DIR", "SAME_DIR"),
                   help="two runs at once of the jobs a raise of seeds changes, with the new code: at the raised "
                        "config and at the compared one (estimates the new code's time at the raised config)")
    args = p.parse_args()
    new, old = job_seconds(args.new_dir), job_seconds(args.old_dir)
    out = {"benchmark": "training_time", "new": args.new_label, "old": args.old_label,
           **compare(training_jobs(new, args.new_dir), training_jobs(old, args.old_dir)),
           "other_jobs": control(new, old), "models": identical_models(args.new_dir, args.old_dir)}
    if args.seeds_raised:
        raised, same = (training_jobs(job_seconds(d), d) for d in args.seeds_raised)
        out["seeds_raised"] = seeds_raised(out, raised, same)
    write_json(out, args.out)
    print(json.dumps({k: v for k, v in out.items() if k != "jobs"}, indent=2))


if __name__ == "__main__":
    main()
