"""How much the frequency ranking moves §4.3's correlations (Kobayashi et al. 2020, Fig. 6): one encoder cache,
several rankings of the same token occurrences, ρ(rank, ‖f‖) and ρ(rank, α) per fold (docs/deviations.md).

Rankings compared (one axis: only the ranks change; tokens, α and ‖f‖ are those of one ``kobayashi2020 cache``):

- ``substitute``: the default offline ranking, word-piece counts over every sequence the news corpus packs into,
  every token ranked (what ``kobayashi2020 data`` writes without ``--ranks-json``);
- ``authors_code``: the authors' ``rank_count_ids.txt`` read as their code does (every token ranked, ids missing
  from the file last);
- ``authors_footnote5``: the same file read as the paper's footnote 5 says (special tokens and single characters
  left out; commas, periods, [SEP] and [CLS] put first).

    python studies/kobayashi2020/kobayashi_ranks.py --tokens T.parquet --cache-dir DIR --rank-file rank_count_ids.txt \\
        --folds 5 --out studies/kobayashi2020/results/kobayashi_ranks.json

The rank file is the pinned download of config/paper.yaml (kobayashi2020.ranks). Writes a JSON of per-fold ρ.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from attnrepro.kobayashi2020.analysis import fold_of, frequency_correlation, frequency_points  # noqa: E402
from attnrepro.kobayashi2020.ranks import rank_tokens, read_rank_file  # noqa: E402

TOP_FOUR = {",": 1, ".": 2, "[SEP]": 3, "[CLS]": 4}  # footnote 5's four, in the order the footnote gives


def footnote5(tokens: pd.DataFrame, table: pd.DataFrame) -> np.ndarray:
    """Ranks as the paper's footnote 5 reads: the four first, specials and single characters unranked (NaN)."""
    rank = rank_tokens(tokens.token_id, table).astype(float) + len(TOP_FOUR)
    single = tokens.token.str.len() == 1
    special = tokens.token.str.startswith("[") & tokens.token.str.endswith("]")
    rank[(single | special).to_numpy()] = np.nan
    for token, r in TOP_FOUR.items():
        rank[(tokens.token == token).to_numpy()] = r
    return rank


def per_fold(tokens: pd.DataFrame, heads: pd.DataFrame, folds: int) -> list[dict]:
    rows = []
    for fold in range(folds):
        seqs = tokens.seq[fold_of(tokens.seq, folds) == fold].unique()
        t = tokens[tokens.seq.isin(seqs)]
        pts = frequency_points(heads[heads.seq.isin(seqs)], t).dropna(subset=["rank"])
        rows.append({"fold": fold, "n_points": len(pts), **frequency_correlation(pts)})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", required=True)
    parser.add_argument("--cache-dir", required=True)
    parser.add_argument("--rank-file", required=True)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    tokens = pd.read_parquet(args.tokens)
    heads = pd.read_parquet(Path(args.cache_dir) / "heads.parquet", columns=["seq", "layer", "head", "pos",
                                                                                "f_norm", "alpha_mean"])
    table = read_rank_file(args.rank_file)
    rankings = {"substitute": tokens["rank"].to_numpy(),
                "authors_code": rank_tokens(tokens.token_id, table),
                "authors_footnote5": footnote5(tokens, table)}
    out = {"tokens": args.tokens, "n_sequences": int(tokens.seq.nunique()), "n_tokens": len(tokens),
           "folds": args.folds, "rankings": {}}
    for name, rank in rankings.items():
        rows = per_fold(tokens.assign(rank=rank), heads, args.folds)
        df = pd.DataFrame(rows)
        out["rankings"][name] = {
            "ranked_share": float(np.isfinite(rank.astype(float)).mean()), "per_fold": rows,
            **{f"{k}_mean": float(df[k].mean()) for k in ("rho_rank_fnorm", "rho_rank_alpha")},
            **{f"{k}_range": [float(df[k].min()), float(df[k].max())] for k in ("rho_rank_fnorm", "rho_rank_alpha")}}
    Path(args.out).write_text(json.dumps(out, indent=1) + "\n")
    for name, r in out["rankings"].items():
        print(f"{name:18s} ranked {r['ranked_share']:.3f}  ρ(rank,‖f‖) {r['rho_rank_fnorm_mean']:+.3f} "
              f"{r['rho_rank_fnorm_range']}  ρ(rank,α) {r['rho_rank_alpha_mean']:+.3f} {r['rho_rank_alpha_range']}")


if __name__ == "__main__":
    main()
