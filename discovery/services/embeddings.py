"""The embedding of every work (title and abstract) and of every researcher (the mean of their
works'), computed by ranges of work ids, set-based.

A work's stored vector is current when its model_name is the configured model's and its
text_hash is the hash of the work's text now. Both are checked in SQL (the hash is PostgreSQL's
hashtextextended of the same text the model reads), so finding the works to embed is one
statement over the works, and an unchanged work is never embedded twice. A range embeds its
stale works in batches; each batch is one upsert statement of all its vectors, followed by one
upsert of the embeddings of the researchers whose works the batch changed.

The sweep (work_embeddings_sweep) finds the ranges of ids holding stale works and queues a task
per range: beat runs it, and so does the import's follow-up, so a run's new and changed works are
embedded after it, a model change re-embeds everything in the background, and a lost message
is picked up by the next sweep.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np
from django.core.cache import cache
from django.db import connection, transaction

from bzpeer.queueing import task_enqueue_on_commit

from .. import embedder
from ..vectors import vectors_from_bytes

logger = logging.getLogger(__name__)

# Works a task embeds at most (one range of ids): about two minutes on two cores.
RANGE_SIZE = 5000
# Works embedded and written per statement.
BATCH_SIZE = 256
COMPUTE_RANGE_TASK = "discovery.tasks.work_embeddings_compute_range"
SWEEP_TASK = "discovery.tasks.work_embeddings_sweep"
# One sweep at a time: it queues ranges, and two at once would queue each range twice.
SWEEP_LOCK_KEY = "discovery:work-embeddings-sweep"
SWEEP_LOCK_SECONDS = 5 * 60
# As long as a range task may run (discovery.tasks' time limit).
RANGE_LOCK_SECONDS = 20 * 60

# The text the model reads, in SQL: the title, a line break, the abstract. Python never
# rebuilds it, so the hash stored and the hash compared are of the same string.
WORK_TEXT_SQL = "(w.title || chr(10) || w.abstract)"
WORK_TEXT_HASH_SQL = f"hashtextextended({WORK_TEXT_SQL}, 0)"
_STALE_SQL = f"""(e.work_id IS NULL OR e.model_name <> %(model)s
     OR e.text_hash <> {WORK_TEXT_HASH_SQL})"""

_STALE_IN_RANGE_SQL = f"""
SELECT w.id, {WORK_TEXT_SQL}, {WORK_TEXT_HASH_SQL}
FROM publications_work w
LEFT JOIN discovery_workembedding e ON e.work_id = w.id
WHERE w.id BETWEEN %(first)s AND %(last)s AND {_STALE_SQL}
ORDER BY w.id
"""

_UPSERT_WORKS_SQL = """
INSERT INTO discovery_workembedding
    (work_id, model_name, text_hash, dimensions, vector, embedded_at)
SELECT v.work_id, %(model)s, v.text_hash, %(dimensions)s, v.vector, now()
FROM unnest(%(work_ids)s::bigint[], %(hashes)s::bigint[], %(vectors)s::bytea[])
    AS v(work_id, text_hash, vector)
ON CONFLICT (work_id) DO UPDATE SET
    model_name = EXCLUDED.model_name, text_hash = EXCLUDED.text_hash,
    dimensions = EXCLUDED.dimensions, vector = EXCLUDED.vector, embedded_at = now()
"""

# A researcher's works, as the profile counts them: their bylines (merged-away works are gone
# from the table), with the works' vectors of the current model.
_RESEARCHER_VECTORS_SQL = """
SELECT a.researcher_id, e.vector
FROM (SELECT DISTINCT researcher_id, work_id FROM publications_authorship
      WHERE researcher_id = ANY(%(researcher_ids)s)) a
JOIN discovery_workembedding e ON e.work_id = a.work_id AND e.model_name = %(model)s
ORDER BY a.researcher_id
"""

_UPSERT_RESEARCHERS_SQL = """
INSERT INTO discovery_researcherembedding
    (researcher_id, model_name, works_count, dimensions, vector, embedded_at)
SELECT v.researcher_id, %(model)s, v.works_count, %(dimensions)s, v.vector, now()
FROM unnest(%(researcher_ids)s::bigint[], %(counts)s::int[], %(vectors)s::bytea[])
    AS v(researcher_id, works_count, vector)
ON CONFLICT (researcher_id) DO UPDATE SET
    model_name = EXCLUDED.model_name, works_count = EXCLUDED.works_count,
    dimensions = EXCLUDED.dimensions, vector = EXCLUDED.vector, embedded_at = now()
"""

_RESEARCHERS_OF_WORKS_SQL = """
SELECT DISTINCT researcher_id FROM publications_authorship
WHERE work_id = ANY(%(work_ids)s) AND researcher_id IS NOT NULL
ORDER BY researcher_id
"""

_STALE_RANGES_SQL = f"""
SELECT w.id / %(size)s AS bucket, count(*)
FROM publications_work w
LEFT JOIN discovery_workembedding e ON e.work_id = w.id
WHERE {_STALE_SQL}
GROUP BY bucket ORDER BY bucket
"""


@dataclass(frozen=True)
class RangeResult:
    works_embedded: int
    researchers_embedded: int


def _texts_embedded(texts: list[str]) -> np.ndarray:
    return embedder.embed_texts(texts)


def work_embeddings_compute_range(
    *,
    first_id: int,
    last_id: int,
    batch_size: int = BATCH_SIZE,
    embed: Callable[[list[str]], np.ndarray] = _texts_embedded,
) -> RangeResult:
    """Embed the stale works with ids in [first_id, last_id], batch by batch, each batch and its
    researchers' means written in one transaction. Idempotent: a second run finds nothing stale.
    """
    # A range is held while it is embedded, so a second message for it (two sweeps queued it
    # before the first finished) returns at once instead of embedding the same works again.
    lock_key = f"discovery:work-embeddings-range:{first_id}:{last_id}"
    if not cache.add(lock_key, 1, RANGE_LOCK_SECONDS):
        return RangeResult(works_embedded=0, researchers_embedded=0)
    try:
        return _compute_range(
            first_id=first_id, last_id=last_id, batch_size=batch_size, embed=embed
        )
    finally:
        cache.delete(lock_key)


def _compute_range(
    *, first_id: int, last_id: int, batch_size: int, embed: Callable[[list[str]], np.ndarray]
) -> RangeResult:
    model = embedder.model_name()
    with connection.cursor() as cursor:
        cursor.execute(_STALE_IN_RANGE_SQL, {"first": first_id, "last": last_id, "model": model})
        rows = cursor.fetchall()
    works = researchers = 0
    for start in range(0, len(rows), batch_size):
        batch = rows[start : start + batch_size]
        # The model runs outside any transaction: no row is locked while it thinks.
        vectors = embed([text for _id, text, _hash in batch])
        work_ids = [work_id for work_id, _text, _hash in batch]
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(
                    _UPSERT_WORKS_SQL,
                    {
                        "model": model,
                        "dimensions": vectors.shape[1],
                        "work_ids": work_ids,
                        "hashes": [text_hash for _id, _text, text_hash in batch],
                        "vectors": [vector.astype("<f4").tobytes() for vector in vectors],
                    },
                )
                cursor.execute(_RESEARCHERS_OF_WORKS_SQL, {"work_ids": work_ids})
                researcher_ids = [researcher_id for (researcher_id,) in cursor.fetchall()]
            researchers += researcher_embeddings_refresh(researcher_ids=researcher_ids)
        works += len(batch)
    if works:
        logger.info("embedded %d works of ids %d-%d (%s)", works, first_id, last_id, model)
    return RangeResult(works_embedded=works, researchers_embedded=researchers)


def researcher_embeddings_refresh(*, researcher_ids: Collection[int]) -> int:
    """Each researcher's embedding: the mean of their works' current vectors, normalised; one
    read and one upsert statement. A researcher with no embedded work keeps no row. Returns
    the number of researchers written."""
    if not researcher_ids:
        return 0
    model = embedder.model_name()
    ids = sorted(set(researcher_ids))
    with connection.cursor() as cursor:
        cursor.execute(_RESEARCHER_VECTORS_SQL, {"researcher_ids": ids, "model": model})
        rows = cursor.fetchall()
        if not rows:
            cursor.execute(
                "DELETE FROM discovery_researcherembedding WHERE researcher_id = ANY(%s)", [ids]
            )
            return 0
        matrix = vectors_from_bytes([vector for _id, vector in rows], embedder.DIMENSIONS)
        owners = np.fromiter((researcher_id for researcher_id, _v in rows), dtype=np.int64)
        # Rows come sorted by researcher: each one's rows are a contiguous run.
        starts = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1]])
        sums = np.add.reduceat(matrix, starts, axis=0)
        counts = np.diff(np.r_[starts, len(owners)])
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        means = (sums / np.where(norms > 0, norms, 1)).astype("<f4")
        written = [int(owner) for owner in owners[starts]]
        cursor.execute(
            _UPSERT_RESEARCHERS_SQL,
            {
                "model": model,
                "dimensions": embedder.DIMENSIONS,
                "researcher_ids": written,
                "counts": [int(count) for count in counts],
                "vectors": [row.tobytes() for row in means],
            },
        )
        gone = sorted(set(ids) - set(written))
        if gone:
            cursor.execute(
                "DELETE FROM discovery_researcherembedding WHERE researcher_id = ANY(%s)", [gone]
            )
    return len(written)


def work_embeddings_stale_ranges(*, range_size: int = RANGE_SIZE) -> list[tuple[int, int, int]]:
    """The ranges of work ids holding stale works: (first id, last id, stale works). One
    statement over the works and their embeddings."""
    with connection.cursor() as cursor:
        cursor.execute(_STALE_RANGES_SQL, {"size": range_size, "model": embedder.model_name()})
        return [
            (bucket * range_size, bucket * range_size + range_size - 1, count)
            for bucket, count in cursor.fetchall()
        ]


def work_embeddings_sweep(*, range_size: int = RANGE_SIZE) -> int:
    """Queue one compute task per range of ids holding stale works (after commit, by name).
    One sweep at a time (a cache lock): a second finds the lock and queues nothing. Returns the
    number of ranges queued."""
    if not cache.add(SWEEP_LOCK_KEY, 1, SWEEP_LOCK_SECONDS):
        return 0
    try:
        ranges = work_embeddings_stale_ranges(range_size=range_size)
        for first_id, last_id, _count in ranges:
            task_enqueue_on_commit(COMPUTE_RANGE_TASK, first_id, last_id)
    finally:
        cache.delete(SWEEP_LOCK_KEY)
    if ranges:
        logger.info(
            "work embeddings: %d ranges queued (%d works)",
            len(ranges),
            sum(count for _f, _l, count in ranges),
        )
    return len(ranges)


def work_embeddings_sweep_on_commit() -> None:
    """For the import's follow-up: a sweep once the batch or run commits (by task name)."""
    task_enqueue_on_commit(SWEEP_TASK)


def work_embeddings_compute_all(
    *,
    range_size: int = RANGE_SIZE,
    embed: Callable[[list[str]], np.ndarray] = _texts_embedded,
) -> RangeResult:
    """Every stale work embedded in this process (the command and tests; workers use ranges)."""
    works = researchers = 0
    for first_id, last_id, _count in work_embeddings_stale_ranges(range_size=range_size):
        result = work_embeddings_compute_range(first_id=first_id, last_id=last_id, embed=embed)
        works += result.works_embedded
        researchers += result.researchers_embedded
    return RangeResult(works_embedded=works, researchers_embedded=researchers)
