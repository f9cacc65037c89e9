"""The recurrent sequence op (attnrepro.nn.kernels) against autograd through a loop of ``Cell.step``.

Each cell's equations exist once (``gates``); ``step`` runs them under autograd, so the reference below shares
the forward with the op and checks the hand-written derivatives (``gates_backward``) and the loop around them.
"""

from __future__ import annotations

import pytest
import torch

from attnrepro.nn import kernels
from attnrepro.nn.cells import CELLS, RECURRENT_CELLS
from attnrepro.nn.stacked import init_stacked

MODES = list(kernels.MODES)


@pytest.fixture(params=MODES)
def mode(request, monkeypatch):
    monkeypatch.setenv(kernels.ENV, request.param)
    return request.param


def step_loop(cell, gx, state, mask):
    """The plain version: autograd through one ``step`` per time step."""
    hs = []
    for t in range(gx.shape[2]):
        new = cell.step(gx[:, :, t], state)
        state = new if mask is None else torch.where(mask[:, :, t, None], new, state)
        hs.append(cell.output(state))
    return torch.stack(hs, 2), state


def problem(name, seeds=(0, 1, 2), batch=4, length=6, hidden=5, ragged=True, dtype=torch.float64, seed=0):
    cell = CELLS[name](len(seeds), 3, hidden)
    init_stacked(cell, list(seeds))
    cell.to(dtype)
    g = torch.Generator().manual_seed(seed)
    gx = torch.randn(len(seeds), batch, length, cell.w_x.shape[-1], generator=g, dtype=dtype)
    state = torch.randn(len(seeds), batch, cell.state_factor * hidden, generator=g, dtype=dtype)
    mask = None
    if ragged:  # sequences of different lengths in one batch, one of them empty of real steps after the first
        lengths = torch.randint(1, length + 1, (len(seeds), batch), generator=g)
        lengths[0, 0], lengths[-1, -1] = 1, length
        mask = torch.arange(length) < lengths[..., None]
    return cell, gx, state, mask


def weights(x):
    """Fixed loss weights over every axis but the seed's, so that each seed's loss is its own."""
    return torch.sin(torch.arange(x[0].numel(), dtype=x.dtype)).view(1, *x.shape[1:])


def outputs_and_grads(run, cell, gx, state, mask):
    gx, state = gx.clone().requires_grad_(), state.clone().requires_grad_()
    out, final = run(cell, gx, state, mask)
    w_out, w_final = weights(out), weights(final)
    params = [gx, state, cell.w_h] + ([cell.b_h] if cell.b_h is not None else [])
    grads = torch.autograd.grad((out * w_out).sum() + (final * w_final).sum(), params)
    return [out.detach(), final.detach(), *grads]


def sequence(cell, gx, state, mask):
    return cell.sequence(gx, state, mask)


@pytest.mark.parametrize("ragged", [False, True])
@pytest.mark.parametrize("name", RECURRENT_CELLS)
def test_sequence_equals_the_step_loop_values_and_gradients(mode, name, ragged):
    prob = problem(name, ragged=ragged)
    got = outputs_and_grads(sequence, *prob)
    want = outputs_and_grads(step_loop, *prob)
    for what, a, b in zip(["outputs", "final state", "d gx", "d state", "d w_h", "d b_h"], got, want):
        torch.testing.assert_close(a, b, rtol=1e-10, atol=1e-12, msg=lambda m: f"{what}: {m}")


@pytest.mark.parametrize("name", RECURRENT_CELLS)
def test_held_state_after_the_end_of_a_sequence(mode, name):
    cell, gx, state, mask = problem(name, dtype=torch.float32)
    out, final = cell.sequence(gx, state, mask)
    lengths = mask.sum(-1)
    for s in range(mask.shape[0]):
        for b in range(mask.shape[1]):
            n = int(lengths[s, b])
            assert torch.equal(out[s, b, n:], out[s, b, n - 1].expand_as(out[s, b, n:]))
            torch.testing.assert_close(cell.output(final)[s, b], out[s, b, n - 1], rtol=0, atol=0)


@pytest.mark.parametrize("name", RECURRENT_CELLS)
def test_stacked_run_equals_separate_single_seed_runs(mode, name):
    seeds = (4, 7, 9)
    stacked = outputs_and_grads(sequence, *problem(name, seeds=seeds, dtype=torch.float32))
    for k, seed in enumerate(seeds):
        cell, gx, state, mask = problem(name, seeds=seeds, dtype=torch.float32)
        single = CELLS[name](1, 3, cell.hidden)
        init_stacked(single, [seed])
        alone = outputs_and_grads(sequence, single, gx[k:k + 1], state[k:k + 1], mask[k:k + 1])
        for a, b in zip(stacked, alone):
            torch.testing.assert_close(a[k:k + 1], b)


@pytest.mark.parametrize("name", RECURRENT_CELLS)
def test_forward_and_backward_twice_are_bitwise_equal(mode, name):
    prob = problem(name, dtype=torch.float32, batch=16, hidden=32, length=9)
    first, second = (outputs_and_grads(sequence, *prob) for _ in range(2))
    assert all(torch.equal(a, b) for a, b in zip(first, second))


def test_no_grad_forward_equals_the_training_forward(mode):
    cell, gx, state, mask = problem("lstm", dtype=torch.float32)
    with torch.no_grad():
        out, final = cell.sequence(gx, state, mask)
    out2, final2 = cell.sequence(gx.requires_grad_(), state, mask)
    assert torch.equal(out, out2.detach()) and torch.equal(final, final2.detach())


def test_a_new_sequence_length_compiles_nothing(monkeypatch):
    """The compiled functions are per step, so a job pays the compile cost once, not once per length."""
    from torch._dynamo.utils import counters

    monkeypatch.setenv(kernels.ENV, "compiled")
    prob = problem("gru", dtype=torch.float32, length=7, batch=5)
    outputs_and_grads(sequence, *prob)
    graphs = counters["stats"]["unique_graphs"]
    for length in (3, 11):
        cell, gx, state, mask = problem("gru", dtype=torch.float32, length=length, batch=5, seed=length)
        outputs_and_grads(sequence, prob[0], gx, state, mask)
    assert counters["stats"]["unique_graphs"] == graphs


def test_an_unknown_kernel_name_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(kernels.ENV, "fast")
    cell, gx, state, mask = problem("gru")
    with pytest.raises(ValueError, match="ATTNREPRO_KERNEL='fast'"):
        cell.sequence(gx, state, mask)


@pytest.mark.parametrize("name", RECURRENT_CELLS)
def test_an_all_true_mask_gives_the_unmasked_numbers_bit_for_bit(mode, name):
    """Steps where no sequence is held skip the masking: an all-true mask is the same run as no mask."""
    cell, gx, state, _ = problem(name, dtype=torch.float32, batch=8, hidden=16)
    full = torch.ones(gx.shape[:3], dtype=torch.bool)
    assert all(torch.equal(a, b) for a, b in zip(outputs_and_grads(sequence, cell, gx, state, full),
                                                 outputs_and_grads(sequence, cell, gx, state, None)))


def test_only_steps_with_a_held_sequence_are_masked():
    mask = torch.tensor([[[True, True, True, False]], [[True, True, False, False]]])  # [S=2, B=1, T=4]
    keeps = kernels._held_steps(mask, 4, 3)
    assert keeps[0] is None and keeps[1] is None
    for t in (2, 3):  # spelt out over the hidden width, so that `where` does not broadcast
        assert keeps[t].shape == (2, 1, 3) and torch.equal(keeps[t], mask[:, :, t, None].expand(-1, -1, 3))
    assert kernels._held_steps(None, 3, 5) == [None, None, None]
