"""`attnrepro --help` tells a person what they can run; every option says what it is; --version and the licence
come from the package metadata."""

import argparse
import subprocess
import sys
from importlib.metadata import metadata, version

from attnrepro.cli import build_parser
from tests.helpers import ROOT, tool_env


def parsers(parser: argparse.ArgumentParser, path=("attnrepro",)):
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, (*path, name))


def test_every_subcommand_and_option_has_help():
    missing = [f"{' '.join(path)} {action.dest}" for path, parser in parsers(build_parser())
               for action in parser._actions
               if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
               and not action.help]
    assert not missing, missing
    subcommands = [path for path, _ in parsers(build_parser())]
    assert ("attnrepro", "verify") in subcommands and ("attnrepro", "kobayashi2020", "aer") in subcommands
    for path, parser in parsers(build_parser()):
        if len(path) > 1:
            assert parser.description, path


def test_help_says_what_to_run():
    out = subprocess.run(["attnrepro", "--help"], env=tool_env(), capture_output=True, text=True, check=True).stdout
    for text in ("snakemake --cores 2", "attnrepro verify results/artifact.tar.gz", "--version",
                 "COMMAND --help", "train", "snell2021", "kobayashi2020"):
        assert text in out, text


def test_version_is_the_package_metadata():
    out = subprocess.run([sys.executable, "-m", "attnrepro.cli", "--version"], env=tool_env(), capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == f"attnrepro {version('attnrepro')}"


def test_mit_licence():
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert metadata("attnrepro")["License-Expression"] == "MIT"
