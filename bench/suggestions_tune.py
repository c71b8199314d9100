"""How the suggestions' weights were chosen (discovery/suggestion_ranking.py): a grid search on
training corpora of the back-test, never on the seeds it reports.

`python -m bench.suggestions_tune [--researchers N] [--seeds 101,102,103]` builds the
back-test's synthetic corpus (bench.suggestions_eval) for each training seed, reads every
candidate's signals once, then scores each setting of the five weights on the grid below by
its mean recall@20 of the hidden pairs. Every signal the issue names (meaning, two-step
coauthor paths, citations, shared topics) keeps a weight above zero: a setting that drops one
would stop the site from saying it. It prints the site's current setting and the best ten.
The figures to report come from `bench.suggestions_eval` on other seeds (7, 11, 13, 17, 19).
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys

import numpy as np

from bench import suggestions_eval as back_test
from discovery import suggestion_ranking as ranking

# meaning, common coauthors, their weight, citations, topics (suggestion_ranking's order).
GRID = ([2, 3, 4, 6], [2, 3, 4], [0.25, 0.5, 1, 2], [0.25, 0.5], [0.25, 0.5, 1])


def signal_table(researchers: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Each candidate of each researcher with a hidden pair: the five terms of the score (before
    their weights), the candidate id, the researcher's row and whether the pair was hidden."""
    corpus = back_test.corpus_build(researchers, seed)
    cut_year = back_test.LAST_YEAR - back_test.HIDDEN_YEARS + 1
    history = back_test.history_before(corpus, cut_year)
    hidden = back_test.hidden_pairs(corpus, cut_year)
    binary = (history.adjacency > 0).astype(np.int32)
    common_counts = (binary @ binary).tocsr()
    terms, groups, hits, total = [], [], [], 0
    for group, r in enumerate(sorted(hidden)):
        total += len(hidden[r])
        common_row = np.zeros(researchers, dtype=np.int64)
        row = common_counts.getrow(r)
        common_row[row.indices] = row.data
        common_row[r] = 0
        for s in back_test.signals_for(r, history, common_row):
            terms.append(
                (
                    max(s.meaning or 0.0, 0.0),
                    math.log1p(s.common_coauthors),
                    math.log1p(max(s.common_coauthor_weight, 0.0)),
                    math.log1p(s.they_cited_you + s.you_cited_them),
                    min(max(s.topic_overlap, 0.0), 1.0),
                    s.candidate_id,
                )
            )
            groups.append(group)
            hits.append(s.candidate_id in hidden[r])
    return np.array(terms), np.array(groups), np.array(hits), total


def recall_at(
    table: tuple, weights: tuple[float, ...], k: int = ranking.SUGGESTIONS_LIMIT
) -> float:
    """Recall@k of the hidden pairs when each researcher's candidates are ranked as
    suggestions_ranked ranks them (score, then id; a score of 0 never suggested)."""
    terms, groups, hits, total = table
    score = terms[:, :5] @ np.array(weights)
    kept = score > 0
    order = np.lexsort((terms[kept, 5], -score[kept], groups[kept]))
    ranked_groups, ranked_hits = groups[kept][order], hits[kept][order]
    starts = np.r_[0, np.flatnonzero(np.diff(ranked_groups)) + 1]
    sizes = np.diff(np.r_[starts, len(ranked_groups)])
    rank = np.arange(len(ranked_groups)) - np.repeat(starts, sizes)
    return float(ranked_hits[rank < k].sum() / total) if total else 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--researchers", type=int, default=3000)
    parser.add_argument("--seeds", default="101,102,103")
    args = parser.parse_args(argv)
    tables = [signal_table(args.researchers, int(seed)) for seed in args.seeds.split(",")]
    current = (
        ranking.WEIGHT_MEANING,
        ranking.WEIGHT_COMMON_COAUTHORS,
        ranking.WEIGHT_COMMON_WEIGHT,
        ranking.WEIGHT_CITATIONS,
        ranking.WEIGHT_TOPICS,
    )
    scored = sorted(
        ((float(np.mean([recall_at(t, w) for t in tables])), w) for w in itertools.product(*GRID)),
        reverse=True,
    )
    out = sys.stdout.write
    out(f"training seeds {args.seeds}, {args.researchers} researchers each\n")
    out(f"  current {current}: {np.mean([recall_at(t, current) for t in tables]):.4f}\n")
    for recall, weights in scored[:10]:
        out(f"  {weights}: {recall:.4f}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
