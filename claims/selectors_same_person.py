"""Reads for the "possibly the same person" queue: the two records side by side."""

from __future__ import annotations

from dataclasses import dataclass

from publications.models import Authorship
from researchers.models import Affiliation, Researcher

from .models_same_person import SamePersonCandidate

WORKS_SHOWN = 5


@dataclass(frozen=True)
class RecordSide:
    """One record of a pair, as a moderator compares it."""

    researcher: Researcher
    institutions: list[str]
    affiliation_names: list[str]
    recent_works: list[str]
    works_count: int


def _side(researcher: Researcher) -> RecordSide:
    institutions = list(
        Affiliation.objects.filter(researcher=researcher)
        .order_by("institution__name")
        .values_list("institution__name", flat=True)[:10]
    )
    bylines = Authorship.objects.filter(researcher=researcher)
    names: list[str] = []
    for value in bylines.exclude(affiliation_names=[]).values_list("affiliation_names", flat=True)[
        :20
    ]:
        names.extend(n for n in value if n not in names)
    works = list(
        bylines.select_related("work")
        .order_by("-work__publication_year", "-work_id")
        .values_list("work__title", "work__publication_year")[:WORKS_SHOWN]
    )
    return RecordSide(
        researcher=researcher,
        institutions=institutions,
        affiliation_names=names[:10],
        recent_works=[f"{title} ({year or 'n.d.'})" for title, year in works],
        works_count=bylines.count(),
    )


def same_person_sides(candidate: SamePersonCandidate) -> tuple[RecordSide, RecordSide]:
    """The new record and the existing one, each with what tells people apart."""
    return _side(candidate.record), _side(candidate.candidate)


def researcher_names(ids: list[int]) -> dict[int, str]:
    """Display names of the coauthors the evidence names by id."""
    return dict(Researcher.objects.filter(pk__in=ids).values_list("pk", "display_name"))
