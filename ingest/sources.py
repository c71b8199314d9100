"""The import sources: for each source name, its reader of files, its mapper and its API
fetchers. `python manage.py import SOURCE PATH...` looks the source up here.

Every source goes the same way: reader (raw records out of files, no database) -> pure mapper
(raw record -> plain records of ingest.records) -> one parser (ingest.parsing) -> the shared
set-based writer, kind by kind (ingest.record_kinds). The registry is plain imports.

A reader is an object with two methods (see Reader):
    files(paths) -> (files to import, notes on what was skipped); SourcePathError if a path is
        missing or unreadable. files_with_suffixes() below does this for most sources.
    records(path) -> every raw record of the file, in file order, as bytes (one JSON document,
        one Atom <entry>, one BibTeX entry resolved to JSON...). The pipeline numbers them from 1
        and cuts a file into chunks by those numbers; a chunk re-reads the file and skips to its
        range, so records() must give the same records in the same order every time.
OpenAlex has no reader here: its snapshot files are planned and read by line, with byte
offsets (ingest.openalex.snapshot).
A mapper is a pure function raw bytes -> sequence of records (WorkRecord, ResearcherRecord,
CvEntryRecord...) and Rejected items; it raises MappingError(reason) to reject the whole raw
record.
A fetcher is a function (values: Sequence[str]) -> iterator of raw records (bytes, the same
shape the reader yields, so the same mapper takes them) or Rejected items (a DOI that answers
404 is a Rejected with the reason).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from .arxiv import client as arxiv_client
from .arxiv import mapper as arxiv_mapper
from .arxiv.reader import READER as ARXIV_READER
from .bibtex import mapper as bibtex_mapper
from .bibtex.reader import READER as BIBTEX_READER
from .crossref import client as crossref_client
from .crossref import mapper as crossref_mapper
from .crossref.reader import READER as CROSSREF_READER
from .openalex.mapper import line_mapper
from .orcid import client as orcid_client
from .orcid import mapper as orcid_mapper
from .orcid.reader import READER as ORCID_READER
from .parsing import Mapper
from .reading import (
    Reader,
    SourcePathError,
    count_records,
    files_with_suffixes,
    read_records,
    read_records_of_files,
    read_records_of_files_by_file,
)
from .records import ARXIV, BIBTEX, CROSSREF, OPENALEX, ORCID, Rejected


class UnknownSource(LookupError):
    """A source name or option that is not available; the message says which."""


Fetcher = Callable[[Sequence[str]], Iterable["bytes | Rejected"]]


@dataclass(frozen=True)
class Source:
    """One source. fetchers maps a command option ('orcid', 'doi', 'arxiv_query') to its API
    fetcher."""

    name: str
    reader: Reader | None
    mapper: Mapper
    fetchers: dict[str, Fetcher] = field(default_factory=dict)
    description: str = ""


SOURCES: dict[str, Source] = {
    OPENALEX: Source(
        OPENALEX,
        reader=None,
        mapper=line_mapper(),
        description="OpenAlex snapshot files or saved API responses",
    ),
    ORCID: Source(
        ORCID,
        reader=ORCID_READER,
        mapper=orcid_mapper.map_record,
        fetchers={"orcid": orcid_client.fetch_records},
        description="ORCID records (public API v3.0 or v2.x JSON)",
    ),
    ARXIV: Source(
        ARXIV,
        reader=ARXIV_READER,
        mapper=arxiv_mapper.map_record,
        fetchers={"arxiv_query": arxiv_client.fetch_records},
        description="arXiv Atom API responses (or OAI-PMH)",
    ),
    CROSSREF: Source(
        CROSSREF,
        reader=CROSSREF_READER,
        mapper=crossref_mapper.map_record,
        fetchers={"doi": crossref_client.fetch_records},
        description="Crossref REST works JSON (one work or a list)",
    ),
    BIBTEX: Source(
        BIBTEX,
        reader=BIBTEX_READER,
        mapper=bibtex_mapper.map_record,
        description="BibTeX files",
    ),
}


def source_named(name: str) -> Source:
    try:
        return SOURCES[name]
    except KeyError:
        raise UnknownSource(f"unknown source {name!r}; one of: {', '.join(SOURCES)}") from None


def reader_of(name: str) -> Reader:
    reader = source_named(name).reader
    if reader is None:
        raise UnknownSource(f"source {name!r} is read by line (ingest.openalex.snapshot)")
    return reader


def mapper_of(name: str, *, entity: str | None = None) -> Mapper:
    """The source's mapper; for OpenAlex, of lines of one kind when `entity` names it (a
    snapshot folder's), of any kind otherwise."""
    if name == OPENALEX and entity:
        return line_mapper(entity)
    return source_named(name).mapper


def fetcher_of(name: str, option: str) -> Fetcher:
    source = source_named(name)
    if option not in source.fetchers:
        raise UnknownSource(f"source {name!r} has no --{option.replace('_', '-')}")
    return source.fetchers[option]


__all__ = [
    "SOURCES",
    "Fetcher",
    "Reader",
    "Source",
    "SourcePathError",
    "UnknownSource",
    "count_records",
    "fetcher_of",
    "files_with_suffixes",
    "mapper_of",
    "read_records",
    "read_records_of_files",
    "read_records_of_files_by_file",
    "reader_of",
    "source_named",
]
