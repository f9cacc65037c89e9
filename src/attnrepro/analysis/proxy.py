"""The bag-of-words proxy of Snell et al. 2021, §2.3, trained, and its probe β^px.

Eq. 5:  p_t = σ((1/L) Σ_l W e_{x_l})  for every output position t (the output bag of words)
Eq. 6:  β^px_tl = σ(W e_{x_l})_{y_t};  Eq. 13: θ^px_io = σ(W e_i)_o

As the authors' ``embedding_beta.py``: embedding of width d, no bias, Adam (lr 1e-3), mini-batches; we keep the
epoch with the best validation loss when a validation set (src, tgt, lengths) is given.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F


def train_proxy(src: np.ndarray, tgt: np.ndarray, n_in: int, n_out: int, *, dim: int = 64, epochs: int = 10,
                batch_size: int = 64, lr: float = 1e-3, seed: int = 0, valid: tuple | None = None,
                lengths: np.ndarray | None = None, tgt_lengths: np.ndarray | None = None) -> np.ndarray:
    """Fit Eq. 5 on pairs ``src`` [M, L], ``tgt`` [M, T]; returns θ^px [n_in, n_out] (Eq. 13). ``lengths`` [M]:
    real lengths of right-padded sources (the mean runs over those); ``tgt_lengths`` [M]: the same for targets
    (the loss is the mean over real target tokens)."""
    gen = torch.Generator().manual_seed(seed)
    e = torch.nn.Parameter(torch.randn(n_in, dim, generator=gen) / dim ** 0.5)   # N(0, I/d), §4.1
    w = torch.nn.Parameter(torch.randn(n_out, dim, generator=gen) / dim ** 0.5)
    opt = torch.optim.Adam([e, w], lr=lr)
    x, y = torch.as_tensor(src), torch.as_tensor(tgt)
    length = torch.as_tensor(lengths if lengths is not None else np.full(len(src), src.shape[1]))
    t_length = torch.as_tensor(tgt_lengths if tgt_lengths is not None else np.full(len(tgt), tgt.shape[1]))
    mask_of = lambda xb, lb: (torch.arange(xb.shape[1])[None] < lb[:, None]).float()

    def loss_of(xb, yb, lb, tb):
        m = mask_of(xb, lb)
        mean = (e[xb] * m[..., None]).sum(1) / m.sum(1, keepdim=True)
        logp = torch.log_softmax(mean @ w.T, -1)      # [B, n_out]
        mt = mask_of(yb, tb)
        return -(logp.gather(1, yb) * mt).sum() / mt.sum()

    best, best_loss = None, float("inf")
    for _ in range(epochs):
        order = torch.randperm(len(x), generator=gen)
        for i in range(0, len(x), batch_size):
            idx = order[i : i + batch_size]
            opt.zero_grad()
            loss_of(x[idx], y[idx], length[idx], t_length[idx]).backward()
            opt.step()
        with torch.no_grad():
            if valid is None:
                val = float(loss_of(x, y, length, t_length))
            else:
                vx, vy, vl = map(torch.as_tensor, valid)
                val = float(loss_of(vx, vy, vl, torch.full((len(vy),), vy.shape[1])))
        if valid is None or val < best_loss:
            best_loss, best = val, torch.softmax(e @ w.T, -1).detach().numpy()
    return best


def proxy_probe(theta: np.ndarray, x, y) -> np.ndarray:
    """Eq. 6 for one pair: β^px [T, L]."""
    return theta[np.asarray(x)[None, :], np.asarray(y)[:, None]]
