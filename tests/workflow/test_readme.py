"""Every command of README.md, run exactly as written (a dry run where the real one is long) in a copy of the
repository, and checked for what the README says it does; and the report it builds, opened in headless Chromium,
shows the claims.

A command is a line of a ```bash block, or an inline `code` span that starts with a program and has arguments.
RUN says where each one runs and what is checked; a README command missing from RUN (or the reverse) fails.
Where they run: "demo", a copy whose default config is the smoke config, holding the smoke run's results (the
real default takes many times longer: bench/results/workflow_config.json); "fresh", a copy with the real configs
and no results; "root", this checkout. The benchmark numbers the README quotes are checked in test_doc_numbers.py.
"""

import re
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from typing import Callable

import pandas as pd
import pytest

from attnrepro.verdicts.claims import PAPERS
from tests.helpers import ROOT, checkout_files, job_counts, tool_env
from tests.helpers.browser import Browser, chromium

README = ROOT / "README.md"
PROGRAMS = r"(?:snakemake|make|attnrepro|python|pip|pytest|source)"


def readme_commands() -> list[str]:
    text = README.read_text()
    commands = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, flags=re.M | re.S):
        commands += [re.sub(r"\s+#.*$", "", line).strip() for line in block.splitlines()]
    commands += re.findall(rf"`({PROGRAMS} [^`]+)`", text)
    return list(dict.fromkeys(c for c in commands if c))


def stats(out: str) -> dict:
    return job_counts(out)


def only(rule: str) -> Callable:
    """One job of ``rule`` ran (and, with no target named, `all`, which runs nothing)."""
    def check(out, where):
        counts = stats(out)
        counts.pop("all", None)
        assert counts == {rule: 1}, out[-3000:]
    return check


def contains(*texts) -> Callable:
    def check(out, where):
        for text in texts:
            assert text in out, (text, out[-3000:])
    return check


def default_job_count(out, where):
    """A dry run of the default workflow: as many jobs as the README says `make run` runs."""
    total = sum(stats(out).values())
    said = int(re.search(r"`make run` runs (\d+) jobs", README.read_text()).group(1))
    assert total == said, (total, said)


def paper_on_slurm(out, where):
    counts = stats(out)
    assert counts["train"] > 0 and counts["evaluate"] > 0 and counts["download"] > 0, counts


def downloads_only(out, where):
    counts = stats(out)
    assert set(counts) == {"download", "downloads"} and counts["download"] > 10, counts


def paper_figure_only_under_its_root(out, where):
    """The paper's figure, after a paper run, names the paper's root: every job of it writes there."""
    assert stats(out)["figure_aitken2021"] == 1, out[-3000:]
    outputs = re.findall(r"^    output: (.*)$", out, flags=re.M)
    assert outputs and all(p.startswith("results_paper/") for o in outputs for p in o.split(", ")), outputs[:5]


def made(path: str, min_size: int = 1) -> Callable:
    def check(out, where):
        assert (where / path).stat().st_size >= min_size, out[-3000:]
    return check


def archive_written(out, where):
    import tarfile

    with tarfile.open(where / "workflow.tar.gz") as tar:
        names = tar.getnames()
    assert "Snakefile" in names and "slurm/partitions.yaml" in names, names[:20]


@dataclass
class Run:
    where: str                 # demo | fresh | root
    dry: str = ""              # appended to the command: a dry run of a long one
    check: Callable = lambda out, where: None
    before: list = field(default_factory=list)  # files removed first (a figure the command rebuilds)
    needs: str = ""            # a program the command needs; where it is missing, the command must stop naming it


RUN = {
    "make smoke": Run("fresh", " -n", contains("snakemake --cores 2 --configfile config/smoke.yaml",
                                               "head -n 5 results_smoke/claims.md")),
    "snakemake --cores 2 --configfile config/smoke.yaml": Run("fresh", " -n", contains("This was a dry-run")),
    "make run": Run("fresh", " -n", contains("pip install --quiet -r requirements.txt", "snakemake --cores 2")),
    "make test": Run("fresh", " -n", contains("-r requirements.txt", "pytest")),
    "make install": Run("fresh", " -n", contains("--extra-index-url https://download.pytorch.org/whl/cpu "
                                                 '"torch==2.13.0"', "-r requirements-data.txt")),
    "make lock": Run("fresh", " -n", contains("pip-compile", "--unsafe-package torch", "requirements.in")),
    "make install TORCH_INDEX=https://download.pytorch.org/whl/cu128":
        Run("fresh", " -n", contains("--extra-index-url https://download.pytorch.org/whl/cu128")),
    "source .venv/bin/activate": Run("root", " && command -v attnrepro snakemake", contains(".venv/bin/attnrepro")),
    "attnrepro --help": Run("root", "", contains("attnrepro verify", "snell2021")),
    "snakemake --report results/report.html": Run("demo", "", made("results/report.html", 100_000)),
    "snakemake --cores 1 --force results/figures/aitken2021/fig2a.png": Run("demo", "", only("figure_aitken2021")),
    "snakemake --cores 2 results/figures/aitken2021/fig2b.png":
        Run("demo", "", only("figure_aitken2021"), ["results/figures/aitken2021/fig2b.png"]),
    "snakemake --cores 1 --force results_paper/figures/aitken2021/fig2a.png --configfile config/paper.yaml":
        Run("fresh", " -n", paper_figure_only_under_its_root),
    "snakemake --profile slurm --configfile config/paper.yaml": Run("fresh", " -n", paper_on_slurm),
    "snakemake --cores 4 downloads --configfile config/paper.yaml": Run("fresh", " -n", downloads_only),
    "snakemake --cores 2 results/artifact.tar.gz": Run("demo", "", made("results/artifact.tar.gz", 100_000)),
    "snakemake --cores 1 results/artifact.verified": Run("demo", "", made("results/artifact.verified")),
    "attnrepro verify results/artifact.tar.gz": Run("demo", "", contains("every file matches its manifest")),
    "tar xzf results/artifact.tar.gz && bagit.py --validate artifact": Run("demo", "", contains("is valid")),
    "snakemake --cores 2 results_paper/artifact.tar.gz --configfile config/paper.yaml":
        Run("fresh", " -n", contains("rule archive:", "results_paper/artifact.tar.gz")),
    "snakemake --archive workflow.tar.gz": Run("demo", "", archive_written, needs="conda"),
    "snakemake -n": Run("fresh", "", contains("This was a dry-run")),
    "snakemake --cores 2": Run("fresh", " -n", default_job_count),
    "snakemake --cores 2 --configfile config/paper_slice.yaml": Run("fresh", " -n", contains("kobayashi2020_cache",
                                                                                              "This was a dry-run")),
    "snakemake --cores 2 ladder": Run("fresh", " -n", contains("ladder_claims", "This was a dry-run")),
    "python bench/first_look.py": Run("fresh", " --help", contains("make smoke", "--keep")),
    "python bench/run_all.py": Run("fresh", " --dry-run", contains("bench/snell_copy.py", "bench/workflow.py")),
    'pytest -m "not slow"': Run("root", " --collect-only -q", contains("deselected")),
}


def copy_checkout(dest):
    """The files of this checkout that git tracks or would track (what a clone plus the work in progress has)."""
    for name in checkout_files():
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)
    return dest


@pytest.fixture(scope="module")
def places(smoke_run, tmp_path_factory):
    fresh = copy_checkout(tmp_path_factory.mktemp("readme_fresh"))
    demo = copy_checkout(tmp_path_factory.mktemp("readme_demo"))
    # the demo's default config is the smoke config with the default's results root (where the smoke run is)
    smoke = (ROOT / "config" / "smoke.yaml").read_text()
    assert smoke.count("\nresults: results_smoke") == 1
    (demo / "config" / "config.yaml").write_text(smoke.replace("\nresults: results_smoke", "\nresults: results"))
    work, _ = smoke_run
    shutil.copytree(work / "results", demo / "results")
    shutil.copytree(work / ".snakemake", demo / ".snakemake", ignore=shutil.ignore_patterns("locks", "log"))
    git = ["git", "-c", "user.name=readme", "-c", "user.email=readme@test", "-C", str(demo)]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "-A"], check=True)
    subprocess.run(git + ["commit", "-q", "-m", "the README's demo checkout"], check=True)
    return {"demo": demo, "fresh": fresh, "root": ROOT}


_done: dict[str, str] = {}


def run_readme(command: str, places) -> str:
    """Run a README command once, as written (plus RUN's dry-run flag), where RUN says; return its output."""
    if command not in _done:
        how = RUN[command]
        where = places[how.where]
        for name in how.before:
            (where / name).unlink()
        proc = subprocess.run(["bash", "-c", command + how.dry], cwd=where, env=tool_env(), capture_output=True,
                              text=True, timeout=600)
        out = proc.stdout + proc.stderr
        if how.needs and shutil.which(how.needs) is None:
            # the README says what the command needs: without it, one error naming it, and nothing written
            assert proc.returncode != 0 and how.needs in out, f"{command}{how.dry}:\n{out[-4000:]}"
            assert not (where / "workflow.tar.gz").exists()
            _done[command] = out
            return out
        assert proc.returncode == 0, f"{command}{how.dry}:\n{out[-4000:]}"
        how.check(out, where)
        _done[command] = out
    return _done[command]


def test_every_readme_command_is_run_here():
    commands = readme_commands()
    assert not set(commands) - set(RUN), f"README commands no test runs: {sorted(set(commands) - set(RUN))}"
    assert not set(RUN) - set(commands), f"no longer in the README: {sorted(set(RUN) - set(commands))}"
    # the pre-download command names its target before --configfile, which would take it for a config file
    assert not any(re.search(r"--configfile \S+ [a-z]", c) for c in commands), commands


# the artifact commands depend on each other: the README's order
@pytest.mark.slow
@pytest.mark.parametrize("command", list(RUN))
def test_readme_command(command, places):
    if command in ("attnrepro verify results/artifact.tar.gz",
                   "tar xzf results/artifact.tar.gz && bagit.py --validate artifact"):
        run_readme("snakemake --cores 2 results/artifact.tar.gz", places)
    if command == "source .venv/bin/activate" and not (ROOT / ".venv").exists():
        pytest.skip("no .venv here (make install builds it)")
    run_readme(command, places)


@pytest.mark.slow
def test_readme_claims_row_is_the_smoke_runs(places):
    """The claims row the README shows is a row of the smoke run's claims.md, as claims.md writes it."""
    rows = [line for line in README.read_text().splitlines() if line.startswith("| aitken2021 | **")]
    assert len(rows) == 1, rows
    assert rows[0] in (places["demo"] / "results" / "claims.md").read_text().splitlines(), rows[0]


CLICK_LINK = """(() => { const a = [...document.querySelectorAll('a')].find(a => a.innerText.trim() === %r
  && a.getAttribute('href').startsWith(%r)); if (!a) return false; a.click(); return true; })()"""
VIEW = """(() => { const row = [...document.querySelectorAll('tr')].find(r => [...r.cells].some(c =>
  c.innerText.trim() === %r)); const eye = row && row.querySelector('a[iconname=eye]');
  if (!eye) return false; eye.click(); return true; })()"""


def shown_result(browser: Browser, row: str, filename: str) -> str:
    """Press the eye of a result (its row in the open category shows ``row``); the text of the frame it opens."""
    assert browser.wait_for(VIEW % row)
    browser.wait_for("document.querySelector('iframe') !== null")
    for _ in range(100):
        texts = [t for url, t in browser.frame_texts().items() if f"filename={filename};" in url and t]
        if texts:
            return texts[0]
        time.sleep(0.2)
    raise AssertionError(f"{filename} did not open")


@pytest.mark.slow
def test_report_shows_the_claims_in_a_browser(places, tmp_path):
    binary = chromium()
    if binary is None:
        pytest.skip("no chromium (Debian package `chromium`; .ci/run installs it)")
    run_readme("snakemake --report results/report.html", places)
    demo = places["demo"]
    claims = pd.read_csv(demo / "results" / "claims.csv")
    table2 = pd.read_csv(demo / "results" / "figures" / "snell2021" / "table2.csv")
    browser = Browser(binary, tmp_path / "chromium")
    try:
        browser.open((demo / "results" / "report.html").as_uri())
        landing = browser.wait_for("document.querySelector('#app') && document.querySelector('#app').innerText")
        assert "Configuration" not in landing and "claims.html" in landing
        # the landing text's own link opens the claims
        assert browser.wait_for(CLICK_LINK % ("Claims", "javascript:"))
        text = shown_result(browser, "results/report/claims.html", "claims.html")
        for paper, rows in claims.groupby("paper"):
            assert PAPERS.get(paper, paper) in text
            assert f"{len(rows)} rows: " in text  # its summary line, verdicts counted
        for row in claims.itertuples():
            assert row.claim_id in text and row.experiment in text
        # Snell et al.'s Table 2 as a table, from the menu of a freshly opened report
        browser.open((demo / "results" / "report.html").as_uri())
        assert browser.wait_for(CLICK_LINK % ("Snell et al. 2021", "#"))
        text = shown_result(browser, "table2 as a table", "snell2021_table2.html")
        for task in table2.task:
            assert task in text
        assert "±" in text
    finally:
        browser.close()
