"""The paper config's cost, predicted from measurements: seconds per training step of every distinct
model of config/paper.yaml on this CPU, and the paper slice's measured jobs for the rest.

``measure``: for each distinct training shape of ``--config`` (architecture, cell, width, depth, task), a short run
of the real ``attnrepro train`` command with the config's seeds per job, on a small sample of the task's data (the
step's cost does not depend on how many sequences the task holds; a vocabulary does, so a corpus task keeps its
own), timed between its 10th and 30th step; peak memory from ``/usr/bin/time``. Writes
``bench/results/paper_step_times.json``.

``table``: per paper.yaml rule, the jobs it runs, the predicted time and peak memory of one job and the total
core-hours. Training: steps × measured seconds per step × the evaluation overhead the paper slice measured
(its train jobs' wall time over steps × seconds per step). Other rules: the paper slice's own jobs
(bench/results/workflow_paper_slice.json, the papers' data sizes), scaled by seeds where a job handles every seed;
a rule the slice did not run says so. Fig. 6's jobs (rules snell2021_candidates, snell2021_multihead): from
bench/results/snell_multihead_cost.json when it exists. Writes ``workflow/reference/paper_cost.{json,md}``.

    python bench/paper_cost.py measure [--config config/paper.yaml] [--threads 2] [--only NAME ...]  (--only: merged)
    python bench/paper_cost.py measure --snell   (the snell2021 block's runs, merged)
    python bench/paper_cost.py measure --device cuda [--snell-too] [--out F]   (on a GPU: the same commands run in
        this process, so torch's import and CUDA's start are paid once; peak GPU memory from torch's allocator;
        writes bench/results/gpu_step_times.json, each shape as soon as it is timed)
    python bench/paper_cost.py table
    python bench/paper_cost.py resources   (what workflow/resources.yaml needs for the measured rules)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results"
REFERENCE = ROOT / "workflow" / "reference"  # the cost table the workflow reads
sys.path.insert(0, str(ROOT / "src"))

from attnrepro.run import budget, cluster  # noqa: E402
from attnrepro.run import config as cfglib  # noqa: E402

STEPS, FIRST, LAST = 30, 10, 30
SNELL_STEPS, SNELL_EVERY = 20, 10


def shape(cfg: dict, name: str) -> str:
    """Experiments that cost the same per step: same model, same task (lengths and vocabulary)."""
    spec = cfglib.experiment_spec(cfg, name)
    m = spec["model"]
    return f"{m['arch']}-{m['cell']}-h{m['hidden']}-l{m.get('layers', 1)}-{spec['task']}"


def prepared(cfg: dict, task_name: str, work: Path) -> Path:
    """The task's data under ``work``, made once; a synthetic task as a small sample (a step costs the same)."""
    if task_name in cfg.get("corpora", {}):
        raise SystemExit(f"task {task_name}: a corpus of the corpora block, which needs a download")
    task = dict(cfglib.task_spec(cfg, task_name))
    if "n_train" in task:
        task.update(n_train=4000, n_valid=200, n_test=200)
    data = work / "data" / task_name
    if not (data / "vocab.json").exists():
        proc = subprocess.run(["attnrepro", "data", "--task-json", json.dumps(task), "--out-dir", str(data)],
                              capture_output=True, text=True)
        if proc.returncode != 0:  # e.g. a corpus that needs a download
            raise SystemExit(f"task {task_name}: {(proc.stderr.strip().splitlines() or ['no data'])[-1]}")
    return data


def measure_one(cfg: dict, name: str, threads: int, work: Path, device: str = "cpu") -> dict:
    spec = cfglib.experiment_spec(cfg, name)
    data = prepared(cfg, spec["task"], work)
    spec["train"].update(steps=STEPS, eval_every=FIRST, checkpoint_every=10 * STEPS, n_eval=200, eval_at=[])
    seeds = [str(s) for s in cfg["seeds"][: cfg["seeds_per_job"]]]
    cmd = ["attnrepro", "train", "--spec-json", json.dumps(spec), "--seeds", *seeds,
           "--data-dir", str(data), "--ckpt-dir", str(work / "ck" / name), "--model-out", str(work / f"{name}.pt"),
           "--metrics-out", str(work / f"{name}.csv"), "--name", name, "--device", device, "--threads", str(threads)]
    return {"experiment": name, "seeds": len(seeds), "threads": threads, **timed(cmd, name, FIRST, LAST)}


def timed(cmd: list[str], name: str, first: int, last: int) -> dict:
    """Run a training command under /usr/bin/time: seconds per step between the progress lines of steps ``first``
    and ``last`` (its total), the wall time and the peak resident memory (on a GPU: :func:`timed_on_gpu`)."""
    if "cuda" in cmd:
        return timed_on_gpu(cmd, name, first, last)
    t = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True)
    wall = time.perf_counter() - t
    log = proc.stdout + proc.stderr
    if proc.returncode != 0:
        raise SystemExit(f"{name}: train failed\n{log[-2000:]}")
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", log).group(1)) / 1024
    return {"s_per_step": per_step(log, first, last), "wall_s": round(wall, 1), "max_rss_mb": rss}


def per_step(log: str, first: int, last: int) -> float:
    """Seconds per step between the progress lines of steps ``first`` and ``last`` (the run's total) of a log."""
    at = {int(s): float(x) for s, x in re.findall(rf"step (\d+)/{last}\s+([\d.]+) s", log)}
    return (at[last] - at[first]) / (last - first)


def timed_on_gpu(cmd: list[str], name: str, first: int, last: int) -> dict:
    """:func:`timed` for a command on the GPU, run in this process (``attnrepro`` is ``cli.main``): the log read from
    file descriptors 1 and 2, peak GPU memory from torch's allocator (allocated and reserved, MB)."""
    import torch

    from attnrepro import cli

    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    with tempfile.TemporaryFile(mode="w+") as f:
        sys.stdout.flush(), sys.stderr.flush()
        saved = [os.dup(1), os.dup(2)]
        os.dup2(f.fileno(), 1), os.dup2(f.fileno(), 2)
        t = time.perf_counter()
        try:
            status = cli.main(cmd[1:])
        except SystemExit as err:  # argparse
            status = err.code
        finally:
            torch.cuda.synchronize()
            wall = time.perf_counter() - t
            sys.stdout.flush(), sys.stderr.flush()
            for fd, old in zip((1, 2), saved):
                os.dup2(old, fd), os.close(old)
        f.seek(0)
        log = f.read()
    if status:
        raise SystemExit(f"{name}: train failed\n{log[-2000:]}")
    return {"s_per_step": per_step(log, first, last), "wall_s": round(wall, 1),
            "peak_gpu_mb": round(torch.cuda.max_memory_allocated() / 2 ** 20, 1),
            "reserved_gpu_mb": round(torch.cuda.max_memory_reserved() / 2 ** 20, 1)}


def snell_shape(spec: dict) -> str:
    """Snell et al. runs that cost the same per step: model, attention mode, data and the number of members."""
    m, d = spec["model"], spec["data"]
    data = "-".join(str(d.get(k, "")) for k in ("task", "length", "n_words", "name", "data_dir"))
    return f"snell-{m['type']}-h{m.get('hidden', m.get('dim'))}-k{m.get('heads', 1)}-{m.get('attention', '')}-" \
           f"{data}-m{len(spec.get('members', []))}"


def snell_shapes(block: dict) -> dict[str, str]:
    """One run per shape; the K-head runs are left out (their members come from the candidates' table)."""
    from attnrepro.snell2021 import config as snellcfg

    out = {}
    for name, spec in snellcfg.runs(block).items():
        if not name.startswith("multihead_"):
            out.setdefault(snell_shape(spec), name)
    return out


def measure_snell(cfg: dict, name: str, threads: int, work: Path, device: str = "cpu") -> dict:
    """One Snell et al. run of the paper config for SNELL_STEPS steps with an evaluation every SNELL_EVERY, the copy
    runs' own rate (the others evaluate less often: their prediction is an upper bound). A translation run reads
    the corpus the experiments' measurement prepared; a corpus that needs a download is not measured."""
    from attnrepro.snell2021 import config as snellcfg

    spec = snellcfg.runs(cfg["snell2021"])[name]
    if "data_dir" in spec["data"]:
        task = Path(spec["data"]["data_dir"]).name
        if task not in cfg["tasks"]:
            raise SystemExit(f"{name}: corpus {task} needs a download")
        spec["data"]["data_dir"] = str(prepared(cfg, task, work))
    spec["train"] = {**spec["train"], "steps": SNELL_STEPS, "eval_every": SNELL_EVERY,
                     "checkpoint_every": 10 * SNELL_STEPS, "eval_at": []}
    cmd = ["attnrepro", "snell2021", "train", name, "--spec-json", json.dumps(spec),
           "--ckpt-dir", str(work / "ck" / name), "--out-dir", str(work / "snell" / name), "--threads", str(threads),
           "--device", device]
    return {"run": name, "members": len(spec.get("members", [])), "threads": threads, "eval_every": SNELL_EVERY,
            **timed(cmd, name, SNELL_EVERY, SNELL_STEPS)}


def measure(args) -> None:
    cfg = yaml.safe_load((ROOT / args.config).read_text())
    names = [] if args.snell else args.only or list(cfg["experiments"])
    shapes = {}
    for name in names:
        shapes.setdefault(shape(cfg, name), name)
    gpu = args.device != "cpu"
    out = {"benchmark": "gpu_step_times" if gpu else "paper_step_times", "config": args.config,
           "threads": args.threads, "device": args.device, "load_average_before": os.getloadavg(), "shapes": {}}
    if gpu:
        import torch

        out.update(device_name=torch.cuda.get_device_name(), torch=torch.__version__, cuda=torch.version.cuda)
    jobs = [(key, name, measure_one, "experiment") for key, name in shapes.items()]
    if args.snell or args.snell_too:
        jobs += [(key, name, measure_snell, "run") for key, name in snell_shapes(cfg["snell2021"]).items()]
    path = Path(args.out) if args.out else RESULTS / ("gpu_step_times.json" if gpu else "paper_step_times.json")
    with tempfile.TemporaryDirectory() as work:
        for key, name, measure_shape, label in jobs:
            try:
                out["shapes"][key] = measure_shape(cfg, name, args.threads, Path(work), args.device)
            except (SystemExit, FileNotFoundError) as err:  # e.g. a corpus not downloaded here
                out["shapes"][key] = {label: name, "error": str(err)[:300]}
            print(key, out["shapes"][key], flush=True)
            if gpu:  # a device lease can end mid-list: keep what is timed
                path.write_text(json.dumps(out, indent=1) + "\n")
    out["load_average_after"] = os.getloadavg()
    if (args.only or args.snell) and path.exists() and not gpu:  # re-measure some shapes: keep the others' numbers
        old = json.loads(path.read_text())
        out = {**old, "shapes": {**old["shapes"], **out["shapes"]},
               "remeasured": sorted(set(old.get("remeasured", [])) | set(out["shapes"]))}
    path.write_text(json.dumps(out, indent=1) + "\n")


def _slice_jobs(slice_json: dict) -> dict[str, list[dict]]:
    """The paper slice's measured jobs by rule (the first part of a job's name: train, export, kobayashi2020/cache)."""
    by_rule = {}
    for job in slice_json["jobs"]:
        parts = job["job"].split("/")
        rule = parts[0] if parts[0] in ("train", "export", "analysis", "data") else "/".join(parts[:2])
        by_rule.setdefault(rule, []).append(job)
    return by_rule


def _row(rule, job, n, s, mb, source):
    return {"rule": rule, "job": job, "n_jobs": n, "s": s, "max_rss_mb": mb, "source": source}


def cost_rows(cfg: dict, slice_cfg: dict, steps_json: dict, slice_json: dict,
              multihead: dict | None = None) -> tuple[list[dict], float]:
    """Per job of config/paper.yaml, its predicted seconds on this CPU and its peak memory, with where each number
    comes from; and the evaluation overhead factor of the Aitken training jobs. ``multihead``: Fig. 6's block
    (bench/results/snell_multihead_cost.json), if measured."""
    from attnrepro.snell2021 import config as snellcfg

    jobs = _slice_jobs(slice_json)
    measured = {k: v for k, v in steps_json["shapes"].items() if "s_per_step" in v}
    # evaluation, checkpoints and start-up on top of the steps, from the slice's own train jobs
    overhead = [job["s"] / (cfglib.experiment_spec(slice_cfg, job["job"].split("/")[1])["train"]["steps"]
                            * measured[shape(slice_cfg, job["job"].split("/")[1])]["s_per_step"])
                for job in jobs.get("train", []) if shape(slice_cfg, job["job"].split("/")[1]) in measured]
    factor = sum(overhead) / len(overhead) if overhead else 1.0
    rows = []
    for name in cfg["experiments"]:
        key, steps = shape(cfg, name), cfglib.experiment_spec(cfg, name)["train"]["steps"]
        m = measured.get(key)
        rows.append(_row("train", name, 1, steps * m["s_per_step"] * factor, m["max_rss_mb"],
                         f"{steps} steps × {m['s_per_step']:.3f} s/step × {factor:.2f}") if m else
                    _row("train", name, 1, None, None, "not measured: " + _why(steps_json, key)))
    for name, spec in (snellcfg.runs(cfg["snell2021"]) if cfg.get("snell2021") else {}).items():
        key, steps = snell_shape(spec), spec["train"]["steps"]
        m = measured.get(key)
        if name.startswith("multihead_"):
            rows.append(_multihead_row(name, multihead))
        else:
            rows.append(_row("snell2021_train", name, 1, steps * m["s_per_step"], m["max_rss_mb"],
                             f"{steps} steps × {m['s_per_step']:.3f} s/step (an evaluation every "
                             f"{m['eval_every']}; the run's every {spec['train']['eval_every']})") if m else
                        _row("snell2021_train", name, 1, None, None, "not measured: " + _why(steps_json, key)))
    seeds = len(cfg["seeds"]) / len(slice_cfg["seeds"])
    n_exp = len(cfg["experiments"])
    for rule, per_seed in (("data", False), ("export", True), ("analysis", True)):
        if rule in jobs:
            js = jobs[rule]
            mean = sum(j["s"] for j in js) / len(js)
            rows.append(_row(rule, "each", len(cfg["tasks"]) if rule == "data" else n_exp,
                             mean * (seeds if per_seed else 1), max(j["max_rss_mb"] for j in js),
                             f"paper slice, mean of {len(js)} jobs" + (f" × {seeds:.2f} (seeds)" if per_seed else "")))
    same_koba = {k: v for k, v in cfg.get("kobayashi2020", {}).items() if k != "dpi"} == \
        {k: v for k, v in slice_cfg.get("kobayashi2020", {}).items() if k != "dpi"}
    for rule in sorted(r for r in jobs if r.startswith("kobayashi2020/")):
        j = max(jobs[rule], key=lambda j: j["s"])
        rows.append(_row(rule, "each", 1, j["s"], j["max_rss_mb"], "paper slice" + (
            " (the same kobayashi2020 block but dpi)" if same_koba else " (another kobayashi2020 block)")))
    for rule in ("figures/aitken2021", "claims/", "report/claims"):
        js = [j for r, j_list in jobs.items() if r.startswith(rule.rstrip("/")) for j in j_list]
        if js:
            rows.append(_row(rule.rstrip("/"), "largest", 1, max(j["s"] for j in js),
                             max(j["max_rss_mb"] for j in js), f"paper slice, largest of {len(js)}"))
    return rows, factor


def _multihead_row(name: str, cost: dict | None) -> dict:
    """A Fig. 6 job of config/paper.yaml (its own rule) from bench/snell_multihead_cost.py: scaled from copy_same's
    known cost by the measured ratio; the candidates job at the rounds the default config's yield would need."""
    rule = "snell2021_candidates" if name == "multihead_candidates" else "snell2021_multihead"
    if cost is None:
        return _row(rule, name, 1, None, None, "not measured: its members come from the candidates' table "
                    "(rounds of rejection sampling)")
    p, measured = cost["prediction"], cost["measured"]
    if rule == "snell2021_multihead":
        return _row(rule, name, 1, p["khead_job_s"], measured["khead"]["max_rss_mb"],
                    f"copy_same's {p['copy_seconds']:.0f} s × the measured ratio (bench/results/snell_multihead_cost.json)")
    rounds = p["rounds_at_default_yield"]["rounds"] if p.get("rounds_at_default_yield") else None
    if rounds is None:
        return _row(rule, name, 1, None, None, f"{p['round_s']:.0f} s per round, rounds unknown (1 to "
                    f"{p['rounds_max']})")
    return _row(rule, name, 1, rounds * p["round_s"], p["peak_rss_mb_round_at_most"],
                f"{rounds} rounds (the default config's yield) × {p['round_s']:.0f} s per round of "
                f"{p['round_members']} members (copy_same's {p['copy_seconds']:.0f} s × the measured ratio); "
                f"{p['rounds_max']} rounds: {p['rounds_max'] * p['round_s']:.0f} s")


def _why(steps_json: dict, key: str) -> str:
    return steps_json["shapes"].get(key, {}).get("error", "shape not timed")[:80].splitlines()[0]


def table(args) -> None:
    cfg = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    slice_cfg = yaml.safe_load((ROOT / "config" / "paper_slice.yaml").read_text())
    steps_json = json.loads((RESULTS / "paper_step_times.json").read_text())
    slice_json = json.loads((RESULTS / "workflow_paper_slice.json").read_text())
    multihead = RESULTS / "snell_multihead_cost.json"
    rows, factor = cost_rows(cfg, slice_cfg, steps_json, slice_json,
                             json.loads(multihead.read_text()) if multihead.exists() else None)
    threads = steps_json["threads"]
    peak, core_h = {}, {}
    for r in rows:
        if r["s"] is not None:
            rule = summary_rule(r["rule"])
            old = peak.get(rule, {"s": 0.0, "max_rss_mb": 0.0})
            peak[rule] = {"s": max(old["s"], r["s"]), "max_rss_mb": max(old["max_rss_mb"], r["max_rss_mb"])}
            core_h[rule] = core_h.get(rule, 0.0) + r["s"] * r["n_jobs"] * threads / 3600
    out = {"benchmark": "paper_cost", "config": "config/paper.yaml", "threads": threads, "eval_overhead": factor,
           "load_average_during_measurement": [steps_json["load_average_before"], steps_json["load_average_after"]],
           "rows": rows, "largest_job_by_rule": peak, "core_hours_by_rule": core_h,
           "core_hours_measured": sum(core_h.values()),
           "not_measured": [f"{r['rule']}:{r['job']}" for r in rows if r["s"] is None]}
    (REFERENCE / "paper_cost.json").write_text(json.dumps(out, indent=1) + "\n")
    lines = [f"Predicted cost of config/paper.yaml on this CPU ({threads} threads per job), from "
             "bench/results/paper_step_times.json and the paper slice's jobs (workflow_paper_slice.json).", "",
             "| rule | job | jobs | predicted s per job | peak memory (MB) | from |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['rule']} | {r['job']} | {r['n_jobs']} | {r['s']:.0f} | {r['max_rss_mb']:.0f} | {r['source']} |"
              if r["s"] is not None else f"| {r['rule']} | {r['job']} | {r['n_jobs']} | – | – | {r['source']} |"
              for r in rows]
    lines += ["", *summary_lines(out)]
    (REFERENCE / "paper_cost.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def summary_rule(rule: str) -> str:
    """The README's rows: each figure job under "figures", Kobayashi's small jobs (figures, tables, AER) as one."""
    if rule.startswith("figures/"):
        return "figures"
    return "kobayashi2020 (figures, tables, AER)" if rule.startswith("kobayashi2020/") and rule != \
        "kobayashi2020/cache" else rule


def summary_lines(cost: dict) -> list[str]:
    """The per-rule summary of a paper_cost.json, as the README shows it (tests/unit/run/test_paper_cost.py)."""
    lines = ["| rule | largest job, predicted (min) | largest peak memory (GB) | core-hours, measured jobs |",
             "|---|---|---|---|"]
    lines += [f"| {rule} | {p['s'] / 60:.1f} | {p['max_rss_mb'] / 1024:.1f} | "
              f"{cost['core_hours_by_rule'][rule]:.1f} |"
              for rule, p in cost["largest_job_by_rule"].items()]
    lines += ["", f"Total over the measured jobs: {cost['core_hours_measured']:.0f} core-hours on this CPU "
              f"({cost['threads']} threads per job); not measured: {len(cost['not_measured'])} jobs."]
    return lines


# the workflow rule that runs each measured rule's jobs (tests/unit/run/test_paper_cost.py checks its resources)
RESOURCE_RULE = {"train": "train", "snell2021_train": "snell2021_train", "export": "export", "analysis": "analyze",
                 "data": "data", "kobayashi2020/cache": "kobayashi2020_cache",
                 "snell2021_candidates": "snell2021_candidates", "snell2021_multihead": "snell2021_multihead"}


# rules whose memory request follows the config (common.smk's needs(..., need_bytes=)): resources.yaml holds the
# floor, and the request is the budget estimate's, so the measurement is checked against that request
SIZED_BY_CONFIG = {"snell2021_candidates": "candidates", "snell2021_multihead": "khead"}


def requested_mb(rule: str, config: dict, floor_mb: int) -> int:
    """The memory (MB) the workflow asks for one job of ``rule`` under ``config``: resources.yaml's ``floor_mb``, or,
    for a rule sized by its config, the estimate of :func:`attnrepro.run.budget.multihead_bytes` × the cluster margin
    where that is more (as ``needs`` in workflow/rules/common.smk)."""
    if rule in SIZED_BY_CONFIG and config.get("snell2021"):
        return cluster.memory_mb(budget.multihead_bytes(config["snell2021"])[SIZED_BY_CONFIG[rule]], floor_mb)
    return floor_mb


def needed_resources(cost: dict) -> dict[str, dict[str, int]]:
    """Per workflow rule, the least memory (1.5 × the largest job's peak, whole GB) and first-attempt runtime (the
    largest job's predicted time over attempts 1 and 2, i.e. 3 × runtime, in whole half-hours) it should ask for."""
    out = {}
    for rule, p in cost["largest_job_by_rule"].items():
        if rule in RESOURCE_RULE:
            out[RESOURCE_RULE[rule]] = {"mem_mb": 1024 * math.ceil(1.5 * p["max_rss_mb"] / 1024),
                                        "runtime": 30 * math.ceil(p["s"] / 60 / 3 / 30)}
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("measure")
    m.add_argument("--config", default="config/paper.yaml")
    m.add_argument("--threads", type=int, default=2)
    m.add_argument("--only", nargs="+")
    m.add_argument("--snell", action="store_true", help="the snell2021 block's runs instead of the experiments")
    m.add_argument("--snell-too", action="store_true", help="the snell2021 block's runs after the experiments")
    m.add_argument("--device", default="cpu", help="cpu, or cuda: timed in this process (timed_on_gpu)")
    m.add_argument("--out", help="the JSON to write (default: by device, under bench/results)")
    sub.add_parser("table")
    sub.add_parser("resources")
    args = p.parse_args()
    if args.cmd == "resources":
        need = needed_resources(json.loads((REFERENCE / "paper_cost.json").read_text()))
        print("\n".join(f"{r}: {{mem_mb: {v['mem_mb']}, runtime: {v['runtime']}}}" for r, v in need.items()))
    else:
        measure(args) if args.cmd == "measure" else table(args)


if __name__ == "__main__":
    main()
