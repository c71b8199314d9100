"""The nearest-neighbour index of the works' embeddings, written to files that the web
processes memory-map read-only (discovery.selectors.index).

Below EXACT_SEARCH_BELOW works the "index" is the vectors themselves, float32 (BLAS multiplies
those; numpy has no fast float16 product), in a .npy file beside their ids: an exact search is
one matrix-vector product (a few milliseconds at 50,000 works, 77 MB shared).
From there on it is a usearch HNSW graph with int8-quantised vectors (384 bytes a work instead
of 1,536), opened with view=True: the file's pages are the operating system's, so every web
process on a machine shares one copy.

A build writes new files under a new version name, then replaces `current.json` (atomically:
os.replace), which names them; a web process notices the change by the manifest's mtime and
reopens. Older versions' files are deleted after the switch, keeping the previous one for a
process that is still reading it.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings
from django.core.cache import cache
from django.db import connection

from bzpeer.queueing import task_enqueue_on_commit

from .. import embedder

logger = logging.getLogger(__name__)

EXACT_SEARCH_BELOW = 50_000
MANIFEST = "current.json"
# Rows read from the database per fetch while building.
READ_CHUNK = 20_000
# HNSW's graph degree: usearch's default, about 100 bytes a work on top of its 384.
CONNECTIVITY = 16


@dataclass(frozen=True)
class IndexBuild:
    kind: str  # "exact" or "hnsw-i8"
    works: int
    model_name: str
    seconds: float
    path: Path


def index_dir() -> Path:
    path = Path(settings.DISCOVERY_INDEX_DIR)
    path.mkdir(parents=True, exist_ok=True)
    return path


def _embeddings_state(model: str) -> tuple[int, str]:
    """How many vectors of the model there are, when the newest was written and what their
    texts were: a build is due when any differs from the manifest's."""
    with connection.cursor() as cursor:
        cursor.execute(
            # The texts' hashes summed: a re-embedded text changes the sum even when its
            # transaction's now() equals the newest embedded_at already counted.
            "SELECT count(*), coalesce(max(embedded_at)::text, '') || ':' "
            "|| coalesce(sum(text_hash::numeric)::text, '') "
            "FROM discovery_workembedding WHERE model_name = %s",
            [model],
        )
        count, newest = cursor.fetchone()
    return int(count), str(newest)


def _read_vectors(model: str, count: int) -> tuple[np.ndarray, np.ndarray]:
    """Every current vector with its work id, read in pages of READ_CHUNK by work id, into
    preallocated arrays (a million vectors never sit in memory as Python bytes)."""
    ids = np.zeros(count, dtype=np.int64)
    vectors = np.zeros((count, embedder.DIMENSIONS), dtype=np.float32)
    filled, after = 0, 0
    with connection.cursor() as cursor:
        while filled < count:
            cursor.execute(
                "SELECT e.work_id, e.vector FROM discovery_workembedding e "
                "JOIN publications_work w ON w.id = e.work_id "
                "WHERE e.model_name = %s AND e.work_id > %s ORDER BY e.work_id LIMIT %s",
                [model, after, min(READ_CHUNK, count - filled)],
            )
            rows = cursor.fetchall()
            if not rows:
                break
            end = filled + len(rows)
            ids[filled:end] = [work_id for work_id, _vector in rows]
            vectors[filled:end] = np.frombuffer(
                b"".join(bytes(vector) for _id, vector in rows), dtype="<f4"
            ).reshape(len(rows), embedder.DIMENSIONS)
            filled, after = end, rows[-1][0]
    return ids[:filled], vectors[:filled]


def manifest_read() -> dict[str, Any] | None:
    try:
        return dict(json.loads((index_dir() / MANIFEST).read_text()))
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def _files_of(manifest: dict[str, Any] | None) -> set[str]:
    return set(manifest.get("files", [])) if manifest else set()


def work_index_build(*, exact_below: int = EXACT_SEARCH_BELOW) -> IndexBuild:
    """Write a new index of every current work vector and switch the manifest to it."""
    started = time.monotonic()
    model = embedder.model_name()
    count, newest = _embeddings_state(model)
    ids, vectors = _read_vectors(model, count)
    directory = index_dir()
    version = f"{time.time_ns()}"
    if len(ids) < exact_below:
        kind = "exact"
        files = [f"ids-{version}.npy", f"vectors-{version}.npy"]
        np.save(directory / files[0], ids)
        np.save(directory / files[1], vectors)
    else:
        from usearch.index import Index

        kind = "hnsw-i8"
        files = [f"works-{version}.usearch"]
        index = Index(ndim=embedder.DIMENSIONS, metric="cos", dtype="i8", connectivity=CONNECTIVITY)
        index.add(ids.astype(np.uint64), vectors, log=False)
        index.save(str(directory / files[0]))
    previous = manifest_read()
    manifest = {
        "kind": kind,
        "files": files,
        "works": len(ids),
        "model_name": model,
        "embeddings": count,
        "newest": newest,
        "built_at": time.time(),
        "previous_files": sorted(_files_of(previous)),
    }
    temporary = directory / f"{MANIFEST}.{version}.tmp"
    temporary.write_text(json.dumps(manifest))
    os.replace(temporary, directory / MANIFEST)
    # Files older than the previous version are no longer named by any manifest a process read.
    keep = set(files) | _files_of(previous) | {MANIFEST}
    for path in directory.iterdir():
        if path.name not in keep and not path.name.endswith(".tmp"):
            path.unlink(missing_ok=True)
    seconds = time.monotonic() - started
    logger.info("work index: %s of %d works written in %.1fs", kind, len(ids), seconds)
    return IndexBuild(kind=kind, works=len(ids), model_name=model, seconds=seconds, path=directory)


def work_index_refresh() -> IndexBuild | None:
    """Build the index when the embeddings changed since the current one (one cheap query
    otherwise). Returns the build, or None when the index was current."""
    model = embedder.model_name()
    count, newest = _embeddings_state(model)
    manifest = manifest_read()
    if (
        manifest
        and manifest.get("model_name") == model
        and manifest.get("embeddings") == count
        and manifest.get("newest") == newest
    ):
        return None
    return work_index_build()


REFRESH_TASK = "discovery.tasks.work_index_refresh"
FIRST_BUILD_LOCK_KEY = "discovery:work-index-first-build"
FIRST_BUILD_LOCK_SECONDS = 5 * 60


def work_index_first_build_queue() -> bool:
    """After works were embedded on a site that has no index yet (a new site, `make run`'s
    demo): queue a build now instead of leaving search by meaning "not ready" until beat's
    refresh (every 30 minutes). Once an index exists, beat's refresh keeps it current. At most
    one build is queued every five minutes. Returns whether one was queued."""
    if manifest_read() is not None:
        return False
    if not cache.add(FIRST_BUILD_LOCK_KEY, 1, FIRST_BUILD_LOCK_SECONDS):
        return False
    task_enqueue_on_commit(REFRESH_TASK)
    return True
