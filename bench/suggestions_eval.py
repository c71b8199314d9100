"""The back-test of collaborator suggestions (issue 26, item 4): measured, not asserted.

`python -m bench.suggestions_eval [--researchers N] [--seed S]` builds a synthetic corpus,
hides the coauthorships that began in its last two years, makes suggestions from the older data
with the site's own ranking (discovery.suggestion_ranking.suggestions_ranked, the function
discovery.selectors.suggestions calls) and with a common-neighbours baseline in the same run,
and prints recall@20 of the hidden pairs for both and their ratio.

The corpus (numpy, seeded; no database, no model):
- topics, each a random unit vector; researchers in communities, each with an interest mix over
  topics (their community's topic first, two others after);
- works: each researcher's solo works and every coauthorship's joint works, each on one topic
  drawn from its authors' interests; a work's embedding is its topic's vector plus noise, a
  researcher's embedding the mean of their works' (as discovery's ResearcherEmbedding is);
- coauthorships formed year by year, first_year 2010..2024: a new pair forms by closing a
  triangle (a coauthor's coauthor), by closeness of interests (softmax over the interest
  similarity), or at random; each pair adds a joint work in its first year and later ones;
- citations: each work cites earlier works, mostly on its own topic.

The last two years' new pairs are hidden; everything the signals see is from the years before
(works, topics, embeddings, edges and citations published before the cut). The signals are the
same as the site reads from its tables (the selector's SQL): embedding cosine, common coauthors
and their weight (sum of the weaker edge, edges weighted 1/(authors-1) per joint work),
citations either way, topic overlap (histogram intersection over R's 20 main topics).
Candidates come as on the site: the union of the 2-hop neighbours, the citing and cited, the
strongest in R's topics and the nearest by embedding. Everyone is open to collaborate here, and
the site's other exclusions (claims, blocks, COI, invitation rules) have no counterpart.
Recall@20: over every researcher with a hidden pair, the hidden pairs found in their top 20,
divided by all hidden pairs (each pair counted from both sides). The baseline ranks every
researcher who is not yet a coauthor by the number of common coauthors, ties in random order.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from discovery.suggestion_ranking import SUGGESTIONS_LIMIT, SuggestionSignals, suggestions_ranked

FIRST_YEAR = 2010
LAST_YEAR = 2024
HIDDEN_YEARS = 2
DIMENSIONS = 64
TOP_TOPICS = 20
TOPIC_CANDIDATES = 200
NEAREST_CANDIDATES = 50
# How a new coauthorship forms: closing a triangle, by closeness of interests, or at random.
TRIADIC_SHARE = 0.3
TOPICAL_SHARE = 0.6
TOPICAL_SHARPNESS = 12.0
WORK_NOISE = 0.6


@dataclass
class Corpus:
    researchers: int
    topics: int
    # Coauthor pairs (a < b) with their first year and joint works' weights by year.
    edges: dict[tuple[int, int], dict[int, float]]
    # Works: (year, topic, authors, embedding row).
    work_years: np.ndarray
    work_topics: np.ndarray
    work_authors: list[tuple[int, ...]]
    work_embeddings: np.ndarray
    # Citations: (citing work, cited work).
    citations: list[tuple[int, int]]


def _citations_draw(
    rng: np.random.Generator, work_years: list[int], work_topics: list[int]
) -> list[tuple[int, int]]:
    """Up to five citations per work, of earlier works, seven in ten of its own topic."""
    citations = []
    by_topic: dict[int, list[int]] = defaultdict(list)
    for work, (year, topic) in enumerate(zip(work_years, work_topics, strict=True)):
        for _ in range(5):
            pool = by_topic[topic] if rng.random() < 0.7 else None
            if pool:
                cited = int(pool[int(rng.integers(0, len(pool)))])
            elif work:
                cited = int(rng.integers(0, work))
            else:
                continue
            if work_years[cited] < year:
                citations.append((work, cited))
        by_topic[topic].append(work)
    return citations


def corpus_build(researchers: int, seed: int) -> Corpus:
    """The synthetic corpus (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    topics = max(8, researchers // 40)
    topic_vectors = rng.normal(size=(topics, DIMENSIONS))
    topic_vectors /= np.linalg.norm(topic_vectors, axis=1, keepdims=True)
    # Interests: a main topic, a second one, and a personal direction; the latent point is what
    # both new collaborations and the embeddings of the researcher's works follow.
    main = rng.integers(0, topics, size=researchers)
    second = (main + rng.integers(1, topics, size=researchers)) % topics
    personal = rng.normal(size=(researchers, DIMENSIONS)) / np.sqrt(DIMENSIONS)
    latent = 0.8 * topic_vectors[main] + 0.5 * topic_vectors[second] + 0.3 * personal
    latent /= np.linalg.norm(latent, axis=1, keepdims=True)
    interests = np.zeros((researchers, topics))
    interests[np.arange(researchers), main] += 0.65
    interests[np.arange(researchers), second] += 0.35
    similarity = latent @ latent.T
    np.fill_diagonal(similarity, -np.inf)
    # Careers start over the years (a fifth before the corpus does): a newcomer has few
    # coauthors yet, only their first works to go by.
    start_year = np.maximum(
        rng.integers(FIRST_YEAR - 3, LAST_YEAR - 1, size=researchers), FIRST_YEAR
    )

    neighbours: list[set[int]] = [set() for _ in range(researchers)]
    edges: dict[tuple[int, int], dict[int, float]] = {}
    work_years: list[int] = []
    work_topics: list[int] = []
    work_authors: list[tuple[int, ...]] = []
    work_latent: list[np.ndarray] = []

    def work_add(year: int, authors: tuple[int, ...]) -> None:
        mix = interests[list(authors)].sum(axis=0)
        work_years.append(year)
        work_topics.append(int(rng.choice(topics, p=mix / mix.sum())))
        work_authors.append(authors)
        work_latent.append(latent[list(authors)].mean(axis=0))

    def partner(u: int, year: int) -> int | None:
        mechanism = rng.random()
        if mechanism < TRIADIC_SHARE and neighbours[u]:
            x = int(rng.choice(sorted(neighbours[u])))
            options = sorted(neighbours[x] - neighbours[u] - {u})
            return int(rng.choice(options)) if options else None
        if mechanism < TRIADIC_SHARE + TOPICAL_SHARE:
            weights = np.exp(TOPICAL_SHARPNESS * similarity[u]) * (start_year <= year)
            return int(rng.choice(researchers, p=weights / weights.sum()))
        v = int(rng.integers(0, researchers))
        return v if v != u and start_year[v] <= year else None

    pairs_per_year = max(1, researchers // 4)
    for year in range(FIRST_YEAR, LAST_YEAR + 1):
        active = np.flatnonzero(start_year <= year)
        for r in active:
            if rng.random() < 0.3:
                work_add(year, (int(r),))
        for (a, b), by_year in edges.items():
            if rng.random() < 0.25:
                work_add(year, (a, b))
                by_year[year] = by_year.get(year, 0.0) + 1.0
        for _ in range(pairs_per_year * len(active) // researchers):
            u = int(rng.choice(active))
            v = partner(u, year)
            if v is None or v in neighbours[u]:
                continue
            key = (min(u, v), max(u, v))
            edges[key] = {year: 1.0}
            neighbours[u].add(v)
            neighbours[v].add(u)
            work_add(year, key)

    years = np.array(work_years)
    topics_of_works = np.array(work_topics)
    # A work's embedding: its authors' interests plus noise (WORK_NOISE: its expected length).
    embeddings = np.array(work_latent) + rng.normal(
        scale=WORK_NOISE / np.sqrt(DIMENSIONS), size=(len(work_years), DIMENSIONS)
    )
    citations = _citations_draw(rng, work_years, work_topics)
    return Corpus(
        researchers=researchers,
        topics=topics,
        edges=edges,
        work_years=years,
        work_topics=topics_of_works,
        work_authors=work_authors,
        work_embeddings=embeddings,
        citations=citations,
    )


@dataclass
class History:
    """What the signals may see: the corpus before the cut year."""

    adjacency: sparse.csr_matrix  # weights of edges formed before the cut
    neighbours: list[set[int]]
    weights: list[dict[int, float]]  # the same weights, per researcher
    embeddings: np.ndarray  # researchers x dimensions, unit length (zero: no works)
    topic_shares: np.ndarray  # researchers x topics, each row sums to 1 (or 0)
    citations: dict[tuple[int, int], int]  # (citing researcher, cited researcher) -> count
    cited_by: list[set[int]]  # researchers linked to r by a citation either way


def history_before(corpus: Corpus, cut_year: int) -> History:
    n = corpus.researchers
    rows, cols, weights = [], [], []
    neighbours: list[set[int]] = [set() for _ in range(n)]
    for (a, b), by_year in corpus.edges.items():
        weight = sum(w for year, w in by_year.items() if year < cut_year)
        if weight > 0:
            rows += [a, b]
            cols += [b, a]
            weights += [weight, weight]
            neighbours[a].add(b)
            neighbours[b].add(a)
    adjacency = sparse.csr_matrix((weights, (rows, cols)), shape=(n, n))
    embeddings = np.zeros((n, DIMENSIONS))
    topic_counts = np.zeros((n, corpus.topics))
    old = corpus.work_years < cut_year
    for work in np.flatnonzero(old):
        for author in corpus.work_authors[work]:
            embeddings[author] += corpus.work_embeddings[work]
            topic_counts[author, corpus.work_topics[work]] += 1
    norms = np.linalg.norm(embeddings, axis=1, keepdims=True)
    embeddings = np.divide(embeddings, norms, out=np.zeros_like(embeddings), where=norms > 0)
    totals = topic_counts.sum(axis=1, keepdims=True)
    shares = np.divide(topic_counts, totals, out=np.zeros_like(topic_counts), where=totals > 0)
    citations: dict[tuple[int, int], int] = defaultdict(int)
    cited_by: list[set[int]] = [set() for _ in range(n)]
    for citing, cited in corpus.citations:
        if corpus.work_years[citing] >= cut_year:
            continue
        for x in corpus.work_authors[citing]:
            for y in corpus.work_authors[cited]:
                if x != y:
                    citations[(x, y)] += 1
                    cited_by[x].add(y)
                    cited_by[y].add(x)
    weights_of: list[dict[int, float]] = [{} for _ in range(n)]
    for a, b, weight in zip(rows, cols, weights, strict=True):
        weights_of[a][b] = weight
    return History(adjacency, neighbours, weights_of, embeddings, shares, dict(citations), cited_by)


def hidden_pairs(corpus: Corpus, cut_year: int) -> dict[int, set[int]]:
    """Each researcher's coauthors whose first joint work is from the cut year on."""
    hidden: dict[int, set[int]] = defaultdict(set)
    for (a, b), by_year in corpus.edges.items():
        if min(by_year) >= cut_year:
            hidden[a].add(b)
            hidden[b].add(a)
    return hidden


def signals_for(r: int, history: History, common_row: np.ndarray) -> list[SuggestionSignals]:
    """The signal rows of r's candidates, as the site's selector reads them."""
    n = history.embeddings.shape[0]
    cosine = history.embeddings @ history.embeddings[r]
    has_embedding = bool(history.embeddings[r].any())
    my_topics = np.argsort(-history.topic_shares[r], kind="stable")[:TOP_TOPICS]
    my_topics = my_topics[history.topic_shares[r, my_topics] > 0]
    overlap = np.minimum(
        history.topic_shares[:, my_topics], history.topic_shares[r, my_topics]
    ).sum(axis=1)
    candidates = set(np.flatnonzero(common_row)) | history.cited_by[r]
    strongest = np.argsort(-overlap, kind="stable")[:TOPIC_CANDIDATES]
    candidates |= {int(c) for c in strongest if overlap[c] > 0}
    if has_embedding:
        candidates |= {int(c) for c in np.argsort(-cosine, kind="stable")[: NEAREST_CANDIDATES + 1]}
    candidates -= history.neighbours[r] | {r}
    weight_to = history.weights[r]
    rows = []
    for c in sorted(candidates):
        if c >= n:
            continue
        common = history.neighbours[r] & history.neighbours[c]
        common_weight = sum(min(weight_to[x], history.weights[x][c]) for x in common)
        rows.append(
            SuggestionSignals(
                candidate_id=c,
                meaning=float(cosine[c]) if has_embedding and history.embeddings[c].any() else None,
                common_coauthors=len(common),
                common_coauthor_weight=float(common_weight),
                they_cited_you=history.citations.get((c, r), 0),
                you_cited_them=history.citations.get((r, c), 0),
                topic_overlap=float(overlap[c]),
            )
        )
    return rows


def evaluate(researchers: int = 3000, seed: int = 7, k: int = SUGGESTIONS_LIMIT) -> dict:
    """Run the back-test; returns its figures (see the module's docstring)."""
    started = time.monotonic()
    corpus = corpus_build(researchers, seed)
    cut_year = LAST_YEAR - HIDDEN_YEARS + 1
    history = history_before(corpus, cut_year)
    hidden = hidden_pairs(corpus, cut_year)
    binary = (history.adjacency > 0).astype(np.int32)
    common_counts = (binary @ binary).tocsr()
    rng = np.random.default_rng(seed + 1)
    found_ranking = found_baseline = total = 0
    for r in sorted(hidden):
        targets = hidden[r]
        total += len(targets)
        common_row = np.zeros(researchers, dtype=np.int64)
        row = common_counts.getrow(r)
        common_row[row.indices] = row.data
        common_row[r] = 0
        ranked = suggestions_ranked(signals_for(r, history, common_row), limit=k)
        found_ranking += len(targets & {s.candidate_id for s in ranked})
        # The baseline: common coauthors, ties in random order, never r or a coauthor.
        tie_break = rng.random(researchers)
        order = np.lexsort((tie_break, -common_row))
        excluded = history.neighbours[r] | {r}
        baseline = [int(c) for c in order[: k + len(excluded)] if int(c) not in excluded][:k]
        found_baseline += len(targets & set(baseline))
    recall_ranking = found_ranking / total if total else 0.0
    recall_baseline = found_baseline / total if total else 0.0
    return {
        "researchers": researchers,
        "topics": corpus.topics,
        "works": len(corpus.work_authors),
        "coauthor_pairs": len(corpus.edges),
        "citations": len(corpus.citations),
        "hidden_pairs": total // 2,
        "researchers_evaluated": len(hidden),
        "k": k,
        "recall_ranking": recall_ranking,
        "recall_baseline": recall_baseline,
        "ratio": recall_ranking / recall_baseline if recall_baseline else float("inf"),
        "seconds": time.monotonic() - started,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--researchers", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    figures = evaluate(args.researchers, args.seed)
    out = sys.stdout.write
    out(
        f"suggestions back-test: {figures['researchers']} researchers, {figures['topics']} "
        f"topics, {figures['works']} works, {figures['coauthor_pairs']} coauthor pairs, "
        f"{figures['citations']} citations; {figures['hidden_pairs']} pairs begun in the last "
        f"{HIDDEN_YEARS} years hidden ({figures['researchers_evaluated']} researchers)\n"
    )
    out(f"  recall@{figures['k']} ranking (site's):  {figures['recall_ranking']:.3f}\n")
    out(f"  recall@{figures['k']} common neighbours: {figures['recall_baseline']:.3f}\n")
    out(f"  ratio: {figures['ratio']:.2f} (target >= 1.5)  [{figures['seconds']:.1f} s]\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
