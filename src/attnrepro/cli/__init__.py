"""The ``attnrepro`` command line that the workflow's rules call: one subcommand per stage of the core
(data, train, export, evaluate, figure, claims, ladder, archive, verify, download, prepare) and one group per paper
(``aitken2021``, ``kobayashi2020``, ``snell2021``), each defined beside the code it calls.

A subcommand parses its arguments, reads its inputs, calls library functions and writes its outputs atomically;
it holds no domain logic. A user-facing problem (bad config, missing or corrupt file) ends with one line naming
the culprit and exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from ..errors import AttnReproError

WHAT_TO_RUN = """\
what to run:
  snakemake --cores 2                        every figure and claim of the default config (the rules call the
                                             subcommands below with the right arguments)
  snakemake -n -p results/claims.csv         print the commands the rules would run, without running them
  attnrepro verify results/artifact.tar.gz   check an archived reproduction: its BagIt manifests and RO-Crate
  attnrepro COMMAND --help                   what a subcommand reads and writes

Each subcommand writes its outputs atomically; a user-facing problem (bad config, missing or corrupt file) ends
with one line naming the culprit and exit status 2."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("attnrepro")
    except PackageNotFoundError:  # run from a checkout's src/ without installing
        from .. import __version__

        return __version__


def build_parser() -> argparse.ArgumentParser:
    from ..aitken2021.cli import add_parser as aitken2021
    from ..kobayashi2020.cli import add_parser as kobayashi2020
    from ..snell2021.cli import add_parser as snell2021
    from . import core, corpora, results

    p = argparse.ArgumentParser(
        prog="attnrepro", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=WHAT_TO_RUN,
        description="Reproduce Aitken et al. 2021, Snell et al. 2021 and Kobayashi et al. 2020: the stages\n"
                    "the Snakemake workflow's rules run, one subcommand each.")
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (core.add_parsers, results.add_parsers, corpora.add_parsers, aitken2021, kobayashi2020, snell2021):
        add(sub)
    return p


SEGMENT_EXIT = 75  # EX_TEMPFAIL: the job checkpointed at its time budget; its retry continues


def _log_run(args) -> None:
    """The first line of every job's log: host, device, torch, CUDA (attnrepro.run.runinfo); a job given a GPU that
    torch cannot use stops here."""
    from ..run import runinfo

    device, problem = None, None
    if getattr(args, "device", None) is not None:
        from .common import pick_device

        try:
            runinfo.check_gpu(args.device)
            device = pick_device(args.device)
        except AttnReproError as err:
            problem = err
    print(runinfo.line(runinfo.record(device)), file=sys.stderr, flush=True)
    if problem is not None:
        raise problem
    if getattr(args, "time_budget", None):
        from ..training.engine import set_time_budget

        set_time_budget(args.time_budget)


def main(argv: list[str] | None = None) -> int:
    import time

    from .common import parse_json_options

    started = time.time()
    args = build_parser().parse_args(argv)
    try:
        _log_run(args)
        parse_json_options(args)
        with _exit_on_sigterm():
            args.func(args)
    except AttnReproError as err:
        from ..training.engine import SegmentEnd

        if isinstance(err, SegmentEnd):  # not an error: the run continues in its next segment
            print(f"attnrepro {args.command}: {err}", file=sys.stderr)
            return SEGMENT_EXIT
        print(f"attnrepro {args.command}: error: {err}", file=sys.stderr)
        return 2
    if argv is None:  # a command a job ran (not a test calling main): where and how it ran, into the job's log
        from ..run.jobrecord import format_record, job_record

        print(format_record(job_record(args.command, started)), file=sys.stderr)
    return 0


@contextlib.contextmanager
def _exit_on_sigterm():
    """SIGTERM (Slurm's preemption, Snakemake's cancel) raises SystemExit while a command runs, so every
    ``finally`` runs and no temporary file is left behind (Python's default is to die where it stands)."""
    import signal
    import threading

    def stop(signum, frame):
        raise SystemExit(128 + signum)

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
