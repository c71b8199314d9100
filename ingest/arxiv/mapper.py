"""arXiv entries -> WorkRecord: the preprint with its versions, categories, per-author
affiliations, journal reference and the publisher's DOI. Pure."""

from __future__ import annotations

from collections.abc import Sequence

from lxml import etree

from ingest.records import (
    ARXIV,
    AuthorRef,
    AuthorshipRecord,
    MappingError,
    PartialDate,
    VersionRecord,
    WorkRecord,
    partial_date,
)

from .atom import _PARSER, ArxivEntry, parse_entry


def _date(text: str) -> PartialDate | None:
    return partial_date(text[0:4], text[5:7], text[8:10]) if len(text) >= 10 else None


def map_entry(entry: ArxivEntry) -> WorkRecord:
    versions = [VersionRecord("v1", _date(entry.published))]
    if entry.version > 1:
        # The Atom API states only the first and the latest version's dates.
        versions.append(VersionRecord(f"v{entry.version}", _date(entry.updated)))
    return WorkRecord(
        origin=ARXIV,
        origin_id=entry.arxiv_id,
        title=entry.title,
        # The publisher's DOI when the authors gave one; the work's identity then joins the
        # published version (the writer links the preprint to it).
        doi=entry.doi,
        arxiv_id=entry.arxiv_id,
        abstract=entry.summary,
        type="preprint",
        published=_date(entry.published),
        authorships=tuple(
            AuthorshipRecord(
                position=position,
                raw_name=author.name,
                author=AuthorRef(display_name=author.name),
                affiliation_names=author.affiliations,
            )
            for position, author in enumerate(entry.authors, start=1)
        ),
        versions=tuple(versions),
        categories=entry.categories,
        journal_ref=entry.journal_ref,
        url=entry.abs_url,
        open_access_url=entry.pdf_url,
        source_updated_at=entry.updated or None,
    )


def map_record(raw: bytes) -> Sequence[object]:
    try:
        element = etree.fromstring(raw, parser=_PARSER)
    except etree.XMLSyntaxError as exc:
        raise MappingError(f"the arXiv answer is not well-formed XML: {exc}") from exc
    if element.tag == "invalid":
        raise MappingError(f"the arXiv answer is not well-formed XML: {element.text}")
    return [map_entry(parse_entry(element))]
