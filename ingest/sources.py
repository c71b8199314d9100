"""The import sources: for each source name, its reader of files, its mapper and its API
fetchers. `python manage.py import SOURCE PATH...` (imports) looks the source up here.

Every source goes the same way: reader (raw records out of files, no database) -> pure mapper
(raw record -> plain records of ingest.records) -> the shared set-based writer.
A source's modules are named here by dotted path and imported when first used, so a source
whose package is not written yet fails with a clear message instead of breaking the others.

A reader is an object with two methods (see Reader):
    files(paths) -> (files to import, notes on what was skipped); SourcePathError if a path is
        missing or unreadable. files_with_suffixes() below does this for most sources.
    records(path) -> every raw record of the file, in file order, as bytes (one JSON document,
        one Atom <entry>, one BibTeX entry resolved to JSON...). The pipeline numbers them from 1
        and cuts a file into chunks by those numbers; a chunk re-reads the file and skips to its
        range, so records() must give the same records in the same order every time.
A mapper is a pure function raw bytes -> sequence of records (WorkRecord, ResearcherRecord,
CvEntryRecord) and Rejected items; it raises MappingError(reason) to reject the whole raw record.
A fetcher is a function (values: Sequence[str]) -> iterator of raw records (bytes, the same
shape the reader yields, so the same mapper takes them) or Rejected items (a DOI that answers
404 is a Rejected with the reason).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Protocol

from .records import ARXIV, BIBTEX, CROSSREF, OPENALEX, ORCID, CvEntryRecord, Rejected


class SourcePathError(ValueError):
    """A path given on the command line that cannot be imported; the message says why."""


class UnknownSource(LookupError):
    """A source name, option or module that is not (yet) available; the message says which."""


class Reader(Protocol):
    def files(self, paths: Sequence[str]) -> tuple[list[Path], list[str]]: ...

    def records(self, path: Path) -> Iterable[bytes]: ...


Mapper = Callable[[bytes], Sequence[Any]]
Fetcher = Callable[[Sequence[str]], Iterable["bytes | Rejected"]]


@dataclass(frozen=True)
class SourceSpec:
    """One source. reader and mapper are 'module:attribute' paths; fetchers maps a command
    option ('orcid', 'doi', 'arxiv_query') to the 'module:function' of its API fetcher."""

    name: str
    reader: str
    mapper: str
    fetchers: dict[str, str] = field(default_factory=dict)
    description: str = ""


SOURCES: dict[str, SourceSpec] = {
    # OpenAlex goes through its own, older entry points (ingest.parsing: ENTITY_HANDLERS and
    # the snapshot reader); the `import openalex` command hands it to them.
    OPENALEX: SourceSpec(
        OPENALEX,
        reader="ingest.openalex.snapshot:READER",
        mapper="ingest.openalex.mapper:map_work",
        description="OpenAlex snapshot files or saved API responses",
    ),
    ORCID: SourceSpec(
        ORCID,
        reader="ingest.orcid.reader:READER",
        mapper="ingest.orcid.mapper:map_record",
        fetchers={"orcid": "ingest.orcid.client:fetch_records"},
        description="ORCID records (public API v3.0 or v2.x JSON)",
    ),
    ARXIV: SourceSpec(
        ARXIV,
        reader="ingest.arxiv.reader:READER",
        mapper="ingest.arxiv.mapper:map_record",
        fetchers={"arxiv_query": "ingest.arxiv.client:fetch_records"},
        description="arXiv Atom API responses (or OAI-PMH)",
    ),
    CROSSREF: SourceSpec(
        CROSSREF,
        reader="ingest.crossref.reader:READER",
        mapper="ingest.crossref.mapper:map_record",
        fetchers={"doi": "ingest.crossref.client:fetch_records"},
        description="Crossref REST works JSON (one work or a list)",
    ),
    BIBTEX: SourceSpec(
        BIBTEX,
        reader="ingest.bibtex.reader:READER",
        mapper="ingest.bibtex.mapper:map_record",
        description="BibTeX files",
    ),
}

# Record kinds beyond the built-in ones (ingest.parsing.ENTITY_HANDLERS): record class ->
# (kind, 'module:writer'). The writer takes (cursor, records) and returns a
# ingest.writer.WriteResult; it is set-based, like the others.
EXTRA_RECORD_KINDS: dict[type, tuple[str, str]] = {
    CvEntryRecord: ("cv_entries", "ingest.orcid.writer:write_cv_entries"),
}


def source_spec(name: str) -> SourceSpec:
    try:
        return SOURCES[name]
    except KeyError:
        raise UnknownSource(f"unknown source {name!r}; one of: {', '.join(SOURCES)}") from None


@cache
def load(dotted: str) -> Any:
    """The object a 'module:attribute' path names. UnknownSource when it is not there."""
    module_name, _, attribute = dotted.partition(":")
    try:
        module = importlib.import_module(module_name)
        return getattr(module, attribute)
    except (ImportError, AttributeError) as exc:
        raise UnknownSource(f"{dotted} is not available ({exc})") from exc


def reader_of(name: str) -> Reader:
    return load(source_spec(name).reader)


def mapper_of(name: str) -> Mapper:
    return load(source_spec(name).mapper)


def fetcher_of(name: str, option: str) -> Fetcher:
    spec = source_spec(name)
    if option not in spec.fetchers:
        raise UnknownSource(f"source {name!r} has no --{option.replace('_', '-')}")
    return load(spec.fetchers[option])


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
