"""The shared sentencepiece vocabulary of Snell et al.'s translation experiments: one model of ``vocab_size``
pieces (8,000 in the paper) trained on the source and target sides of the training split together, as in the
authors' ``init_vocab`` (pad 0, bos 1, eos 2, unk 3)."""

from __future__ import annotations

import io

import sentencepiece as spm

from ...errors import AttnReproError


def train(texts: list[str], vocab_size: int, seed: int) -> bytes:
    """The serialized sentencepiece model trained on ``texts``."""
    model = io.BytesIO()
    spm.set_random_generator_seed(seed)
    try:
        spm.SentencePieceTrainer.train(
            sentence_iterator=iter(texts), model_writer=model, vocab_size=vocab_size, pad_id=0, bos_id=1,
            eos_id=2, unk_id=3, hard_vocab_limit=False, num_threads=1, minloglevel=2)
    except RuntimeError as err:
        raise AttnReproError(f"sentencepiece training failed: {err}") from err
    return model.getvalue()


def processor(model: bytes) -> spm.SentencePieceProcessor:
    return spm.SentencePieceProcessor(model_proto=model)


def vocabulary(sp: spm.SentencePieceProcessor) -> list[str]:
    """Every piece but the control symbols (pad, bos, eos), which the project's own special tokens replace."""
    return [sp.id_to_piece(i) for i in range(sp.get_piece_size()) if not sp.is_control(i)]


def encode(sp: spm.SentencePieceProcessor, texts: list[str]) -> list[list[str]]:
    # through the ids, so that an unknown character comes out as the <unk> piece, not as itself
    return [[sp.id_to_piece(i) for i in ids] for ids in sp.encode(texts)]
