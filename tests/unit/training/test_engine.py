"""The engine's pieces every model shares: the evaluation schedule, the per-seed streams, the one log line, the
one batch generator."""

import io

import torch

from attnrepro.training.config import TrainConfig
from attnrepro.data.vocab import Encoded, draw, stack
from attnrepro.training.engine import Member, is_eval_step
from attnrepro.training.progress import progress
from attnrepro.seeding import generator, stream_seeds

TRAIN = dict(steps=600, batch_size=32, lr=1e-3, lr_decay=1.0, betas=[0.9, 0.999], eps=1e-8, grad_clip=None, l2=0.0,
             checkpoint_every=200, eval_every=250, n_eval=10)


def eval_steps(cfg):
    return [s for s in range(cfg.steps + 2) if is_eval_step(cfg, s)]


def test_eval_steps_follow_the_config_and_snell_app_a8():
    classification = TrainConfig.from_dict({**TRAIN, "eval_at": [0, 10, 50, 100, 150, 200]})
    assert sorted(eval_steps(classification)) == [0, 10, 50, 100, 150, 200, 250, 500, 600]   # App. A.8
    aitken = TrainConfig.from_dict({**TRAIN, "steps": 1000, "eval_every": 100})               # no eval_at: none at 0
    assert sorted(eval_steps(aitken)) == list(range(100, 1001, 100))
    assert aitken.eval_at == () and aitken.to_dict()["eval_at"] == [] and aitken.grad_clip is None


def test_streams_of_one_seed_and_of_two_seeds_differ():
    assert stream_seeds(0, "batches") != stream_seeds(0, "heads") != stream_seeds(1, "heads")
    a, b = generator(3, "batches"), generator(3, "batches")
    assert torch.equal(torch.rand(4, generator=a), torch.rand(4, generator=b))
    assert Member.plain(5, heads=2) == Member(5, 5, tuple(stream_seeds(5, "heads", 2)))
    assert Member.plain(5).head_seeds == ()


def test_one_progress_line_per_evaluation():
    """Time of day, step/total, seconds so far, ETA, device, values; nothing that is not a number yet."""
    import re

    log = io.StringIO()
    line = progress("copy_same", 40, 200, 12.345, log, device="cuda", loss=0.5, acc=0.25, diverged=1)
    assert re.fullmatch(r"\d\d:\d\d:\d\d  copy_same  step 40/200  12\.3 s  ETA 49 s  cuda  loss 0\.5000  acc 0\.2500"
                        r"  diverged 1", line), line
    assert log.getvalue() == line + "\n" and "\r" not in log.getvalue()
    first = progress("copy_same", 0, 200, 0.0, io.StringIO(), device="cpu", loss=float("nan"), acc=0.1)
    assert "nan" not in first and "ETA" not in first and first.endswith("cpu  acc 0.1000")
    assert "ETA 3.3 h" in progress("x", 1, 200, 60.0, io.StringIO())


def test_long_runs_write_a_line_at_each_checkpoint_and_every_few_minutes(tmp_path, monkeypatch):
    """A run with no evaluation for a long time still reports (here: a heartbeat of 0 s), and each checkpoint."""
    from attnrepro.training import engine
    from attnrepro.data import tasks
    from attnrepro.data.vocab import Vocab, encode
    from attnrepro.seq2seq.model import ModelConfig
    from attnrepro.seq2seq.train import train

    task = dict(kind="one_to_one", n_words=3, min_len=3, max_len=5, n_train=32, n_valid=4, n_test=4, seed=0)
    vocab = Vocab.from_words(*tasks.words(task))
    splits = tasks.generate(task)
    cfg = ModelConfig("aed", "gru", 8, len(vocab.src), len(vocab.tgt), attention="dot")
    steps = TrainConfig.from_dict({**TRAIN, "steps": 6, "batch_size": 4, "checkpoint_every": 2, "eval_every": 6,
                                   "n_eval": 4})
    log = io.StringIO()
    monkeypatch.setattr(engine, "HEARTBEAT_SECONDS", 0.0)
    train(cfg, steps, [0], encode(splits["train"], vocab), encode(splits["valid"], vocab), tmp_path,
          sos=vocab.tgt.index("<sos>"), log=log)
    lines = log.getvalue().splitlines()
    assert [line.split("  ")[2] for line in lines] == [f"step {i}/6" for i in range(1, 7)], lines
    assert sum("checkpoint written" in line for line in lines) == 2 and all("  cpu  " in line for line in lines)


def test_one_batch_generator_for_stored_sets_and_distributions():
    data = Encoded(src=torch.tensor([[1, 2, 0], [3, 4, 5]]), src_len=torch.tensor([2, 3]),
                   tgt_in=torch.tensor([[1, 6, 0, 0], [1, 7, 7, 0]]), tgt_out=torch.tensor([[6, 2, 0, 0], [7, 7, 2, 0]]),
                   tgt_len=torch.tensor([2, 3]))
    g = torch.Generator().manual_seed(0)
    rows = draw(data, g, 5)
    assert len(rows) == 5 and set(rows.src_len.tolist()) <= {2, 3}
    only_short = data.subset(torch.tensor([0, 0]))
    batch = stack([only_short, data.subset(torch.tensor([1, 0]))])
    assert batch.src.shape == (2, 2, 3) and batch.tgt_out.shape == (2, 2, 3)   # trimmed to the stack's longest
    short = stack([only_short, only_short])
    assert short.src.shape == (2, 2, 2) and short.tgt_in.shape == (2, 2, 2)
    assert batch.tgt_mask()[0].sum() == 4 and batch.src_mask()[1].sum() == 5
    sampled = draw(lambda gen, n: data.subset(torch.randint(0, 2, (n,), generator=gen)), generator(0, "batches"), 3)
    assert len(sampled) == 3
