"""Reader of saved arXiv API answers: each Atom <entry> is one raw record (serialised alone,
with the namespaces it uses), an error entry included, so the mapper makes it an issue."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from lxml import etree

from ingest.reading import files_with_suffixes
from ingest.records import MappingError

from .atom import _PARSER, ATOM


def feed_records(body: bytes) -> Iterator[bytes]:
    try:
        root = etree.fromstring(body, parser=_PARSER)
    except etree.XMLSyntaxError as exc:
        yield b"<invalid>" + str(exc).encode()[:200].replace(b"<", b"") + b"</invalid>"
        return
    for entry in root.iterfind(f"{ATOM}entry"):
        yield etree.tostring(entry, encoding="UTF-8")


class ArxivReader:
    def files(self, paths: Sequence[str]) -> tuple[list[Path], list[str]]:
        return files_with_suffixes(paths, (".xml", ".atom"))

    def records(self, path: Path) -> Iterator[bytes]:
        yield from feed_records(path.read_bytes())


READER = ArxivReader()
__all__ = ["READER", "MappingError", "feed_records"]
