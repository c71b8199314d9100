"""Reading OpenAlex snapshot files: JSON Lines part files, gzipped or not, in the snapshot's
folder layout (`<entity>/updated_date=YYYY-MM-DD/part_NNN[.gz]`). API response documents
(one record, or a page with `results`) are read too, so recorded responses import the same way.

Readers never touch the database; they yield (line_number, raw_text) pairs and leave parsing
to the caller, so a malformed line is reported with its text instead of stopping the file.
"""

from __future__ import annotations

import gzip
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import orjson

from .mapper import SUPPORTED_ENTITIES

# Files in a snapshot tree that are not records.
_NOT_RECORD_FILES = {"manifest", "readme", "readme.md", "license", "license.txt"}
# Snapshot folders of entities bzpeer does not store (merged_ids is a CSV of id redirects).
_UNSUPPORTED_FOLDERS = {
    "concepts",
    "keywords",
    "publishers",
    "funders",
    "merged_ids",
    "domains",
    "fields",
    "subfields",
}


class SnapshotPathError(ValueError):
    """A path given on the command line that cannot be imported; the message says why."""


@dataclass(frozen=True)
class SnapshotFile:
    path: Path
    entity: str | None  # from the folder layout; None means "decide per record from its id"
    is_document: bool  # one JSON document (API response) rather than JSON Lines


@dataclass(frozen=True)
class ChunkPlan:
    path: Path
    entity: str | None
    start_line: int
    end_line: int
    start_byte: int | None  # seekable plain files only


def entity_from_path(path: Path) -> str | None:
    for part in reversed(path.parts[:-1]):
        if part in SUPPORTED_ENTITIES:
            return part
    return None


def _open_binary(path: Path):  # noqa: ANN202 - file-like
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")  # noqa: SIM115


def is_document(path: Path) -> bool:
    """True for a pretty-printed JSON document or a one-line API page; False for JSON Lines."""
    with _open_binary(path) as handle:
        first = handle.readline()
        if not first.strip():
            return False
        try:
            parsed = orjson.loads(first)
        except orjson.JSONDecodeError:
            try:
                orjson.loads(first + handle.read())
            except orjson.JSONDecodeError:
                return False  # a JSON Lines file whose first line is broken
            return True
        return isinstance(parsed, dict) and "results" in parsed and "meta" in parsed


def discover(paths: list[str]) -> tuple[list[SnapshotFile], list[str]]:
    """Expand paths (files or snapshot folders) into record files; also return what was skipped.

    Raises SnapshotPathError for a path that does not exist or cannot be read.
    """
    files: list[SnapshotFile] = []
    skipped: list[str] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise SnapshotPathError(f"{raw}: no such file or directory")
        if not os.access(path, os.R_OK):
            raise SnapshotPathError(f"{raw}: permission denied")
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for candidate in candidates:
            if candidate.name.lower() in _NOT_RECORD_FILES or candidate.name.startswith("."):
                continue
            if not os.access(candidate, os.R_OK):
                raise SnapshotPathError(f"{candidate}: permission denied")
            unsupported = next(
                (part for part in candidate.parts[:-1] if part in _UNSUPPORTED_FOLDERS), None
            )
            if unsupported == "merged_ids":
                skipped.append(f"{candidate} (merged ids: applied when the run finishes)")
                continue
            if unsupported:
                skipped.append(f"{candidate} ({unsupported} are not imported by bzpeer)")
                continue
            entity = entity_from_path(candidate)
            try:
                document = is_document(candidate)
            except (OSError, EOFError, gzip.BadGzipFile) as exc:
                raise SnapshotPathError(f"{candidate}: cannot be read ({exc})") from exc
            files.append(SnapshotFile(path=candidate, entity=entity, is_document=document))
    return files, skipped


def _document_records(path: Path) -> list[bytes]:
    with _open_binary(path) as handle:
        document = orjson.loads(handle.read())
    if isinstance(document, dict) and "meta" in document:
        items = document.get("results") or []  # an API page; group_by pages carry no records
    else:
        items = [document]
    return [orjson.dumps(item) for item in items]


def plan_chunks(file: SnapshotFile, *, chunk_lines: int) -> list[ChunkPlan]:
    """Split a file into line ranges; plain files also get the byte offset of each range."""
    if file.is_document:
        count = len(_document_records(file.path))
        return [ChunkPlan(file.path, file.entity, 0, max(count, 0), None)] if count else []
    plans: list[ChunkPlan] = []
    seekable = file.path.suffix != ".gz"
    line = 0
    offset = 0
    chunk_start_line, chunk_start_byte = 0, 0

    def plan(start_line: int, end_line: int, start_byte: int) -> ChunkPlan:
        return ChunkPlan(
            file.path, file.entity, start_line, end_line, start_byte if seekable else None
        )

    with _open_binary(file.path) as handle:
        for raw_line in handle:
            line += 1
            offset += len(raw_line)
            if line - chunk_start_line == chunk_lines:
                plans.append(plan(chunk_start_line, line, chunk_start_byte))
                chunk_start_line, chunk_start_byte = line, offset
    if line > chunk_start_line:
        plans.append(plan(chunk_start_line, line, chunk_start_byte))
    return plans


def read_lines(
    path: Path, *, start_line: int, end_line: int, start_byte: int | None, is_document: bool = False
) -> Iterator[tuple[int, int | None, bytes]]:
    """Yield (line_number, byte offset after the line, raw bytes) for lines [start_line, end_line).

    Line numbers are 1-based as people count them. The byte offset lets a resumed chunk seek
    straight to where it stopped in a plain file (None for gzip files and documents).
    """
    if is_document:
        for index, record in enumerate(
            _document_records(path)[start_line:end_line], start=start_line
        ):
            yield index + 1, None, record
        return
    with _open_binary(path) as handle:
        line = start_line
        offset = start_byte
        if start_byte is not None:
            handle.seek(start_byte)
        else:
            for _ in range(start_line):
                if not handle.readline():
                    return
        while line < end_line:
            raw_line = handle.readline()
            if not raw_line:
                return
            line += 1
            if offset is not None:
                offset += len(raw_line)
            yield line, offset, raw_line
