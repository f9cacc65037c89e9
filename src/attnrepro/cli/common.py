"""What every subcommand shares: the device and thread options, reading a task's split, the help texts."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..errors import AttnReproError

SPEC_HELP = ("as JSON; the workflow writes it from the config. `snakemake -n -p TARGET` prints the exact command a "
             "rule runs")


def pick_device(name: str):
    """The device of config key ``device``; one that this machine lacks is named with the ones it has."""
    import torch

    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(name)
    except RuntimeError as err:
        raise AttnReproError(f"device: {name!r} is not a device name ({err})") from None
    have = ["cpu"]
    if torch.cuda.is_available():
        have += [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    if torch.backends.mps.is_available():
        have.append("mps")
    if dev.type == "cuda" and (not torch.cuda.is_available() or (dev.index or 0) >= torch.cuda.device_count()):
        why = "torch was built without CUDA" if not torch.backends.cuda.is_built() else "no CUDA device is visible"
        raise AttnReproError(f"device: {name!r} was asked for (config key 'device'), but {why} on this machine; "
                             f"it has {', '.join(have)} — set device: auto or cpu, or run the job on a GPU node")
    if dev.type == "mps" and not torch.backends.mps.is_available():
        raise AttnReproError(f"device: 'mps' was asked for, but this machine has {', '.join(have)}")
    return dev


def threads(n: int | None) -> None:
    if n:
        import torch

        torch.set_num_threads(n)


def load_split(data_dir: Path, split: str, task: str | None = None, asked_by: str = "--data-dir"):
    """A task's vocabulary and one split of ``--data-dir``, encoded; an empty or unencodable split is named. The
    split's stamp (:func:`attnrepro.data.vocab.write_task`) must be of its folder's task, else the file is moved
    aside (:func:`attnrepro.provenance.check`), and of ``task`` when given: a good split of another task stays, and
    the error names ``asked_by``, the option that asked for ``task``. Then the split must be of this
    ``vocab.json``: a word missing from a vocabulary that is not the one the split was made with blames (and moves
    aside) ``vocab.json``."""
    from ..data.vocab import Vocab, encode
    from ..io import quarantine, read_json, read_parquet
    from ..provenance import check, fingerprint, parquet_stamp

    vocab_path, path = data_dir / "vocab.json", data_dir / f"{split}.parquet"
    vocab_dict = read_json(vocab_path)
    try:
        vocab = Vocab.from_dict(vocab_dict)
        if not vocab.src or not vocab.tgt:
            raise ValueError("an empty vocabulary")
    except (KeyError, TypeError, ValueError) as err:
        raise quarantine(vocab_path, f"not a vocabulary ({type(err).__name__}: {err})") from err
    df = read_parquet(path, columns=["src", "tgt"])
    if len(df) == 0:
        raise AttnReproError(f"{path}: the split is empty")
    found = parquet_stamp(path)
    # the split first: a vocabulary is judged against a split that is its folder's own and the one asked for
    check(path, found, "split", option="--data-dir", task=(task, asked_by))
    made_with = found.get("vocab")
    try:
        encoded = encode(df, vocab)
    except ValueError as err:
        if made_with is not None and made_with != fingerprint(vocab_dict):
            raise quarantine(vocab_path, f"not the vocabulary {path.name} was made with ({err})") from err
        raise AttnReproError(f"{path}: {err}") from err
    if made_with != fingerprint(vocab_dict):
        raise quarantine(vocab_path, f"not the vocabulary {path.name} was made with")
    return vocab, encoded


def same_vocabulary(vocab, vocab_dict: dict, model_path, vocab_path) -> None:
    from ..data.vocab import Vocab

    if vocab != Vocab.from_dict(vocab_dict):
        raise AttnReproError(f"{model_path}: trained on another vocabulary than {vocab_path}; retrain")


def sub(subparsers, name: str, help: str, func, **kwargs) -> argparse.ArgumentParser:
    """A subcommand whose --help starts with its one-line summary."""
    p = subparsers.add_parser(name, help=help, description=help[0].upper() + help[1:] + ".", **kwargs)
    p.set_defaults(func=func)
    return p


def device_threads(p) -> None:
    p.add_argument("--device", default="auto", help="cpu, cuda, or auto: cuda when the job sees a GPU (default)")
    p.add_argument("--threads", type=positive, default=None, help="torch CPU threads (default: torch's own choice)")
    p.add_argument("--time-budget", type=float, default=None, metavar="MINUTES",
                   help="train at most this long, then checkpoint and exit with status 75 (a cluster job's segment)")


def expected_experiment(p) -> None:
    p.add_argument("--experiment", default=None,
                   help="the experiment the model must be of (its model.pt records it); the workflow passes it")


class DistinctSeeds(argparse.Action):
    """``--seeds`` of ``nargs="+"``: each seed once (a seed given twice would train two identical members)."""

    def __call__(self, parser, namespace, values, option_string=None):
        twice = sorted({s for s in values if values.count(s) > 1})
        if twice:
            raise argparse.ArgumentError(self, f"seed(s) {twice} given more than once in {values}; each seed is "
                                               f"one member, give each once")
        setattr(namespace, self.dest, values)


def positive(text: str) -> int:
    """argparse type of a count: a whole number of at least 1 (the option is named by argparse)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return value


def json_option(p, flag: str, keys: tuple[str, ...] = (), **kwargs) -> None:
    """Add the ``--*-json`` option ``flag`` to ``p``: a JSON object holding at least ``keys`` (the ones the command
    reads whatever else the object says), which :func:`parse_json_options` checks before the command runs."""
    action = p.add_argument(flag, **kwargs)
    p.set_defaults(json_keys={**(p.get_default("json_keys") or {}), action.dest: tuple(keys)})


def parse_json_options(args) -> None:
    """Every ``--*-json`` option parsed once, here: malformed JSON, or an object of :func:`json_option` that is
    not an object or lacks a key the command reads, is one line naming the option (and the key)."""
    import json

    objects = getattr(args, "json_keys", None) or {}
    for name, value in vars(args).items():
        if name.endswith("_json") and isinstance(value, str):
            option = f"--{name.replace('_', '-')}"
            try:
                parsed = json.loads(value)
            except ValueError as err:
                raise AttnReproError(f"{option}: not valid JSON ({err})") from None
            if name not in objects:
                continue
            keys = objects[name]
            if not isinstance(parsed, dict):
                raise AttnReproError(f"{option}: expected a JSON object" + (f" with keys {', '.join(keys)}" if keys
                                                                            else "") + f", got {value[:80]!r}")
            missing = [k for k in keys if k not in parsed]
            if missing:
                raise AttnReproError(f"{option}: missing key{'s' * (len(missing) > 1)} {', '.join(map(repr, missing))} "
                                     f"(the object needs {', '.join(keys)}; the workflow writes it from the config)")


def figure_files(p, csv: bool = True) -> None:
    p.add_argument("--png", required=True, help="the figure as PNG")
    p.add_argument("--pdf", required=True, help="the figure as PDF")
    if csv:
        p.add_argument("--csv", required=True, help="the numbers behind the figure")
    p.add_argument("--dpi", type=positive, default=150, help="PNG resolution (default 150)")


def write_figure(fig, data, args) -> None:
    """A figure and the numbers behind it: every figure of every paper has its CSV."""
    from ..figures import save
    from ..io import write_csv

    write_csv(data, args.csv)
    save(fig, args.png, args.pdf, dpi=args.dpi)
