"""Similar researchers: each researcher's nearest researchers in meaning (the cosine of their
embeddings, the means of their works'), with the reason the profile shows: the finest topic
both write about and the closest pair of their works.

Computed from ResearcherEmbedding in batches of researchers, set-based: the neighbours of a
batch by one matrix product against every researcher's vector (exact; an HNSW index in memory
above EXACT_SEARCH_BELOW researchers), their works' vectors in one read, their shared topics in
one statement, and the batch's rows replaced by one DELETE and one INSERT.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import connection, transaction

from .. import embedder
from ..vectors import vectors_from_bytes
from .index import EXACT_SEARCH_BELOW

logger = logging.getLogger(__name__)

SIMILAR_PER_RESEARCHER = 10
BATCH_SIZE = 500
# The works of a researcher compared for the closest pair: their latest this many (a
# prolific author's thousand works would make a batch's read large for little).
WORKS_COMPARED = 100
# Below this cosine two researchers are not called similar at all.
MIN_SCORE = 0.35

_RESEARCHERS_SQL = """
SELECT e.researcher_id, e.vector FROM discovery_researcherembedding e
JOIN researchers_researcher r ON r.id = e.researcher_id AND r.merged_into_id IS NULL
WHERE e.model_name = %s ORDER BY e.researcher_id
"""
_WORK_VECTORS_SQL = """
SELECT a.researcher_id, a.work_id, e.vector
FROM (
    SELECT researcher_id, work_id,
           row_number() OVER (PARTITION BY researcher_id ORDER BY work_id DESC) AS latest
    FROM (SELECT DISTINCT researcher_id, work_id FROM publications_authorship
          WHERE researcher_id = ANY(%(ids)s)) d
) a
JOIN discovery_workembedding e ON e.work_id = a.work_id AND e.model_name = %(model)s
WHERE a.latest <= %(cap)s
ORDER BY a.researcher_id, a.work_id
"""
# The finest level first (a topic before its subfield, field and domain), then the most works
# the less prolific of the two has in it.
_SHARED_TOPICS_SQL = """
WITH pairs AS (SELECT * FROM unnest(%(left)s::bigint[], %(right)s::bigint[]) AS p(r, s)),
counts AS (
    SELECT a.researcher_id, wt.topic_id, count(DISTINCT a.work_id) AS works
    FROM publications_authorship a JOIN publications_worktopic wt ON wt.work_id = a.work_id
    WHERE a.researcher_id = ANY(%(ids)s)
    GROUP BY a.researcher_id, wt.topic_id
)
SELECT DISTINCT ON (p.r, p.s) p.r, p.s, t.name
FROM pairs p
JOIN counts x ON x.researcher_id = p.r
JOIN counts y ON y.researcher_id = p.s AND y.topic_id = x.topic_id
JOIN publications_topic t ON t.id = x.topic_id
ORDER BY p.r, p.s,
         CASE t.level WHEN 'topic' THEN 0 WHEN 'subfield' THEN 1 WHEN 'field' THEN 2 ELSE 3 END,
         least(x.works, y.works) DESC, t.name
"""
_INSERT_SQL = """
INSERT INTO discovery_similarresearcher
    (researcher_id, similar_id, rank, score, shared_topic_name, researcher_work_id,
     similar_work_id, model_name, computed_at)
SELECT v.researcher_id, v.similar_id, v.rank, v.score, v.topic, v.researcher_work_id,
       v.similar_work_id, %(model)s, now()
FROM unnest(%(researchers)s::bigint[], %(similars)s::bigint[], %(ranks)s::int[],
            %(scores)s::float8[], %(topics)s::text[], %(researcher_works)s::bigint[],
            %(similar_works)s::bigint[])
    AS v(researcher_id, similar_id, rank, score, topic, researcher_work_id, similar_work_id)
"""


@dataclass(frozen=True)
class SimilarResult:
    researchers: int
    rows: int
    seconds: float


class _Neighbours:
    """Every researcher's vector, searched exactly (a matrix product) or through an HNSW graph
    in memory for many researchers."""

    def __init__(self, ids: np.ndarray, matrix: np.ndarray, *, exact_below: int) -> None:
        self.ids, self.matrix, self.index = ids, matrix, None
        if len(ids) >= exact_below:
            from usearch.index import Index

            self.index = Index(ndim=matrix.shape[1], metric="cos", dtype="f16")
            self.index.add(np.arange(len(ids), dtype=np.uint64), matrix, log=False)

    def nearest(self, rows: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
        """Positions and cosines of the count nearest of each row's vector (itself included)."""
        count = min(count, len(self.ids))
        if self.index is not None:
            matches = self.index.search(self.matrix[rows], count)
            return matches.keys.astype(np.int64), 1.0 - matches.distances
        scores = self.matrix[rows] @ self.matrix.T
        best = np.argpartition(-scores, count - 1, axis=1)[:, :count]
        order = np.argsort(-np.take_along_axis(scores, best, axis=1), axis=1, kind="stable")
        best = np.take_along_axis(best, order, axis=1)
        return best, np.take_along_axis(scores, best, axis=1)


def _work_vectors(
    cursor: Any, researcher_ids: list[int], model: str
) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    cursor.execute(
        _WORK_VECTORS_SQL, {"ids": researcher_ids, "model": model, "cap": WORKS_COMPARED}
    )
    grouped: dict[int, tuple[list[int], list[bytes]]] = {}
    for researcher_id, work_id, vector in cursor.fetchall():
        works, vectors = grouped.setdefault(researcher_id, ([], []))
        works.append(work_id)
        vectors.append(vector)
    return {
        researcher_id: (np.asarray(works), vectors_from_bytes(vectors, embedder.DIMENSIONS))
        for researcher_id, (works, vectors) in grouped.items()
    }


def _closest_pair(
    left: tuple[np.ndarray, np.ndarray] | None, right: tuple[np.ndarray, np.ndarray] | None
) -> tuple[int | None, int | None]:
    """One work of each, the closest in meaning; never a work both wrote."""
    if left is None or right is None:
        return None, None
    scores = left[1] @ right[1].T
    scores[left[0][:, None] == right[0][None, :]] = -np.inf
    if not np.isfinite(scores).any():
        return None, None
    i, j = np.unravel_index(int(np.argmax(scores)), scores.shape)
    return int(left[0][i]), int(right[0][j])


def _batch(
    cursor: Any,
    neighbours: _Neighbours,
    positions: np.ndarray,
    model: str,
    per_researcher: int,
) -> int:
    found, scores = neighbours.nearest(positions, per_researcher + 1)
    pairs: list[tuple[int, int, int, float]] = []
    for row, position in enumerate(positions):
        researcher_id = int(neighbours.ids[position])
        rank = 0
        for other, score in zip(found[row], scores[row], strict=True):
            if other == position or score < MIN_SCORE or rank == per_researcher:
                continue
            rank += 1
            pairs.append((researcher_id, int(neighbours.ids[other]), rank, float(score)))
    batch_ids = [int(neighbours.ids[position]) for position in positions]
    involved = sorted({r for r, _s, _k, _v in pairs} | {s for _r, s, _k, _v in pairs})
    works = _work_vectors(cursor, involved, model)
    cursor.execute(
        _SHARED_TOPICS_SQL,
        {"left": [p[0] for p in pairs], "right": [p[1] for p in pairs], "ids": involved},
    )
    topics = {(r, s): name for r, s, name in cursor.fetchall()}
    closest = [_closest_pair(works.get(r), works.get(s)) for r, s, _rank, _score in pairs]
    cursor.execute(
        "DELETE FROM discovery_similarresearcher WHERE researcher_id = ANY(%s)", [batch_ids]
    )
    cursor.execute(
        _INSERT_SQL,
        {
            "model": model,
            "researchers": [p[0] for p in pairs],
            "similars": [p[1] for p in pairs],
            "ranks": [p[2] for p in pairs],
            "scores": [p[3] for p in pairs],
            "topics": [topics.get((p[0], p[1]), "") for p in pairs],
            "researcher_works": [pair[0] for pair in closest],
            "similar_works": [pair[1] for pair in closest],
        },
    )
    return len(pairs)


def similar_researchers_compute(
    *,
    per_researcher: int = SIMILAR_PER_RESEARCHER,
    batch_size: int = BATCH_SIZE,
    exact_below: int = EXACT_SEARCH_BELOW,
) -> SimilarResult:
    """Every researcher's similar researchers from scratch, batch by batch (each batch its own
    transaction, so the profile always reads a complete list). Rows of researchers that no
    longer have an embedding are deleted at the end."""
    started = time.monotonic()
    model = embedder.model_name()
    with connection.cursor() as cursor:
        cursor.execute(_RESEARCHERS_SQL, [model])
        rows = cursor.fetchall()
    ids = np.asarray([researcher_id for researcher_id, _v in rows], dtype=np.int64)
    matrix = vectors_from_bytes([vector for _id, vector in rows], embedder.DIMENSIONS)
    written = 0
    if len(ids) > 1:
        neighbours = _Neighbours(ids, matrix, exact_below=exact_below)
        for start in range(0, len(ids), batch_size):
            positions = np.arange(start, min(start + batch_size, len(ids)))
            with transaction.atomic(), connection.cursor() as cursor:
                written += _batch(cursor, neighbours, positions, model, per_researcher)
    with connection.cursor() as cursor:
        cursor.execute(
            "DELETE FROM discovery_similarresearcher WHERE NOT (researcher_id = ANY(%s))",
            [[int(i) for i in ids] if len(ids) > 1 else []],
        )
    seconds = time.monotonic() - started
    logger.info(
        "similar researchers: %d rows for %d researchers in %.1fs", written, len(ids), seconds
    )
    return SimilarResult(researchers=len(ids), rows=written, seconds=seconds)
