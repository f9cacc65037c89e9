"""The default workflow's training time, summed over its training jobs, for two runs of the same config (issue 31).

Training is most of the default workflow's job time; this compares the training jobs of two work directories of
``bench/workflow.py --keep DIR`` (or of a rerun of only the training rules there), job by job, from Snakemake's
own per-job benchmark files (``results/benchmarks/train/**`` and ``results/benchmarks/snell2021/train/**``: the
Aitken and Transformer models, and every Snell run, its rounds of candidates and its K-head models). Made for
freed memory held (attnrepro.allocator) against malloc as it was, on one machine:

    python bench/workflow.py --config config/config.yaml --keep /tmp/wf_held
    cp -r /tmp/wf_held /tmp/wf_default && rm -rf /tmp/wf_default/results/checkpoints
    ATTNREPRO_HOLD_FREED_MEMORY=0 snakemake --directory /tmp/wf_default --configfile config/config.yaml --cores 2 \\
        --forcerun train snell2021_train snell2021_candidates snell2021_multihead \\
        --until train snell2021_train snell2021_candidates snell2021_multihead
    python bench/training_time.py /tmp/wf_held held /tmp/wf_default default --out bench/results/training_time.json

(the checkpoints go, so that the rerun trains instead of resuming at the last step). The two runs are not
simultaneous, so the machine's load may differ between them (this machine is shared): ``other_jobs`` sums the jobs
both runs ran outside training, whose change is the load's where their code did not change.

Two versions of the code, the same day and under the same load: run both at once, one core each (each training job
uses one thread, as in the default workflow), each from its own worktree (``git worktree add /tmp/old REV``):

    for v in old new; do PYTHONPATH=/tmp/$v/src snakemake --directory /tmp/ab_$v --snakefile /tmp/$v/Snakefile \
        --configfile /tmp/$v/config/config.yaml --cores 1 \
        --until train snell2021_train snell2021_candidates snell2021_multihead & done; wait
    # --until leaves the three K-head runs unscheduled (Snakemake: "out of jobs ready"); run them by their outputs
    for v in old new; do PYTHONPATH=/tmp/$v/src snakemake --directory /tmp/ab_$v --snakefile /tmp/$v/Snakefile \
        --configfile /tmp/$v/config/config.yaml --cores 1 \
        results/models/snell2021/multihead_{all_bad,one_good,random}/model.pt & done; wait
    python bench/training_time.py /tmp/ab_new new /tmp/ab_old old --out bench/results/training_time_same_day.json

``models`` says whether the two runs' models and metrics are the same bytes.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from attnrepro.io import write_json  # noqa: E402
from byte_identical import digests  # noqa: E402  (bench/, this script's folder)

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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("new_dir", type=Path)
    p.add_argument("new_label")
    p.add_argument("old_dir", type=Path)
    p.add_argument("old_label")
    p.add_argument("--out", type=Path, default=Path("bench/results/training_time.json"))
    args = p.parse_args()
    new, old = job_seconds(args.new_dir), job_seconds(args.old_dir)
    out = {"benchmark": "training_time", "new": args.new_label, "old": args.old_label,
           **compare(training_jobs(new, args.new_dir), training_jobs(old, args.old_dir)),
           "other_jobs": control(new, old), "models": identical_models(args.new_dir, args.old_dir)}
    write_json(out, args.out)
    print(json.dumps({k: v for k, v in out.items() if k != "jobs"}, indent=2))


if __name__ == "__main__":
    main()
