"""Conflicts of interest among a list of researchers (recent joint works, shared current
institutions), and the resolution of the pasted lines that name them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from bzpeer.db import read_connection
from researchers.models import Affiliation, Institution, Researcher
from researchers.name_search import researchers_matching_name
from researchers.selectors import researchers_public

from .researcher_refs import researcher_ref

COI_DEFAULT_YEARS = 3
COI_MAX_RESEARCHERS = 50
COI_WORKS_PER_PAIR = 10

_COI_WORKS_SQL = """
SELECT DISTINCT x.researcher_id, y.researcher_id, w.id, w.title, w.publication_year
FROM publications_authorship x
JOIN publications_authorship y ON y.work_id = x.work_id AND y.researcher_id > x.researcher_id
JOIN publications_work w ON w.id = x.work_id
WHERE x.researcher_id = ANY(%(ids)s) AND y.researcher_id = ANY(%(ids)s)
  AND w.publication_year >= %(since)s
ORDER BY x.researcher_id, y.researcher_id, w.publication_year DESC, w.id DESC
"""


@dataclass(frozen=True)
class Resolved:
    """One line of a COI request and the record it names, if any."""

    query: str
    researcher: Researcher | None
    how: str


_ORCID = re.compile(r"([0-9]{4}-[0-9]{4}-[0-9]{4}-[0-9]{3}[0-9X])", re.IGNORECASE)
_OPENALEX_AUTHOR = re.compile(r"^(?:https?://openalex\.org/)?(A[0-9]+)$", re.IGNORECASE)


def researchers_resolve(queries: Sequence[str]) -> list[Resolved]:
    """Resolve pasted lines to researcher records: an ORCID iD, an OpenAlex author id, a slug,
    or else a name (the best name match, most cited first among equals)."""
    resolved = []
    for raw in queries:
        query = raw.strip()
        if not query:
            continue
        public = researchers_public()
        if match := _ORCID.search(query):
            found = public.filter(orcid=match.group(1).upper()).first()
            resolved.append(Resolved(query, found, "ORCID iD"))
        elif match := _OPENALEX_AUTHOR.match(query):
            found = public.filter(openalex_id=match.group(1).upper()).first()
            resolved.append(Resolved(query, found, "OpenAlex id"))
        elif found := public.filter(slug=query).first():
            resolved.append(Resolved(query, found, "profile address"))
        else:
            found = researchers_matching_name(public, query).first()
            resolved.append(Resolved(query, found, "name"))
    return resolved


def conflicts_of_interest(
    researchers: Sequence[Researcher], *, years: int = COI_DEFAULT_YEARS, today: date | None = None
) -> dict[str, Any]:
    """Every pair among `researchers` that wrote a work together published in the last `years`
    years (from the start of year today.year - years; works of any size count here) or that
    share a current institution (an affiliation without an end year or ending this year or
    later, or the last known institution). Each pair comes with its evidence. Three queries."""
    today = today or timezone.now().date()
    since = today.year - years
    by_id = {r.id: r for r in researchers}
    ids = sorted(by_id)
    pairs: dict[tuple[int, int], dict[str, Any]] = {}

    def pair(a: int, b: int) -> dict[str, Any]:
        a, b = min(a, b), max(a, b)
        if (a, b) not in pairs:
            pairs[(a, b)] = {
                "researchers": [researcher_ref(by_id[a]), researcher_ref(by_id[b])],
                "reasons": [],
                "joint_works_count": 0,
                "works": [],
                "institutions": [],
            }
        return pairs[(a, b)]

    with read_connection().cursor() as cursor:
        cursor.execute(_COI_WORKS_SQL, {"ids": ids, "since": since})
        for a, b, work_id, title, year in cursor.fetchall():
            entry = pair(a, b)
            entry["joint_works_count"] += 1
            if len(entry["works"]) < COI_WORKS_PER_PAIR:
                entry["works"].append(
                    {
                        "id": f"w:{work_id}",
                        "title": title,
                        "year": year,
                        "url": reverse("publications:work-detail", args=[work_id]),
                    }
                )
    holders: dict[int, set[int]] = {}
    names: dict[int, str] = {}
    for affiliation in (
        Affiliation.objects.filter(researcher_id__in=ids)
        .filter(Q(end_year__isnull=True) | Q(end_year__gte=today.year))
        .select_related("institution")
    ):
        holders.setdefault(affiliation.institution_id, set()).add(affiliation.researcher_id)
        names[affiliation.institution_id] = affiliation.institution.name
    missing = {
        r.last_known_institution_id
        for r in researchers
        if r.last_known_institution_id and r.last_known_institution_id not in names
    }
    names.update(Institution.objects.filter(id__in=missing).values_list("id", "name"))
    for r in researchers:
        if r.last_known_institution_id:
            holders.setdefault(r.last_known_institution_id, set()).add(r.id)
    for institution_id, members in sorted(holders.items()):
        members_sorted = sorted(members)
        for i, a in enumerate(members_sorted):
            for b in members_sorted[i + 1 :]:
                pair(a, b)["institutions"].append(
                    {
                        "id": f"i:{institution_id}",
                        "name": names.get(institution_id, ""),
                        "url": reverse("institution-detail", args=[institution_id]),
                    }
                )
    for entry in pairs.values():
        if entry["joint_works_count"]:
            entry["reasons"].append("coauthor")
        if entry["institutions"]:
            entry["reasons"].append("institution")
    return {
        "years": years,
        "since_year": since,
        "researchers": [researcher_ref(by_id[i]) for i in ids],
        "conflicts": [pairs[key] for key in sorted(pairs)],
    }
