"""Novelty as the pages explain it (issue 25, item 5; publications.services.novelty computes
it)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Exists, F, OuterRef

from ..models import (
    Authorship,
    NoveltyGap,
    ResearcherNovelty,
    Source,
    Work,
    WorkNovelty,
)


@dataclass(frozen=True, slots=True)
class NoveltyPair:
    """A pair of journals a work's references combine for the first time, and how far apart
    the two are (1 - the cosine of their co-citation profiles)."""

    first: Source
    second: Source
    distance: float


@dataclass(frozen=True, slots=True)
class WorkNoveltyExplained:
    """What /works/<id>/novelty/ shows: the work, its stored novelty (None: no reference of
    it is held, or no run has reached it yet) and its new pairs, farthest first."""

    work: Work
    novelty: WorkNovelty | None
    new_pairs: list[NoveltyPair]

    @property
    def gap_reason(self) -> str:
        if self.novelty is None:
            return "none of its references is held here (or it has not been computed yet)"
        return str(NoveltyGap(self.novelty.gap).label) if self.novelty.gap else ""


def work_novelty_explained(work_id: int) -> WorkNoveltyExplained | None:
    """Two queries, whatever the number of pairs: the work with its journal, novelty and field,
    then the journals its new pairs name."""
    work = (
        Work.objects.select_related("source", "novelty", "novelty__field")
        .filter(pk=work_id)
        .first()
    )
    if work is None:
        return None
    found: WorkNovelty | None = getattr(work, "novelty", None)
    pairs: list[NoveltyPair] = []
    if found is not None and found.new_pair_list:
        ids = {
            journal_id for first, second, _ in found.new_pair_list for journal_id in (first, second)
        }
        journals = Source.objects.only("id", "name", "abbreviated_name").in_bulk(ids)
        pairs = [
            NoveltyPair(first=journals[first], second=journals[second], distance=float(distance))
            for first, second, distance in found.new_pair_list
            # A journal deleted since the run leaves its pairs out until the next one.
            if first in journals and second in journals
        ]
    return WorkNoveltyExplained(work=work, novelty=found, new_pairs=pairs)


@dataclass(frozen=True, slots=True)
class ResearcherNoveltyExplained:
    """What /researchers/<slug>/novelty/ shows: the stored median (None: no run has found a
    work of theirs with references held), the works it is the median of (highest first), and
    how many of their other works were left out for each reason."""

    novelty: ResearcherNovelty | None
    counted: list[WorkNovelty]
    left_out: list[tuple[str, int]]


def researcher_novelty_explained(researcher_id: int) -> ResearcherNoveltyExplained:
    """Two queries, whatever the number of works."""
    novelty = ResearcherNovelty.objects.filter(researcher_id=researcher_id).first()
    rows = list(
        WorkNovelty.objects.filter(
            Exists(
                Authorship.objects.filter(researcher_id=researcher_id, work_id=OuterRef("work_id"))
            )
        )
        .select_related("work", "field")
        .only(
            "work_id",
            "work__title",
            "work__publication_year",
            "field__name",
            "publication_year",
            "percentile",
            "score",
            "new_pairs",
            "pairs",
            "baseline_size",
            "gap",
            "references_with_journal",
        )
        .order_by(F("percentile").desc(nulls_last=True), "-score", "work_id")
    )
    counted = [row for row in rows if row.percentile is not None]
    gaps: dict[str, int] = {}
    for row in rows:
        if row.percentile is None:
            gaps[row.gap] = gaps.get(row.gap, 0) + 1
    left_out = [(str(NoveltyGap(gap).label), count) for gap, count in gaps.items()]
    return ResearcherNoveltyExplained(novelty=novelty, counted=counted, left_out=left_out)
