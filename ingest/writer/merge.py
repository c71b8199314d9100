"""One work from what several sources say about it: each source's fields, and the precedence
that decides, field by field, what the work shows.

Pure functions, no database. A source record's contribution is `contribution_fields(record)`
(stored as WorkSource.fields); `merged_work(contributions)` is the work. A field takes the
value of the first source in its precedence that has one, so re-importing one source changes
only the fields it decides, and a source that loses a value falls back to the next source's.

The precedence (documented in docs/architecture.md):
- title, type, publication date, venue: Crossref (the publisher's record), then OpenAlex,
  ORCID, BibTeX, arXiv: the published version over the preprint.
- abstract: arXiv (the authors' own plain text), Crossref, OpenAlex, BibTeX, ORCID.
- citations (cited_by_count, counts_by_year), language, code and open-access URLs: OpenAlex
  first (citations: OpenAlex's count whenever it has the work, even 0).
- DOI: a publisher DOI (Crossref, OpenAlex, ORCID, BibTeX, arXiv's DOI field) over arXiv's own
  DataCite DOI; arXiv id: arXiv, then the others; versions, journal reference: arXiv.
- byline: OpenAlex (author ids), Crossref, arXiv, BibTeX, ORCID. ORCID decides what the
  researcher says is theirs: its `listed_by` puts the record's owner on the shown byline's slot
  compatible with their name, or keeps them as listed by without a slot, and stays applied
  when another source rewrites the byline (writer/listed_by.py, WorkListedBy).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from publications.selectors import CITED_BY_COUNT_SOURCES

from ..records import ARXIV, BIBTEX, CROSSREF, OPENALEX, ORCID, WorkRecord
from .identity import arxiv_id_of_doi, is_publisher_doi, normalize_arxiv_id, title_key

_PUBLISHED_FIRST = (CROSSREF, OPENALEX, ORCID, BIBTEX, ARXIV)
PRECEDENCE: dict[str, tuple[str, ...]] = {
    "title": _PUBLISHED_FIRST,
    "type": _PUBLISHED_FIRST,
    "date": _PUBLISHED_FIRST,
    "venue": _PUBLISHED_FIRST,
    "abstract": (ARXIV, CROSSREF, OPENALEX, BIBTEX, ORCID),
    # The work page names the source its count comes from by the same order.
    "cited_by_count": CITED_BY_COUNT_SOURCES,
    "counts_by_year": CITED_BY_COUNT_SOURCES,
    "language": (OPENALEX, CROSSREF, ARXIV, ORCID, BIBTEX),
    "open_access_url": (OPENALEX, ARXIV, CROSSREF, ORCID, BIBTEX),
    "code_url": (OPENALEX, ARXIV, CROSSREF, ORCID, BIBTEX),
    "doi": (CROSSREF, OPENALEX, ORCID, BIBTEX, ARXIV),
    "arxiv_id": (ARXIV, OPENALEX, CROSSREF, ORCID, BIBTEX),
    "openalex_id": (OPENALEX,),
    "journal_ref": (ARXIV,),
    "versions": (ARXIV,),
    "byline": (OPENALEX, CROSSREF, ARXIV, BIBTEX, ORCID),
}
# Fields where the first source that has the work decides, even with an empty value.
_PRESENCE_DECIDES = {"cited_by_count", "counts_by_year"}


def rank(field_name: str, origin: str) -> int:
    order = PRECEDENCE[field_name]
    return order.index(origin) if origin in order else len(order)


@dataclass(frozen=True)
class Contribution:
    origin: str
    origin_id: str
    fields: dict[str, Any]


def venue_ref(record: WorkRecord) -> str | None:
    """'openalex:S123' or the venue_key ('issn:...', 'name:...') of the record's venue."""
    from .sources import venue_key  # noqa: PLC0415 - sources imports records only; no cycle at load

    source = record.source
    if source is None:
        return None
    if source.openalex_id:
        return f"openalex:{source.openalex_id}"
    return venue_key(source)


def record_arxiv_id(record: WorkRecord) -> str | None:
    return normalize_arxiv_id(record.arxiv_id) or arxiv_id_of_doi(record.doi)


def contribution_fields(record: WorkRecord) -> dict[str, Any]:
    """What the record says, as stored in WorkSource.fields (JSON)."""
    if record.published is not None:
        date = record.published.first_day() if record.published.month else None
        precision = record.published.precision if date else "year"
        year: int | None = record.published.year
    else:
        date, year = record.publication_date, record.publication_year
        precision = "" if date else "year" if year else ""
    versions = [
        [v.label, v.date.first_day() if v.date else None, v.date.precision if v.date else ""]
        for v in record.versions
    ]
    return {
        "title": record.title,
        "abstract": record.abstract,
        "type": record.type,
        "publication_date": date,
        "publication_year": year,
        "date_precision": precision,
        "venue": venue_ref(record),
        "cited_by_count": record.cited_by_count,
        "counts_by_year": {str(y): c for y, c in record.counts_by_year},
        "open_access_url": record.open_access_url,
        "code_url": record.code_url,
        "language": record.language,
        "doi": record.doi,
        "arxiv_id": record_arxiv_id(record),
        "openalex_id": record.openalex_id if record.origin == OPENALEX else None,
        "journal_ref": record.journal_ref,
        "versions": versions,
        "authors_count": len(record.authorships),
        "title_key": title_key(record),
        # References without an identifier (Crossref's unstructured ones): shown, not linked.
        **(
            {"unlinked_references": list(record.unlinked_references)}
            if record.unlinked_references
            else {}
        ),
    }


def _first(
    contributions: Sequence[Contribution], field_name: str, keys: Iterable[str]
) -> tuple[Contribution | None, Any]:
    keys = tuple(keys)
    ordered = sorted(contributions, key=lambda c: (rank(field_name, c.origin), c.origin_id))
    for contribution in ordered:
        if rank(field_name, contribution.origin) >= len(PRECEDENCE[field_name]):
            continue
        value = contribution.fields.get(keys[0])
        if field_name in _PRESENCE_DECIDES or value not in (None, "", [], {}):
            return contribution, value
    return None, None


def merged_work(contributions: Sequence[Contribution]) -> dict[str, Any]:
    """The work's columns from every source's contribution (at least one)."""
    merged: dict[str, Any] = {}
    for field_name in ("title", "abstract", "type", "cited_by_count", "counts_by_year"):
        merged[field_name] = _first(contributions, field_name, [field_name])[1]
    for field_name in ("language", "open_access_url", "code_url", "openalex_id", "journal_ref"):
        merged[field_name] = _first(contributions, field_name, [field_name])[1]
    dated, _ = _first(contributions, "date", ["publication_year"])
    merged["publication_date"] = dated.fields.get("publication_date") if dated else None
    merged["publication_year"] = dated.fields.get("publication_year") if dated else None
    merged["date_precision"] = dated.fields.get("date_precision", "") if dated else ""
    merged["venue"] = _first(contributions, "venue", ["venue"])[1]
    publisher_dois = [
        c
        for c in contributions
        if is_publisher_doi(c.fields.get("doi")) and c.origin in PRECEDENCE["doi"]
    ]
    if publisher_dois:
        merged["doi"] = _first(publisher_dois, "doi", ["doi"])[1]
    else:
        merged["doi"] = _first(contributions, "doi", ["doi"])[1]
    merged["arxiv_id"] = _first(contributions, "arxiv_id", ["arxiv_id"])[1]
    merged["versions"] = _first(contributions, "versions", ["versions"])[1] or []
    byline, _ = _first(contributions, "byline", ["authors_count"])
    merged["byline_origin"] = byline.origin if byline else ""
    merged["byline_origin_id"] = byline.origin_id if byline else ""
    merged["authors_count"] = byline.fields.get("authors_count", 0) if byline else 0
    # The key of the shown title and year (the first author is the shown byline's).
    key_source = byline or contributions[0]
    merged["title_key"] = key_source.fields.get("title_key") or next(
        (c.fields.get("title_key") for c in contributions if c.fields.get("title_key")), None
    )
    merged["title"] = merged["title"] or ""
    merged["type"] = merged["type"] or "article"
    if merged["arxiv_id"] and not publisher_dois and merged["type"] == "article":
        merged["type"] = "preprint" if all(c.origin == ARXIV for c in contributions) else "article"
    merged["cited_by_count"] = merged["cited_by_count"] or 0
    merged["counts_by_year"] = merged["counts_by_year"] or {}
    return merged
