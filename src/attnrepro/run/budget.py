"""Memory a config asks for, estimated before any job starts, so that a size that cannot fit (a 20,000-word
task, ``dpi: 100000``) stops with the estimate and the key instead of ``std::bad_alloc`` an hour later.

The estimates count the largest tensors a job holds at once — the weights with their gradients and Adam's two
moments, attention scores (seeds × batch × T_tgt × T_src), recurrent states, logits — in float32, to within a small
factor; they are meant to catch sizes orders of magnitude too large, not to plan a cluster job — except
:func:`encoder_cache_bytes` and :func:`multihead_bytes`, calibrated on measured jobs, which the cluster requests of
the Kobayashi cache job and of Snell et al.'s Fig. 6 jobs also read. The limit is ``ATTNREPRO_MEMORY_GB`` per job,
by default 128 GB (a large node; ``config/paper.yaml``'s largest job, the evaluation of 10 stacked Bible models over
a 30k vocabulary, is estimated at ~85 GB). Set it to your machine's memory for a tighter check.
"""

from __future__ import annotations

import os
from typing import Any

from ..errors import AttnReproError
from ..data.tokens import SPECIALS

LIMIT_ENV = "ATTNREPRO_MEMORY_GB"
DEFAULT_LIMIT_GB = 128.0
FLOAT = 4  # bytes
# float values kept per hidden unit and time step for the backward pass (gates, their activations, the state)
CELL_VALUES = {"lstm": 12, "gru": 10, "ugrnn": 8, "ff": 6}
GATES = {"lstm": 4, "gru": 3, "ugrnn": 2, "ff": 1}  # weight blocks of hidden columns per cell
OPTIMISER_COPIES = 4  # training holds each weight, its gradient and Adam's two moments
TOKEN_BYTES = 48  # a task's words as lists, Parquet and padded int64 tensors, per token (measured: ~14 + 24)
LARGEST_FIGURE_IN2 = 16 * 10  # the largest figure (Aitken Fig. 3 style, 2 × 3 panels) in square inches
MAX_PIXELS_PER_SIDE = 2**16  # matplotlib's Agg canvas refuses larger images
SPECIAL_TOKENS = len(SPECIALS)
#: the offline default encoder's shape, as all-MiniLM-L6-v2's config.json states it
MINILM = {"layers": 6, "heads": 12, "hidden": 384}
#: the one measured cache job (workflow/reference/paper_cost.json, kobayashi2020/cache: config/paper_slice.yaml on MiniLM,
#: max_rss 7,410 MiB); tests/unit/run/test_budget_encoder.py keeps it equal to the table
CACHE_MEASURED = {"n_sequences": 992, "max_len": 128, "batch_size": 32, "layers": 6, "heads": 12,
                  "peak_mib": 7410.38}
#: the two measured Fig. 6 jobs of config/paper.yaml (bench/snell_multihead_cost.py's max_rss_mb, in MiB):
#: a candidates round of 24 members (8 of its 32 candidates × 3 trials) and a K-head job (20 models × 8 heads), both
#: the authors' GRU copy model (embeddings apart) of L 40, width 256, batch 128, 400 held-out sequences, one training
#: step and one evaluation each; tests/unit/run/test_budget_multihead.py keeps them equal to the JSON and to the config
MULTIHEAD_MEASURED = {
    "candidates": {"members": 24, "heads": 1, "peak_mib": 6548.82},
    "khead": {"members": 20, "heads": 8, "peak_mib": 12715.54},
}
MULTIHEAD_SHAPE = {"length": 40, "hidden": 256, "vocab": 42, "batch": 128, "n_eval": 400, "cell": "gru",
                   "shared_embedding": False}
MIB = 2**20


def limit_bytes() -> float:
    """The memory limit per job, in bytes: ``ATTNREPRO_MEMORY_GB`` read here, the one place, as a finite number of
    gigabytes above zero (``nan`` would pass every check, ``0`` or ``-1`` fail every one), else the default."""
    import math

    raw = os.environ.get(LIMIT_ENV)
    try:
        gb = float(raw) if raw else DEFAULT_LIMIT_GB
    except ValueError:
        raise AttnReproError(f"{LIMIT_ENV}={raw!r} is not a number of gigabytes") from None
    if not (math.isfinite(gb) and gb > 0):
        raise AttnReproError(f"{LIMIT_ENV}={raw!r} is not a memory size: give a number of gigabytes above 0 (the "
                             f"memory a job may use), or unset it for {DEFAULT_LIMIT_GB:g}")
    return gb * 1e9


def gb(n: float) -> str:
    return f"{n / 1e9:,.1f} GB" if n < 1e12 else f"{n / 1e12:,.0f} TB"


def _over(key: str, need: float, how: str, fix: str) -> None:
    limit = limit_bytes()
    if need > limit:
        raise AttnReproError(f"{key}: needs about {gb(need)} of memory ({how}); the limit is {gb(limit)} "
                             f"({LIMIT_ENV} raises it): {fix}")


# -- estimates ----------------------------------------------------------------------------------------------
def figure_bytes(dpi: int) -> float:
    """The RGBA canvas of the largest figure and the PNG encoder's copy of it."""
    return LARGEST_FIGURE_IN2 * dpi**2 * FLOAT * 2


def parameter_count(*, hidden: int, cell: str, vocab_src: int, vocab_tgt: int, arch: str = "aed",
                    layers: int = 2) -> int:
    """Weights of one seed's model: both recurrences (``gates`` × hidden × (input + hidden + 2 biases)) and the
    readout, or a Transformer's layers (≈ 12 hidden² each in the encoder, 16 in the decoder) and embeddings."""
    if arch == "transformer":
        return 28 * hidden**2 * layers + hidden * (vocab_src + 2 * vocab_tgt)
    g = GATES.get(cell, 4) * hidden
    readout = (2 if arch == "aed" else 1) * hidden * vocab_tgt + vocab_tgt
    return g * (vocab_src + hidden + 2) + g * (vocab_tgt + hidden + 2) + readout


def seq2seq_bytes(*, seeds: int, batch: int, t_src: int, t_tgt: int, hidden: int, cell: str, vocab_src: int,
                  vocab_tgt: int, attention_maps: int, grads: bool = True, arch: str = "aed") -> float:
    """One step of a stacked encoder-decoder: its weights (with ``grads``, also their gradients and Adam's two
    moments), states of both recurrences, ``attention_maps`` score matrices T_tgt × T_src (scores, weights, and
    their gradients), one-hot inputs and the logits."""
    keep = 2 if grads else 1
    per_example = (keep * (t_src + t_tgt) * hidden * CELL_VALUES.get(cell, 12)
                   + keep * 2 * attention_maps * t_tgt * t_src
                   + t_src * vocab_src + (1 + 2 * keep) * t_tgt * vocab_tgt)  # one-hot inputs; logits
    weights = parameter_count(hidden=hidden, cell=cell, vocab_src=vocab_src, vocab_tgt=vocab_tgt, arch=arch)
    return FLOAT * seeds * (batch * per_example + (OPTIMISER_COPIES if grads else 1) * weights)


def data_bytes(n_examples: int, longest: int) -> float:
    return TOKEN_BYTES * n_examples * 2 * longest


def encoder_shape(block: dict[str, Any]) -> dict[str, int]:
    """Layers, heads and width of the Kobayashi encoder: MiniLM's without ``kobayashi2020.encoder``, else the
    block's ``encoder_shape`` — the workflow sizes the cache job before the download rule has fetched config.json,
    so the config states it, and the cache job checks it against config.json when the encoder loads."""
    if not block.get("encoder"):
        return dict(MINILM)
    shape = block.get("encoder_shape")
    if not shape:
        raise AttnReproError("kobayashi2020.encoder_shape: required with kobayashi2020.encoder — the encoder's "
                             "layers, heads and hidden as its config.json states them (num_hidden_layers, "
                             "num_attention_heads, hidden_size; bert-base-uncased: 12, 12, 768), which size the "
                             "cache job's memory before the download")
    return {k: shape[k] for k in ("layers", "heads", "hidden")}


def _cache_batch_bytes(batch: int, layers: int, heads: int, max_len: int) -> float:
    """One forward pass's attention weights, kept for every layer (α, the real-query mask and the pair sample)."""
    return FLOAT * batch * layers * heads * max_len**2 * 3


def encoder_cache_parts(*, n_sequences: int, max_len: int, batch_size: int, layers: int,
                        heads: int) -> tuple[float, float]:
    """Peak memory of ``kobayashi2020 cache`` (Kobayashi et al. 2020, §4: ‖f(x)‖ and α per layer, head and token)
    as (tables, batch) bytes. The batch term is one forward pass's attention maps; the tables term grows with
    every (sequence, layer, head, token) the job keeps (the per-head table, the sampled pairs and what the allocator
    keeps of the freed per-layer tensors), at the rate of the one measured job (:data:`CACHE_MEASURED`, ≈ 10× the
    tables' raw bytes: the allocator's share is not traced). Both terms are linear in layers × heads, so
    bert-base-uncased (12 × 12) needs twice MiniLM's (6 × 12) at the same sequences."""
    m = CACHE_MEASURED
    per_entry = ((m["peak_mib"] * MIB - _cache_batch_bytes(m["batch_size"], m["layers"], m["heads"], m["max_len"]))
                 / (m["n_sequences"] * m["layers"] * m["heads"] * m["max_len"]))
    return (per_entry * n_sequences * layers * heads * max_len,
            _cache_batch_bytes(batch_size, layers, heads, max_len))


def _block_cache_parts(block: dict[str, Any]) -> tuple[float, float]:
    """:func:`encoder_cache_parts` for a ``kobayashi2020`` config block and its encoder's shape."""
    shape = encoder_shape(block)
    return encoder_cache_parts(n_sequences=block["n_sequences"], max_len=block["max_len"],
                               batch_size=block["batch_size"], layers=shape["layers"], heads=shape["heads"])


def encoder_cache_bytes(block: dict[str, Any]) -> float:
    """:func:`encoder_cache_parts` summed for a ``kobayashi2020`` config block and its encoder's shape: what the
    memory check and the cluster request of the cache job both read."""
    return sum(_block_cache_parts(block))


def copy_heads_count(*, members: int, heads: int, batch: int, n_eval: int, length: int, hidden: int, vocab: int,
                     cell: str, shared_embedding: bool) -> float:
    """Bytes of the largest tensors of a stacked K-head copy model (Snell et al. 2021, Eq. 20–21; Fig. 6's jobs),
    uncalibrated: per member, the weights with their gradients and Adam's moments, and the larger of a training
    step (``batch`` sequences) and an evaluation (``n_eval``, every sequence at once, as the engine evaluates). A
    training step keeps, per sequence, the recurrences' values per unit and step (:data:`CELL_VALUES`), each head's
    query, context and projected context (3 T × H) with its scores and weights (2 T × L), and the readout's three
    T × H and two T × V tensors, all twice (their gradients); an evaluation keeps the states and input projections
    of both recurrences and the same head and readout tensors once."""
    t = length + 1  # the source with <eos>, the target with <sos>
    g = GATES[cell] * hidden
    weights = ((1 if shared_embedding else 2) * vocab * hidden + 2 * (g * 2 * hidden + 2 * g)
               + 2 * hidden**2 + hidden + hidden * vocab + vocab + heads * (2 * hidden**2 + 2 * hidden))
    per_head = heads * (3 * t * hidden + 2 * t * t)
    readout = t * (3 * hidden + 2 * vocab)
    train = 2 * (2 * t * hidden * CELL_VALUES[cell] + per_head + readout)
    evaluate = 2 * t * hidden * (1 + GATES[cell]) + per_head + readout
    return FLOAT * members * (OPTIMISER_COPIES * weights + max(batch * train, n_eval * evaluate))


def multihead_scale() -> float:
    """Measured peak over :func:`copy_heads_count` of the two measured jobs (:data:`MULTIHEAD_MEASURED`), the
    larger, so the estimate is never below either measurement (the count leaves out the process itself: Python,
    torch and pandas; how close it lands: docs/deviations.md, the paper-scale Fig. 6 block)."""
    return max(m["peak_mib"] * MIB / copy_heads_count(members=m["members"], heads=m["heads"], **MULTIHEAD_SHAPE)
               for m in MULTIHEAD_MEASURED.values())


def multihead_shapes(block: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The shapes of Fig. 6's two jobs of a ``snell2021`` block, as :func:`attnrepro.snell2021.config.multihead_runs`
    builds them: ``candidates`` stacks ``candidates_per_round`` × ``trials`` 1-head members per round, ``khead``
    ``n_combos`` models of ``heads`` heads (one job per kind)."""
    from ..snell2021.config import copy_vocab, multihead_runs

    m, specs = block["multihead"], multihead_runs(block)
    out = {}
    for job, run, members in (("candidates", "multihead_candidates", m["candidates_per_round"] * m["trials"]),
                              ("khead", "multihead_random", m["n_combos"])):
        model, data, train = specs[run]["model"], specs[run]["data"], specs[run]["train"]
        out[job] = {"members": members, "heads": model["heads"], "batch": train["batch_size"],
                    "n_eval": train["n_eval"], "length": data["length"], "hidden": model["hidden"],
                    "vocab": copy_vocab(data["kind"], data["length"], data["n_words"]),
                    "cell": model.get("cell", "lstm"), "shared_embedding": model.get("shared_embedding", True)}
    return out


def multihead_bytes(block: dict[str, Any]) -> dict[str, float]:
    """Estimated peak of ``snell2021_candidates`` (one round; rounds run one after another) and of one
    ``snell2021_multihead`` job: :func:`copy_heads_count` × :func:`multihead_scale`. What the memory check and
    both rules' cluster requests read."""
    return _multihead_need(multihead_shapes(block))


def _multihead_need(shapes: dict[str, dict[str, Any]]) -> dict[str, float]:
    scale = multihead_scale()
    return {job: scale * copy_heads_count(**shape) for job, shape in shapes.items()}


# -- the checks -----------------------------------------------------------------------------------------------
def check(config: dict[str, Any], task_specs: dict[str, dict[str, Any]]) -> None:
    """Every size of ``config`` that sets a job's memory, against :func:`limit_bytes` (blocks a partial config
    lacks, as in unit tests of other checks, are skipped). ``task_specs``: each experiment's task, resolved
    (:func:`attnrepro.run.config.task_spec`)."""
    limit_bytes()  # a bad ATTNREPRO_MEMORY_GB stops every config at its edge, whatever sizes it has
    for key, dpi in _dpis(config):
        side = 16 * dpi
        if side > MAX_PIXELS_PER_SIDE:
            raise AttnReproError(f"{key}: {dpi} dpi draws the largest figure (16 × 10 in) {side:,} pixels wide; "
                                 f"matplotlib draws at most {MAX_PIXELS_PER_SIDE:,} (4096 dpi), and it would need "
                                 f"about {gb(figure_bytes(dpi))} of memory; 300 dpi is print quality")
        _over(key, figure_bytes(dpi), f"a {16 * dpi:,} × {10 * dpi:,} pixel canvas for the largest figure",
              "300 dpi is print quality")
    for name, task in config.get("tasks", {}).items():
        if task["kind"] != "bible" and {"n_train", "n_valid", "n_test"} <= set(task):
            n = task["n_train"] + task["n_valid"] + task["n_test"]
            _over(f"tasks.{name}", data_bytes(n, task["max_len"] + 1),
                  f"{n:,} examples of up to {task['max_len']} words", "lower n_train or max_len")
    seeds_per_job = min(config.get("seeds_per_job", 1), len(config.get("seeds", [0])))
    for name, exp in config.get("experiments", {}).items():
        task = task_specs[exp["task"]]
        train = {**config.get("train", {}), **exp.get("train", {})}
        if "max_len" not in task or not {"batch_size", "n_eval"} <= set(train):
            continue  # a sentencepiece corpus: its lengths are checked by the job on the prepared data
        _check_experiment(f"experiments.{name}", exp, train, task, _vocab_guess(config, exp["task"]), seeds_per_job,
                          config.get("export", {}).get("n_examples", 1))
    if "kobayashi2020" in config:
        _check_encoder_cache(config["kobayashi2020"])
    if "snell2021" in config:
        _check_snell(config["snell2021"])


def _check_encoder_cache(block) -> None:
    shape = encoder_shape(block)
    tables, batch = _block_cache_parts(block)
    key, fix = (("kobayashi2020.batch_size", "lower batch_size") if batch > tables else
                ("kobayashi2020.n_sequences", "lower n_sequences or max_len"))
    _over(key, tables + batch, f"{block['n_sequences']:,} sequences of {block['max_len']} tokens, batch "
          f"{block['batch_size']:,} × {shape['layers']} layers × {shape['heads']} heads: per-token tables and "
          f"{block['max_len']}² attention weights, kept for every layer", fix)


def _dpis(config):
    for block, key in (("figures", "figures.dpi"), ("kobayashi2020", "kobayashi2020.dpi"),
                       ("snell2021", "snell2021.dpi")):
        if "dpi" in config.get(block, {}):
            yield key, config[block]["dpi"]


def _vocab_guess(config, task_name: str) -> int:
    task = config.get("tasks", {}).get(task_name) or (config.get("corpora") or {}).get(task_name, {})
    if "vocab_size" in task:
        return task["vocab_size"] + SPECIAL_TOKENS
    if "n_words" in task:
        return 2 * task["n_words"] + SPECIAL_TOKENS  # a few tasks add as many output words
    return 64  # eSCAN's command and action words


def _check_experiment(key, exp, train, task, vocab, seeds, n_examples) -> None:
    model = exp["model"]
    t = task["max_len"] + 2  # <eos>, and an eSCAN/bottleneck output may run a word longer
    maps = 0 if model["arch"] == "ved" else 1
    if model["arch"] == "transformer":
        maps = model.get("heads", 4) * model.get("layers", 2) * 3  # encoder, decoder and cross attention
    common = dict(t_src=t, t_tgt=t, hidden=model["hidden"], cell=model["cell"], vocab_src=vocab, vocab_tgt=vocab,
                  attention_maps=maps, arch=model["arch"])
    steps = {"train.batch_size": seq2seq_bytes(seeds=seeds, batch=train["batch_size"], **common),
             "train.n_eval": seq2seq_bytes(seeds=seeds, batch=train["n_eval"], grads=False, **common),
             "export.n_examples": seq2seq_bytes(seeds=seeds, batch=n_examples, grads=False, **common)}
    if model["arch"] == "transformer":  # not exported: the Aitken decomposition reads recurrent models only
        del steps["export.n_examples"]
    which, need = max(steps.items(), key=lambda kv: kv[1])
    _over(key, need, f"{which} for {seeds} stacked seed(s) × sequences of {t} tokens × hidden {model['hidden']}"
          + (f", {maps} attention map(s) of {t}×{t} each" if maps else ""),
          f"lower the task's max_len, {which} or seeds_per_job")


def _check_snell(block) -> None:
    from ..snell2021.config import train_of

    c, train = block["copy"], block["train"]
    t = c["length"] + 1
    n = len(block["seeds"])
    need = seq2seq_bytes(seeds=n, batch=max(train["batch_size"], train["n_eval"]), t_src=t, t_tgt=t,
                         hidden=c["hidden"], cell="lstm", vocab_src=0, vocab_tgt=c["subset_words"] + SPECIAL_TOKENS,
                         attention_maps=1)
    _over("snell2021.copy", need, f"{n} stacked seeds × batch {max(train['batch_size'], train['n_eval'])} × "
          f"{t}×{t} attention, hidden {c['hidden']}", "lower copy.length, train.batch_size or the seeds")
    if "multihead" in block:
        _check_multihead(block)
    k = block["keyword"]
    kt = train_of(block, k.get("train"))
    need = FLOAT * n * max(kt["batch_size"], kt["n_eval"]) * (k["length"] + 2) * k["hidden"] * CELL_VALUES["lstm"] * 4
    _over("snell2021.keyword", need, f"{n} stacked seeds × batch {max(kt['batch_size'], kt['n_eval'])} × "
          f"{k['length']} words × BiLSTM {k['hidden']}", "lower keyword.length, its batch or the seeds")
    cls = block.get("classification")
    if cls:
        ct = train_of(block, cls.get("train"))
        for name, s in cls["sets"].items():
            need = (FLOAT * len(cls["seeds"]) * ct["batch_size"] * (s["max_len"] + 2) * cls["hidden"]
                    * CELL_VALUES["lstm"] * 4)
            _over(f"snell2021.classification.sets.{name}.max_len", need,
                  f"{len(cls['seeds'])} seeds × batch {ct['batch_size']} × {s['max_len']} words × BiLSTM "
                  f"{cls['hidden']}", "lower max_len, the batch or the seeds")


def _check_multihead(block) -> None:
    shapes = multihead_shapes(block)
    need = _multihead_need(shapes)
    m, c, k = block["multihead"], shapes["candidates"], shapes["khead"]
    common = lambda s: (f"L {s['length']}, width {s['hidden']}, batch {s['batch']}, "  # noqa: E731
                        f"{s['n_eval']} held-out sequences evaluated at once")
    _over("snell2021.multihead.candidates_per_round", need["candidates"],
          f"a round stacks {m['candidates_per_round']} candidates × {m['trials']} trials = {c['members']} models, "
          + common(c), "lower candidates_per_round (raising max_rounds: rounds go on until n_good and n_bad heads "
          "are labelled) or trials")
    _over("snell2021.multihead.n_combos", need["khead"],
          f"a K-head job stacks {m['n_combos']} models × {k['heads']} heads, " + common(k),
          "lower n_combos, heads or the block's train.n_eval")


def check_training_memory(data_dir, model_cfg, train_cfg, seeds: int, train_data, valid_data) -> None:
    """The estimate of :func:`check` again in the training job, on the lengths and vocabularies of the prepared
    data (a corpus of sentencepiece pieces has no ``max_len`` to check before it is prepared)."""
    t_src = max(train_data.src.shape[1], valid_data.src.shape[1])
    t_tgt = max(train_data.tgt_in.shape[1], valid_data.tgt_in.shape[1])
    maps = 0 if model_cfg.arch == "ved" else 1
    if model_cfg.arch == "transformer":
        maps = model_cfg.heads * model_cfg.layers * 3
    common = dict(seeds=seeds, t_src=t_src, t_tgt=t_tgt, hidden=model_cfg.hidden, cell=model_cfg.cell,
                  vocab_src=model_cfg.input_dim or model_cfg.src_vocab,
                  vocab_tgt=model_cfg.input_dim or model_cfg.tgt_vocab, attention_maps=maps, arch=model_cfg.arch)
    need = max(seq2seq_bytes(batch=train_cfg.batch_size, **common),
               seq2seq_bytes(batch=min(train_cfg.n_eval, len(valid_data)), grads=False, **common))
    _over(f"training on {data_dir}", need, f"{seeds} stacked seed(s) × sequences of up to {t_src} and {t_tgt} "
          f"tokens × hidden {model_cfg.hidden}, vocabularies {model_cfg.src_vocab} and {model_cfg.tgt_vocab}",
          "lower the task's max_len, train.batch_size, train.n_eval or seeds_per_job")
