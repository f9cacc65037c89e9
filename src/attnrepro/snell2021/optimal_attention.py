"""App. A.1 of Snell et al. 2021: the loss-minimising attention α^opt of the linear-output model (Eq. 32) and its
agreement with that model's lexical probe, A(α^opt, β) (the paper: 0.53 on Multi30k).

With p_t = σ(W(c_t + d_t) + b) and c_t = Σ_l α_tl (P h_l + b_P) (Σ_l α_tl = 1), the logits are
Σ_l α_tl γ_l + γ_s with γ_l = W(P h_l + b_P) and γ_s = W d_t + b (Eq. 33, 34), so the loss of the gold word y_t,

    L(α) = logsumexp_o(Σ_l α_l γ_l,o + γ_s,o) − (Σ_l α_l γ_l,y + γ_s,y)        (Eq. 35–37, without the w.l.o.g. shift)

is convex in α on the probability simplex (a log-sum-exp of an affine map minus a linear term), and β_tl =
σ(γ_l + γ_s)_y (Eq. 28) is L at the simplex's vertex l read as a probability.

α^opt is found per target token by accelerated projected gradient descent (FISTA, Beck & Teboulle 2009) with the
Euclidean projection onto the simplex of the token's real source positions (Duchi et al. 2008). Projected rather
than a softmax parametrisation of the logits: the optimum often lies on a face of the simplex (Eq. 30's example
puts 0 on position 1), which the projection reaches exactly and a softmax only in the limit, and the projected
method on a convex problem has a known rate, O(1/k²) here. The step is 1 / λ_max(Γ̃ Γ̃ᵀ) per token, Γ̃ the γ_l
centred over the vocabulary (the Hessian Γ (diag p − p pᵀ) Γᵀ ignores that shift and is ≼ Γ̃ Γ̃ᵀ). It starts from the
uniform attention: deterministic, no random draw (the problem is convex, so the start only changes the time taken).
"""

from __future__ import annotations

import numpy as np
import torch

from .agreement import agreement, shuffled_baseline


def project_simplex(v: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Euclidean projection of every row of ``v`` [N, L] onto the probability simplex over its positions where
    ``mask`` [N, L] is true (the others are set to 0). Duchi et al. 2008, Fig. 1: sort, find the threshold θ."""
    big = torch.finfo(v.dtype).max / 4
    sorted_v = torch.where(mask, v, -big).sort(-1, descending=True).values
    k = torch.arange(1, v.shape[-1] + 1, device=v.device, dtype=v.dtype)
    cumsum = torch.where(sorted_v > -big, sorted_v, 0.0).cumsum(-1)
    support = (sorted_v - (cumsum - 1) / k > 0) & (k <= mask.sum(-1, keepdim=True))
    rho = support.sum(-1, keepdim=True).clamp(min=1)                 # the support's size (≥ 1: its top entry)
    theta = (cumsum.gather(-1, rho - 1) - 1) / rho.to(v.dtype)
    return torch.where(mask, (v - theta).clamp(min=0), 0.0)


def eq32_loss(alpha: torch.Tensor, gamma: torch.Tensor, gamma_s: torch.Tensor, gold: torch.Tensor) -> torch.Tensor:
    """−log p(y) of Eq. 32 for attention ``alpha`` [N, L], ``gamma`` [N, L, V] (γ_l), ``gamma_s`` [N, V] (γ_s),
    ``gold`` [N] (y): one loss per row."""
    logits = torch.einsum("nl,nlv->nv", alpha, gamma) + gamma_s
    return torch.logsumexp(logits, -1) - logits.gather(-1, gold[:, None])[:, 0]


def optimal_attention(gamma: torch.Tensor, gamma_s: torch.Tensor, gold: torch.Tensor, lengths: torch.Tensor,
                      iterations: int = 300, tol: float = 0.0) -> torch.Tensor:
    """α^opt [N, L] of App. A.1: the attention over each row's first ``lengths`` positions that minimises
    :func:`eq32_loss`, by FISTA from the uniform attention (see the module docstring): ``iterations`` steps at
    most, fewer once no entry of any row moves by more than ``tol`` in a step (0: all steps)."""
    n, length, _ = gamma.shape
    if iterations < 1:
        raise ValueError(f"iterations must be at least 1, not {iterations}")
    mask = torch.arange(length, device=gamma.device)[None] < lengths[:, None]
    if not bool(mask.any(-1).all()):
        raise ValueError("every row needs at least one source position (a length of 0 was given)")
    centred = (gamma - gamma.mean(-1, keepdim=True)) * mask[..., None]
    lipschitz = torch.linalg.eigvalsh(centred @ centred.transpose(1, 2))[:, -1].clamp(min=1e-12)   # [N]
    step = (1.0 / lipschitz)[:, None]
    alpha = mask / mask.sum(-1, keepdim=True).to(gamma.dtype)
    point, t = alpha, 1.0
    for _ in range(iterations):
        logits = torch.einsum("nl,nlv->nv", point, gamma) + gamma_s
        p = torch.softmax(logits, -1)
        p[torch.arange(n, device=p.device), gold] -= 1.0
        grad = torch.einsum("nlv,nv->nl", gamma, p)
        new = project_simplex(point - step * grad, mask)
        t_next = (1 + (1 + 4 * t * t) ** 0.5) / 2
        moved = float((new - alpha).abs().max())
        point, alpha, t = new + ((t - 1) / t_next) * (new - alpha), new, t_next
        if moved <= tol:
            break
    return alpha


@torch.no_grad()
def model_alpha_opt(model, src, src_len, tgt_in, tgt_out, iterations: int = 300, tol: float = 1e-5,
                    max_elements: int = 25_000_000) -> torch.Tensor:
    """α^opt [S,B,T,L] of every member of a linear-read-out translation model (:meth:`eq32_terms`) on a teacher-forced
    batch (gold words ``tgt_out``), solved in slices of the batch whose γ [S,b,T,L,V] hold at most ``max_elements``
    numbers; zero beyond each source's length (and at padded target positions, whose rows are solved but unread).
    In the model's float32, a slice stopping once no attention weight moves by more than ``tol`` in a step: the
    agreement reads only α^opt's arg-max."""
    s, b, t = tgt_in.shape
    length, vocab = src.shape[-1], model.cfg.vocab
    size = max(1, max_elements // (s * t * length * vocab))
    out = []
    for i in range(0, b, size):
        part = [x[:, i: i + size] for x in (src, src_len, tgt_in, tgt_out)]
        gamma_l, gamma_s = model.eq32_terms(*part[:3])                          # [S,b,L,V], [S,b,T,V]
        bs = gamma_l.shape[1]
        gamma = gamma_l[:, :, None].expand(-1, -1, t, -1, -1).reshape(-1, length, vocab)
        lengths = part[1][:, :, None].expand(-1, -1, t).reshape(-1)
        alpha = optimal_attention(gamma, gamma_s.reshape(-1, vocab), part[3].reshape(-1), lengths, iterations, tol)
        out.append(alpha.reshape(s, bs, t, length))
    return torch.cat(out, 1)


def alpha_opt_agreement(alpha_opt: np.ndarray, beta: np.ndarray, lengths: np.ndarray | None = None,
                        seed: int = 0) -> dict[str, float]:
    """App. A.1's A(α^opt, β) (Eq. 10) of one model, its shuffled baseline Â = A(α^opt, β shuffled once per token)
    (:func:`.agreement.shuffled_baseline`; the model has no second run to shuffle) and the excess over it.
    ``alpha_opt``, ``beta`` [N, L] over the held-out target tokens."""
    a = agreement(alpha_opt, beta, lengths)
    hat = shuffled_baseline(alpha_opt, beta, lengths, seed)
    return {"A_alpha_opt_beta": a, "A_alpha_opt_beta_hat": hat, "A_alpha_opt_beta_excess": a - hat}


def alpha_opt_summary(table: "pd.DataFrame") -> "pd.DataFrame":  # noqa: F821
    """One row per seed of :func:`alpha_opt_agreement` from the ``alpha_opt.parquet`` rows (seed, member,
    example, t, src_len, alpha_opt, beta) of one Eq. 32 run; the shuffle is seeded by the model's seed."""
    import pandas as pd

    from .probes import padded

    if not len(table):
        raise ValueError("alpha_opt table is empty: the Eq. 32 run has no held-out target token")
    rows = []
    for seed, part in table.groupby("seed", sort=True):
        part = part.sort_values(["example", "t"])
        alpha_opt, lengths = padded(part, "alpha_opt")
        beta, _ = padded(part, "beta")
        rows.append({"seed": int(seed), **alpha_opt_agreement(alpha_opt, beta, lengths, int(seed))})
    return pd.DataFrame(rows)
