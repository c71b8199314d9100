"""OpenAlex JSON -> plain records. Pure functions, no database.

Handles the schemas OpenAlex has served since 2021: the legacy `host_venue` and singular
`last_known_institution`, and the 2023+/2025 `primary_location`, `topics`,
`last_known_institutions` and `affiliations`.
"""

from __future__ import annotations

import dataclasses
import re
from datetime import date, datetime
from typing import Any
from urllib.parse import urlsplit

from publications.importers.records import (
    AffiliationRecord,
    AuthorRef,
    AuthorshipRecord,
    InstitutionRecord,
    InstitutionRef,
    MappingError,
    ResearcherRecord,
    SourceRecord,
    TopicRecord,
    WorkRecord,
    WorkTopicRecord,
)

ENTITY_PREFIXES = {"works": "W", "authors": "A", "institutions": "I", "sources": "S", "topics": "T"}
SUPPORTED_ENTITIES = tuple(ENTITY_PREFIXES)
_OPENALEX_ID = re.compile(r"^(?:https?://openalex\.org/)?([WAISTVPFC]\d+)$", re.IGNORECASE)
_ORCID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", re.IGNORECASE)
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
_TYPE_NAMES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
}


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _field(
    obj: dict[str, Any], key: str, expected: type | tuple[type, ...], default: Any = None
) -> Any:
    """obj[key] if it has the expected type, default if absent or null; MappingError otherwise."""
    value = obj.get(key)
    if value is None:
        return default
    if isinstance(value, bool) and expected is not bool:
        raise MappingError(f"field '{key}' is a boolean, expected {_expected_name(expected)}")
    if not isinstance(value, expected):
        raise MappingError(
            f"field '{key}' is {_type_name(value)}, expected {_expected_name(expected)}"
        )
    return value


def _expected_name(expected: type | tuple[type, ...]) -> str:
    first = expected[0] if isinstance(expected, tuple) else expected
    return _TYPE_NAMES.get(first, first.__name__)


# Ids repeat across records (authors, institutions, venues, topics): their parsed short form is
# memoised. Bounded, and a pure function's cache, so it changes nothing but speed.
_SHORT_IDS: dict[str, str] = {}
_CACHE_LIMIT = 100_000


def openalex_short_id(value: object, *, kind: str | None = None) -> str:
    """'https://openalex.org/W123' -> 'W123'; kind ('W', 'A'...) is checked when given."""
    if not isinstance(value, str):
        raise MappingError(f"id is {_type_name(value)}, expected a string")
    short_id = _SHORT_IDS.get(value)
    if short_id is None:
        match = _OPENALEX_ID.match(value.strip())
        if not match:
            raise MappingError(f"id {value!r} is not an OpenAlex id")
        short_id = match.group(1).upper()
        if len(_SHORT_IDS) >= _CACHE_LIMIT:
            _SHORT_IDS.clear()
        _SHORT_IDS[value] = short_id
    if kind and short_id[0] != kind and not (kind == "S" and short_id[0] == "V"):
        raise MappingError(f"id {short_id} is not {_KIND_NAMES[kind]} id")
    return short_id


_KIND_NAMES = {
    "W": "a work",
    "A": "an author",
    "I": "an institution",
    "S": "a source",
    "T": "a topic",
}


def normalize_doi(value: str | None) -> str | None:
    if not value:
        return None
    doi = _DOI_PREFIX.sub("", value.strip()).strip().lower()
    return doi if doi.startswith("10.") else None


def normalize_orcid(value: str | None) -> str | None:
    if not value:
        return None
    match = _ORCID.search(value.strip())
    return match.group(1).upper() if match else None


def normalize_ror(value: str | None) -> str | None:
    if not value:
        return None
    return value.strip().rstrip("/").rsplit("/", 1)[-1].lower() or None


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
            f"field 'abstract_inverted_index' is {_type_name(index)}, expected an object"
        )
    if isinstance(index.get("InvertedIndex"), dict):
        index = index[
            "InvertedIndex"
        ]  # 2021 snapshots kept the MAG shape {IndexLength, InvertedIndex}
    positioned: dict[int, str] = {}
    for word, positions in index.items():
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


def email_domain_from(homepage: str) -> tuple[str, ...]:
    host = (urlsplit(homepage).hostname or "") if homepage else ""
    host = host.lower().removeprefix("www.")
    return (host,) if "." in host else ()


_INSTITUTION_REFS: dict[tuple, InstitutionRef] = {}


def _institution_ref(obj: object) -> InstitutionRef | None:
    if not isinstance(obj, dict) or not obj.get("id"):
        return None
    # The same institution is listed on many bylines: refs are immutable, so one is shared.
    key = (
        obj["id"],
        obj.get("display_name"),
        obj.get("ror"),
        obj.get("country_code"),
        obj.get("type"),
    )
    try:
        ref = _INSTITUTION_REFS.get(key)
    except TypeError:  # an unhashable field value: build it without the cache
        key, ref = None, None
    if ref is None:
        ref = InstitutionRef(
            openalex_id=openalex_short_id(obj["id"], kind="I"),
            name=str(obj.get("display_name") or ""),
            ror=normalize_ror(obj.get("ror")),
            country_code=str(obj.get("country_code") or "")[:2],
            type=str(obj.get("type") or ""),
        )
        if key is not None:
            if len(_INSTITUTION_REFS) >= _CACHE_LIMIT:
                _INSTITUTION_REFS.clear()
            _INSTITUTION_REFS[key] = ref
    return ref


def _source_record(obj: object) -> SourceRecord | None:
    if not isinstance(obj, dict) or not obj.get("id") or not obj.get("display_name"):
        return None
    return SourceRecord(
        openalex_id=openalex_short_id(obj["id"], kind="S"),
        name=str(obj["display_name"]),
        abbreviated_name=str(obj.get("abbreviated_title") or ""),
        issn_l=str(obj.get("issn_l") or ""),
        type=str(obj.get("type") or ""),
        homepage=str(obj.get("homepage_url") or ""),
    )


_TOPIC_KEYS: dict[str, tuple[str, str, str]] = {}


def _topic_key(value: str) -> tuple[str, str, str]:
    """External id, level and code of a topic or hierarchy id (memoised: topics repeat)."""
    key = _TOPIC_KEYS.get(value)
    if key is None:
        key = _parse_topic_key(value)
        if len(_TOPIC_KEYS) >= _CACHE_LIMIT:
            _TOPIC_KEYS.clear()
        _TOPIC_KEYS[value] = key
    return key


def _parse_topic_key(value: str) -> tuple[str, str, str]:
    value = value.strip()
    if value.startswith("arxiv:"):
        return value, "category", value.removeprefix("arxiv:")
    path = re.sub(r"^https?://openalex\.org/", "", value)
    for level in ("domains", "fields", "subfields"):
        if path.startswith(f"{level}/"):
            return path, level[:-1], ""
    if _OPENALEX_ID.match(path) and path.upper().startswith("T"):
        return path.upper(), "topic", ""
    raise MappingError(f"topic id {value!r} is not an OpenAlex topic id nor an arxiv: category")


def _topic_with_ancestors(obj: dict[str, Any]) -> tuple[TopicRecord, tuple[TopicRecord, ...]]:
    ancestors: list[TopicRecord] = []
    parent_id: str | None = None
    for level in ("domain", "field", "subfield"):
        node = obj.get(level)
        if isinstance(node, dict) and node.get("id") and node.get("display_name"):
            external_id, node_level, _ = _topic_key(str(node["id"]))
            ancestors.append(
                TopicRecord(
                    external_id=external_id,
                    name=str(node["display_name"]),
                    level=node_level,
                    parent_external_id=parent_id,
                )
            )
            parent_id = external_id
    if not obj.get("id"):
        raise MappingError("topic has no id")
    external_id, level, code = _topic_key(str(obj["id"]))
    topic = TopicRecord(
        external_id=external_id,
        name=str(obj.get("display_name") or code or external_id),
        level=level,
        code=code,
        parent_external_id=parent_id,
        description=str(obj.get("description") or ""),
    )
    return topic, tuple(ancestors)


def _updated_at(obj: dict[str, Any]) -> str | None:
    """OpenAlex's updated_date ('2025-06-11T00:03:37.532706' or '2023-04-21'), validated."""
    value = obj.get("updated_date") or obj.get("updated")
    if not isinstance(value, str):
        return None
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return None
    return value


def _require_object(obj: object) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise MappingError(f"record is {_type_name(obj)}, expected an object")
    if not obj.get("id"):
        raise MappingError("record has no id")
    return obj


def map_work(obj: object) -> WorkRecord:
    work = _require_object(obj)
    openalex_id = openalex_short_id(work["id"], kind="W")
    title = _field(work, "title", str) or _field(work, "display_name", str) or ""
    if not title.strip():
        raise MappingError("work has no title")
    authorships_raw = _field(work, "authorships", list, [])
    locations = _field(work, "locations", list, [])
    primary_location = _field(work, "primary_location", dict)
    source = _source_record(primary_location.get("source")) if primary_location else None
    if source is None and isinstance(work.get("host_venue"), dict):
        source = _source_record(work["host_venue"])

    doi = normalize_doi(_field(work, "doi", str)) or normalize_doi(
        _field(_field(work, "ids", dict, {}), "doi", str)
    )
    urls = [
        str(location.get(key) or "")
        for location in [primary_location or {}, *locations]
        if isinstance(location, dict)
        for key in ("landing_page_url", "pdf_url")
    ]
    abstract = abstract_from_inverted_index(work.get("abstract_inverted_index"))
    open_access = _field(work, "open_access", dict, {})

    corresponding_ids = set(_field(work, "corresponding_author_ids", list, []))
    authorships = []
    for position, authorship in enumerate(authorships_raw, start=1):
        if not isinstance(authorship, dict):
            raise MappingError(
                f"authorship {position} is {_type_name(authorship)}, expected an object"
            )
        author_obj = _field(authorship, "author", dict, {})
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
            for ref in map(_institution_ref, _field(authorship, "institutions", list, []))
            if ref
        )
        authorships.append(
            AuthorshipRecord(
                position=position,
                raw_name=raw_name,
                author=author,
                institutions=tuple(dict.fromkeys(institutions)),
                is_corresponding=bool(authorship.get("is_corresponding"))
                or bool(author_obj.get("id") and author_obj["id"] in corresponding_ids),
            )
        )

    topics: dict[str, WorkTopicRecord] = {}
    for topic_obj in _field(work, "topics", list, []):
        if not isinstance(topic_obj, dict):
            raise MappingError(f"a topic is {_type_name(topic_obj)}, expected an object")
        topic, ancestors = _topic_with_ancestors(topic_obj)
        score = topic_obj.get("score", 1.0)
        if not isinstance(score, int | float) or isinstance(score, bool):
            raise MappingError(f"topic score is {_type_name(score)}, expected a number")
        topics.setdefault(
            topic.external_id, WorkTopicRecord(topic=topic, score=float(score), ancestors=ancestors)
        )

    counts = []
    for entry in _field(work, "counts_by_year", list, []):
        if isinstance(entry, dict) and isinstance(entry.get("year"), int):
            counts.append((entry["year"], int(entry.get("cited_by_count") or 0)))

    publication_date = _field(work, "publication_date", str)
    try:
        parsed_date = date.fromisoformat(publication_date) if publication_date else None
    except ValueError:
        parsed_date = None
    publication_year = _field(work, "publication_year", int) or (
        parsed_date.year if parsed_date else None
    )
    work_type = str(_field(work, "type", str) or "other")
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
        cited_by_count=_field(work, "cited_by_count", int, 0),
        counts_by_year=tuple(sorted(counts)),
        open_access_url=str(open_access.get("oa_url") or "")[:1000],
        code_url=code_match.group(0).rstrip(".") if code_match else "",
        language=str(_field(work, "language", str, ""))[:10],
        authorships=tuple(authorships),
        topics=tuple(topics.values()),
        source_updated_at=_updated_at(work),
    )


def map_author(obj: object) -> ResearcherRecord:
    author = _require_object(obj)
    openalex_id = openalex_short_id(author["id"], kind="A")
    display_name = _field(author, "display_name", str, "").strip()
    if not display_name:
        raise MappingError("author has no display_name")
    if display_name == "Deleted Author" and not author.get("works_count"):
        raise MappingError("OpenAlex placeholder for a deleted author, with no works")
    alternates = [
        name.strip()
        for name in _field(author, "display_name_alternatives", list, [])
        if isinstance(name, str) and name.strip() and name.strip() != display_name
    ]
    last_known = _field(author, "last_known_institutions", list, [])
    if not last_known and isinstance(author.get("last_known_institution"), dict):
        last_known = [author["last_known_institution"]]
    affiliations = []
    for affiliation in _field(author, "affiliations", list, []):
        if not isinstance(affiliation, dict):
            continue
        institution = _institution_ref(affiliation.get("institution"))
        years = [year for year in affiliation.get("years") or [] if isinstance(year, int)]
        if institution:
            affiliations.append(
                AffiliationRecord(
                    institution=institution,
                    start_year=min(years) if years else None,
                    end_year=max(years) if years else None,
                )
            )
    orcid = normalize_orcid(_field(author, "orcid", str)) or normalize_orcid(
        _field(_field(author, "ids", dict, {}), "orcid", str)
    )
    return ResearcherRecord(
        openalex_id=openalex_id,
        display_name=display_name,
        alternate_names=tuple(dict.fromkeys(alternates)),
        orcid=orcid,
        last_known_institution=_institution_ref(last_known[0]) if last_known else None,
        affiliations=tuple(dict.fromkeys(affiliations)),
        source_updated_at=_updated_at(author),
    )


def map_institution(obj: object) -> InstitutionRecord:
    institution = _require_object(obj)
    openalex_id = openalex_short_id(institution["id"], kind="I")
    name = _field(institution, "display_name", str, "").strip()
    if not name:
        raise MappingError("institution has no display_name")
    homepage = _field(institution, "homepage_url", str, "")[:500]
    return InstitutionRecord(
        openalex_id=openalex_id,
        name=name,
        ror=normalize_ror(_field(institution, "ror", str)),
        country_code=_field(institution, "country_code", str, "")[:2],
        type=_field(institution, "type", str, ""),
        homepage=homepage,
        email_domains=email_domain_from(homepage),
        source_updated_at=_updated_at(institution),
    )


def map_source(obj: object) -> SourceRecord:
    source = _require_object(obj)
    openalex_id_of_source = openalex_short_id(source["id"], kind="S")
    name = _field(source, "display_name", str, "").strip()
    if not name:
        raise MappingError("source has no display_name")
    return SourceRecord(
        openalex_id=openalex_id_of_source,
        name=name,
        abbreviated_name=_field(source, "abbreviated_title", str, "")[:200],
        issn_l=_field(source, "issn_l", str, "")[:9],
        type=_field(source, "type", str, ""),
        homepage=_field(source, "homepage_url", str, "")[:500],
        source_updated_at=_updated_at(source),
    )


def map_topic(obj: object) -> tuple[TopicRecord, tuple[TopicRecord, ...]]:
    topic = _require_object(obj)
    if not _field(topic, "display_name", str, "").strip():
        raise MappingError("topic has no display_name")
    record, ancestors = _topic_with_ancestors(topic)
    return dataclasses.replace(record, source_updated_at=_updated_at(topic)), ancestors


def entity_of_id(value: object) -> str | None:
    """The entity an OpenAlex id belongs to ('works' for W...), or None when it is not one."""
    if not isinstance(value, str):
        return None
    match = _OPENALEX_ID.match(value.strip())
    if not match:
        return None
    letter = match.group(1)[0].upper()
    letter = "S" if letter == "V" else letter
    return next((entity for entity, prefix in ENTITY_PREFIXES.items() if prefix == letter), None)


def short_id_or_raw(value: object) -> str:
    """The short OpenAlex id when value is one, else value as text (for issue reports)."""
    if not isinstance(value, str):
        return ""
    match = _OPENALEX_ID.match(value.strip())
    return match.group(1).upper() if match else value
