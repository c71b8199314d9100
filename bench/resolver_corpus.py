"""The resolver evaluation's real corpus: every work record of ../shared/testdata mapped by the
real mappers, one per real work, and the identifiers grouped into people (bench.resolver_eval)."""

from __future__ import annotations

import gzip
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

# --- The corpus -------------------------------------------------------------------------------


def _openalex_work_records(folder: Path) -> Iterator[Any]:
    import orjson

    from ingest.openalex.mapper import map_work
    from ingest.records import MappingError

    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if "merged_ids" in path.parts or path.name in ("manifest",) or path.suffix == ".csv":
            continue
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rb") as handle:
            data = handle.read()
        try:
            document = orjson.loads(data)
            items = (
                document.get("results") or []
                if isinstance(document, dict) and "meta" in document
                else [document]
            )
        except orjson.JSONDecodeError:
            items = []
            for line in data.splitlines():
                try:
                    items.append(orjson.loads(line))
                except orjson.JSONDecodeError:
                    continue
        for item in items:
            if not isinstance(item, dict) or not str(item.get("id", "")).rsplit("/", 1)[
                -1
            ].startswith("W"):
                continue
            try:
                yield map_work(item)
            except (MappingError, KeyError, TypeError, ValueError):
                continue


def corpus_records(testdata: Path) -> list[Any]:
    """Every work record of the corpus, one per real work (the richest identified byline)."""
    from ingest import sources
    from ingest.records import MappingError, WorkRecord
    from ingest.writer.identity import title_key

    records: list[WorkRecord] = list(_openalex_work_records(testdata / "openalex"))
    for source, folder in (
        ("crossref", "crossref"),
        ("orcid", "orcid"),
        ("arxiv", "arxiv"),
        ("bibtex", "bibtex"),
        ("bibtex", "dblp"),
    ):
        reader, mapper = sources.reader_of(source), sources.mapper_of(source)
        files, _ = reader.files([str(testdata / folder)])
        for path in files:
            for raw in reader.records(path):
                try:
                    mapped = mapper(raw)
                except MappingError:
                    continue
                records.extend(r for r in mapped if isinstance(r, WorkRecord))

    def identified(record: WorkRecord) -> int:
        return sum(1 for a in record.authorships if _person_key(a) is not None)

    kept: list[WorkRecord] = []
    seen: set[str] = set()
    for record in sorted(records, key=lambda r: -identified(r)):
        keys = {
            k
            for k in (
                f"doi:{record.doi}" if record.doi else None,
                f"arxiv:{record.arxiv_id}" if record.arxiv_id else None,
                f"title:{title_key(record)}" if title_key(record) else None,
                f"id:{record.origin}:{record.origin_key}",
            )
            if k
        }
        if keys & seen or not record.authorships:
            continue
        seen |= keys
        kept.append(record)
    return kept


# Two identifiers of one person that the records do not tie together themselves (an OpenAlex
# record that carries the ORCID iD does: those are joined automatically). Each entry is checked
# by hand against the corpus; without it the identifiers would count as two people.
KNOWN_SAME_PERSON: dict[frozenset[str], str] = {
    frozenset({"A5031480183", "A5055903035"}): (
        "Andres M. Bran: OpenAlex split him across the ChemCrow preprint (arXiv 2304.05376, "
        "A5055903035, ORCID 0000-0002-4432-3667) and its Nature Machine Intelligence version "
        "(10.1038/s42256-024-00832-8, A5031480183, no ORCID): same title, same coauthors"
    ),
}


class People:
    """Identifiers grouped into people: an OpenAlex author and the ORCID iD its record carries
    are one person, and so are the pairs of KNOWN_SAME_PERSON."""

    def __init__(self, records: Sequence[Any]) -> None:
        self._parent: dict[str, str] = {}
        for record in records:
            for a in record.authorships:
                key = _person_key(a)
                if key and a.author.openalex_id and a.author.orcid:
                    self._join(key, a.author.orcid)
        for pair in KNOWN_SAME_PERSON:
            self._join(*sorted(pair))

    def _find(self, key: str) -> str:
        while self._parent.get(key, key) != key:
            key = self._parent[key]
        return key

    def _join(self, one: str, other: str) -> None:
        a, b = sorted((self._find(one), self._find(other)))
        if a != b:
            self._parent[b] = a

    def of(self, authorship: Any) -> str | None:
        key = _person_key(authorship)
        return self._find(key) if key else None

    def identifiers(self, person: str, known: set[str]) -> set[str]:
        return {k for k in known if self._find(k) == person}


def _person_key(authorship: Any) -> str | None:
    from ingest.writer.identity import orcid_is_valid

    author = authorship.author
    if author is None:
        return None
    if author.openalex_id:
        return author.openalex_id
    if author.orcid and orcid_is_valid(author.orcid):
        return author.orcid
    return None


__all__ = ["KNOWN_SAME_PERSON", "People", "corpus_records"]
