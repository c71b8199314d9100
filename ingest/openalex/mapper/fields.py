"""Reading OpenAlex JSON safely: typed field access, OpenAlex ids, and the normal forms of the
identifiers we store (DOI, ORCID iD, ROR). Pure functions, no database."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from ingest.records import MappingError

ENTITY_PREFIXES = {"works": "W", "authors": "A", "institutions": "I", "sources": "S", "topics": "T"}
SUPPORTED_ENTITIES = tuple(ENTITY_PREFIXES)
OPENALEX_ID = re.compile(r"^(?:https?://openalex\.org/)?([WAISTVPFC]\d+)$", re.IGNORECASE)
_ORCID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$")
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:)", re.IGNORECASE)
_TYPE_NAMES = {
    dict: "an object",
    list: "a list",
    str: "a string",
    int: "a number",
    float: "a number",
}
_KIND_NAMES = {
    "W": "a work",
    "A": "an author",
    "I": "an institution",
    "S": "a source",
    "T": "a topic",
}
# Values repeat across records (ids of authors, institutions, venues, topics): the mappers
# memoise what they parse from them. Bounded, and a pure function's cache, so it changes
# nothing but speed.
CACHE_LIMIT = 100_000


def type_name(value: object) -> str:
    """The JSON type of a value, as an error message names it ('a string', 'null'...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def typed_field(
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
            f"field '{key}' is {type_name(value)}, expected {_expected_name(expected)}"
        )
    return value


def _expected_name(expected: type | tuple[type, ...]) -> str:
    first = expected[0] if isinstance(expected, tuple) else expected
    return _TYPE_NAMES.get(first, first.__name__)


def require_object(obj: object) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise MappingError(f"record is {type_name(obj)}, expected an object")
    if not obj.get("id"):
        raise MappingError("record has no id")
    return obj


def source_updated_at(obj: dict[str, Any]) -> str | None:
    """OpenAlex's updated_date ('2025-06-11T00:03:37.532706' or '2023-04-21'), validated."""
    value = obj.get("updated_date") or obj.get("updated")
    if not isinstance(value, str):
        return None
    try:
        datetime.fromisoformat(value)
    except ValueError:
        return None
    return value


_SHORT_IDS: dict[str, str] = {}


def openalex_short_id(value: object, *, kind: str | None = None) -> str:
    """'https://openalex.org/W123' -> 'W123'; kind ('W', 'A'...) is checked when given."""
    if not isinstance(value, str):
        raise MappingError(f"id is {type_name(value)}, expected a string")
    short_id = _SHORT_IDS.get(value)
    if short_id is None:
        match = OPENALEX_ID.match(value.strip())
        if not match:
            raise MappingError(f"id {value!r} is not an OpenAlex id")
        short_id = match.group(1).upper()
        if len(_SHORT_IDS) >= CACHE_LIMIT:
            _SHORT_IDS.clear()
        _SHORT_IDS[value] = short_id
    if kind and short_id[0] != kind and not (kind == "S" and short_id[0] == "V"):
        raise MappingError(f"id {short_id} is not {_KIND_NAMES[kind]} id")
    return short_id


def entity_of_id(value: object) -> str | None:
    """The entity an OpenAlex id belongs to ('works' for W...), or None when it is not one."""
    if not isinstance(value, str):
        return None
    match = OPENALEX_ID.match(value.strip())
    if not match:
        return None
    letter = match.group(1)[0].upper()
    letter = "S" if letter == "V" else letter
    return next((entity for entity, prefix in ENTITY_PREFIXES.items() if prefix == letter), None)


def short_id_or_raw(value: object) -> str:
    """The short OpenAlex id when value is one, else value as text (for issue reports)."""
    if not isinstance(value, str):
        return ""
    match = OPENALEX_ID.match(value.strip())
    return match.group(1).upper() if match else value


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
