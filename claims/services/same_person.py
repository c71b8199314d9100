"""The name resolver's moderation queue: "possibly the same person" (issue 15, item 7).

- name_resolutions_record: called by the import's writer (ingest.writer.resolver) inside its
  transaction: the reasons of each link (NameLink), and each close call as a candidate pair.
  A pair is proposed once, whatever the order; never between two records with different ORCID
  iDs (two people by their own word).
- same_person_merge: the moderator says they are one person: researcher_merge moves the new
  record into the existing one (its checks and its audit line apply).
- same_person_keep_apart: they are two people; remembered, never proposed again.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from bzpeer.users.models import User
from claims.models import (
    ModerationAction,
    NameLink,
    SamePersonCandidate,
    SamePersonStatus,
)
from researchers.models import Researcher
from researchers.resolution import Outcome, RecordedDecision

from .audit import audit
from .errors import ClaimError
from .merge import researcher_merge

logger = logging.getLogger(__name__)


def name_resolutions_record(decisions: Sequence[RecordedDecision]) -> None:
    """Store the links' reasons and the close calls. Two statements, plus one for ORCID iDs."""
    links = [
        NameLink(
            origin=d.origin,
            origin_id=d.origin_id,
            name_key=d.name_key,
            display_name=d.display_name[:500],
            researcher_id=d.researcher_id,
            score=d.decision.score,
            evidence=d.decision.reasons,
        )
        for d in decisions
        if d.decision.outcome == Outcome.LINKED
    ]
    if links:
        NameLink.objects.bulk_create(links, ignore_conflicts=True)
    pairs = {
        (d.researcher_id, candidate_id): (d, score, evidence)
        for d in decisions
        if d.decision.outcome == Outcome.CLOSE_CALL
        for candidate_id, score, evidence in d.decision.close_calls
        if candidate_id != d.researcher_id
    }
    if not pairs:
        return
    orcids = dict(
        Researcher.objects.filter(
            pk__in={i for pair in pairs for i in pair}, orcid__isnull=False
        ).values_list("pk", "orcid")
    )
    rows = [
        SamePersonCandidate(
            record_id=record_id,
            candidate_id=candidate_id,
            score=score,
            evidence=evidence,
            mention_origin=d.origin,
            mention_origin_id=d.origin_id[:400],
            mention_name=d.display_name[:500],
        )
        # Sorted: two batches inserting overlapping pairs take the index locks in one order.
        for (record_id, candidate_id), (d, score, evidence) in sorted(pairs.items())
        if not (
            orcids.get(record_id)
            and orcids.get(candidate_id)
            and orcids[record_id] != orcids[candidate_id]
        )
    ]
    SamePersonCandidate.objects.bulk_create(rows, ignore_conflicts=True)


def _open_locked(candidate: SamePersonCandidate) -> SamePersonCandidate:
    locked = SamePersonCandidate.objects.select_for_update().get(pk=candidate.pk)
    if locked.status != SamePersonStatus.OPEN:
        raise ClaimError(f"This pair is already decided ({locked.get_status_display()}).")
    return locked


@transaction.atomic
def same_person_merge(
    *, candidate: SamePersonCandidate, moderator: User, note: str = ""
) -> SamePersonCandidate:
    """The two are one person: the new record is merged into the existing one (researcher_merge
    refuses two ORCID iDs or two approved claimants). Other open pairs of the merged-away record
    are closed: what they compared is gone."""
    candidate = _open_locked(candidate)
    reason = f"Possibly the same person #{candidate.pk}: confirmed. {note}".strip()
    researcher_merge(
        source=candidate.record,
        survivor=candidate.candidate,
        moderator=moderator,
        reason=reason,
    )
    candidate.status = SamePersonStatus.MERGED
    candidate.decided_by = moderator
    candidate.decided_at = timezone.now()
    candidate.note = note[:500]
    candidate.save(update_fields=["status", "decided_by", "decided_at", "note"])
    SamePersonCandidate.objects.filter(
        Q(record_id=candidate.record_id) | Q(candidate_id=candidate.record_id),
        status=SamePersonStatus.OPEN,
    ).update(
        status=SamePersonStatus.CLOSED,
        decided_at=timezone.now(),
        note=f"#{candidate.record_id} was merged into #{candidate.candidate_id}.",
    )
    return candidate


@transaction.atomic
def same_person_keep_apart(
    *, candidate: SamePersonCandidate, moderator: User, note: str = ""
) -> SamePersonCandidate:
    """The two are different people: kept apart, and the pair is never proposed again (the
    row stays, and a pair is unique in either order)."""
    candidate = _open_locked(candidate)
    candidate.status = SamePersonStatus.KEPT_APART
    candidate.decided_by = moderator
    candidate.decided_at = timezone.now()
    candidate.note = note[:500]
    candidate.save(update_fields=["status", "decided_by", "decided_at", "note"])
    audit(
        action=ModerationAction.SAME_PERSON_KEPT_APART,
        actor=moderator,
        researcher=candidate.candidate,
        reason=note,
        details={
            "same_person_candidate": candidate.pk,
            "record": candidate.record_id,
            "candidate": candidate.candidate_id,
            "mention": f"{candidate.mention_origin}:{candidate.mention_origin_id}",
        },
    )
    logger.info(
        "researchers %s and %s kept apart by %s",
        candidate.record_id,
        candidate.candidate_id,
        moderator.pk,
    )
    return candidate
