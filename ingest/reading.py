"""Reading a source's files: which files a path names, and the records of a range of them.
Shared by the sources' readers (ingest/<source>/reader.py) and the pipeline's chunks; see
ingest.sources for what a reader is."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Protocol


class SourcePathError(ValueError):
    """A path given on the command line that cannot be imported; the message says why."""


class Reader(Protocol):
    def files(self, paths: Sequence[str]) -> tuple[list[Path], list[str]]: ...

    def records(self, path: Path) -> Iterable[bytes]: ...


def files_with_suffixes(
    paths: Sequence[str], suffixes: Sequence[str]
) -> tuple[list[Path], list[str]]:
    """Files named by paths, folders walked (sorted) for files ending with one of suffixes
    (compared in lower case, '.json', '.bib', '.xml'...); hidden files skipped. A file named
    directly is taken whatever its suffix. Raises SourcePathError for a missing or unreadable
    path. Returns (files, notes on what was skipped)."""
    files: list[Path] = []
    skipped: list[str] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise SourcePathError(f"{raw}: no such file or directory")
        if not os.access(path, os.R_OK):
            raise SourcePathError(f"{raw}: permission denied")
        if path.is_file():
            files.append(path)
            continue
        for candidate in sorted(p for p in path.rglob("*") if p.is_file()):
            if candidate.name.startswith("."):
                continue
            if not candidate.name.lower().endswith(tuple(suffixes)):
                skipped.append(f"{candidate} (not {'/'.join(suffixes)})")
                continue
            if not os.access(candidate, os.R_OK):
                raise SourcePathError(f"{candidate}: permission denied")
            files.append(candidate)
    return files, skipped


def count_records(reader: Reader, path: Path) -> int:
    if getattr(reader, "one_record_per_file", False):
        return 1  # without reading the file: a folder of them is planned in one pass
    return sum(1 for _ in reader.records(path))


def read_records(
    reader: Reader, path: Path, *, start: int, end: int
) -> Iterator[tuple[int, bytes]]:
    """The records numbered start+1 .. end of the file (numbers from 1), as (number, raw)."""
    for number, raw in enumerate(reader.records(path), start=1):
        if number <= start:
            continue
        if number > end:
            return
        yield number, raw


def read_records_of_files(
    reader: Reader, paths: Sequence[Path], *, start: int, end: int
) -> Iterator[tuple[int, bytes]]:
    """The records numbered start+1 .. end of these files read one after the other (numbers
    from 1 across them), as (number, raw). Files before start are counted, not parsed, when
    the reader has one record per file."""
    for number, _, raw in read_records_of_files_by_file(reader, paths, start=start, end=end):
        yield number, raw


def read_records_of_files_by_file(
    reader: Reader, paths: Sequence[Path], *, start: int, end: int
) -> Iterator[tuple[int, int, bytes]]:
    """read_records_of_files, each record with the index in paths of the file it is in:
    (number, file index, raw)."""
    number = 0
    one_each = getattr(reader, "one_record_per_file", False)
    for file_index, path in enumerate(paths):
        if one_each and number + 1 <= start:
            number += 1
            continue
        for raw in reader.records(path):
            number += 1
            if number <= start:
                continue
            if number > end:
                return
            yield number, file_index, raw
