"""``attnrepro kobayashi2020 …``: the pretrained encoder's token table and norm cache (§4), the per-fold summary,
AER of trained models against gold alignments and of a statistical aligner beside them (§5, Table 3); its
figures are drawn by ``attnrepro figure kobayashi2020`` (:data:`.panels.FIGURES`). Each step reads and writes
files only here; the work is in this wing's modules."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..cli.common import SPEC_HELP, json_option, load_split, positive, same_vocabulary, sub, threads
from ..errors import AttnReproError
from .panels import CACHE_TABLES, COLUMNS, cache_tables


def _pinned(text: str | None, option: str) -> dict | None:
    """A pinned set of downloaded files ({"name", "files"}) from its JSON option (an object with both keys:
    :func:`attnrepro.cli.common.parse_json_options`); None when not given."""
    if text is None:
        return None
    spec = json.loads(text)
    if not isinstance(spec["name"], str) or not isinstance(spec["files"], dict):
        raise AttnReproError(f'{option}: expected {{"name": ..., "files": {{file: {{"sha256": ...}}}}}}')
    return spec


def _encoder(args):
    from .pretrained import encoder_dir, load_encoder

    return load_encoder(encoder_dir(_pinned(args.encoder_json, "--encoder-json"), args.downloads_dir))


def _check_shape(encoder, text: str | None) -> None:
    """kobayashi2020.encoder_shape (what sized this job's memory) against the loaded config.json."""
    if text is None:
        return
    stated = json.loads(text)
    actual = {"layers": encoder.n_layers, "heads": encoder.n_heads, "hidden": encoder.model.config.hidden_size}
    if stated != actual:
        raise AttnReproError(f"kobayashi2020.encoder_shape: {stated} but the encoder's config.json has {actual} "
                             "(num_hidden_layers, num_attention_heads, hidden_size); state those: they size the "
                             "cache job's memory")


def _rank_table(args, encoder, news_texts):
    """The authors' rank file when it is configured (one pinned file), else the substitute: word-piece counts
    over every sequence the news corpus packs into (:mod:`.ranks`)."""
    from ..data.download import verified_files
    from . import news
    from .ranks import count_ranks, read_rank_file

    spec = _pinned(args.ranks_json, "--ranks-json")
    if spec is not None:
        if len(spec["files"]) != 1:
            raise AttnReproError(f"kobayashi2020.ranks.files: one rank file, not {len(spec['files'])}")
        folder = verified_files(Path(args.downloads_dir) / spec["name"], spec["files"])
        return read_rank_file(folder / next(iter(spec["files"])))
    every = news.pack_pairs(news_texts, encoder.tokenizer.tokenize, None, args.max_len)
    return count_ranks(news.sequence_table(every, encoder.tokenizer).token_id)


def cmd_data(args) -> None:
    from ..io import write_parquet
    from . import news
    from .ranks import rank_tokens

    encoder = _encoder(args)
    texts = news.read_news()
    packed = news.pack_pairs(texts, encoder.tokenizer.tokenize, args.n_sequences, args.max_len, args.first_article)
    if len(packed) < args.n_sequences:
        raise AttnReproError(f"kobayashi2020.n_sequences: only {len(packed)} sequences of at most {args.max_len} "
                             f"tokens can be packed from article {args.first_article} on, not {args.n_sequences}")
    tokens = news.sequence_table(packed, encoder.tokenizer)
    tokens["rank"] = rank_tokens(tokens.token_id, _rank_table(args, encoder, texts))
    write_parquet(tokens, args.out)
    print(f"{len(packed)} sequences (articles {packed[0][0]}-{packed[-1][0]}), {len(tokens)} tokens, mean length "
          f"{len(tokens) / len(packed):.1f}", file=sys.stderr)


def cmd_cache(args) -> None:
    from ..io import read_parquet, write_parquet
    from .norms import check_eq3
    from .pretrained import norm_cache, singular_value_table

    threads(args.threads)
    tokens = read_parquet(args.tokens, require=COLUMNS["tokens"], nonempty=True)
    encoder = _encoder(args)
    _check_shape(encoder, args.encoder_shape)
    cache = norm_cache(encoder, tokens, args.batch_size, args.pair_fraction, args.seed, log=sys.stderr)
    cache["svals"] = singular_value_table(encoder)
    check_eq3(float(cache["error"].max_abs_error.max()))
    out = Path(args.out_dir)
    for name in CACHE_TABLES:
        write_parquet(cache[name], out / f"{name}.parquet")
    print(cache["error"].to_string(), file=sys.stderr)


def cmd_summary(args) -> None:
    from ..io import write_csv
    from .analysis import fold_summary

    t = cache_tables(args.tokens, args.cache_dir, ("heads", "pairs", "layers", "svals"))
    n_layers, n_heads = int(t["heads"].layer.max()), int(t["heads"]["head"].max())
    if t["tokens"].seq.nunique() < args.folds:
        raise AttnReproError(f"kobayashi2020.folds: {args.folds} folds need at least as many sequences")
    summary = fold_summary(t["tokens"], t["heads"], t["pairs"], t["layers"], args.folds, n_layers, n_heads,
                           svals=t["svals"])
    write_csv(summary, args.out)
    print(summary.to_string(), file=sys.stderr)


def _models(paths, vocab, vocab_path):
    """(path, model) of every model file, each checked to have source-target attention and ``vocab``."""
    from ..seq2seq.train import load_model
    from .alignment_readout import has_source_target_attention

    out = []
    for path in paths:
        model, vocab_dict = load_model(path, option="--models")
        if not has_source_target_attention(model):
            raise AttnReproError(f"{path}: arch {model.cfg.arch!r} has no source-target attention to align with")
        same_vocabulary(vocab, vocab_dict, path, vocab_path)
        out.append((path, model))
    return out


def _write_aer(per_layer, summary, examples, out_dir) -> None:
    from ..io import write_csv, write_parquet

    out = Path(out_dir)
    write_csv(per_layer, out / "aer.csv")
    write_csv(summary, out / "aer_summary.csv")
    write_parquet(examples, out / "soft_alignments.parquet")
    print(summary.to_string(), file=sys.stderr)


def cmd_aer(args) -> None:
    from ..io import read_parquet
    from .alignment_readout import aer_tables
    from .task_gold import gold

    threads(args.threads)
    task = json.loads(args.task_json)
    data_dir = Path(args.data_dir)
    vocab, test = load_split(data_dir, "test")
    test = test.subset(slice(0, args.n_examples))
    pairs = read_parquet(data_dir / "test.parquet", columns=["src", "tgt"]).iloc[: args.n_examples]
    try:
        links = [gold(task, list(s), list(t)) for s, t in zip(pairs.src, pairs.tgt)]
    except ValueError as err:
        raise AttnReproError(f"{data_dir / 'test.parquet'}: {err}") from err
    models = _models(args.models, vocab, data_dir / "vocab.json")
    words = ([list(s) for s in pairs.src], [list(t) for t in pairs.tgt])
    _write_aer(*aer_tables(models, test, [s for s, _ in links], [p for _, p in links], log=sys.stderr, words=words,
                           n_soft=args.n_soft), args.out_dir)


def cmd_aer_gold(args) -> None:
    """AER against a gold alignment file (real translation): the sentence pairs are read in the experiment's
    vocabulary (unknown words -> <unk>) and fed with teacher forcing, exactly like the synthetic tasks' test pairs."""
    import pandas as pd

    from ..data.vocab import Vocab, encode
    from ..io import read_json
    from .alignment_readout import aer_tables
    from ..data.tokens import EOS, PAD, SOS
    from .gold import check_lengths, in_vocabulary, read_gold_set
    from .periods import period_mask

    threads(args.threads)
    key = args.key
    gold = read_gold_set(args.source, args.target, args.alignment, args.index_base, key)
    if not Path(args.vocab).is_file():
        raise AttnReproError(f"{args.vocab}: file not found")
    vocab = Vocab.from_dict(read_json(args.vocab))
    special = {PAD, SOS, EOS}  # never a word of a sentence, even if a file spells one
    src = in_vocabulary(gold.src, [w for w in vocab.src if w not in special], args.source, f"{key}.source")
    tgt = in_vocabulary(gold.tgt, [w for w in vocab.tgt if w not in special], args.target, f"{key}.target")
    models = _models(args.models, vocab, args.vocab)
    for _, model in models:  # before any model runs: every sentence must fit every model's position table
        if model.cfg.arch in ("ao", "transformer"):
            check_lengths(gold, model.cfg.max_positions, args.source, args.target, key)
    data = encode(pd.DataFrame({"src": src, "tgt": tgt}), vocab)
    periods = period_mask(gold.src, data.src.shape[1])  # the file's words: a period is one, in vocabulary or not
    _write_aer(*aer_tables(models, data, gold.sure, gold.possible, log=sys.stderr, periods=periods,
                           words=(gold.src, gold.tgt), n_soft=args.n_soft), args.out_dir)  # Fig. 8: the file's words


def cmd_aligner(args) -> None:
    """Table 3's fast_align row measured (§5): the statistical aligner (:mod:`.statistical_aligner`, eflomal) on a
    corpus's training text plus a gold set's sentence pairs, as Zenkel et al. ran the fast_align whose AER (28.4)
    the paper quotes, and the gold pairs' links scored (:func:`.aligner_aer.aligner_aer_table`)."""
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
    """Each seed's best-layer vector-norm AER beside the aligner's (:func:`.aligner_aer.norm_minus_aligner`)."""
    from ..io import read_csv_checked, write_csv
    from .aligner_aer import COLUMNS, norm_minus_aligner

    summary = read_csv_checked(args.aer_summary, ["seed", "aer_norm_best"], nonempty=True)
    aligner = read_csv_checked(args.aligner, COLUMNS, nonempty=True)
    gap = norm_minus_aligner(summary, aligner)
    write_csv(gap, args.out)
    print(gap.to_string(), file=sys.stderr)


def _encoder_options(parser) -> None:
    json_option(parser, "--encoder-json", ("name", "files"), default=None,
                        help="the pinned encoder (kobayashi2020.encoder: name and files); default: MiniLM's wheel")
    parser.add_argument("--downloads-dir", default="results/downloads",
                        help="where the download rule put <name>/<file> of the pinned files")


def add_parser(subparsers) -> None:
    k = subparsers.add_parser("kobayashi2020", help="Kobayashi et al. 2020: a pretrained encoder (MiniLM or BERT) and AER",
                       description="Kobayashi et al. 2020: attention read as ‖αf(x)‖, on a pretrained encoder "
                                   "(MiniLM offline, or a pinned download such as bert-base-uncased) (§4) and on the workflow's own models (AER, §5).")
    ks = k.add_subparsers(dest="step", required=True, metavar="STEP")
    kd = sub(ks, "data", "pack news paragraphs as [CLS] p1 [SEP] p2 [SEP] with frequency ranks",
              cmd_data)
    kd.add_argument("--n-sequences", type=positive, required=True, help="sequences packed")
    kd.add_argument("--max-len", type=positive, required=True, help="tokens per sequence at most")
    kd.add_argument("--first-article", type=int, default=0, help="news articles before this one are not used")
    json_option(kd, "--ranks-json", ("name", "files"), default=None,
                    help="the pinned rank file (kobayashi2020.ranks: name and files); default: word-piece counts "
                         "over the whole news corpus")
    _encoder_options(kd)
    kd.add_argument("--out", required=True, help="the token table (Parquet)")
    kc = sub(ks, "cache", "run the encoder once; cache ‖f(x)‖, α and sampled pairs to Parquet", cmd_cache)
    kc.add_argument("--tokens", required=True, help="the token table of `kobayashi2020 data`")
    kc.add_argument("--batch-size", type=positive, required=True, help="sequences per forward pass")
    kc.add_argument("--pair-fraction", type=float, required=True, help="share of (query, key) pairs kept")
    kc.add_argument("--seed", type=int, required=True, help="which pairs are kept")
    _encoder_options(kc)
    kc.add_argument("--encoder-shape", default=None,
                    help="kobayashi2020.encoder_shape as JSON, checked against the loaded encoder's config.json")
    kc.add_argument("--out-dir", required=True, help="writes " + ", ".join(f"{n}.parquet" for n in CACHE_TABLES))
    kc.add_argument("--threads", type=positive, default=None, help="torch CPU threads")
    kss = sub(ks, "summary", "per-fold measures for the claims", cmd_summary)
    kss.add_argument("--tokens", required=True, help="the token table")
    kss.add_argument("--cache-dir", required=True, help="the folder of `kobayashi2020 cache`")
    kss.add_argument("--folds", type=positive, required=True, help="disjoint subsets of the sequences (replicates)")
    kss.add_argument("--out", required=True, help="summary.csv")
    ka = sub(ks, "aer", "AER per attention layer of a trained model: weights vs vector norms (§5)",
              cmd_aer)
    ka.add_argument("--models", nargs="+", required=True, help="model.pt of each seed group")
    ka.add_argument("--data-dir", required=True, help="the task's folder")
    json_option(ka, "--task-json", ("kind",), required=True, help="the task's config block (for its gold alignments) "
                    + SPEC_HELP)
    ka.add_argument("--n-examples", type=positive, required=True, help="test examples scored")
    ka.add_argument("--n-soft", type=positive, default=3,
                    help="Fig. 8: the first N sentence pairs whose soft alignments are kept (default 3)")
    ka.add_argument("--out-dir", required=True,
                    help="writes aer.csv, aer_summary.csv and soft_alignments.parquet")
    ka.add_argument("--threads", type=positive, default=None, help="torch CPU threads")
    kg = sub(ks, "aer-gold", "AER per attention layer against a gold alignment file (Pharaoh format)",
              cmd_aer_gold)
    kg.add_argument("--models", nargs="+", required=True, help="model.pt of each seed group")
    kg.add_argument("--vocab", required=True, help="the experiment's vocab.json")
    kg.add_argument("--source", required=True, help="source sentences, whitespace-tokenised, one per line")
    kg.add_argument("--target", required=True, help="target sentences, one per line")
    kg.add_argument("--alignment", required=True, help="Pharaoh links, one line per sentence pair")
    kg.add_argument("--index-base", type=int, choices=(0, 1), required=True, help="0 or 1: how the links count")
    kg.add_argument("--key", required=True, help="the config key of the gold set, for error messages")
    kg.add_argument("--n-soft", type=positive, default=3,
                    help="Fig. 8: the first N sentence pairs whose soft alignments are kept (default 3)")
    kg.add_argument("--out-dir", required=True,
                    help="writes aer.csv, aer_summary.csv and soft_alignments.parquet")
    kg.add_argument("--threads", type=positive, default=None, help="torch CPU threads")
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
