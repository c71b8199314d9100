"""What is known of a work when it appears, as a matrix: one row a work, one column a feature.

Every feature of a work published in year t is read with t as its cut-off: the authors' and the
venue's works published before t and their citations counted in the years before t only (from
OpenAlex's counts_by_year, never cited_by_count), the topic's works of the four years before t,
the work's own references, team size, novelty (computed from its references) and text. A
citation counted in a year before its work's own year (a preprint cited early) is taken as
counted in the work's year, so "published before t and cited before t" is one test on one year:
max(citation year, publication year) < t.

The pipeline is set-based: a handful of SQL statements aggregate per (work | researcher | venue
| topic, year), and numpy answers "the total of group g before year t" for every work at once
(`totals_before`). No pandas.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from django.db import connection

from discovery.models import WorkEmbedding
from discovery.vectors import vectors_from_bytes
from publications.models import (
    Authorship,
    Citation,
    Topic,
    UnresolvedReference,
    Work,
    WorkNovelty,
    WorkTopic,
)

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

# The text embedding is shown to the model through this many principal components, fitted on
# the training works only: a few hundred raw dimensions would drown the other features.
EMBEDDING_COMPONENTS = 8
# The projection is fitted on at most this many training works' vectors (a fixed-seed sample):
# eight axes are well estimated from far fewer, and the fit stays seconds at any size.
PROJECTION_SAMPLE = 20_000
EMBEDDING_CHUNK = 20_000

BASE_FEATURES = (
    "novelty_percentile",
    "references",
    "team_size",
    "authors_prior_works_max",
    "authors_prior_works_mean",
    "authors_prior_citations_max",
    "authors_prior_citations_mean",
    "venue_prior_works",
    "venue_prior_citations_per_work",
    "topic_recent_works",
    "topic_momentum",
)
TEXT_FEATURES = tuple(f"text_{i}" for i in range(EMBEDDING_COMPONENTS))
FEATURE_NAMES = BASE_FEATURES + TEXT_FEATURES

_WORK = Work._meta.db_table
_AUTHORSHIP = Authorship._meta.db_table
_WORK_TOPIC = WorkTopic._meta.db_table
_TOPIC = Topic._meta.db_table
_CITATION = Citation._meta.db_table
_UNRESOLVED = UnresolvedReference._meta.db_table
_NOVELTY = WorkNovelty._meta.db_table
_EMBEDDING = WorkEmbedding._meta.db_table

# Each dated work with its venue, stated team size, bylines counted, references (held or
# waiting for their work: both were on its reference list when it appeared), novelty percentile,
# primary topic and the field above it (as publications.services.novelty takes it).
_WORKS_SQL = f"""
WITH primary_topic AS (
  SELECT DISTINCT ON (wt.work_id) wt.work_id, t.id AS topic_id,
         CASE WHEN t.level = 'field' THEN t.id WHEN p.level = 'field' THEN p.id
              WHEN g.level = 'field' THEN g.id ELSE t.id END AS field_id
  FROM {_WORK_TOPIC} wt
  JOIN {_TOPIC} t ON t.id = wt.topic_id
  LEFT JOIN {_TOPIC} p ON p.id = t.parent_id
  LEFT JOIN {_TOPIC} g ON g.id = p.parent_id
  ORDER BY wt.work_id, t.level = 'category', wt.score DESC, wt.topic_id
)
SELECT w.id, w.publication_year, coalesce(w.source_id, 0), w.authors_count,
       (SELECT count(*) FROM {_AUTHORSHIP} a WHERE a.work_id = w.id),
       (SELECT count(*) FROM {_CITATION} c WHERE c.citing_id = w.id)
         + (SELECT count(*) FROM {_UNRESOLVED} u WHERE u.citing_id = w.id),
       coalesce(n.percentile, 'NaN'::float8),
       coalesce(pt.topic_id, 0), coalesce(pt.field_id, 0),
       -- Whether the per-year counts can be read as the work's citations: a source that gives
       -- a total without years (Crossref) leaves its first three years unknown.
       (w.counts_by_year <> '{{}}'::jsonb OR w.cited_by_count = 0)::int
FROM {_WORK} w
LEFT JOIN {_NOVELTY} n ON n.work_id = w.id
LEFT JOIN primary_topic pt ON pt.work_id = w.id
WHERE w.publication_year > 0
ORDER BY w.id
"""

# Citations per work and effective year (max of the counted year and the work's own).
_WORK_CITES_SQL = f"""
SELECT w.id, greatest(e.key::int, w.publication_year) AS year, sum(e.value::bigint)
FROM {_WORK} w CROSS JOIN LATERAL jsonb_each_text(w.counts_by_year) e
WHERE w.publication_year > 0 AND e.key ~ '^[0-9]{{4}}$' AND e.value ~ '^[0-9]+$'
GROUP BY 1, 2
"""

# Each researcher's distinct works per publication year, and their citations per effective year.
_AUTHOR_WORKS_SQL = f"""
SELECT a.researcher_id, w.publication_year, count(DISTINCT w.id)
FROM {_AUTHORSHIP} a JOIN {_WORK} w ON w.id = a.work_id
WHERE a.researcher_id IS NOT NULL AND w.publication_year > 0
GROUP BY 1, 2
"""
_AUTHOR_CITES_SQL = f"""
WITH works AS (
  SELECT DISTINCT a.researcher_id, a.work_id
  FROM {_AUTHORSHIP} a WHERE a.researcher_id IS NOT NULL
)
SELECT x.researcher_id, greatest(e.key::int, w.publication_year), sum(e.value::bigint)
FROM works x JOIN {_WORK} w ON w.id = x.work_id
CROSS JOIN LATERAL jsonb_each_text(w.counts_by_year) e
WHERE w.publication_year > 0 AND e.key ~ '^[0-9]{{4}}$' AND e.value ~ '^[0-9]+$'
GROUP BY 1, 2
"""
# Which identified researchers sign each work (once each).
_BYLINES_SQL = f"""
SELECT DISTINCT a.work_id, a.researcher_id FROM {_AUTHORSHIP} a
JOIN {_WORK} w ON w.id = a.work_id
WHERE a.researcher_id IS NOT NULL AND w.publication_year > 0
"""
_EMBEDDING_MODEL_SQL = f"""
SELECT model_name, dimensions FROM {_EMBEDDING}
GROUP BY 1, 2 ORDER BY count(*) DESC, model_name LIMIT 1
"""
# One chunk of vectors after a work id (keyset), of all works or of the listed ones.
_EMBEDDINGS_SQL = f"""
SELECT e.work_id, e.vector FROM {_EMBEDDING} e JOIN {_WORK} w ON w.id = e.work_id
WHERE e.model_name = %s AND e.dimensions = %s AND e.work_id > %s
  AND w.publication_year > 0 AND (%s::bigint[] IS NULL OR e.work_id = ANY(%s::bigint[]))
ORDER BY e.work_id LIMIT %s
"""


@dataclass(frozen=True, slots=True)
class Corpus:
    """Every dated work, in id order, with what its features and label are made of."""

    work_ids: IntArray
    years: IntArray
    venue_ids: IntArray  # 0: no venue
    topic_ids: IntArray  # the primary topic; 0: none
    field_ids: IntArray  # the field above it; 0: none known
    # Whether counts_by_year tells the work's citations year by year (the label is readable).
    counted_by_year: npt.NDArray[np.bool_]
    base: FloatArray  # (works, len(BASE_FEATURES))
    # Citations per work and effective year (rows: work index, year, count).
    cite_work: IntArray
    cite_year: IntArray
    cite_count: IntArray
    # The embedding model most works have, and its dimensions ("" and 0: no embeddings). The
    # vectors themselves are read in chunks (a million works' would not fit in memory at once).
    embedding_model: str
    embedding_dimensions: int


def _rows(sql: str, params: list[Any] | None = None) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params or [])
        return cursor.fetchall()


def _columns(rows: list[tuple], width: int) -> list[IntArray]:
    if not rows:
        return [np.zeros(0, dtype=np.int64) for _ in range(width)]
    array = np.asarray(rows, dtype=np.int64)
    return [array[:, i] for i in range(width)]


def totals_before(
    groups: IntArray,
    years: IntArray,
    values: npt.NDArray,
    query_groups: IntArray,
    query_years: IntArray,
) -> FloatArray:
    """For every query (g, t): the sum of `values` over the rows with group g and year < t.
    One sort and two binary searches, whatever the number of queries."""
    if groups.size == 0:
        return np.zeros(query_groups.shape, dtype=np.float64)
    span = 10_000  # years are below it
    keys = groups.astype(np.int64) * span + years.astype(np.int64)
    order = np.argsort(keys, kind="stable")
    keys = keys[order]
    cumulative = np.concatenate([[0.0], np.cumsum(values[order].astype(np.float64))])
    base = query_groups.astype(np.int64) * span
    upper = np.searchsorted(keys, base + np.clip(query_years, 0, span - 1), side="left")
    lower = np.searchsorted(keys, base, side="left")
    return cumulative[upper] - cumulative[lower]


def corpus_load() -> Corpus:
    """Read what the features and labels are made of: a few statements, all set-based."""
    works = _rows(_WORKS_SQL)
    count = len(works)
    if count:
        table = np.asarray(works, dtype=np.float64)
    else:
        table = np.zeros((0, 10), dtype=np.float64)
    work_ids = table[:, 0].astype(np.int64)
    years = table[:, 1].astype(np.int64)
    venue_ids = table[:, 2].astype(np.int64)
    topic_ids = table[:, 7].astype(np.int64)
    field_ids = table[:, 8].astype(np.int64)

    cite_rows = _rows(_WORK_CITES_SQL)
    cite_work_ids, cite_year, cite_count = _columns(cite_rows, 3)
    # work_ids are in id order: a work's row is found by binary search.
    cite_work = np.searchsorted(work_ids, cite_work_ids)

    base = np.full((count, len(BASE_FEATURES)), np.nan, dtype=np.float64)
    column = {name: i for i, name in enumerate(BASE_FEATURES)}
    base[:, column["novelty_percentile"]] = table[:, 6]
    base[:, column["references"]] = table[:, 5]
    # The stated number of authors; a source that states none: the bylines held.
    base[:, column["team_size"]] = np.where(table[:, 3] > 0, table[:, 3], table[:, 4])
    _authors_record(base, column, work_ids, years)
    _venue_record(base, column, venue_ids, years, cite_work, cite_year, cite_count)
    _topic_momentum(base, column, topic_ids, years)
    found = _rows(_EMBEDDING_MODEL_SQL)
    model_name, dimensions = (str(found[0][0]), int(found[0][1])) if found else ("", 0)
    return Corpus(
        work_ids=work_ids,
        years=years,
        venue_ids=venue_ids,
        topic_ids=topic_ids,
        field_ids=field_ids,
        counted_by_year=table[:, 9] > 0,
        base=base,
        cite_work=cite_work,
        cite_year=cite_year,
        cite_count=cite_count,
        embedding_model=model_name,
        embedding_dimensions=dimensions,
    )


def _authors_record(
    base: FloatArray, column: dict[str, int], work_ids: IntArray, years: IntArray
) -> None:
    """Per work, over its identified authors: the most and the mean of their earlier works and
    of those works' earlier citations. A work without an identified author: not known (NaN)."""
    byline_work_ids, byline_researchers = _columns(_rows(_BYLINES_SQL), 2)
    if byline_work_ids.size == 0:
        return
    byline_work = np.searchsorted(work_ids, byline_work_ids)
    byline_year = years[byline_work]
    works_by, works_year, works_count = _columns(_rows(_AUTHOR_WORKS_SQL), 3)
    cites_by, cites_year, cites_count = _columns(_rows(_AUTHOR_CITES_SQL), 3)
    prior_works = totals_before(works_by, works_year, works_count, byline_researchers, byline_year)
    prior_cites = totals_before(cites_by, cites_year, cites_count, byline_researchers, byline_year)
    count = base.shape[0]
    authors = np.bincount(byline_work, minlength=count).astype(np.float64)
    has_authors = authors > 0
    for name, values in (("works", prior_works), ("citations", prior_cites)):
        most = np.full(count, -np.inf)
        np.maximum.at(most, byline_work, values)
        total = np.bincount(byline_work, weights=values, minlength=count)
        base[:, column[f"authors_prior_{name}_max"]] = np.where(has_authors, most, np.nan)
        mean = np.divide(total, authors, out=np.full(count, np.nan), where=has_authors)
        base[:, column[f"authors_prior_{name}_mean"]] = mean


def _venue_record(
    base: FloatArray,
    column: dict[str, int],
    venue_ids: IntArray,
    years: IntArray,
    cite_work: IntArray,
    cite_year: IntArray,
    cite_count: IntArray,
) -> None:
    """The venue's works published before the work's year, and their citations per work counted
    in those years. No venue: not known."""
    has_venue = venue_ids > 0
    ones = np.ones(venue_ids.size, dtype=np.int64)
    prior_works = totals_before(venue_ids, years, ones, venue_ids, years)
    prior_cites = totals_before(venue_ids[cite_work], cite_year, cite_count, venue_ids, years)
    base[:, column["venue_prior_works"]] = np.where(has_venue, prior_works, np.nan)
    per_work = np.divide(
        prior_cites, prior_works, out=np.full(venue_ids.size, np.nan), where=prior_works > 0
    )
    base[:, column["venue_prior_citations_per_work"]] = np.where(has_venue, per_work, np.nan)


def _topic_momentum(
    base: FloatArray, column: dict[str, int], topic_ids: IntArray, years: IntArray
) -> None:
    """Works of the primary topic in the two years before the work's (t-2, t-1), and their ratio
    to the two years before those (t-4, t-3), each plus one. No topic: not known."""
    has_topic = topic_ids > 0
    ones = np.ones(topic_ids.size, dtype=np.int64)

    def before(year: IntArray) -> FloatArray:
        return totals_before(topic_ids, years, ones, topic_ids, year)

    recent = before(years) - before(years - 2)
    older = before(years - 2) - before(years - 4)
    base[:, column["topic_recent_works"]] = np.where(has_topic, recent, np.nan)
    base[:, column["topic_momentum"]] = np.where(has_topic, (recent + 1) / (older + 1), np.nan)


# --- The text embedding's projection: fitted on training works, applied to all ------------------


def _vectors(
    corpus: Corpus, rows: IntArray | None = None
) -> Iterator[tuple[IntArray, npt.NDArray[np.float32]]]:
    """The stored vectors of the corpus's embedding model, in chunks of EMBEDDING_CHUNK: the
    positions (rows of the corpus) and their (n, dimensions) matrix. `rows`: those works only."""
    if not corpus.embedding_model:
        return
    wanted = None if rows is None else corpus.work_ids[rows].tolist()
    after = 0
    while True:
        found = _rows(
            _EMBEDDINGS_SQL,
            [
                corpus.embedding_model,
                corpus.embedding_dimensions,
                after,
                wanted,
                wanted,
                EMBEDDING_CHUNK,
            ],
        )
        if not found:
            return
        ids = np.fromiter((row[0] for row in found), np.int64, len(found))
        yield (
            np.searchsorted(corpus.work_ids, ids),
            vectors_from_bytes([row[1] for row in found], corpus.embedding_dimensions),
        )
        after = int(ids[-1])


def projection_fit(corpus: Corpus, rows: IntArray) -> FloatArray:
    """The mean and the first EMBEDDING_COMPONENTS principal axes of the vectors of the given
    rows (at most PROJECTION_SAMPLE of them, drawn with a fixed seed): a (1 + components,
    dimensions) matrix; too few vectors: empty."""
    if rows.size > PROJECTION_SAMPLE:
        rows = np.sort(np.random.default_rng(0).choice(rows, PROJECTION_SAMPLE, replace=False))
    chunks = [matrix for _, matrix in _vectors(corpus, rows)]
    dimensions = max(corpus.embedding_dimensions, 1)
    vectors = np.vstack(chunks).astype(np.float64) if chunks else np.zeros((0, dimensions))
    if vectors.shape[0] < 2 * EMBEDDING_COMPONENTS:
        return np.zeros((0, dimensions))
    mean = vectors.mean(axis=0)
    _, _, axes = np.linalg.svd(vectors - mean, full_matrices=False)
    components = np.zeros((EMBEDDING_COMPONENTS, vectors.shape[1]))
    kept = axes[:EMBEDDING_COMPONENTS]
    components[: kept.shape[0]] = kept
    return np.vstack([mean[None, :], components])


def feature_matrix(corpus: Corpus, projection: FloatArray) -> FloatArray:
    """Every work's features (FEATURE_NAMES order); a work without a vector, or a projection of
    another dimension, has NaN text features (the booster's missing-value branch)."""
    text = np.full((corpus.base.shape[0], EMBEDDING_COMPONENTS), np.nan)
    if projection.shape[0] and projection.shape[1] == corpus.embedding_dimensions:
        for positions, matrix in _vectors(corpus):
            text[positions] = (matrix.astype(np.float64) - projection[0]) @ projection[1:].T
    return np.hstack([corpus.base, text])


def projection_to_bytes(projection: FloatArray) -> bytes:
    return np.asarray(projection, dtype="<f8").tobytes()


def projection_from_bytes(data: bytes | memoryview | None, dimensions: int) -> FloatArray:
    if not data or dimensions <= 0:
        return np.zeros((0, max(dimensions, 1)))
    return np.frombuffer(bytes(data), dtype="<f8").reshape(-1, dimensions).copy()


# --- The label: citations in the first three years ----------------------------------------------


def first_three_years_citations(corpus: Corpus) -> FloatArray:
    """Citations counted in the work's year and the two after it (effective years)."""
    offset = corpus.cite_year - corpus.years[corpus.cite_work]
    inside = (offset >= 0) & (offset <= 2)
    counted = np.bincount(
        corpus.cite_work[inside],
        weights=corpus.cite_count[inside].astype(np.float64),
        minlength=corpus.work_ids.size,
    )
    return counted.astype(np.float64)
