"""OpenAlex works -> WorkRecord, with their byline, venue and topics. Pure functions.

Handles the schemas OpenAlex has served since 2021: the legacy `host_venue` and
`abstract_inverted_index` in MAG's shape, and the 2023+/2025 `primary_location` and `topics`.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from ingest.records import (
    AuthorRef,
    AuthorshipRecord,
    MappingError,
    WorkRecord,
    WorkTopicRecord,
)

from .entities import institution_ref, source_ref, topic_with_ancestors
from .fields import (
    normalize_doi,
    normalize_orcid,
    openalex_short_id,
    require_object,
    source_updated_at,
    type_name,
    typed_field,
)

_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/([^?#\s]+?)(?:v\d+)?(?:\.pdf)?$", re.IGNORECASE)
_ARXIV_ID = re.compile(r"^(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[a-z]{2})?/\d{7})(?:v\d+)?$", re.IGNORECASE)
_CODE_URL = re.compile(
    r"https?://(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org)/[\w.\-]+/[\w.\-]+"
)
_LEGACY_TYPES = {
    "journal-article": "article",
    "proceedings-article": "article",
    "posted-content": "preprint",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "book-section": "book-chapter",
}


def arxiv_id_from(doi: str | None, urls: list[str]) -> str | None:
    if doi and (match := _ARXIV_DOI.match(doi)):
        candidate = match.group(1)
        if _ARXIV_ID.match(candidate):
            return _ARXIV_ID.match(candidate).group(1).lower()  # type: ignore[union-attr]
    for url in urls:
        if url and (match := _ARXIV_URL.search(url)):
            candidate = match.group(1)
            if id_match := _ARXIV_ID.match(candidate):
                return id_match.group(1).lower()
    return None


def abstract_from_inverted_index(index: object) -> str:
    """Rebuild the text: each word sits at the positions listed for it, joined by spaces."""
    if index is None:
        return ""
    if not isinstance(index, dict):
        raise MappingError(
            f"field 'abstract_inverted_index' is {type_name(index)}, expected an object"
        )
    words: dict[Any, Any] = index
    if isinstance(index.get("InvertedIndex"), dict):
        # 2021 snapshots kept the MAG shape {IndexLength, InvertedIndex}.
        words = index["InvertedIndex"]
    positioned: dict[int, str] = {}
    for word, positions in words.items():
        if not isinstance(positions, list):
            raise MappingError(
                "field 'abstract_inverted_index' has a word whose positions are not numbers"
            )
        for position in positions:
            if not isinstance(position, int):
                raise MappingError(
                    "field 'abstract_inverted_index' has a word whose positions are not numbers"
                )
            positioned[position] = word
    return " ".join(map(positioned.__getitem__, sorted(positioned)))


def _authorship(position: int, authorship: object, corresponding_ids: set[Any]) -> AuthorshipRecord:
    """One byline slot; its author only when OpenAlex identified one (an A id)."""
    if not isinstance(authorship, dict):
        raise MappingError(f"authorship {position} is {type_name(authorship)}, expected an object")
    author_obj = typed_field(authorship, "author", dict, {})
    author = None
    if author_obj.get("id"):
        author = AuthorRef(
            openalex_id=openalex_short_id(author_obj["id"], kind="A"),
            display_name=str(
                author_obj.get("display_name") or authorship.get("raw_author_name") or ""
            ),
            orcid=normalize_orcid(author_obj.get("orcid")),
        )
    raw_name = str(authorship.get("raw_author_name") or author_obj.get("display_name") or "")
    institutions = tuple(
        ref
        for ref in map(institution_ref, typed_field(authorship, "institutions", list, []))
        if ref
    )
    return AuthorshipRecord(
        position=position,
        raw_name=raw_name,
        author=author,
        institutions=tuple(dict.fromkeys(institutions)),
        is_corresponding=bool(authorship.get("is_corresponding"))
        or bool(author_obj.get("id") and author_obj["id"] in corresponding_ids),
    )


def _work_topics(work: dict[str, Any]) -> tuple[WorkTopicRecord, ...]:
    """The work's topics with their ancestors and scores, once each (the first kept)."""
    topics: dict[str, WorkTopicRecord] = {}
    for topic_obj in typed_field(work, "topics", list, []):
        if not isinstance(topic_obj, dict):
            raise MappingError(f"a topic is {type_name(topic_obj)}, expected an object")
        topic, ancestors = topic_with_ancestors(topic_obj)
        score = topic_obj.get("score", 1.0)
        if not isinstance(score, int | float) or isinstance(score, bool):
            raise MappingError(f"topic score is {type_name(score)}, expected a number")
        topics.setdefault(
            topic.external_id, WorkTopicRecord(topic=topic, score=float(score), ancestors=ancestors)
        )
    return tuple(topics.values())


def _counts_by_year(work: dict[str, Any]) -> tuple[tuple[int, int], ...]:
    """(year, citations) pairs in year order; malformed entries skipped."""
    counts = []
    for entry in typed_field(work, "counts_by_year", list, []):
        if isinstance(entry, dict) and isinstance(entry.get("year"), int):
            counts.append((entry["year"], int(entry.get("cited_by_count") or 0)))
    return tuple(sorted(counts))


def _publication_date(work: dict[str, Any]) -> tuple[date | None, int | None]:
    """The publication date (None when missing or not a date) and year (the date's when the
    record gives none)."""
    publication_date = typed_field(work, "publication_date", str)
    try:
        parsed_date = date.fromisoformat(publication_date) if publication_date else None
    except ValueError:
        parsed_date = None
    publication_year = typed_field(work, "publication_year", int) or (
        parsed_date.year if parsed_date else None
    )
    return parsed_date, publication_year


def map_work(obj: object) -> WorkRecord:
    """An OpenAlex work (JSON) as a WorkRecord; MappingError for one that cannot be a work.

    It reads the record field by field into one WorkRecord, each field a few lines with its own
    fallbacks, in an order that decides which error a broken record reports first."""
    work = require_object(obj)
    openalex_id = openalex_short_id(work["id"], kind="W")
    title = typed_field(work, "title", str) or typed_field(work, "display_name", str) or ""
    if not title.strip():
        raise MappingError("work has no title")
    authorships_raw = typed_field(work, "authorships", list, [])
    locations = typed_field(work, "locations", list, [])
    primary_location = typed_field(work, "primary_location", dict)
    source = source_ref(primary_location.get("source")) if primary_location else None
    if source is None and isinstance(work.get("host_venue"), dict):
        source = source_ref(work["host_venue"])

    doi = normalize_doi(typed_field(work, "doi", str)) or normalize_doi(
        typed_field(typed_field(work, "ids", dict, {}), "doi", str)
    )
    urls = [
        str(location.get(key) or "")
        for location in [primary_location or {}, *locations]
        if isinstance(location, dict)
        for key in ("landing_page_url", "pdf_url")
    ]
    abstract = abstract_from_inverted_index(work.get("abstract_inverted_index"))
    open_access = typed_field(work, "open_access", dict, {})

    corresponding_ids = set(typed_field(work, "corresponding_author_ids", list, []))
    authorships = [
        _authorship(position, authorship, corresponding_ids)
        for position, authorship in enumerate(authorships_raw, start=1)
    ]
    topics = _work_topics(work)
    counts_by_year = _counts_by_year(work)
    parsed_date, publication_year = _publication_date(work)
    work_type = str(typed_field(work, "type", str) or "other")
    code_match = _CODE_URL.search(abstract)

    return WorkRecord(
        openalex_id=openalex_id,
        title=title.strip(),
        doi=doi,
        arxiv_id=arxiv_id_from(doi, urls),
        abstract=abstract,
        type=_LEGACY_TYPES.get(work_type, work_type),
        publication_date=parsed_date.isoformat() if parsed_date else None,
        publication_year=publication_year,
        source=source,
        cited_by_count=typed_field(work, "cited_by_count", int, 0),
        counts_by_year=counts_by_year,
        open_access_url=str(open_access.get("oa_url") or "")[:1000],
        code_url=code_match.group(0).rstrip(".") if code_match else "",
        language=str(typed_field(work, "language", str, ""))[:10],
        authorships=tuple(authorships),
        topics=topics,
        source_updated_at=source_updated_at(work),
        references=_references(work),
    )


def _references(work: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """`referenced_works` as ('openalex', W id), once each. An entry that is no OpenAlex work id
    is kept as it is, for the checks to name (ingest.validation)."""
    found: dict[tuple[str, str], None] = {}
    for entry in typed_field(work, "referenced_works", list, []):
        # Nearly every entry is "https://openalex.org/W123": taken apart without a regex (a
        # work lists 30 to 40 of them).
        if (
            isinstance(entry, str)
            and entry.startswith(_WORK_URL)
            and entry[22:].isascii()
            and entry[22:].isdigit()
        ):
            found[("openalex", entry[21:])] = None
            continue
        try:
            found[("openalex", openalex_short_id(entry, kind="W"))] = None
        except MappingError:
            found[("openalex", (entry if isinstance(entry, str) else repr(entry))[:200])] = None
    return tuple(found)


_WORK_URL = "https://openalex.org/W"
