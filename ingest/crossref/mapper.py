"""Crossref REST works (and the CSL-JSON transform) -> WorkRecord. Pure functions.

Raw records are single works as the reader and the fetcher yield them (one `message` of
/works/{doi}, one item of a work list, a CSL-JSON object), or an error envelope
{"crossref_error": reason} that becomes an import issue.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson

from ingest.openalex.mapper.fields import normalize_doi, normalize_orcid
from ingest.records import (
    CROSSREF,
    AuthorRef,
    AuthorshipRecord,
    MappingError,
    PartialDate,
    SourceRecord,
    WorkRecord,
    partial_date,
)

from .jats import markup_to_text

WORK_TYPES = {
    "journal-article": "article",
    "proceedings-article": "article",
    "article-journal": "article",  # CSL
    "paper-conference": "article",  # CSL
    "posted-content": "preprint",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book-chapter": "book-chapter",
    "book-section": "book-chapter",
    "book-part": "book-chapter",
    "reference-entry": "book-chapter",
    "dissertation": "dissertation",
    "dataset": "dataset",
    "peer-review": "review",
}
# Records of these types describe containers, not works: a journal, one of its issues or volumes.
NOT_WORKS = {
    "journal",
    "journal-issue",
    "journal-volume",
    "book-series",
    "book-set",
    "proceedings",
    "report-series",
}


def map_record(raw: bytes) -> Sequence[object]:
    try:
        item = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise MappingError(f"not valid JSON: {exc}") from exc
    if not isinstance(item, dict):
        raise MappingError("a Crossref work must be a JSON object")
    if "crossref_error" in item:
        raise MappingError(str(item["crossref_error"]))
    return [map_work(item)]


def _first_text(value: object) -> str:
    if isinstance(value, list):
        value = next((v for v in value if isinstance(v, str) and v.strip()), "")
    return markup_to_text(value)


def issued_date(item: dict[str, Any]) -> PartialDate | None:
    """`issued` (the earliest of print and online) with its precision; a partial, null or
    missing date gives a partial or no date, never an exception."""
    issued = item.get("issued")
    parts = issued.get("date-parts") if isinstance(issued, dict) else None
    if not isinstance(parts, list) or not parts or not isinstance(parts[0], list) or not parts[0]:
        return None
    first = parts[0] + [None, None]
    return partial_date(first[0], first[1], first[2])


def map_author(position: int, author: dict[str, Any]) -> AuthorshipRecord | None:
    given = markup_to_text(author.get("given"))
    family = markup_to_text(author.get("family"))
    affiliations = tuple(
        name
        for affiliation in author.get("affiliation") or []
        if isinstance(affiliation, dict) and (name := markup_to_text(affiliation.get("name")))
    )
    if not family and not given:
        name = markup_to_text(author.get("name") or author.get("literal"))
        if not name:
            return None
        # An organisation ("name" only) is on the byline but is no researcher.
        return AuthorshipRecord(
            position=position,
            raw_name=name,
            author=None,
            affiliation_names=affiliations,
            sequence=str(author.get("sequence") or ""),
        )
    display = " ".join(part for part in (given, family) if part)
    return AuthorshipRecord(
        position=position,
        raw_name=display,
        author=AuthorRef(
            display_name=display,
            given_name=given,
            family_name=family,
            orcid=normalize_orcid(author.get("ORCID")),
            orcid_authenticated=bool(author.get("authenticated-orcid")),
        ),
        affiliation_names=affiliations,
        sequence=str(author.get("sequence") or ""),
    )


def map_work(item: dict[str, Any]) -> WorkRecord:
    doi = normalize_doi(item.get("DOI") if isinstance(item.get("DOI"), str) else None)
    if doi is None:
        raise MappingError("Crossref record without a DOI")
    work_type = str(item.get("type") or "")
    if work_type in NOT_WORKS:
        raise MappingError(
            f"{doi}: a Crossref '{work_type}' record describes a container, not a work"
        )
    title = _first_text(item.get("title"))
    if not title:
        raise MappingError(f"{doi}: the Crossref record has no title")
    subtitle = _first_text(item.get("subtitle"))
    if subtitle and not title.endswith(subtitle):
        title = f"{title}: {subtitle}"
    authorships: list[AuthorshipRecord] = []
    for author in item.get("author") or []:
        if isinstance(author, dict) and (byline := map_author(len(authorships) + 1, author)):
            authorships.append(byline)
    container = _first_text(item.get("container-title"))
    issns = tuple(dict.fromkeys(i for i in item.get("ISSN") or [] if isinstance(i, str)))
    source = (
        SourceRecord(
            name=container,
            abbreviated_name=_first_text(item.get("short-container-title")),
            issns=issns,
            publisher=markup_to_text(item.get("publisher")),
        )
        if container
        else None
    )
    relation_field = item.get("relation")
    relations: dict[str, Any] = relation_field if isinstance(relation_field, dict) else {}
    external_ids = [("isbn", isbn) for isbn in item.get("ISBN") or [] if isinstance(isbn, str)]
    for relation in ("is-preprint-of", "has-preprint"):
        for target in relations.get(relation) or []:
            if isinstance(target, dict) and target.get("id-type") == "doi" and target.get("id"):
                external_ids.append((relation, str(target["id"]).lower()))
    deposited = item.get("deposited")
    subtype = str(item.get("subtype") or "")
    references, unlinked_references = _references(item.get("reference"))
    return WorkRecord(
        origin=CROSSREF,
        origin_id=doi,
        title=title,
        doi=doi,
        abstract=markup_to_text(item.get("abstract")),
        type="preprint" if subtype == "preprint" else WORK_TYPES.get(work_type, "other"),
        published=issued_date(item),
        source=source,
        cited_by_count=int(item.get("is-referenced-by-count") or 0),
        language=str(item.get("language") or ""),
        authorships=tuple(authorships),
        external_ids=tuple(dict.fromkeys(external_ids)),
        url=str(item.get("URL") or ""),
        source_updated_at=deposited.get("date-time") if isinstance(deposited, dict) else None,
        references=references,
        unlinked_references=unlinked_references,
    )


def _references(entries: object) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """Crossref's `reference` list: those with a DOI as ('doi', DOI), once each; the others as
    the text they give (their `unstructured` citation, or author, title and year)."""
    linked: dict[tuple[str, str], None] = {}
    unlinked: list[str] = []
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict):
            continue
        doi = normalize_doi(entry["DOI"]) if isinstance(entry.get("DOI"), str) else None
        if doi:
            linked[("doi", doi)] = None
            continue
        text = markup_to_text(entry.get("unstructured")) or ", ".join(
            part
            for key in ("author", "article-title", "volume-title", "journal-title", "year")
            if (part := markup_to_text(entry.get(key)))
        )
        if text:
            unlinked.append(text)
    return tuple(linked), tuple(unlinked)
