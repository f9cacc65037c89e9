"""The LSTM seq2seq with attention of Snell et al. 2021, §2.1 and §5.2, members stacked on a leading axis.

Eq. 1:  a_tl = s_tᵀ W h_l,  α_t = softmax_l(a_t·)         (one W^(k) per head k, Eq. 20)
        with ``score_bias``: a_tl = (W s_t + b)·h_l, the authors' ``attn_lin`` (nn.Linear(H, H) with a bias)
Eq. 2:  c_t = Σ_l α_tl h_l,  p_t = N([c_t; s_t])
Eq. 21: with K heads the projected contexts are summed before N (``heads_combine="sum"``, as printed) or averaged
        (``"mean"``, the authors' multihead.py, which made Fig. 6).
Eq. 4:  β_tl = N([h_l; s_t])_{y_t}  — the lexical probe (:meth:`Seq2Seq.lexical_probe`).

Where the paper is silent we follow the authors' code (Sea-Snell/AttentionDynamics): one shared
word embedding (dimension = hidden, N(0, 1)) for source and target (their multi-head code: one each,
``shared_embedding=False``); 1-layer LSTM encoder and decoder (GRU in their multi-head code, ``cell="gru"``)
(:class:`attnrepro.nn.cells.LSTMCell`, run by ``Cell.sequence``); the decoder starts from the encoder's final (h, c)
and is teacher forced; each head's context goes through its own linear ``project_enc`` P_k before N; N = linear →
tanh → linear. The K projected contexts are summed as Eq. 21 says, or averaged as the authors' multi-head code
(a mean weakens a single good head K-fold at the start of training); the score has a bias or not
(``score_bias``; Eq. 1 has none, the authors' ``attn_lin`` has one): config/paper.yaml follows the code. The LSTM keeps PyTorch's two biases b_x and b_h, each
U(−1/√H, 1/√H), as the authors' ``nn.LSTM`` does (their sum has a triangular law on ±2/√H).

Attention modes (``Seq2SeqConfig.attention``):

- ``learned``: as above.
- ``uniform``: α^uf_tl = 1/L over the real source positions (``<eos>`` included, as the authors' zeroed scores), §3.2.
- ``frozen_beta``: the model is as ``learned`` but only the attention parameters W^(k) train (App. A.6); the other
  parameters do not require gradients, so the engine's optimiser never sees them.

Initialisation: the backbone (embedding, LSTMs, N) of member s is drawn from ``backbone_seeds[s]`` and head k's
parameters (W^(k), P_k) from ``head_seeds[s][k]``, each from its own generator — so rejection sampling can keep a
backbone fixed while trying heads (§5.2), and a member never depends on the others in the stack.

Every method reads a batch as (``src`` [S,B,L], ``src_len`` [S,B], ``tgt_in`` [S,B,T]) of :mod:`attnrepro.data.vocab`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import torch

from ..nn.cells import make_cell
from ..nn.stacked import StackedModule, affine, fan_in_bound, init_member, lookup_time_major
from ..seeding import stream_seeds

MODES = ("learned", "uniform", "frozen_beta")


class ModeChecked:
    """Base of a Snell model's config dataclass: its ``attention`` mode checked once, and the dict a checkpoint
    stores."""

    def __post_init__(self):
        if self.attention not in MODES:
            raise ValueError(f"attention mode {self.attention!r}; choose one of {MODES}")

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Seq2SeqConfig(ModeChecked):
    vocab: int                 # shared source/target vocabulary, special tokens included
    hidden: int
    heads: int = 1
    attention: str = "learned"
    score_bias: bool = False     # (W s + b)·h_l, the authors' attn_lin; False = Eq. 1
    heads_combine: str = "sum"   # Eq. 21 as printed; "mean" = the authors' multihead.py
    cell: str = "lstm"           # "gru": the authors' multihead.py
    shared_embedding: bool = True  # False: source and target embeddings apart (the authors' multihead.py)

    def __post_init__(self):
        super().__post_init__()
        if self.cell not in ("lstm", "gru"):
            raise ValueError(f"cell {self.cell!r}; choose 'lstm' or 'gru'")
        if self.heads_combine not in ("sum", "mean"):
            raise ValueError(f"heads_combine {self.heads_combine!r}; choose 'sum' (Eq. 21) or 'mean' (authors' code)")


class NetworkN(StackedModule):
    """N of Eq. 2: [c; s] -> linear (2H -> H) -> tanh -> linear (H -> V), split so the context half and the state
    half of the first layer can be applied apart (the lexical probe pairs every h_l with every s_t)."""

    def __init__(self, n: int, hidden: int, vocab: int) -> None:
        super().__init__()
        self.hidden = hidden
        self.param("w1", n, 2 * hidden, hidden, bound=fan_in_bound(2 * hidden))
        self.param("b1", n, 1, hidden, bound=fan_in_bound(2 * hidden))
        self.param("w2", n, hidden, vocab, bound=fan_in_bound(hidden))
        self.param("b2", n, 1, vocab, bound=fan_in_bound(hidden))

    def context_part(self, c: torch.Tensor) -> torch.Tensor:
        """c W1[:H] for c [S, ..., H]."""
        return affine(c, self.w1[:, : self.hidden])

    def state_part(self, s: torch.Tensor) -> torch.Tensor:
        """s W1[H:] + b1 for s [S, ..., H]."""
        return affine(s, self.w1[:, self.hidden:], self.b1)

    def logits(self, pre: torch.Tensor) -> torch.Tensor:
        """tanh, then the output layer: [S, ..., H] -> [S, ..., V]."""
        return affine(torch.tanh(pre), self.w2, self.b2)


class Heads(StackedModule):
    """The K heads: W^(k) of Eq. 20 and the authors' ``project_enc`` P_k, b_k, each [S, K, ...]."""

    def __init__(self, n: int, heads: int, hidden: int, score_bias: bool = False) -> None:
        super().__init__()
        b = fan_in_bound(hidden)
        self.param("att_w", n, heads, hidden, hidden, bound=b)
        self.param("proj_w", n, heads, hidden, hidden, bound=b)
        self.param("proj_b", n, heads, 1, hidden, bound=b)
        if score_bias:  # registered last: drawn after the others, which stay as without it
            self.param("att_b", n, heads, 1, hidden, bound=b)


def head_seeds_of(seed: int, heads: int) -> list[int]:
    """The head seeds of an ordinary run with model seed ``seed`` (its ``heads`` stream)."""
    return stream_seeds(seed, "heads", heads)


class Seq2Seq(StackedModule):
    def __init__(self, cfg: Seq2SeqConfig, backbone_seeds: list[int], head_seeds: list[list[int]] | None = None):
        super().__init__()
        self.cfg = cfg
        self.backbone_seeds = [int(s) for s in backbone_seeds]
        self.head_seeds = ([head_seeds_of(s, cfg.heads) for s in self.backbone_seeds] if head_seeds is None
                           else [[int(h) for h in hs] for hs in head_seeds])
        if len(self.head_seeds) != len(self.backbone_seeds) or any(len(h) != cfg.heads for h in self.head_seeds):
            raise ValueError("head_seeds must hold one list of `heads` seeds per backbone seed")
        n, h = len(self.backbone_seeds), cfg.hidden
        self.param("embedding", n, cfg.vocab, h, bound=1.0, normal=True)
        if not cfg.shared_embedding:
            self.param("tgt_embedding", n, cfg.vocab, h, bound=1.0, normal=True)
        self.encoder = make_cell(cfg.cell, n, h, h)
        self.decoder = make_cell(cfg.cell, n, h, h)
        self.readout = NetworkN(n, h, cfg.vocab)
        self.heads = Heads(n, cfg.heads, h, cfg.score_bias)
        with torch.no_grad():
            for s, (seed, heads) in enumerate(zip(self.backbone_seeds, self.head_seeds)):
                init_member([self, self.encoder, self.decoder, self.readout], s, seed)
                for k, head_seed in enumerate(heads):
                    init_member([self.heads], s, head_seed, head=k)
        if cfg.attention == "frozen_beta":
            for name, p in self.named_parameters():
                p.requires_grad_(name in ("heads.att_w", "heads.att_b"))

    @property
    def n_seeds(self) -> int:
        return len(self.backbone_seeds)

    # -- pieces ----------------------------------------------------------------------------------------------
    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        return lookup_time_major(self.embedding, tokens)

    def target_table(self) -> torch.Tensor:
        return self.embedding if self.cfg.shared_embedding else self.tgt_embedding

    def decoder_projection(self, tgt_in: torch.Tensor) -> torch.Tensor:
        """The decoder's gx of the target words ``tgt_in`` [S,B,T] (teacher forcing)."""
        return self.decoder.embedding_projection(self.target_table(), tgt_in)

    def encode(self, src: torch.Tensor, src_len: torch.Tensor, embedded: torch.Tensor | None = None):
        """Encoder states h_l [S,B,L,H] and the final state [h; c]; ``embedded`` replaces the source's word
        embeddings (saliency differentiates with respect to them)."""
        gx = (self.encoder.embedding_projection(self.embedding, src) if embedded is None
              else self.encoder.input_projection(embedded))
        mask = torch.arange(src.shape[-1], device=src.device) < src_len[..., None]
        mask = None if bool(mask.all()) else mask   # no padding (the copy tasks): nothing to hold
        state = self.encoder.initial_state(src.shape[0], src.shape[1], device=src.device)
        return self.encoder.sequence(gx, state, mask)

    def attention(self, dec_h: torch.Tensor, enc_h: torch.Tensor, src_len: torch.Tensor) -> torch.Tensor:
        """α [S,B,K,T,L] (Eq. 1 / 20), zero beyond the source's length."""
        s, b, t, _ = dec_h.shape
        length = enc_h.shape[2]
        if self.cfg.attention == "uniform":
            scores = dec_h.new_zeros(s, b, self.cfg.heads, t, length)
        else:
            q = torch.einsum("sbth,skhg->sbktg", dec_h, self.heads.att_w)
            if self.cfg.score_bias:
                q = q + self.heads.att_b[:, None]
            scores = torch.einsum("sbktg,sblg->sbktl", q, enc_h)
        pad = torch.arange(length, device=dec_h.device) >= src_len[..., None]          # [S,B,L]
        return torch.softmax(scores.masked_fill(pad[:, :, None, None, :], float("-inf")), dim=-1)

    def combine(self, contexts: torch.Tensor) -> torch.Tensor:
        """Eq. 21: [S,B,K,T,H] head contexts -> Σ_k (P_k c^(k) + b_k) [S,B,T,H], or its mean over k."""
        projected = torch.einsum("sbkth,skhg->sbktg", contexts, self.heads.proj_w) + self.heads.proj_b[:, None]
        return projected.mean(2) if self.cfg.heads_combine == "mean" else projected.sum(2)

    # -- forward ---------------------------------------------------------------------------------------------
    def run_with_cache(self, src, src_len, tgt_in, embedded=None) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Teacher-forced logits [S,B,T,V] and named activations."""
        enc_h, state = self.encode(src, src_len, embedded)
        dec_h = self.decoder.sequence(self.decoder_projection(tgt_in), state)[0]
        alpha = self.attention(dec_h, enc_h, src_len)
        context = self.combine(torch.einsum("sbktl,sblh->sbkth", alpha, enc_h))
        logits = self.readout.logits(self.readout.context_part(context) + self.readout.state_part(dec_h))
        return logits, {"encoder.h": enc_h, "decoder.h": dec_h, "attention.alpha": alpha, "context": context}

    def forward(self, src, src_len, tgt_in) -> torch.Tensor:
        return self.run_with_cache(src, src_len, tgt_in)[0]

    @torch.no_grad()
    def lexical_probe(self, src, src_len, tgt_in, tgt_out, max_elements: int = 25_000_000) -> torch.Tensor:
        """β_tl = N([h_l; s_t])_{y_t} (Eq. 4): the probability of the gold word if every head attended only to
        h_l, [S,B,T,L]. With K heads, each head's context is h_l, so the combined context is Σ_k P_k h_l + b_k.
        Computed in slices of the batch whose logits [S,b,T,L,V] hold at most ``max_elements`` numbers."""
        per_row = src.shape[0] * tgt_in.shape[-1] * src.shape[-1] * self.cfg.vocab
        size = max(1, max_elements // per_row)
        parts = [self._lexical_probe(*(x[:, i : i + size] for x in (src, src_len, tgt_in, tgt_out)))
                 for i in range(0, src.shape[1], size)]
        return torch.cat(parts, 1)

    def _lexical_probe(self, src, src_len, tgt_in, tgt_out) -> torch.Tensor:
        enc_h, state = self.encode(src, src_len)
        dec_h = self.decoder.sequence(self.decoder_projection(tgt_in), state)[0]
        as_context = self.combine(enc_h[:, :, None].expand(-1, -1, self.cfg.heads, -1, -1))     # [S,B,L,H]
        pre = self.readout.state_part(dec_h)[:, :, :, None] + self.readout.context_part(as_context)[:, :, None]
        logp = torch.log_softmax(self.readout.logits(pre), dim=-1)                          # [S,B,T,L,V]
        gold = tgt_out[:, :, :, None, None].expand(-1, -1, -1, pre.shape[3], 1)
        return logp.gather(-1, gold)[..., 0].exp()

    def saliency(self, src, src_len, tgt_in, tgt_out) -> torch.Tensor:
        return gradient_times_input(self, src, src_len, tgt_in, tgt_out)

    @torch.no_grad()
    def greedy_decode(self, src, src_len, n_steps: int, sos: int) -> torch.Tensor:
        """Greedy decoding, each step fed the previous arg-max: word ids [S,B,n_steps] (cut at ``<eos>`` later)."""
        enc_h, state = self.encode(src, src_len)
        token = torch.full(src.shape[:2], sos, dtype=torch.long, device=src.device)
        out = []
        for _ in range(n_steps):
            state = self.decoder.step(self.decoder_projection(token[..., None])[:, :, 0], state)
            dec_h = self.decoder.output(state)[:, :, None]
            context = self.combine(torch.einsum("sbktl,sblh->sbkth", self.attention(dec_h, enc_h, src_len), enc_h))
            token = self.readout.logits(self.readout.context_part(context) + self.readout.state_part(dec_h))
            token = token.argmax(-1)[..., 0]
            out.append(token)
        return torch.stack(out, -1)


def gradient_times_input(model, src, src_len, tgt_in, tgt_out) -> torch.Tensor:
    """Saliency Δ_tl = ∇_{e_l} log p_t(y_t) · e_l, gradient × input (Snell et al. §5.1 and the authors'
    translation code), [S,B,T,L] for a seq2seq ``model`` (``embed``, ``run_with_cache`` with ``embedded``): one
    backward pass per output position."""
    embedded = model.embed(src).detach().requires_grad_()
    logits, _ = model.run_with_cache(src, src_len, tgt_in, embedded)
    logp = torch.log_softmax(logits, -1).gather(-1, tgt_out[..., None])[..., 0]          # [S,B,T]
    out = []
    for t in range(logp.shape[-1]):
        (g,) = torch.autograd.grad(logp[..., t].sum(), embedded, retain_graph=t + 1 < logp.shape[-1])
        out.append((g * embedded).sum(-1))
    return torch.stack(out, 2).detach()
