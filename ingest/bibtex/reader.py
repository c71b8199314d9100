"""The import pipeline's reader of BibTeX files (ingest.sources).

One raw record per entry, in file order, as JSON: the entry already resolved by parse.py
(@string macros, '#' concatenation, month macros, crossref inheritance) with its values still
in LaTeX, plus the file name the mapper needs for the record's origin_id. A block bibtexparser
could not read (a duplicate key, a broken entry) is a raw record too, carrying its reason, so
the mapper turns it into an import issue: no entry of a file is lost silently.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from ingest.reading import files_with_suffixes

from .parse import parse_bibtex


def decode_bibtex(raw: bytes) -> str:
    """UTF-8 (a leading BOM dropped); a file that is not UTF-8 is read as Windows-1252, the
    encoding older reference managers wrote, so its accents survive instead of failing."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("cp1252", "replace")


def bibtex_records(text: str, *, file_name: str) -> Iterator[bytes]:
    """Every entry and every unreadable block of a BibTeX text, in file order, as JSON."""
    parsed = parse_bibtex(text)
    items: list[tuple[int, dict[str, Any]]] = []
    for entry in parsed.entries:
        items.append(
            (
                entry.line,
                {
                    "file": file_name,
                    "key": entry.key,
                    "type": entry.entry_type,
                    "line": entry.line,
                    "fields": entry.fields,
                    "warnings": list(entry.warnings),
                },
            )
        )
    for error in parsed.errors:
        items.append(
            (
                error.line,
                {"file": file_name, "key": error.key, "line": error.line, "error": error.reason},
            )
        )
    # sorted() is stable: entries and errors on one line keep their order run after run.
    for _line, item in sorted(items, key=lambda pair: pair[0]):
        yield orjson.dumps(item)


class BibtexReader:
    def files(self, paths: Sequence[str]) -> tuple[list[Path], list[str]]:
        return files_with_suffixes(paths, (".bib", ".bibtex"))

    def records(self, path: Path) -> Iterator[bytes]:
        yield from bibtex_records(decode_bibtex(path.read_bytes()), file_name=path.name)


READER = BibtexReader()
