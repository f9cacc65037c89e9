"""The binary classifier of Snell et al. 2021, §2.4 (after Wiegreffe & Pinter 2019), members stacked.

Eq. 7:  a_l = vᵀ ReLU(Q h_l),  α = softmax_l(a)
Eq. 8:  p_pos = σ(Wᵀ Σ_l α_l h_l) = σ(Σ_l α_l γ_l),  γ_l = Wᵀ h_l  (Eq. 22)
Eq. 9:  β_l = σ((2y − 1) γ_l)  — :meth:`Classifier.lexical_probe`.

As §2.4 says, binary classification is "machine translation" with T = 1 and |O| = 2: the model reads a batch of
:mod:`attnrepro.data.vocab` (the label is the one target token) and returns the logits [0, Σ_l α_l γ_l] over the two
classes, whose cross-entropy is the binary cross-entropy of Eq. 8.

h_l = [→h_l; ←h_l] from a 1-layer BiLSTM (:class:`attnrepro.nn.cells.LSTMCell` both ways, PyTorch's bias law as the
authors' ``nn.LSTM``) over word embeddings (the authors' code: hidden 256 per direction, an attention MLP of width
256; word embeddings of width ``embed``, 300 there). No biases in Eq. 7–8, as printed. Attention modes as the seq2seq model: ``learned``, ``uniform`` (α = 1/L,
§3.2) and ``frozen_beta`` (only Q and v train, App. A.6).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..nn.cells import LSTMCell
from ..nn.stacked import StackedModule, fan_in_bound, init_stacked, lookup_time_major
from .seq2seq import ModeChecked


@dataclass(frozen=True)
class ClassifierConfig(ModeChecked):
    vocab: int
    hidden: int                # per direction
    attention_hidden: int = 0  # width of Q; 0 = hidden
    attention: str = "learned"
    embed: int = 0             # word embedding width; 0 = hidden (the authors': 300)


class Classifier(StackedModule):
    ATTENTION = ("att_q", "att_v")

    def __init__(self, cfg: ClassifierConfig, seeds: list[int]) -> None:
        super().__init__()
        self.cfg, self.seeds = cfg, [int(s) for s in seeds]
        n, h = len(self.seeds), cfg.hidden
        a = cfg.attention_hidden or h
        e = cfg.embed or h
        self.param("embedding", n, cfg.vocab, e, bound=1.0, normal=True)
        self.param("att_q", n, 2 * h, a, bound=fan_in_bound(2 * h))
        self.param("att_v", n, a, 1, bound=fan_in_bound(a))
        self.param("w", n, 2 * h, 1, bound=fan_in_bound(2 * h))
        self.fwd = LSTMCell(n, e, h)
        self.bwd = LSTMCell(n, e, h)
        init_stacked(self, self.seeds)
        if cfg.attention == "frozen_beta":
            for name, p in self.named_parameters():
                p.requires_grad_(name in self.ATTENTION)

    @property
    def n_seeds(self) -> int:
        return len(self.seeds)

    def embed(self, x: torch.Tensor) -> torch.Tensor:
        return lookup_time_major(self.embedding, x)

    def encode(self, x: torch.Tensor, length: torch.Tensor, embedded: torch.Tensor | None = None) -> torch.Tensor:
        """h_l [S,B,L,2H] of right-padded inputs ``x`` [S,B,L] with real lengths ``length`` [S,B]; the backward
        direction reads the reversed sequence, holding its zero state over the (now leading) padding."""
        e = self.embed(x) if embedded is None else embedded
        mask = torch.arange(x.shape[-1], device=x.device) < length[..., None]
        zero = self.fwd.initial_state(x.shape[0], x.shape[1], device=x.device)
        full = bool(mask.all())  # no padding (the keyword toy): nothing to hold
        fwd = self.fwd.sequence(self.fwd.input_projection(e), zero, None if full else mask)[0]
        bwd = self.bwd.sequence(self.bwd.input_projection(e.flip(2)), zero, None if full else mask.flip(2))[0].flip(2)
        return torch.cat([fwd, bwd], -1)

    def run_with_cache(self, src, src_len, tgt_in=None, embedded=None):
        """Logits [S,B,1,2] over (negative, positive) and the activations h, α [S,B,L], γ [S,B,L]."""
        h = self.encode(src, src_len, embedded)
        s, b, length, d = h.shape
        flat = h.reshape(s, b * length, d)
        gamma = torch.bmm(flat, self.w).view(s, b, length)
        if self.cfg.attention == "uniform":
            scores = h.new_zeros(s, b, length)
        else:
            scores = torch.bmm(torch.relu(torch.bmm(flat, self.att_q)), self.att_v).view(s, b, length)
        pad = torch.arange(length, device=src.device) >= src_len[..., None]
        alpha = torch.softmax(scores.masked_fill(pad, float("-inf")), -1)
        logit = (alpha * gamma).sum(-1)
        logits = torch.stack([torch.zeros_like(logit), logit], -1)[:, :, None]
        return logits, {"h": h, "alpha": alpha, "gamma": gamma, "scores": scores}

    def forward(self, src, src_len, tgt_in=None) -> torch.Tensor:
        return self.run_with_cache(src, src_len)[0]

    @torch.no_grad()
    def lexical_probe(self, src, src_len, tgt_in, tgt_out) -> torch.Tensor:
        """β_l = σ((2y − 1) γ_l) (Eq. 9), [S,B,1,L]."""
        gamma = self.run_with_cache(src, src_len)[1]["gamma"]
        return torch.sigmoid((2 * tgt_out.to(gamma.dtype) - 1) * gamma)[:, :, None]

    def saliency(self, src, src_len, tgt_in, tgt_out) -> torch.Tensor:
        """Δ_l = ∇_{e_l} log p(y) · e_l, gradient × input (§5.1), [S,B,1,L]. The authors' released classification
        code negates this twice (eval_dump, then flip_grads), which looks like a sign slip; the paper's definition
        is followed (docs/deviations.md)."""
        embedded = self.embed(src).detach().requires_grad_()
        logits, _ = self.run_with_cache(src, src_len, embedded=embedded)
        logp = torch.log_softmax(logits, -1).gather(-1, tgt_out[..., None]).sum()
        (grad,) = torch.autograd.grad(logp, embedded)
        return (grad * embedded).sum(-1)[:, :, None].detach()
