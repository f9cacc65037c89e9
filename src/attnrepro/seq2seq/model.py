"""The three encoder-decoder wirings of Aitken et al. 2021, §2 (Fig. 1), with seeds stacked on a leading axis.

- ``ved``: recurrent encoder and decoder, no attention (Sutskever et al. 2014); readout of h_s^D.
- ``aed``: VED plus dot attention a_st = h_s^D · h_t^E, α_s = softmax_t(a_s·), c_s = Σ_t α_st h_t^E, masked
  beyond the input's length; readout of [h_s^D; c_s]. ``attention: qkv`` swaps in the learned query/key/value
  attention of footnote 1 (:mod:`attnrepro.nn.attention`), for AED and AO.
- ``ao``:  no recurrence — each cell acts on a zero previous state (a feed-forward map) — and a fixed sinusoidal
  positional encoding added to the encoder and decoder inputs; readout of c_s. The readout of c_s alone follows
  the authors' code (``../shared/reference/authors-code.md``); the paper does not say.

Inputs are one-hot (the authors' choice). For ``ao`` the one-hot code sits in the first |V| of ``input_dim``
dimensions and a sinusoidal positional code of width p = min(input_dim, 512) is spread over all of them by a fixed
random map with orthonormal columns (the authors' code rotates it; a full rotation of a 30k-word input would be a
30k × 30k QR). The paper gives no scale for the code. Its own norm is √(p/2) against the one-hot's 1: 4× at the
toy tasks' p = 32, but 16× for the 500-word Bible, where AO then cannot read its words (measured, one seed, 1,000
steps: BLEU 0.03 at 16×, 0.15 at 3×, 2.8 with the code scaled to norm 1); ``pe_norm`` sets it. The encoder holds its state after ``<eos>``; the decoder starts from the encoder's
final state (``ved``/``aed``) and reads ``<sos>`` then the previous target word (teacher forcing).

:meth:`EncoderDecoder.run_with_cache` returns the logits and a dict of named activations (hook points, as in
TransformerLens): ``encoder.h`` [S,B,T,H], ``decoder.h`` [S,B,S',H], ``attention.query`` [S,B,S',d],
``attention.key`` / ``attention.value`` [S,B,T,d], ``attention.scores`` / ``attention.alpha`` [S,B,S',T],
``attention.context`` [S,B,S',d].

Four options follow the authors' code (``../shared/reference/authors-code.md``) where the project otherwise takes
PyTorch's conventions; each is off by default, and a model built without them is the model built before they
existed, draw for draw (docs/deviations.md, Aitken rows; measured by ``studies/aitken2021/aitken_toy_effects.py options``):

- ``initial_state: learned``: the encoder starts from a learned state h_0 (zeros at the start, one per member),
  not from zeros (VED/AED; AO's cells act on a zero state by definition).
- ``init: aitken``: cells' weights N(0, 1/H), zero biases; the read-out Glorot normal (:mod:`attnrepro.nn.cells`,
  :class:`attnrepro.nn.stacked.Linear`).
- ``readout_bias: false``: the read-out W [h_s^D; c_s] has no bias (the authors' ``Dense_nobias``).
- ``first_input: uniform``: the decoder's first input is the vector 1/|V| in every word dimension (the authors'
  SOS), not the one-hot ``<sos>``; its input projection is the mean of W_x's word rows plus b_x. The export still
  labels that step ``<sos>`` (the first step's input, whatever its vector).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch
from torch import nn

from .. import seeding
from .options import AITKEN_CODE_OPTIONS
from ..nn.attention import make_attention
from ..nn.cells import make_cell
from ..nn.stacked import Linear, affine, init_stacked

RECURRENT_ARCHS = ("ved", "aed", "ao")
PE_WIDTH = 512  # widest positional code AO spreads over its input
ARCHS = (*RECURRENT_ARCHS, "transformer")  # the last one: attnrepro.seq2seq.transformer, via train.build_model


@dataclass(frozen=True)
class ModelConfig:
    arch: str
    cell: str
    hidden: int
    src_vocab: int
    tgt_vocab: int
    input_dim: int = 0          # width of the input vectors; 0 = one-hot width (|V|)
    max_positions: int = 64     # positional-encoding table size (ao only)
    pe_norm: float = 0.0        # ao: norm of each position's code; 0 = the sinusoid's own, √(width/2)
    time_scale: float = 10000.0  # ao: the sinusoid's denominators time_scale^(2k/width) (authors: 20 or 100)
    pe_shared: bool = False     # ao: one rotation of the code for encoder and decoder (the authors'), not one each
    attention: str = "dot"      # "dot" (§2) or "qkv" (footnote 1); aed and ao only
    layers: int = 2             # transformer only: encoder and decoder blocks
    heads: int = 4              # transformer only: attention heads
    initial_state: str = "zeros"  # ved/aed encoder: "zeros" or "learned" (the authors')
    init: str = "pytorch"       # "pytorch" (U(±1/√fan_in)) or "aitken" (N(0, 1/H) cells, Glorot read-out)
    readout_bias: bool = True   # False: no read-out bias (the authors')
    first_input: str = "sos"    # the decoder's first input: "sos" (one-hot) or "uniform" (1/|V|, the authors')

    def to_dict(self) -> dict:
        """The fields, less the authors'-code options at their defaults, so that a model trained without them is
        stamped as before they existed."""
        d = asdict(self)
        return {k: v for k, v in d.items() if k not in OPTION_DEFAULTS or v != OPTION_DEFAULTS[k]}


OPTIONS = AITKEN_CODE_OPTIONS  # the options of Aitken et al.'s code (module docstring): key -> (default, allowed)
OPTION_DEFAULTS = {k: v[0] for k, v in OPTIONS.items()}


def check_options(cfg: ModelConfig) -> None:
    """Each option's value is one it knows, and the architecture has what it changes; ValueError naming the key."""
    for key, (_, allowed) in OPTIONS.items():
        value = getattr(cfg, key)
        if value not in allowed or type(value) is not type(allowed[0]):
            raise ValueError(f"model.{key}: {value!r} is not one of {list(allowed)}")
    if cfg.initial_state == "learned" and cfg.arch not in ("ved", "aed"):
        raise ValueError(f"model.initial_state: 'learned' needs a recurrent encoder (ved, aed), not {cfg.arch!r}")


def sinusoidal_encoding(n_positions: int, dim: int, time_scale: float = 10000.0) -> torch.Tensor:
    """Fixed positional encoding of Vaswani et al. 2017, §3.5: sin and cos of t / time_scale^(2k/dim), amplitude 1,
    [n_positions, dim], made on the CPU (a buffer that moves with its model). Vaswani et al. take time_scale
    10,000; Aitken et al.'s code 20 (one-to-one, width 50) or 100 (eSCAN, width 100), so that positions a few
    steps apart are far less alike (cosine 0.20 and 0.48 at offset 5, against 0.73 at 10,000)."""
    pos = torch.arange(n_positions, dtype=torch.float64, device="cpu")[:, None]
    freq = torch.exp(-math.log(time_scale) * torch.arange(0, dim, 2, dtype=torch.float64, device="cpu") / dim)
    pe = torch.zeros(n_positions, dim, dtype=torch.float64, device="cpu")
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq)[:, : dim // 2]
    return pe.float()


class EncoderDecoder(nn.Module):
    def __init__(self, cfg: ModelConfig, seeds: list[int]) -> None:
        super().__init__()
        if cfg.arch not in RECURRENT_ARCHS:
            raise ValueError(f"unknown recurrent architecture {cfg.arch!r}; choose one of {RECURRENT_ARCHS}")
        if cfg.arch == "ved" and cfg.attention != "dot":
            raise ValueError("ved has no attention; 'attention' applies to aed and ao")
        check_options(cfg)
        self.cfg, self.seeds = cfg, list(seeds)
        n = len(self.seeds)
        self.src_dim = cfg.input_dim or cfg.src_vocab
        self.tgt_dim = cfg.input_dim or cfg.tgt_vocab
        if self.src_dim < cfg.src_vocab or self.tgt_dim < cfg.tgt_vocab:
            raise ValueError(f"input_dim {cfg.input_dim} is smaller than the vocabulary")
        self.encoder = make_cell(cfg.cell, n, self.src_dim, cfg.hidden, init=cfg.init)
        self.decoder = make_cell(cfg.cell, n, self.tgt_dim, cfg.hidden, init=cfg.init)
        if cfg.arch != "ved":
            self.attention = make_attention(cfg.attention, n, cfg.hidden)
        readout_in = {"ved": cfg.hidden, "aed": 2 * cfg.hidden, "ao": cfg.hidden}[cfg.arch]
        self.readout = Linear(n, readout_in, cfg.tgt_vocab, bias=cfg.readout_bias, init=cfg.init)
        init_stacked(self, self.seeds)
        if cfg.initial_state == "learned":
            # zeros, as the authors' renn cells start it (h_init = zeros), and outside the seeded draws, so that
            # every other parameter starts where it does without it
            self.encoder_state = nn.Parameter(torch.zeros(n, 1, self.encoder.state_factor * cfg.hidden))
        if cfg.arch == "ao":
            if cfg.pe_shared and self.src_dim != self.tgt_dim:
                raise ValueError(f"pe_shared needs one input width for encoder and decoder; set input_dim "
                                 f"(source {self.src_dim}, target {self.tgt_dim})")
            self.register_buffer("pe_src", self._rotated_encoding(self.src_dim, "rotation_src"))
            self.register_buffer("pe_tgt", self._rotated_encoding(
                self.tgt_dim, "rotation_src" if cfg.pe_shared else "rotation_tgt"))

    def _rotated_encoding(self, dim: int, stream: str) -> torch.Tensor:
        width = min(dim, PE_WIDTH)
        pe = sinusoidal_encoding(self.cfg.max_positions, width, self.cfg.time_scale)
        if self.cfg.pe_norm:
            pe = pe * (self.cfg.pe_norm / math.sqrt(width / 2))
        out = []
        for seed in self.seeds:
            gen = seeding.generator(seed, stream)  # not seed*1000+salt: seeds 0 and 2**29 shared one
            q, r = torch.linalg.qr(torch.randn(dim, width, generator=gen, dtype=torch.float64, device=gen.device))
            q = q * torch.sign(torch.diagonal(r))  # unique Haar-distributed orthonormal columns
            out.append(pe @ q.T.float())
        return torch.stack(out)  # [S, P, D]

    @property
    def n_seeds(self) -> int:
        return len(self.seeds)

    # -- inputs ---------------------------------------------------------------------------------------------
    def _project(self, cell, tokens: torch.Tensor, pe: torch.Tensor | None, offset: int = 0) -> torch.Tensor:
        """The cell's input projection of one-hot ``tokens`` [S,B,L], plus the positional code of positions
        offset.. (AO): [S,B,L,G]."""
        code = None
        if pe is not None:
            end = offset + tokens.shape[-1]
            if end > pe.shape[1]:
                raise ValueError(f"sequence length {end} exceeds max_positions {pe.shape[1]}")
            code = pe[:, offset:end, :]
        return cell.token_projection(tokens, code)

    def _first_input(self, pe: torch.Tensor | None, batch: int) -> torch.Tensor:
        """``first_input: uniform``: the decoder's input projection of the vector 1/|V| on the |V| word dimensions
        (plus position 0's code, AO), [S,B,1,G]: Σ_v W_x[v]/|V| + b_x, the mean of the one-hot words' rows."""
        w_x, b_x = self.decoder.w_x, self.decoder.b_x
        gx = (w_x[:, : self.cfg.tgt_vocab] + b_x).mean(1, keepdim=True)  # [S,1,G]
        if pe is not None:
            gx = gx + affine(pe[:, :1], w_x)
        return gx[:, None].expand(-1, batch, -1, -1)

    def _decoder_inputs(self, tgt_in: torch.Tensor) -> torch.Tensor:
        """The decoder's input projections [S,B,S',G]: of ``tgt_in`` (``<sos>`` then the previous target words), the
        first replaced by the uniform vector's under ``first_input: uniform``."""
        pe = getattr(self, "pe_tgt", None)
        gx = self._project(self.decoder, tgt_in, pe)
        if self.cfg.first_input == "uniform":
            gx = torch.cat([self._first_input(pe, gx.shape[1]), gx[:, :, 1:]], 2)
        return gx

    @staticmethod
    def _feed_forward(cell, gx: torch.Tensor) -> torch.Tensor:
        """AO: the cell on a zero previous state, for all time steps in one call."""
        n, b, t, g = gx.shape
        state = cell.initial_state(n, b * t, device=gx.device)
        return cell.output(cell.step(gx.reshape(n, b * t, g), state)).view(n, b, t, -1)

    # -- encoder ---------------------------------------------------------------------------------------------
    def encode(self, src: torch.Tensor, src_len: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Encoder hidden states [S,B,T,H] and the state the decoder starts from."""
        gx = self._project(self.encoder, src, getattr(self, "pe_src", None))
        n, b, t_max, _ = gx.shape
        if self.cfg.initial_state == "learned":
            state = self.encoder_state.expand(n, b, -1)
        else:
            state = self.encoder.initial_state(n, b, device=src.device)
        if self.cfg.arch == "ao":
            return self._feed_forward(self.encoder, gx), state
        valid = torch.arange(t_max, device=src.device)[None, :] < src_len[..., None]  # [S,B,T]
        return self.encoder.sequence(gx, state, valid)  # the state is held after <eos>

    def _readout_input(self, dec_h: torch.Tensor, context: torch.Tensor | None) -> torch.Tensor:
        if self.cfg.arch == "ved":
            return dec_h
        if self.cfg.arch == "aed":
            return torch.cat([dec_h, context], dim=-1)
        return context

    # -- teacher-forced forward ------------------------------------------------------------------------------
    def run_with_cache(self, src, src_len, tgt_in) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        """Teacher-forced pass. ``src`` [S,B,T], ``src_len`` [S,B], ``tgt_in`` [S,B,S'] -> logits [S,B,S',V]."""
        enc_h, state = self.encode(src, src_len)
        gx = self._decoder_inputs(tgt_in)
        if self.cfg.arch == "ao":
            dec_h = self._feed_forward(self.decoder, gx)
        else:
            dec_h = self.decoder.sequence(gx, state)[0]
        cache = {"encoder.h": enc_h, "decoder.h": dec_h}
        context = None
        if self.cfg.arch != "ved":
            att = self.attention(dec_h, enc_h, src_len)
            cache.update({f"attention.{k}": v for k, v in att.items()})
            context = att["context"]
        logits = self.readout(self._readout_input(dec_h, context))
        return logits, cache

    def forward(self, src, src_len, tgt_in) -> torch.Tensor:
        return self.run_with_cache(src, src_len, tgt_in)[0]

    # -- greedy decoding -------------------------------------------------------------------------------------
    @torch.no_grad()
    def greedy_decode(self, src, src_len, n_steps: int, sos: int) -> torch.Tensor:
        """Feed back the arg-max word for ``n_steps`` steps: predicted ids [S,B,n_steps]."""
        enc_h, state = self.encode(src, src_len)
        n, b = src.shape[:2]
        if self.cfg.arch == "ao":
            state = self.decoder.initial_state(n, b, device=src.device)
        pe = getattr(self, "pe_tgt", None)
        word = torch.full((n, b, 1), sos, dtype=torch.long, device=src.device)
        out = []
        for s in range(n_steps):
            if s == 0 and self.cfg.first_input == "uniform":
                gx = self._first_input(pe, b)[:, :, 0]
            else:
                gx = self._project(self.decoder, word, pe, offset=s)[:, :, 0]
            new = self.decoder.step(gx, state)
            dec_h = self.decoder.output(new)[:, :, None]
            context = None
            if self.cfg.arch != "ved":
                context = self.attention(dec_h, enc_h, src_len)["context"]
            word = self.readout(self._readout_input(dec_h, context)).argmax(-1)
            out.append(word[:, :, 0])
            if self.cfg.arch != "ao":
                state = new
        return torch.stack(out, 2)
