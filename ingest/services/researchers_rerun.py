"""Fewer, fuller records (issue 27, item 3): the learned resolver re-run over existing L0
(name-only) records, proposing or making the merges the evidence now supports.

Each L0 record's bylines are resolved again as new mentions would be (ingest.resolution), the
record itself left out of its own candidates and each byline's work left out of the evidence.
- every byline of the record links to one and the same other record (above the model's high
  threshold, under every rule of decide.py): the record is merged into it through claims'
  researcher_merge (authorships, follows, claims and citations move; the merged record
  redirects), and the reasons are stored as a NameLink per byline;
- otherwise, the close calls are proposed to the moderators' "possibly the same person" queue
  (a pair is proposed once, in either order; a pair kept apart is never proposed again);
- dry_run: nothing is written; the figures say what would be.

Unclaimed records only: a claimed record's owner decides about their own record.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field

from django.db import connection, transaction

from claims.services.errors import ClaimError
from claims.services.merge import researcher_merge
from claims.services.same_person import name_resolutions_record
from researchers.models import Researcher, VerificationLevel
from researchers.names import normalize_name
from researchers.resolution import Decision, Outcome, RecordedDecision

from ..resolution.resolve import resolve_contexts
from ..resolution.training import authorship_contexts

logger = logging.getLogger(__name__)

RERUN_ORIGIN = "rerun"
BATCH = 500


@dataclass
class RerunFigures:
    records: int = 0
    merged: int = 0
    proposed: int = 0
    refused: int = 0
    merges: list[tuple[int, int]] = field(default_factory=list)  # (record, into)


def _record_batches(batch: int, limit: int | None) -> list[list[int]]:
    ids = list(
        Researcher.objects.filter(
            verification_level=VerificationLevel.NAME_ONLY,
            merged_into__isnull=True,
            claimed_by__isnull=True,
        )
        .order_by("pk")
        .values_list("pk", flat=True)[:limit]
    )
    return [ids[start : start + batch] for start in range(0, len(ids), batch)]


def _decide_records(record_ids: list[int]) -> dict[int, list[Decision]]:
    """Every byline of the records, resolved as a whole batch (a few statements)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, researcher_id FROM publications_authorship WHERE researcher_id = ANY(%s)"
            " ORDER BY id",
            [record_ids],
        )
        owner = dict(cursor.fetchall())
        contexts = authorship_contexts(cursor.cursor, list(owner), identified_coauthors_only=False)
        exclude = {context: frozenset({rid}) for context, rid, _ in contexts}
        decisions = resolve_contexts(cursor.cursor, [c for c, _, _ in contexts], exclude=exclude)
    by_record: dict[int, list[Decision]] = defaultdict(list)
    for context, rid, _ in contexts:
        by_record[rid].append(decisions[context])
    return by_record


def researchers_rerun(
    *, dry_run: bool = False, limit: int | None = None, batch: int = BATCH
) -> RerunFigures:
    """Re-run the resolver over L0 records (see the module docstring). Each batch of records
    is one transaction."""
    figures = RerunFigures()
    for record_ids in _record_batches(batch, limit):
        figures.records += len(record_ids)
        decided = _decide_records(record_ids)
        names = dict(Researcher.objects.filter(pk__in=record_ids).values_list("pk", "display_name"))
        with transaction.atomic():
            to_record: list[RecordedDecision] = []
            for rid, decisions in sorted(decided.items()):
                targets = {d.researcher_id for d in decisions if d.outcome == Outcome.LINKED}
                linked_all = all(d.outcome == Outcome.LINKED for d in decisions)
                recorded = [
                    RecordedDecision(
                        origin=RERUN_ORIGIN,
                        origin_id=f"researcher:{rid}:{index}",
                        name_key=normalize_name(names.get(rid, ""))[:500],
                        display_name=names.get(rid, ""),
                        researcher_id=rid,
                        decision=d,
                    )
                    for index, d in enumerate(decisions)
                    if d.outcome != Outcome.NEW
                ]
                if linked_all and len(targets) == 1 and None not in targets:
                    into = next(iter(targets))
                    assert into is not None  # noqa: S101 - narrowed above
                    figures.merges.append((rid, into))
                    if dry_run:
                        figures.merged += 1
                        continue
                    try:
                        with transaction.atomic():
                            researcher_merge(
                                source=Researcher.objects.get(pk=rid),
                                survivor=Researcher.objects.get(pk=into),
                                moderator=None,
                                reason="The name resolver's re-run: every byline links here.",
                            )
                    except ClaimError as refused:
                        figures.refused += 1
                        logger.info("re-run merge of %s into %s refused: %s", rid, into, refused)
                        continue
                    figures.merged += 1
                    to_record.extend(
                        RecordedDecision(
                            r.origin, r.origin_id, r.name_key, r.display_name, into, r.decision
                        )
                        for r in recorded
                    )
                else:
                    # Partial links are proposals too: the moderators see the evidence.
                    proposals = [
                        r
                        if r.decision.outcome == Outcome.CLOSE_CALL
                        else RecordedDecision(
                            r.origin,
                            r.origin_id,
                            r.name_key,
                            r.display_name,
                            rid,
                            Decision(
                                Outcome.CLOSE_CALL,
                                score=r.decision.score,
                                reasons=r.decision.reasons,
                                close_calls=(
                                    (
                                        r.decision.researcher_id or 0,
                                        r.decision.score,
                                        {
                                            **r.decision.reasons,
                                            "why_not_linked": "only some of the record's "
                                            "bylines link to this record",
                                        },
                                    ),
                                ),
                            ),
                        )
                        for r in recorded
                    ]
                    figures.proposed += sum(len(p.decision.close_calls) for p in proposals)
                    to_record.extend(proposals)
            if to_record and not dry_run:
                name_resolutions_record(to_record)
    logger.info(
        "resolver re-run: %s records, %s merged, %s proposed, %s refused",
        figures.records,
        figures.merged,
        figures.proposed,
        figures.refused,
    )
    return figures
