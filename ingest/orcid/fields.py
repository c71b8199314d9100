"""Small readers of ORCID's JSON conventions, shared by the person, activity and work parsers.

ORCID wraps most scalars as {"value": ...}, spells visibility "public" in v3.0 and "PUBLIC" in
v2.x, and the relationship of an external id "self" or "SELF". These helpers hide the
differences so the parsers read one shape.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ingest.records import PartialDate
from ingest.records import partial_date as make_partial_date

_ORCID_ID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])", re.IGNORECASE)


def value_of(obj: object) -> Any:
    """ORCID's {"value": x} -> x; a bare scalar as it is; anything else None."""
    if isinstance(obj, dict):
        return obj.get("value")
    return obj


def text_of(obj: object) -> str:
    value = value_of(obj)
    if value is None:
        return ""
    return " ".join(str(value).split())


def as_dict(obj: object) -> dict[str, Any]:
    return obj if isinstance(obj, dict) else {}


def as_list(obj: object) -> list[Any]:
    return obj if isinstance(obj, list) else []


def is_public(item: dict[str, Any]) -> bool:
    """Only public items are imported. Member-API write payloads carry no visibility: what a
    client sends is not yet anyone's record, so it is read as public."""
    visibility = item.get("visibility")
    return visibility is None or str(visibility).lower() == "public"


def display_index(item: dict[str, Any]) -> int:
    raw = item.get("display-index")
    if not isinstance(raw, int | str):
        return 0
    try:
        return int(raw)
    except (TypeError, ValueError):
        return 0


def put_code(item: dict[str, Any]) -> int | None:
    raw = item.get("put-code")
    if not isinstance(raw, int | str):
        return None
    try:
        return int(raw)
    except (TypeError, ValueError):
        return None


def partial_date(obj: object) -> PartialDate | None:
    """ORCID's fuzzy date {year:{value}, month:{value}|null, day:{value}|null}, precision kept."""
    if not isinstance(obj, dict):
        return None
    return make_partial_date(
        value_of(obj.get("year")), value_of(obj.get("month")), value_of(obj.get("day"))
    )


def orcid_checksum_valid(orcid: str) -> bool:
    """ISO 7064 MOD 11-2, the check character ORCID puts last (X stands for 10)."""
    digits = orcid.replace("-", "").upper()
    if len(digits) != 16 or not digits[:15].isdigit():
        return False
    total = 0
    for char in digits[:15]:
        total = (total + int(char)) * 2
    check = (12 - total % 11) % 11
    return digits[15] == ("X" if check == 10 else str(check))


def normalize_orcid(value: object) -> str | None:
    """The bare iD (0000-0002-1825-0097) from an iD, a URI or a path; None when malformed."""
    if not isinstance(value, str):
        return None
    match = _ORCID_ID.search(value)
    return match.group(1).upper() if match else None


@dataclass(frozen=True, slots=True)
class OrcidExternalId:
    type: str
    value: str
    relationship: str = ""  # "self", "part-of", "version-of", "funded-by" or ""
    url: str = ""
    normalized: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """What ORCID compares when it groups: the type and the normalised value."""
        return (self.type, self.normalized or self.value.strip().lower())


def external_ids(obj: object) -> tuple[OrcidExternalId, ...]:
    """external-ids.external-id[] (works, fundings, affiliations) or a person's identifiers."""
    container = as_dict(obj)
    items = container.get("external-id", obj if isinstance(obj, list) else [])
    found = []
    for item in as_list(items):
        if not isinstance(item, dict):
            continue
        id_type = str(item.get("external-id-type") or "").strip().lower()
        id_value = str(item.get("external-id-value") or "").strip()
        if not id_type or not id_value:
            continue
        found.append(
            OrcidExternalId(
                type=id_type,
                value=id_value,
                relationship=str(item.get("external-id-relationship") or "")
                .lower()
                .replace("_", "-"),
                url=text_of(item.get("external-id-url")),
                normalized=text_of(item.get("external-id-normalized")),
            )
        )
    return tuple(found)
