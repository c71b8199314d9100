"""The works nearest a vector or a text, through the index files discovery.services.index
writes, memory-mapped read-only (one copy per machine, shared by every web process).

The opened index is kept per process and reopened when the manifest's mtime or inode changes
(one stat call a query). A process that never searches by meaning never opens it, nor loads the model.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings

from .. import embedder

MANIFEST = "current.json"


@dataclass(frozen=True)
class Neighbour:
    work_id: int
    score: float  # cosine similarity, 1 is the same direction


@dataclass
class _Opened:
    mtime_ns: tuple[int, int]
    manifest: dict[str, Any]
    ids: np.ndarray | None = None
    vectors: np.ndarray | None = None
    index: Any = None


_lock = threading.Lock()
_opened: _Opened | None = None


class IndexMissing(LookupError):
    """No index was built yet (the task has not run since the works were embedded)."""


def _open(directory: Path, mtime_ns: tuple[int, int]) -> _Opened:
    manifest = json.loads((directory / MANIFEST).read_text())
    opened = _Opened(mtime_ns=mtime_ns, manifest=manifest)
    if manifest["kind"] == "exact":
        ids_file, vectors_file = manifest["files"]
        opened.ids = np.load(directory / ids_file, mmap_mode="r")
        opened.vectors = np.load(directory / vectors_file, mmap_mode="r")
    else:
        from usearch.index import Index

        opened.index = Index.restore(str(directory / manifest["files"][0]), view=True)
    return opened


def _current() -> _Opened:
    global _opened
    directory = Path(settings.DISCOVERY_INDEX_DIR)
    try:
        status = (directory / MANIFEST).stat()
    except FileNotFoundError:
        raise IndexMissing("the index of works by meaning has not been built yet") from None
    # The inode too: a manifest replaced within the clock's granularity keeps its mtime.
    mtime_ns = (status.st_mtime_ns, status.st_ino)
    opened = _opened
    if opened is None or opened.mtime_ns != mtime_ns:
        with _lock:
            if _opened is None or _opened.mtime_ns != mtime_ns:
                _opened = _open(directory, mtime_ns)
            opened = _opened
    return opened


def index_model_name() -> str:
    return str(_current().manifest["model_name"])


def works_nearest_vector(vector: np.ndarray, *, limit: int) -> list[Neighbour]:
    """The limit works whose vectors are closest to vector (unit length), best first."""
    opened = _current()
    query = np.asarray(vector, dtype=np.float32).reshape(-1)
    if opened.index is not None:
        matches = opened.index.search(query, limit)
        return [
            Neighbour(work_id=int(key), score=1.0 - float(distance))
            for key, distance in zip(matches.keys, matches.distances, strict=True)
        ]
    assert opened.ids is not None and opened.vectors is not None
    if not len(opened.ids):
        return []
    scores = np.asarray(opened.vectors @ query, dtype=np.float32)
    take = min(limit, len(scores))
    best = np.argpartition(-scores, take - 1)[:take]
    best = best[np.argsort(-scores[best], kind="stable")]
    return [Neighbour(work_id=int(opened.ids[i]), score=float(scores[i])) for i in best]


def works_nearest_text(text: str, *, limit: int) -> list[Neighbour]:
    """The works closest in meaning to text. Loads the model in this process on first use
    (about 90 MB of weights and torch's ~250 MB: docs/discovery.md)."""
    _current()  # no index: say so before paying for the model
    (vector,) = embedder.embed_texts([text])
    return works_nearest_vector(vector, limit=limit)


def index_forget() -> None:
    """Drop this process's opened index (tests that point the directory elsewhere)."""
    global _opened
    with _lock:
        _opened = None
