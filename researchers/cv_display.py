"""How a researcher's CV reads on a page: its entries grouped into the headings a CV uses
(the seeds' "Experience", "Education", "Awards"), dates with the precision the source gave,
and the source named on each entry. Pure: the rows come from a selector's one query.

ORCID's eight sections fold into four headings: an invited position is experience, a
qualification (a certificate, a licence) sits with education, a funding is listed with the
awards, and services and memberships make their own heading.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .models import CvSection

CV_HEADINGS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Experience", (CvSection.EMPLOYMENT, CvSection.INVITED_POSITION)),
    ("Education", (CvSection.EDUCATION, CvSection.QUALIFICATION)),
    ("Awards", (CvSection.DISTINCTION, CvSection.FUNDING)),
    ("Service", (CvSection.SERVICE, CvSection.MEMBERSHIP)),
)
# Sections that describe a span of time: no end date means it goes on.
_ONGOING_SECTIONS: frozenset[str] = frozenset(
    (CvSection.EMPLOYMENT, CvSection.EDUCATION, CvSection.INVITED_POSITION, CvSection.SERVICE)
)
# The section named on an entry when it is not the heading's own kind.
_KIND_LABELS: dict[str, str] = {
    CvSection.INVITED_POSITION: "Invited position",
    CvSection.QUALIFICATION: "Qualification",
    CvSection.FUNDING: "Funding",
    CvSection.MEMBERSHIP: "Membership",
}
SOURCE_LABELS = {"orcid": "ORCID", "claimant": "the researcher"}
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


@dataclass(frozen=True, slots=True)
class CvItem:
    id: int
    section: str
    organisation: str
    role: str
    department: str
    place: str
    dates: str
    url: str
    amount: str
    source: str
    source_label: str
    kind_label: str
    hidden: bool


@dataclass(frozen=True, slots=True)
class CvHeading:
    title: str
    slug: str
    items: tuple[CvItem, ...]


def partial_date_text(year: int | None, month: int | None, day: int | None) -> str:
    """'2018', 'Mar 2018' or '12 Mar 2018': as precise as the source was, never more."""
    if not year:
        return ""
    if month and 1 <= month <= 12:
        month_year = f"{_MONTHS[month - 1]} {year}"
        return f"{day} {month_year}" if day else month_year
    return str(year)


def cv_dates(row: Mapping[str, Any]) -> str:
    start = partial_date_text(row.get("start_year"), row.get("start_month"), row.get("start_day"))
    end = partial_date_text(row.get("end_year"), row.get("end_month"), row.get("end_day"))
    if start and end:
        return start if start == end else f"{start} – {end}"
    if start:
        return f"{start} – present" if row.get("section") in _ONGOING_SECTIONS else start
    return end


def cv_item(row: Mapping[str, Any]) -> CvItem:
    section = str(row.get("section") or "")
    source = str(row.get("source") or "")
    amount = " ".join(part for part in (row.get("amount"), row.get("currency")) if part)
    return CvItem(
        id=int(row["id"]),
        section=section,
        organisation=str(row.get("organisation") or ""),
        role=str(row.get("role") or ""),
        department=str(row.get("department") or ""),
        place=", ".join(
            str(part) for part in (row.get("city"), row.get("region"), row.get("country")) if part
        ),
        dates=cv_dates(row),
        url=str(row.get("url") or ""),
        amount=amount,
        source=source,
        source_label=SOURCE_LABELS.get(source, source),
        kind_label=_KIND_LABELS.get(section, ""),
        hidden=bool(row.get("hidden")),
    )


def cv_headings(rows: Iterable[Mapping[str, Any]]) -> tuple[CvHeading, ...]:
    """The non-empty headings in CV order, each with its entries in the order the rows came
    (the selector orders them: the source's display order, then the most recent first)."""
    items = [cv_item(row) for row in rows]
    headings = []
    for title, sections in CV_HEADINGS:
        in_heading = tuple(item for item in items if item.section in sections)
        if in_heading:
            headings.append(CvHeading(title=title, slug=title.lower(), items=in_heading))
    return tuple(headings)
