"""App. A.9 of Snell et al. 2021: the SMS Spam Collection read from a tiny archive in the UCI release
format through the offline mirror, and A(α, α_B) − Â across seeds where the "unstable" claim must fail and where it
holds."""

import io
import zipfile

import numpy as np
import pandas as pd
import pytest

from attnrepro.verdicts.claims import summarize
from attnrepro.run.config import check_corpora
from attnrepro.data.corpora import FORMATS, sms_spam
from attnrepro.data.corpora.prepare import prepare
from attnrepro.data.download import fetch, sha256_of
from attnrepro.errors import AttnReproError
from attnrepro.verdicts.intervals import NOT_REPRODUCED, REPRODUCED
from attnrepro.verdicts.papers import CLAIMS
from attnrepro.snell2021.agreement_table import seeds_agreement

URL = "https://archive.ics.uci.edu/static/public/228/sms+spam+collection.zip"
WORDS = "free call now win prize txt meet you later ok home love lunch see tomorrow".split()


def uci_archive(n=50, extra: bytes = b"") -> bytes:
    """``smsspamcollection.zip`` as UCI ships it: ``SMSSpamCollection`` (label, tab, message; one a line, some
    bytes Latin-1) and a ``readme``."""
    rng = np.random.default_rng(0)
    lines = [f"{'spam' if i % 4 == 0 else 'ham'}\t{' '.join(rng.choice(WORDS, rng.integers(2, 8)))}".encode()
             for i in range(n)]
    lines[3] = b"ham\tcaf\xe9 at 5?"                    # a Latin-1 byte, as the release has a few
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("SMSSpamCollection", b"\n".join(lines) + b"\n" + extra)
        z.writestr("readme", b"SMS Spam Collection v.1\n")
    return buf.getvalue()


def corpus(**keys):
    return {"format": "sms_spam", "classes": [["ham"], ["spam"]], "valid_fraction": 0.4, "min_count": 1, "seed": 0,
            "files": {"smsspamcollection.zip": {"url": URL, "sha256": None}}, **keys}


def test_sms_corpus_through_the_offline_mirror(tmp_path, capsys):
    mirror = tmp_path / "mirror" / "sms_spam"
    mirror.mkdir(parents=True)
    (mirror / sms_spam.ARCHIVE).write_bytes(uci_archive())
    dest = tmp_path / "downloads" / "sms_spam" / sms_spam.ARCHIVE
    c = corpus()
    check_corpora({"tasks": {}, "corpora": {"sms_spam": c}})
    # no pinned digest: refused, as the News Commentary files, unless downloads.allow_unpinned
    with pytest.raises(AttnReproError, match=r"smsspamcollection\.zip .* no pinned sha256.*allow_unpinned"):
        fetch(URL, dest, None, local_dir=tmp_path / "mirror", local_name=f"sms_spam/{sms_spam.ARCHIVE}")
    fetch(URL, dest, None, local_dir=tmp_path / "mirror", local_name=f"sms_spam/{sms_spam.ARCHIVE}",
          allow_unpinned=True)
    assert sha256_of(dest) in capsys.readouterr().err      # the digest to pin is printed
    rows = sms_spam.messages(dest)
    assert len(rows) == 50 and rows[3] == ("café at 5?", "ham") and rows[0][1] == "spam"
    out = prepare(c, dest.parent)
    assert out["vocab"]["labels"] == ["ham", "spam"]
    assert [len(out["splits"][s]) for s in ("train", "valid", "test")] == [30, 20, 20]   # 40% held out
    assert sorted(out["splits"]["train"].label.tolist() + out["splits"]["test"].label.tolist()) == \
        sorted(0 if label == "ham" else 1 for _, label in rows)
    assert FORMATS["sms_spam"].read(c, dest.parent) == FORMATS["sms_spam"].read(c, dest.parent)   # seeded split


def test_sms_bad_input_names_the_file_line_and_key(tmp_path):
    (tmp_path / sms_spam.ARCHIVE).write_bytes(uci_archive(extra=b"spam no tab here\n"))
    with pytest.raises(AttnReproError, match=r"smsspamcollection\.zip:SMSSpamCollection line 51: expected 'ham' or"):
        prepare(corpus(), tmp_path)
    c = corpus()
    del c["valid_fraction"]
    with pytest.raises(AttnReproError, match=r"corpora\.sms_spam: format 'sms_spam' needs the key\(s\) "
                                             r"\['valid_fraction'\]"):
        check_corpora({"tasks": {}, "corpora": {"sms_spam": c}})


CLAIM = next(c for c in CLAIMS if c.claim_id == "sms_attention_unstable_across_seeds")


def _verdict(excesses):
    df = pd.DataFrame({"seed": range(len(excesses)), CLAIM.measure: excesses})
    return summarize({"sms": df}, {"sms": ("classification_sms", "bilstm_attention")}, (CLAIM,)).iloc[0].verdict


def test_identical_attention_across_seeds_is_stable_and_the_unstable_claim_fails():
    """Every seed's best attention is the same array: A(α, α_B) = 1, Â ≈ 1/20, the excess is large."""
    rng = np.random.default_rng(0)
    a = rng.random((300, 20))
    perf = np.array([0.5, 0.9, 0.7])
    alpha = np.stack([rng.random((300, 20)), a, rng.random((300, 20))])     # best checkpoint (0.9): a
    excesses = []
    for seed in range(6):
        row = seeds_agreement(alpha, perf, np.stack([a]), np.array([0.95]), seed=seed)
        assert row["A_alpha_alpha_seeds"] == 1.0 and row["A_hat"] < 0.15
        excesses.append(row["A_alpha_alpha_seeds_excess"])
    assert min(excesses) > 0.85 and _verdict(excesses) == NOT_REPRODUCED


def test_unrelated_attention_across_seeds_and_the_unstable_claim_holds():
    """Seed B's attention is independent of this seed's: A(α, α_B) ≈ Â, the excess ≈ 0 (below 0.1)."""
    rng = np.random.default_rng(1)
    lengths = rng.integers(10, 21, 2000)
    excesses = []
    for seed in range(6):
        row = seeds_agreement(rng.random((2, 2000, 20)), np.array([0.8, 0.9]), rng.random((2, 2000, 20)),
                              np.array([0.9, 0.8]), lengths=lengths, seed=seed)
        excesses.append(row["A_alpha_alpha_seeds_excess"])
    assert max(abs(e) for e in excesses) < 0.05 and _verdict(excesses) == REPRODUCED
