"""The papers' own corpora: fetch a pinned file, prepare a corpus (``attnrepro download|prepare``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .common import SPEC_HELP, json_option, sub


# -- corpora: download / prepare (the papers' own data sets) ------------------------------------------------
def cmd_download(args) -> None:
    from ..data.download import fetch

    fetch(args.url, args.out, args.sha256, md5=args.md5, local_dir=args.local_dir, local_name=args.local_name,
          allow_unpinned=args.allow_unpinned)


def cmd_prepare(args) -> None:
    from ..data.corpora.prepare import prepare
    from ..data.download import verify_download
    from ..data.vocab import write_task
    from ..io import atomic_path

    corpus = json.loads(args.corpus_json)
    out = Path(args.out_dir)
    for name, source in corpus["files"].items():  # again: a file may have changed since its download rule ran
        verify_download(Path(args.raw_dir) / name, source.get("sha256"), source.get("md5"))
    prepared = prepare(corpus, Path(args.raw_dir))
    if prepared["spm"] is not None:
        with atomic_path(out / "spm.model") as tmp:
            tmp.write_bytes(prepared["spm"])
    write_task(prepared["splits"], prepared["vocab"], out)


def cmd_prepare_gold(args) -> None:
    from ..data.corpora import FORMATS, has_gold
    from ..data.download import verify_download
    from ..errors import AttnReproError

    from ..kobayashi2020.rwth import read_gold, write_gold  # the one release with gold so far: wmt16's RWTH set

    corpus = json.loads(args.corpus_json)
    if not has_gold(corpus):
        raise AttnReproError(f"--corpus-json: format {corpus['format']!r} has no gold alignment set")
    gold_file = FORMATS[corpus["format"]].GOLD_FILE
    verify_download(Path(args.raw_dir) / gold_file, corpus["files"][gold_file].get("sha256"),
                    corpus["files"][gold_file].get("md5"))
    gold = read_gold(corpus, Path(args.raw_dir))
    paths = write_gold(gold, Path(args.out_dir))
    print(f"{len(gold.src)} gold sentence pairs, {sum(map(len, gold.sure))} sure and "
          f"{sum(map(len, gold.possible))} possible links -> {', '.join(map(str, paths.values()))}", file=sys.stderr)


def add_parsers(subparsers) -> None:
    dl = sub(subparsers, "download", "fetch one pinned corpus file, verified by its SHA-256", cmd_download)
    dl.add_argument("--url", required=True, help="where the file is published")
    dl.add_argument("--sha256", type=lambda s: None if s in ("", "null", "None") else s.lower(), required=True,
                    help="expected digest; 'null' for an unpinned file (needs --allow-unpinned)")
    dl.add_argument("--md5", type=str.lower, help="the publisher's MD5, checked when no SHA-256 is pinned")
    dl.add_argument("--out", required=True, help="where the verified file goes")
    dl.add_argument("--local-dir", help="offline mirror: copy LOCAL_DIR/LOCAL_NAME instead of downloading")
    dl.add_argument("--local-name", help="the file's path under --local-dir (default: the name of --out)")
    dl.add_argument("--allow-unpinned", action="store_true", help="accept a file with no pinned digest; "
                    "its log prints the SHA-256 to pin")

    pr = sub(subparsers, "prepare", "turn a downloaded corpus into train/valid/test Parquet and vocab.json", cmd_prepare)
    json_option(pr, "--corpus-json", ("format", "files"),
                required=True, help="the corpus's config block (key corpora.NAME) " + SPEC_HELP)
    pr.add_argument("--raw-dir", required=True, help="the folder of its downloaded files")
    pr.add_argument("--out-dir", required=True, help="results/data/CORPUS")

    pg = sub(subparsers, "prepare-gold", "write the gold word alignments of a corpus's release (wmt16: RWTH De-En) "
             "as gold.src, gold.tgt and 0-based gold.talp", cmd_prepare_gold)
    json_option(pg, "--corpus-json", ("format", "files"),
                required=True, help="the corpus's config block (key corpora.NAME) " + SPEC_HELP)
    pg.add_argument("--raw-dir", required=True, help="the folder of its downloaded files")
    pg.add_argument("--out-dir", required=True, help="results/data/CORPUS")
