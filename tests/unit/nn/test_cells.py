"""Each cell's equations, checked against PyTorch's own cells or the formula written out."""

import pytest
import torch

from attnrepro.nn.cells import CELLS, FeedForwardCell, GRUCell, LSTMCell, UGRNNCell
from attnrepro.seq2seq.model import EncoderDecoder, ModelConfig
from attnrepro.nn.stacked import init_stacked, lookup


def made(cell):
    init_stacked(cell, [0])  # parameters are created empty; the model initialises them per seed
    return cell


def one_step(cell, x, state):
    gx = cell.input_projection(x[None, :, None, :])[:, :, 0]
    return cell.step(gx, state[None])[0]


def torch_twin(cell, torch_cell):
    """PyTorch's own cell with seed 0's weights of ``cell`` (same gate layout, weights transposed)."""
    ref = torch_cell(cell.w_x.shape[1], cell.hidden)
    with torch.no_grad():
        ref.weight_ih.copy_(cell.w_x[0].T)
        ref.weight_hh.copy_(cell.w_h[0].T)
        ref.bias_ih.copy_(cell.b_x[0, 0])
        ref.bias_hh.copy_(cell.b_h[0, 0])
    return ref


def test_gru_matches_torch():
    cell = made(GRUCell(1, 5, 8))
    ref = torch_twin(cell, torch.nn.GRUCell)
    x, h = torch.randn(3, 5), torch.randn(3, 8)
    torch.testing.assert_close(one_step(cell, x, h), ref(x, h))


def test_lstm_matches_torch():
    cell = made(LSTMCell(1, 5, 8))
    ref = torch_twin(cell, torch.nn.LSTMCell)
    x, h, c = torch.randn(3, 5), torch.randn(3, 8), torch.randn(3, 8)
    new = one_step(cell, x, torch.cat([h, c], -1))
    h_ref, c_ref = ref(x, (h, c))
    torch.testing.assert_close(new[:, :8], h_ref)
    torch.testing.assert_close(new[:, 8:], c_ref)
    torch.testing.assert_close(cell.output(new), h_ref)


def test_ugrnn_equations():
    cell = made(UGRNNCell(1, 5, 8))
    x, h = torch.randn(3, 5), torch.randn(3, 8)
    w_x, w_h, b = cell.w_x[0], cell.w_h[0], cell.b_x[0, 0]
    g = torch.sigmoid(x @ w_x[:, :8] + h @ w_h[:, :8] + b[:8])
    c = torch.tanh(x @ w_x[:, 8:] + h @ w_h[:, 8:] + b[8:])
    torch.testing.assert_close(one_step(cell, x, h), g * h + (1 - g) * c)


def test_feed_forward_ignores_the_state():
    cell = made(FeedForwardCell(1, 5, 8))
    x = torch.randn(3, 5)
    a, b = one_step(cell, x, torch.zeros(3, 8)), one_step(cell, x, torch.randn(3, 8))
    torch.testing.assert_close(a, b)
    torch.testing.assert_close(a, torch.tanh(x @ cell.w_x[0] + cell.b_x[0, 0]))


WIRINGS = [(c, a) for c in sorted(CELLS) for a in ("ved", "aed", "ao") if c != "ff" or a == "ao"]  # ff is AO-only


@pytest.mark.parametrize("cell, arch", WIRINGS)
def test_every_cell_in_every_wiring(cell, arch):
    m = EncoderDecoder(ModelConfig(arch, cell, 6, 5, 6, input_dim=16 if arch == "ao" else 0), [0, 1])
    src = torch.randint(2, 5, (2, 3, 7))
    src_len = torch.full((2, 3), 7)
    logits, cache = m.run_with_cache(src, src_len, torch.randint(1, 6, (2, 3, 5)))
    assert logits.shape == (2, 3, 5, 6) and cache["encoder.h"].shape == (2, 3, 7, 6)
    logits.sum().backward()
    assert all(p.grad is not None for p in m.parameters())


@pytest.mark.parametrize("vocab", [3, 40])
def test_embedding_projection_equals_projecting_each_tokens_row(vocab):
    """Both routes of ``embedding_projection`` (a projected table when it has fewer rows than there are tokens,
    here 3 < 2·5 = 10; row by row otherwise) give W_x e + b_x and its gradients, on a time-major layout."""
    cell = LSTMCell(2, 4, 3)
    init_stacked(cell, [0, 1])
    cell.double()
    g = torch.Generator().manual_seed(0)
    table = torch.randn(2, vocab, 4, generator=g, dtype=torch.float64, requires_grad=True)
    tokens = torch.randint(0, vocab, (2, 2, 5), generator=g)
    got = cell.embedding_projection(table, tokens)
    want = lookup(table, tokens) @ cell.w_x[:, None] + cell.b_x[:, None]
    torch.testing.assert_close(got, want)
    assert got.transpose(1, 2).is_contiguous()  # the layout the recurrent op reads without a copy
    w = torch.randn(got.shape, generator=g, dtype=torch.float64)
    grads = [torch.autograd.grad((x * w).sum(), [table, cell.w_x, cell.b_x]) for x in (got, want)]
    for a, b in zip(*grads):
        torch.testing.assert_close(a, b)
