"""Tiny archives in each corpus's real release format, made by the tests (never copies of the corpora), and a
local HTTP server on 127.0.0.1 that serves them, can answer 404, and can cut a file short."""

from __future__ import annotations

import gzip
import hashlib
import http.server
import io
import tarfile
import threading
import zipfile

import numpy as np

WORDS = ("the a man woman dog cat runs walks sees big small red house street ball green old young child plays "
         "water near under over river tree").split()
DE = ("der die ein eine mann frau hund katze läuft geht sieht groß klein rot haus straße ball grün alt jung kind "
      "spielt wasser nahe unter über fluss baum").split()


def sentences(n, seed, vocab=WORDS, lo=3, hi=9):
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(vocab, rng.integers(lo, hi + 1))) for _ in range(n)]


def gz(text: str) -> bytes:
    return gzip.compress(text.encode("utf-8"), mtime=0)


def tar_gz(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(buf.getvalue(), mtime=0)  # the same bytes, so the same checksum, on every call


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def multi30k() -> dict[str, bytes]:
    out = {}
    for part, n, seed in (("train", 60, 1), ("val", 10, 2), ("test_2016_flickr", 10, 3)):
        out[f"{part}.en.gz"] = gz("\n".join(sentences(n, seed)) + "\n")
        out[f"{part}.de.gz"] = gz("\n".join(sentences(n, seed, DE)) + "\n")
    return out


def iwslt14() -> dict[str, bytes]:
    members = {}
    for lang, vocab in (("de", DE), ("en", WORDS)):
        lines = ["<url>http://www.ted.com/talks/x</url>", "<keywords>talks</keywords>", "<talkid>1</talkid>",
                 "<title>a title</title>", "<description>about it</description>"] + sentences(46, 4, vocab)
        members[f"de-en/train.tags.de-en.{lang}"] = ("\n".join(lines) + "\n").encode()
        for i, name in enumerate(("IWSLT14.TED.dev2010", "IWSLT14.TEDX.dev2012", "IWSLT14.TED.tst2010",
                                  "IWSLT14.TED.tst2011", "IWSLT14.TED.tst2012")):
            segs = [f'<seg id="{k + 1}"> {s} </seg>' for k, s in enumerate(sentences(3, 10 + i, vocab))]
            xml = '<?xml version="1.0" encoding="UTF-8"?>\n<mteval>\n<srcset setid="x">\n<doc docid="1">\n' \
                  + "\n".join(segs) + "\n</doc>\n</srcset>\n</mteval>\n"
            members[f"de-en/{name}.de-en.{lang}.xml"] = xml.encode()
    return {"de-en.tgz": tar_gz(members)}


def news_commentary(pair="en-nl", n=100) -> dict[str, bytes]:
    rows = [f"{a}\t{b}" for a, b in zip(sentences(n, 5), sentences(n, 6, DE))]
    rows[3] = "1990\t1990"              # purely numerical
    rows[7] = "12.5 %\t12,5 %"          # purely numerical
    rows[11] = "\t"                     # empty
    rows[13] = "the river\t"            # one side empty
    return {f"news-commentary-v14.{pair}.tsv.gz": gz("\n".join(rows) + "\n")}


def paracrawl() -> dict[str, bytes]:
    rows = [f"{a}\t{b}" for a, b in zip(sentences(80, 7, lo=2, hi=20), sentences(80, 8, DE, lo=2, hi=20))]
    rows.append(" ".join(["dog"] * 15) + "\t" + " ".join(["hund"] * 15))   # exactly 15: kept
    rows.append(" ".join(["cat"] * 16) + "\t" + "katze")                    # 16: dropped
    return {"en-fr.bicleaner07.txt.gz": gz("\n".join(rows) + "\n")}


def imdb(n=40) -> dict[str, bytes]:
    members = {}
    for split, seed in (("train", 11), ("test", 12)):
        for i, s in enumerate(sentences(n, seed)):
            cls, stars = ("pos", 8) if i % 2 else ("neg", 2)
            members[f"aclImdb/{split}/{cls}/{i}_{stars}.txt"] = f"{s}.<br /><br />{s}".encode()
        members[f"aclImdb/{split}/urls_pos.txt"] = b"http://x\n"
    members["aclImdb/train/unsup/0_0.txt"] = b"unlabelled review"
    return {"aclImdb_v1.tar.gz": tar_gz(members)}


def newsgroups(n=20) -> dict[str, bytes]:
    members = {}
    for split, seed in (("train", 13), ("test", 14)):
        for group in ("rec.sport.baseball", "rec.sport.hockey", "sci.space"):
            for i, s in enumerate(sentences(n, seed + len(group))):
                header = f"From: x@y.z\nSubject: re\nNewsgroups: {group}\n\n"
                members[f"20news-bydate-{split}/{group}/{1000 + i}"] = (header + s + "\n").encode("latin-1")
    return {"20news-bydate.tar.gz": tar_gz(members)}


def sst() -> dict[str, bytes]:
    def tree(label, words):
        return f"({label} " + " ".join(f"(2 {w})" for w in words) + ")"

    members = {}
    for part, n, seed in (("train", 50, 15), ("dev", 10, 16), ("test", 10, 17)):
        lines = [tree(i % 5, s.split()) for i, s in enumerate(sentences(n, seed))]
        members[f"trees/{part}.txt"] = ("\n".join(lines) + "\n").encode()
    return {"trainDevTestTrees_PTB.zip": zip_bytes(members)}


def zhang_csv(name="yelp_review_full_csv", n_classes=5, text_fields=1, n=50) -> dict[str, bytes]:
    members = {}
    for split, seed in (("train", 18), ("test", 19)):
        rng = np.random.default_rng(seed)
        rows = []
        for i, s in enumerate(sentences(n, seed, lo=3, hi=30)):
            fields = [f'"{i % n_classes + 1}"'] + [f'"{s}\\n{s[:10]}, ""quoted"""'] * text_fields
            rows.append(",".join(fields))
        rng.shuffle(rows)
        members[f"{name}/{split}.csv"] = ("\n".join(rows) + "\n").encode()
    ext = ".tar.gz" if name == "ag_news_csv" else ".tgz"
    return {name + ext: tar_gz(members)}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class Server:
    """Serves ``files`` (path -> bytes) on 127.0.0.1; ``/cut/<path>`` announces the whole length and sends half,
    then closes. ``hits`` counts the requests per path."""

    def __init__(self, files: dict[str, bytes]):
        self.files = files
        self.hits: dict[str, int] = {}
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                path = self.path.lstrip("/")
                outer.hits[path] = outer.hits.get(path, 0) + 1
                cut = path.startswith("cut/")
                data = outer.files.get(path[4:] if cut else path)
                if data is None:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data[: len(data) // 2] if cut else data)
                self.wfile.flush()
                self.close_connection = True

            def log_message(self, *args):
                pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()
