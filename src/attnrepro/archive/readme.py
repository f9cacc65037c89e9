"""The artifact's front page (``artifact/README.md``): what each folder is, how to verify it, redraw a figure,
rerun the workflow, and which papers it reproduces — written from what this artifact holds."""

from __future__ import annotations

from ..verdicts.claims import PAPERS

def _figures(packed: dict[str, int], results: str) -> list[str]:
    return sorted(p for p in packed if p.startswith(f"{results}/figures/") and p.endswith(".png"))


def readme(jobs: list[dict], packed: dict[str, int], *, commit: str, version: str, dirty: bool, models: bool,
           analysis: bool, results: str = "results") -> str:
    figures = _figures(packed, results)
    example = next((f for f in figures if "/aitken2021/" in f), figures[0] if figures else
                   f"{results}/figures/aitken2021/fig2a.png")
    papers = "\n".join(f"- {title}" for key, title in PAPERS.items() if key != "blog003")
    rules = sorted({j["rule"] for j in jobs})
    dirty_note = (" The working tree had uncommitted changes when it ran: `data/code/` is the commit, not exactly "
                  "what ran." if dirty else "")
    if analysis:
        redraw = f"""Every input of every figure is packed (`archive.analysis: true`), so a figure is redrawn without
training. From `artifact/data/`, with the environment installed (see "How to rerun it"):

    snakemake --snakefile code/Snakefile --configfile config.yaml --cores 1 -f {example}

Only the figure's job runs; edit `code/src/attnrepro/` or `config.yaml` (e.g. `figures.dpi`) first to redraw it
differently. The redrawn file replaces the packed one, so `bagit.py --validate` fails afterwards: work on a copy."""
    else:
        redraw = """This artifact was packed without the analysis tables (`archive.analysis: false`), so a figure can
only be redrawn by rerunning the jobs before it (below). Pack with `archive: {analysis: true}` in the config to
make figures redrawable from the artifact alone."""
    return f"""# attnrepro {version}: a reproduction run

A paper artifact of [attnrepro](data/code/README.md), a Snakemake workflow that reproduces, with error bars:

{papers}

Start with **`data/{results}/claims.md`**: per claim, the paper's sentence, our number with its interval, and a
verdict. Code: git commit `{commit}`.{dirty_note} {len(jobs)} jobs of {len(rules)} rules ran; each is described in
`data/ro-crate-metadata.json`.

## What each file and folder is

| path | what |
|---|---|
| `README.md`, `LICENSE`, `CITATION.cff` | this page, the licence (MIT), how to cite the workflow and the papers |
| `bagit.txt`, `bag-info.txt` | a [BagIt](https://www.rfc-editor.org/rfc/rfc8493) bag; bag-info names the commit and the payload's size |
| `manifest-sha256.txt`, `tagmanifest-sha256.txt` | SHA-256 of every file under `data/`, and of the files above |
| `data/ro-crate-metadata.json` | a [Workflow Run RO-Crate](https://w3id.org/ro/wfrun/workflow/0.5): the workflow, the config, every job (rule, inputs, outputs, start, end, host, device, peak memory) and the claims table as main result |
| `data/code/` | the workflow at commit `{commit[:12]}` (its own README, the lock `requirements.txt`) |
| `data/config.yaml` | the resolved config it ran with |
| `data/environment.txt` | `pip freeze` of the environment that packed it |
| `data/{results}/` | claims (`claims.md`, `claims.csv`), figures (`figures/<paper>/`), the Snakemake report (`report.zip`), each job's log and benchmark (`logs/`, `benchmarks/`), training metrics{", trained models (`models/`)" if models else ""}{", analysis tables (`analysis/`)" if analysis else ""} |

## How to verify it

With nothing of this project installed (`pip install bagit`):

    bagit.py --validate artifact        # or: python -m bagit --validate artifact

It checks every file against the manifests. With attnrepro installed, `attnrepro verify artifact.tar.gz` also
checks the RO-Crate, and refuses an archive with a member outside `artifact/`, a link, or more bytes than
bag-info.txt announces. The manifests detect corruption, not a deliberate edit: compare the tarball's SHA-256 with
the one published beside it (packing is deterministic: the same results give the same bytes).

## How to redraw a figure

{redraw}

## How to rerun it

Install the environment the run used (Python 3.11; the lock `code/requirements.txt`, torch's CPU build — on a
GPU cluster see `code/README.md`), from `artifact/data/`:

    make -C code install && . code/.venv/bin/activate

then rerun every job of this config (`--profile code/slurm` on a Slurm cluster; see `code/README.md`):

    snakemake --snakefile code/Snakefile --configfile config.yaml --cores 2 --forceall

## How to cite

See `CITATION.cff` (the workflow, version {version}) and cite the papers above.
"""
