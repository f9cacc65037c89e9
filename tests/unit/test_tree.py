"""The repository's folders: the workflow (src/, workflow/, config/) reads nothing under bench/, whose speed and
memory benchmarks may move or go without the workflow noticing; what the workflow reads from measurements lives in
workflow/reference/. Each folder of scripts (bench/, studies/, tools/) and workflow/reference/ has a README naming
what lives there."""

import re

import pytest

from tests.helpers import ROOT, checkout_files

WORKFLOW_PARTS = ("src", "workflow", "config", "Snakefile")
# committed tables the workflow reads: their rows may name the benchmark results they were computed from
DATA = ROOT / "workflow" / "reference"
# bench/ as a folder or file to read: "bench/<anything>" but a script's name, or "bench" as a path component
# in code (ROOT / "bench" / ...); naming the script that measured a number (bench/paper_cost.py) reads nothing
BENCH_PATH = re.compile(r"(?<![\w./-])bench/(?![\w-]+\.(?:py|sh)\b)|[\"']bench[\"']")


def bench_reads(text: str) -> list[str]:
    """The lines of ``text`` that name bench/ as a path to read."""
    return [line.strip() for line in text.splitlines() if BENCH_PATH.search(line)]


def workflow_files():
    """The repository's files of the workflow's parts; a page (config/README.md, a wing's README) may quote a
    benchmark, so pages are left out."""
    for name in sorted(checkout_files()):
        path = ROOT / name
        if (name.split("/")[0] in WORKFLOW_PARTS and DATA not in path.parents and path.suffix != ".md"):
            yield path


def test_the_checker_finds_a_planted_read_and_passes_a_script_name():
    planted = ('COST = json.loads((Path(workflow.basedir) / "bench" / "results" / "paper_cost.json").read_text())\n'
               "    committed demo run: bench/results/claims_config.csv\n"
               "# the costs of workflow/reference/paper_cost.json, written by `python bench/paper_cost.py table`\n"
               'f"{R}/benchmarks/train/{{experiment}}.tsv"\n')
    assert bench_reads(planted) == [line.strip() for line in planted.splitlines()[:2]]
    assert bench_reads("sys.path.insert(0, str(ROOT / 'bench'))") != []
    assert bench_reads("see bench/ for the timings") != []
    assert bench_reads("measured by bench/training_time_ab.sh and bench/gpu.py") == []


def test_no_workflow_file_reads_bench():
    found = {}
    for path in workflow_files():
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue  # a binary file names no path
        if lines := bench_reads(text):
            found[str(path.relative_to(ROOT))] = lines
    assert not found, found


@pytest.mark.parametrize("folder", ["bench", "studies", "tools", "workflow/reference"])
def test_each_folder_has_a_readme_naming_its_files(folder):
    top = ROOT / folder
    readme = (top / "README.md").read_text()
    scripts = [p for p in top.rglob("*")
               if p.suffix in {".py", ".sh"} or p.parent == top and p.suffix in {".csv", ".json"}]
    unnamed = [str(p.relative_to(top)) for p in scripts if p.name not in readme]
    assert scripts and not unnamed, unnamed
