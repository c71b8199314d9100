"""How a record finds its work and its authors: the normal forms the writer compares.

Pure functions, no database. A work is the same work when it has the same DOI (normalised),
else the same arXiv id (no version), else, only when the record has neither, the same
title_key: normalised title, year and first author's normalised family name.
"""

from __future__ import annotations

import re
import unicodedata

from researchers.names import normalize_name

from ..records import WorkRecord

# arXiv's DataCite DOIs name the preprint: 10.48550/arXiv.2101.00001 is arXiv id 2101.00001.
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_ID = re.compile(
    r"^(?:arxiv:)?((?:\d{4}\.\d{4,5})|(?:[a-z][a-z.-]*(?:\.[a-z]{2})?/\d{7}))(?:v\d+)?$",
    re.IGNORECASE,
)
_ORCID_DIGITS = re.compile(r"^\d{4}-\d{4}-\d{4}-\d{3}[\dX]$")


def normalize_arxiv_id(value: str | None) -> str | None:
    """'arXiv:2101.00001v2' -> '2101.00001'; 'hep-th/9901001v1' -> 'hep-th/9901001'; None if
    it is not an arXiv id. Old-style archive names are lower case."""
    if not value:
        return None
    text = value.strip()
    for prefix in ("https://arxiv.org/abs/", "http://arxiv.org/abs/", "arxiv.org/abs/"):
        if text.lower().startswith(prefix):
            text = text[len(prefix) :]
    match = _ARXIV_ID.match(text)
    if not match:
        return None
    found = match.group(1)
    return found.lower() if "/" in found else found


def arxiv_id_of_doi(doi: str | None) -> str | None:
    """The arXiv id an arXiv DataCite DOI names, or None."""
    match = _ARXIV_DOI.match(doi or "")
    return normalize_arxiv_id(match.group(1)) if match else None


def is_publisher_doi(doi: str | None) -> bool:
    """A DOI of a published version (not arXiv's DataCite DOI of the preprint)."""
    return bool(doi) and arxiv_id_of_doi(doi) is None


def orcid_is_valid(orcid: str | None) -> bool:
    """The ORCID iD's check digit is right (ISO 7064 MOD 11-2), as ORCID computes it."""
    if not orcid or not _ORCID_DIGITS.match(orcid):
        return False
    digits = orcid.replace("-", "")
    total = 0
    for digit in digits[:-1]:
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    return digits[-1] == ("X" if check == 10 else str(check))


def family_name_key(*, family_name: str, display_name: str) -> str:
    """The family name, normalised; from the display name's last word when not given
    ('Wübben, Dirk' and 'Dirk Wübben' both give 'wubben')."""
    if family_name.strip():
        return normalize_name(family_name).replace(" ", "")
    name = display_name.strip()
    if "," in name:
        return normalize_name(name.split(",", 1)[0]).replace(" ", "")
    words = normalize_name(name).split()
    return words[-1] if words else ""


def _title_words(title: str) -> str:
    text = unicodedata.normalize("NFKC", title)
    return normalize_name(text)


def title_key(record: WorkRecord) -> str | None:
    """'<title words>|<year>|<first author family name>', or None without a title or year.
    A title of fewer than three characters is too weak to match on."""
    words = _title_words(record.title)
    year = record.published.year if record.published else record.publication_year
    if len(words) < 3 or not year:
        return None
    first = min(record.authorships, key=lambda a: a.position, default=None)
    family = ""
    if first is not None:
        author = first.author
        family = family_name_key(
            family_name=author.family_name if author else "",
            display_name=(author.display_name if author else "") or first.raw_name,
        )
    return f"{words[:250]}|{year}|{family[:40]}"
