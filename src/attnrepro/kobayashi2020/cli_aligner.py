"""``attnrepro kobayashi2020 aligner`` and ``aligner-gap``: Table 3's fast_align comparison measured (§5).

``aligner`` runs the statistical aligner (:mod:`.statistical_aligner`, eflomal) on a corpus's training text plus
a gold set's sentence pairs, as Zenkel et al. ran the fast_align whose AER (28.4) the paper quotes, and scores the
gold pairs' links; ``aligner-gap`` sets that AER beside each seed's best-layer vector-norm AER. Files are read and
written only here; the work is in :mod:`.aligner_aer`."""

from __future__ import annotations

import sys
from pathlib import Path

from ..cli.common import positive, sub


def cmd_aligner(args) -> None:
    import pyarrow.compute as pc

    from ..io import atomic_path, read_parquet_table, write_csv
    from . import statistical_aligner  # looked up at call time: tests put a fake aligner in its place
    from .aer import format_pharaoh
    from .aligner_aer import COMPARED, aligner_aer_table
    from .gold import read_gold_set

    gold = read_gold_set(args.source, args.target, args.alignment, args.index_base, args.key)
    train = read_parquet_table(args.train, ["src", "tgt"], nonempty=True)
    if args.n_train is not None:
        train = train.slice(0, args.n_train)
    # the training text as the model saw it (rare words are <unk> there), joined in Arrow: one string per sentence
    # (millions of them), not a Python object per word; the gold pairs as the gold files spell them, so their words
    # are the aligner's own and the links come back in the gold set's positions
    text = tuple(pc.binary_join(train[side], " ").to_pylist() for side in ("src", "tgt"))
    links = statistical_aligner.align_directions(gold.src, gold.tgt, len(gold.src), seed_text=text,
                                                 n_samplers=args.n_samplers)
    table = aligner_aer_table(links, gold.sure, gold.possible)
    out = Path(args.out_dir)
    write_csv(table, out / "aligner_aer.csv")
    with atomic_path(out / f"links_{COMPARED}.talp") as tmp:  # the scored links, for inspection beside the gold
        tmp.write_text("".join(format_pharaoh(s) + "\n" for s in links[COMPARED]), encoding="utf-8")
    print(f"{train.num_rows} training pairs + {len(gold.src)} gold pairs aligned\n{table.to_string()}", file=sys.stderr)


def cmd_aligner_gap(args) -> None:
    from ..io import read_csv_checked, write_csv
    from .aligner_aer import COLUMNS, norm_minus_aligner

    summary = read_csv_checked(args.aer_summary, ["seed", "aer_norm_best"], nonempty=True)
    aligner = read_csv_checked(args.aligner, COLUMNS, nonempty=True)
    gap = norm_minus_aligner(summary, aligner)
    write_csv(gap, args.out)
    print(gap.to_string(), file=sys.stderr)


def add_parsers(ks) -> None:
    """The two steps, under ``attnrepro kobayashi2020``'s subcommands ``ks``."""
    kl = sub(ks, "aligner", "a statistical word aligner (eflomal) on the training text plus a gold set's pairs; "
                            "its AER on the gold pairs (Table 3's fast_align row)", cmd_aligner)
    kl.add_argument("--train", required=True, help="the corpus's train.parquet (columns src, tgt)")
    kl.add_argument("--n-train", type=positive, default=None, help="training pairs used at most (default: all)")
    kl.add_argument("--source", required=True, help="gold source sentences, whitespace-tokenised, one per line")
    kl.add_argument("--target", required=True, help="gold target sentences, one per line")
    kl.add_argument("--alignment", required=True, help="gold Pharaoh links, one line per sentence pair")
    kl.add_argument("--index-base", type=int, choices=(0, 1), required=True, help="0 or 1: how the links count")
    kl.add_argument("--key", required=True, help="the config key of the gold set, for error messages")
    kl.add_argument("--n-samplers", type=positive, default=3, help="eflomal's independent samplers (its default)")
    kl.add_argument("--out-dir", required=True, help="writes aligner_aer.csv and links_forward.talp")
    kp = sub(ks, "aligner-gap", "each seed's best-layer vector-norm AER minus the aligner's AER", cmd_aligner_gap)
    kp.add_argument("--aer-summary", required=True, help="the gold set's aer_summary.csv (of `aer-gold`)")
    kp.add_argument("--aligner", required=True, help="aligner_aer.csv (of `aligner`)")
    kp.add_argument("--out", required=True, help="aligner_gap.csv: seed, aer_aligner, aer_norm_best_minus_aligner")
