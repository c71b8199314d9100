"""How a listed work's date, category, byline and institution read (issue 24, items 10-12), as
the reference pages show them: "Nov 12, 2023", "NI", "Chenyu Wang, Zhen Dong, Daquan Zhou et al.
· berkeley". Pure functions of a listing's row (publications.selectors.ListedWork), so a list of
twenty works costs no query for them; the templates escape what they return."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def work_date_label(
    date: datetime.date | None, precision: str | None, year: int | None
) -> tuple[str, str]:
    """(label, ISO value for <time datetime>) of a work's date as far as the sources know it:
    "Nov 12, 2023" for a full date (precision '' or 'day'), "Nov 2023" for a month, "2023" for
    a year alone; ("", "") when nothing is known."""
    if date is not None and precision in ("", "day", None):
        return f"{_MONTHS[date.month - 1]} {date.day}, {date.year}", date.isoformat()
    if date is not None and precision == "month":
        return f"{_MONTHS[date.month - 1]} {date.year}", f"{date.year:04d}-{date.month:02d}"
    shown_year = year or (date.year if date is not None else None)
    if shown_year:
        return str(shown_year), f"{shown_year:04d}"
    return "", ""


def category_tag(code: str) -> str:
    """The short tag of an arXiv category, as the reference shows it: "cs.NI" gives "NI",
    "physics.app-ph" "APP-PH"; an old-style archive ("hep-th") is the whole code."""
    return code.rsplit(".", 1)[-1].upper() if code else ""


@dataclass(frozen=True, slots=True)
class WorkCategories:
    """A work's primary category (the strongest category-level topic, or None) and its other
    topics in the listing's order."""

    primary: dict[str, Any] | None
    others: list[dict[str, Any]]


def work_categories(topics: list[dict[str, Any]]) -> WorkCategories:
    primary = next((t for t in topics if t.get("level") == "category" and t.get("code")), None)
    return WorkCategories(primary=primary, others=[t for t in topics if t is not primary])


# Second-level labels that say what kind of domain it is, not whose: "tsinghua.edu.cn".
_GENERIC_LABELS = {"ac", "co", "com", "edu", "gov", "net", "org", "or", "ne", "go", "re"}


def institution_short_name(name: str, email_domain: str | None) -> str:
    """The short name a byline shows for an institution: the owner's label of its domain
    ("berkeley.edu" gives "berkeley", "tsinghua.edu.cn" "tsinghua"), its name without one."""
    labels = [label for label in (email_domain or "").lower().split(".") if label]
    if len(labels) >= 2:
        labels = labels[:-1]
        if len(labels) >= 2 and labels[-1] in _GENERIC_LABELS:
            labels = labels[:-1]
        return labels[-1]
    return name


@dataclass(frozen=True, slots=True)
class CompactByline:
    """The start of a byline as a list shows it: `shown` authors in order, `gap_before_own`
    when the profile's own author comes after an omitted stretch, `et_al` when authors follow
    that are not shown."""

    shown: list[dict[str, Any]]
    gap_before_own: bool
    et_al: bool


BYLINE_FIRST_AUTHORS = 3


def compact_byline(
    listed_authors: list[dict[str, Any]],
    authors_count: int,
    own_author: dict[str, Any] | None = None,
    first: int = BYLINE_FIRST_AUTHORS,
) -> CompactByline:
    """The first `first` authors, then the profile's own author if they are not among them
    (own_author: their byline slot, with its position), and "et al." when more authors exist."""
    total = max(authors_count, len(listed_authors))
    shown = list(listed_authors[:first])
    gap = False
    if own_author is not None and own_author.get("position", 0) > len(shown):
        gap = own_author["position"] > len(shown) + 1
        shown.append(own_author)
    last_position = own_author["position"] if own_author and shown[-1] is own_author else len(shown)
    return CompactByline(shown=shown, gap_before_own=gap, et_al=total > max(last_position, 0))
