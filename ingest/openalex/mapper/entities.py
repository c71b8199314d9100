"""OpenAlex authors, institutions, sources and topics -> plain records: as records of their own
and as the references a work's byline, venue and topics make to them. Pure functions."""

from __future__ import annotations

import dataclasses
import re
from typing import Any
from urllib.parse import urlsplit

from ingest.records import (
    OPENALEX,
    AffiliationRecord,
    InstitutionRecord,
    InstitutionRef,
    MappingError,
    ResearcherRecord,
    SourceRecord,
    StatedFigures,
    TopicRecord,
    TopicWithAncestors,
)

from .fields import (
    CACHE_LIMIT,
    OPENALEX_ID,
    normalize_orcid,
    normalize_ror,
    openalex_short_id,
    require_object,
    source_updated_at,
    typed_field,
)

_INSTITUTION_REFS: dict[tuple[Any, ...], InstitutionRef] = {}
_TOPIC_KEYS: dict[str, tuple[str, str, str]] = {}


def email_domain_from(homepage: str) -> tuple[str, ...]:
    host = (urlsplit(homepage).hostname or "") if homepage else ""
    host = host.lower().removeprefix("www.")
    return (host,) if "." in host else ()


def institution_ref(obj: object) -> InstitutionRef | None:
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
        return _new_institution_ref(obj)
    if ref is None:
        ref = _new_institution_ref(obj)
        if len(_INSTITUTION_REFS) >= CACHE_LIMIT:
            _INSTITUTION_REFS.clear()
        _INSTITUTION_REFS[key] = ref
    return ref


def _new_institution_ref(obj: dict[str, Any]) -> InstitutionRef:
    return InstitutionRef(
        openalex_id=openalex_short_id(obj["id"], kind="I"),
        name=str(obj.get("display_name") or ""),
        ror=normalize_ror(obj.get("ror")),
        country_code=str(obj.get("country_code") or "")[:2],
        type=str(obj.get("type") or ""),
    )


def source_ref(obj: object) -> SourceRecord | None:
    """The venue a work names (its primary location's source, or the legacy host_venue)."""
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


def _topic_key(value: str) -> tuple[str, str, str]:
    """External id, level and code of a topic or hierarchy id (memoised: topics repeat)."""
    key = _TOPIC_KEYS.get(value)
    if key is None:
        key = _parse_topic_key(value)
        if len(_TOPIC_KEYS) >= CACHE_LIMIT:
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
    if OPENALEX_ID.match(path) and path.upper().startswith("T"):
        return path.upper(), "topic", ""
    raise MappingError(f"topic id {value!r} is not an OpenAlex topic id nor an arxiv: category")


def topic_with_ancestors(obj: dict[str, Any]) -> tuple[TopicRecord, tuple[TopicRecord, ...]]:
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


def _count(value: object) -> int | None:
    """A non-negative whole number as OpenAlex states it, or None (bool is not a count)."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**31:
        return value
    return None


def _mean(value: object) -> float | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1e9:
        return float(value)
    return None


def stated_figures(author: dict[str, Any]) -> StatedFigures | None:
    """What OpenAlex states for the author's whole record (works_count, cited_by_count and
    summary_stats' h_index, i10_index and 2yr_mean_citedness), as of the record's updated_date;
    None when it states none of them."""
    summary = typed_field(author, "summary_stats", dict, {})
    figures = StatedFigures(
        source=OPENALEX,
        as_of=(source_updated_at(author) or "")[:10] or None,
        works_count=_count(author.get("works_count")),
        cited_by_count=_count(author.get("cited_by_count")),
        h_index=_count(summary.get("h_index")),
        i10_index=_count(summary.get("i10_index")),
        two_year_mean_citedness=_mean(summary.get("2yr_mean_citedness")),
    )
    stated = (
        figures.works_count,
        figures.cited_by_count,
        figures.h_index,
        figures.i10_index,
        figures.two_year_mean_citedness,
    )
    return figures if any(value is not None for value in stated) else None


def map_author(obj: object) -> ResearcherRecord:
    author = require_object(obj)
    openalex_id = openalex_short_id(author["id"], kind="A")
    display_name = typed_field(author, "display_name", str, "").strip()
    if not display_name:
        raise MappingError("author has no display_name")
    if display_name == "Deleted Author" and not author.get("works_count"):
        raise MappingError("OpenAlex placeholder for a deleted author, with no works")
    alternates = [
        name.strip()
        for name in typed_field(author, "display_name_alternatives", list, [])
        if isinstance(name, str) and name.strip() and name.strip() != display_name
    ]
    last_known = typed_field(author, "last_known_institutions", list, [])
    if not last_known and isinstance(author.get("last_known_institution"), dict):
        last_known = [author["last_known_institution"]]
    affiliations = []
    for affiliation in typed_field(author, "affiliations", list, []):
        if not isinstance(affiliation, dict):
            continue
        institution = institution_ref(affiliation.get("institution"))
        years = [year for year in affiliation.get("years") or [] if isinstance(year, int)]
        if institution:
            affiliations.append(
                AffiliationRecord(
                    institution=institution,
                    start_year=min(years) if years else None,
                    end_year=max(years) if years else None,
                )
            )
    orcid = normalize_orcid(typed_field(author, "orcid", str)) or normalize_orcid(
        typed_field(typed_field(author, "ids", dict, {}), "orcid", str)
    )
    return ResearcherRecord(
        openalex_id=openalex_id,
        display_name=display_name,
        alternate_names=tuple(dict.fromkeys(alternates)),
        orcid=orcid,
        last_known_institution=institution_ref(last_known[0]) if last_known else None,
        affiliations=tuple(dict.fromkeys(affiliations)),
        source_updated_at=source_updated_at(author),
        stated_figures=stated_figures(author),
    )


def map_institution(obj: object) -> InstitutionRecord:
    institution = require_object(obj)
    openalex_id = openalex_short_id(institution["id"], kind="I")
    name = typed_field(institution, "display_name", str, "").strip()
    if not name:
        raise MappingError("institution has no display_name")
    homepage = typed_field(institution, "homepage_url", str, "")[:500]
    return InstitutionRecord(
        openalex_id=openalex_id,
        name=name,
        ror=normalize_ror(typed_field(institution, "ror", str)),
        country_code=typed_field(institution, "country_code", str, "")[:2],
        type=typed_field(institution, "type", str, ""),
        homepage=homepage,
        email_domains=email_domain_from(homepage),
        source_updated_at=source_updated_at(institution),
    )


def map_source(obj: object) -> SourceRecord:
    source = require_object(obj)
    openalex_id_of_source = openalex_short_id(source["id"], kind="S")
    name = typed_field(source, "display_name", str, "").strip()
    if not name:
        raise MappingError("source has no display_name")
    return SourceRecord(
        openalex_id=openalex_id_of_source,
        name=name,
        abbreviated_name=typed_field(source, "abbreviated_title", str, "")[:200],
        issn_l=typed_field(source, "issn_l", str, "")[:9],
        type=typed_field(source, "type", str, ""),
        homepage=typed_field(source, "homepage_url", str, "")[:500],
        source_updated_at=source_updated_at(source),
    )


def map_topic(obj: object) -> TopicWithAncestors:
    topic = require_object(obj)
    if not typed_field(topic, "display_name", str, "").strip():
        raise MappingError("topic has no display_name")
    record, ancestors = topic_with_ancestors(topic)
    return TopicWithAncestors(
        dataclasses.replace(record, source_updated_at=source_updated_at(topic)), ancestors
    )
