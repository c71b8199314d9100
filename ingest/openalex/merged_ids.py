"""OpenAlex's merged ids: the snapshot's `merged_ids/<entity>/<date>.csv[.gz]` files, each row
`merge_date,id,merge_into_id`: the record `id` was merged into `merge_into_id` (two author
profiles of one person, two copies of one work). Pure reading, no database; applying them is
the import pipeline's (ingest.services.merged_ids).
"""

from __future__ import annotations

import csv
import gzip
import io
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

# The entities bzpeer stores records of, by their merged_ids folder, with their id letter.
MERGED_ENTITIES = {"authors": "A", "works": "W"}
_URL_PREFIX = re.compile(r"^https?://openalex\.org/", re.IGNORECASE)


@dataclass(frozen=True)
class MergedId:
    entity: str  # "authors" or "works"
    merge_date: str
    merged_id: str  # the id merged away, "A3125154712"
    survivor_id: str  # the id it now is, "A4317838346"


def merged_id_files(paths: Sequence[str]) -> list[tuple[str, Path]]:
    """(entity, file) for every merged_ids CSV of a stored entity under paths, in path order."""
    found: list[tuple[str, Path]] = []
    for raw in paths:
        path = Path(raw)
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for candidate in candidates:
            parts = candidate.parts
            if "merged_ids" not in parts[:-1] or candidate.name.startswith("."):
                continue
            entity = (
                parts[parts.index("merged_ids") + 1]
                if len(parts) > parts.index("merged_ids") + 2
                else ""
            )
            if entity in MERGED_ENTITIES and candidate.name.endswith((".csv", ".csv.gz")):
                found.append((entity, candidate))
    return found


def _id(value: str, letter: str) -> str | None:
    value = _URL_PREFIX.sub("", (value or "").strip()).upper()
    return value if re.fullmatch(rf"{letter}\d+", value) else None


def read_merged_ids(entity: str, path: Path) -> Iterator[MergedId | str]:
    """The file's merges, in file order; a row that cannot be read is yielded as the text of
    the reason (so the caller can report it) instead of stopping the file."""
    letter = MERGED_ENTITIES[entity]
    # Streamed: the real files hold millions of rows.
    handle: io.TextIOBase
    if path.name.endswith(".gz"):
        handle = gzip.open(path, "rt", encoding="utf-8-sig", newline="")
    else:
        handle = open(path, encoding="utf-8-sig", newline="")  # noqa: SIM115 - closed below
    with handle:
        for line, row in enumerate(csv.DictReader(handle), start=2):
            merged = _id(row.get("id") or "", letter)
            survivor = _id(row.get("merge_into_id") or "", letter)
            if merged is None or survivor is None or merged == survivor:
                yield f"{path.name} line {line}: not a merge of two {entity} ids: {dict(row)!r}"[
                    :500
                ]
                continue
            yield MergedId(entity, (row.get("merge_date") or "").strip(), merged, survivor)
