"""Merging duplicate researcher records, and splitting a work off a record (split requests)."""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from bzpeer.db import retry_on_lock_conflict
from bzpeer.users.models import User
from claims.models import (
    Claim,
    ClaimStatus,
    ModerationAction,
    Report,
    SplitRequest,
    SplitRequestStatus,
)
from claims.ratelimit import rate_limit_check
from claims.selectors import base_verification_level
from graph.services import coauthor_edges_schedule, researcher_metrics_refresh
from notifications.kinds import NotificationCategory
from notifications.services import notification_create
from publications.models import Authorship, Work, WorkListedBy
from researchers.models import Affiliation, Follow, Researcher

from .audit import audit
from .errors import ClaimError
from .links import profile_url
from .records import require_approved_claimant, researcher_lock
from .trust_refresh import trust_refresh_on_commit

logger = logging.getLogger(__name__)


def _rows_move(
    model: type[WorkListedBy | Follow | Affiliation],
    key: str,
    *,
    source: Researcher,
    survivor: Researcher,
) -> int:
    """Move the source's rows of `model` to the survivor, one row per `key` (the field that,
    with the researcher, makes a row unique): a row whose key the survivor already has is
    dropped, the survivor's stands. Returns how many rows moved."""
    rows = model._default_manager
    rows.filter(
        researcher=source, **{f"{key}__in": rows.filter(researcher=survivor).values(key)}
    ).delete()
    return rows.filter(researcher=source).update(researcher=survivor)


def _pair_lock(*, source: Researcher, survivor: Researcher) -> tuple[Researcher, Researcher]:
    """Lock both rows and return them fresh, as (source, survivor).

    Both rows locked in one statement, in ascending id order (PostgreSQL locks the rows as the
    sorted scan returns them). Two merges of the same pair in opposite directions then queue on
    the same first row instead of each holding one row while waiting for the other (a
    deadlock); the one that waited finds the pair merged and is refused.
    """
    locked = {
        researcher.pk: researcher
        for researcher in Researcher.objects.select_for_update()
        .filter(pk__in=[source.pk, survivor.pk])
        .order_by("pk")
    }
    return locked[source.pk], locked[survivor.pk]


def _merge_refusals_check(*, source: Researcher, survivor: Researcher) -> None:
    """Raise ClaimError when the locked pair may not be merged (see researcher_merge)."""
    if source.merged_into_id or survivor.merged_into_id:
        raise ClaimError("One of the records is already merged into another.")
    if source.orcid and survivor.orcid and source.orcid != survivor.orcid:
        raise ClaimError("The records have different ORCID iDs: they are two people.")
    if (
        source.claimed_by_id
        and survivor.claimed_by_id
        and source.claimed_by_id != survivor.claimed_by_id
    ):
        raise ClaimError("Both records have different approved claimants.")


def _rows_to_survivor(*, source: Researcher, survivor: Researcher) -> dict[str, int]:
    """Move the rows that point at the source to the survivor (where both have one, the
    survivor's stands); return how many of each kind moved, for the audit entry."""
    moved = {}
    moved["authorships"] = Authorship.objects.filter(researcher=source).update(researcher=survivor)
    # The works the source's ORCID record lists are the survivor's (a work listed without a
    # byline slot counts for who listed it); a user following both keeps one follow; an
    # institution both are affiliated with keeps the survivor's row.
    moved["listed_works"] = _rows_move(WorkListedBy, "work", source=source, survivor=survivor)
    moved["follows"] = _rows_move(Follow, "user", source=source, survivor=survivor)
    moved["affiliations"] = _rows_move(Affiliation, "institution", source=source, survivor=survivor)
    # A user with an open claim on both keeps the survivor's.
    duplicates = Claim.objects.filter(
        researcher=source,
        status=ClaimStatus.PENDING,
        user__in=Claim.objects.filter(researcher=survivor, status=ClaimStatus.PENDING).values(
            "user"
        ),
    )
    for claim in duplicates:
        claim.status = ClaimStatus.WITHDRAWN
        claim.decided_at = timezone.now()
        claim.decision_reason = "Closed by a merge: your claim on the surviving record remains."
        claim.save(update_fields=["status", "decided_at", "decision_reason", "updated_at"])
    moved["claims"] = Claim.objects.filter(researcher=source).update(researcher=survivor)
    moved["reports"] = Report.objects.filter(researcher=source).update(researcher=survivor)
    SplitRequest.objects.filter(researcher=source, status=SplitRequestStatus.OPEN).filter(
        work__in=SplitRequest.objects.filter(
            researcher=survivor, status=SplitRequestStatus.OPEN
        ).values("work")
    ).delete()
    SplitRequest.objects.filter(researcher=source).update(researcher=survivor)
    return moved


def _records_fold(*, source: Researcher, survivor: Researcher) -> None:
    """Mark the source merged and give the survivor what the source carried: its names, the
    identifiers the survivor lacks (taken off the source first, as they are unique), its
    claimant, and the followers count of the moved follows."""
    source_claimant = source.claimed_by_id
    names = [source.display_name, *(source.alternate_names or [])]
    survivor.alternate_names = list(
        dict.fromkeys(
            name
            for name in [*(survivor.alternate_names or []), *names]
            if name and name != survivor.display_name
        )
    )
    update_fields = ["alternate_names", "updated_at"]
    identifiers = ("orcid", "dblp_id", "semantic_scholar_id", "scholar_id")
    taken = {field: getattr(source, field) for field in identifiers}
    source.merged_into = survivor
    source.claimed_by = None
    for field, value in taken.items():
        if value and not getattr(survivor, field):
            setattr(source, field, None)
    source.save()
    for field, value in taken.items():
        if value and not getattr(survivor, field):
            setattr(survivor, field, value)
            update_fields.append(field)
    if source_claimant and not survivor.claimed_by_id:
        approved = Claim.objects.get(researcher=survivor, status=ClaimStatus.APPROVED)
        survivor.claimed_by_id = source_claimant
        survivor.verification_level = approved.level
        update_fields += ["claimed_by", "verification_level"]
    if not survivor.claimed_by_id:
        # An identifier taken over from the source can lift an L0 survivor to L1.
        survivor.verification_level = max(
            survivor.verification_level, base_verification_level(survivor)
        )
        update_fields.append("verification_level")
    survivor.save(update_fields=update_fields)
    survivor.followers_count = Follow.objects.filter(researcher=survivor).count()
    survivor.save(update_fields=["followers_count"])
    Researcher.objects.filter(pk=source.pk).update(followers_count=0)


@retry_on_lock_conflict
@transaction.atomic
def researcher_merge(
    *, source: Researcher, survivor: Researcher, moderator: User | None, reason: str
) -> Researcher:
    """Merge `source` into `survivor`: authorships, the works its ORCID record lists, follows,
    claims (with their vouches), disputes, split requests and affiliations move to the
    survivor; the source keeps its row (and slug) with merged_into set, so its URL redirects.
    Counts and trust are refreshed. moderator None is the system (an OpenAlex merge applied by
    an import).

    Refused when the two are the same, either is already merged, they carry different ORCID
    iDs (two people), or both have (different) approved claimants: wrong merges of namesakes
    are worse than duplicates.

    Every step runs under the same row locks in one transaction, in an order that keeps
    foreign keys valid: rows first, then the two records, then the follow-ups.
    """
    if source.pk == survivor.pk:
        raise ClaimError("Choose two different records.")
    source, survivor = _pair_lock(source=source, survivor=survivor)
    _merge_refusals_check(source=source, survivor=survivor)
    moved = _rows_to_survivor(source=source, survivor=survivor)
    _records_fold(source=source, survivor=survivor)

    researcher_metrics_refresh(researcher_ids=[source.pk, survivor.pk])
    # The moved bylines change coauthor edges of both records and of their coauthors.
    coauthor_edges_schedule(researcher_ids=[source.pk, survivor.pk], include_coauthors=True)
    audit(
        action=ModerationAction.RESEARCHER_MERGED,
        actor=moderator,
        researcher=survivor,
        reason=reason,
        details={"source": source.pk, "source_slug": source.slug, "survivor": survivor.pk, **moved},
    )
    trust_refresh_on_commit([source.pk, survivor.pk], include_coauthors=True)
    logger.info("researcher %s merged into %s: %s", source.pk, survivor.pk, moved)
    return survivor


@transaction.atomic
def split_request_submit(
    *, user: User, researcher: Researcher, work: Work, note: str = ""
) -> SplitRequest:
    """The claimant flags a work on their record as not theirs; a moderator decides."""
    require_approved_claimant(researcher=researcher, user=user)
    # On the record by the byline, or by their ORCID record's listing without a slot.
    if (
        not Authorship.objects.filter(researcher=researcher, work=work).exists()
        and not WorkListedBy.objects.filter(researcher=researcher, work=work).exists()
    ):
        raise ClaimError("This work is not on your record.")
    existing = SplitRequest.objects.filter(
        researcher=researcher, work=work, status=SplitRequestStatus.OPEN
    ).first()
    if existing:
        return existing
    rate_limit_check(action="split_request", key=f"user:{user.pk}")
    split_request = SplitRequest.objects.create(
        researcher=researcher, work=work, requested_by=user, note=note.strip()[:500]
    )
    audit(
        action=ModerationAction.SPLIT_REQUESTED,
        actor=user,
        researcher=researcher,
        reason=note,
        details={"work": work.pk, "split_request": split_request.pk},
    )
    return split_request


@retry_on_lock_conflict
@transaction.atomic
def split_request_resolve(
    *, split_request: SplitRequest, moderator: User, accept: bool, note: str = ""
) -> SplitRequest:
    """Accepting detaches the work from the record (the byline keeps the raw name, with no
    researcher, and the record's listing of the work goes), then refreshes the record's counts
    and trust. Later imports keep them apart (writer/refusals.py)."""
    split_request = SplitRequest.objects.select_for_update().get(pk=split_request.pk)
    if split_request.status != SplitRequestStatus.OPEN:
        raise ClaimError("This request is already resolved.")
    researcher = researcher_lock(split_request.researcher_id)
    detached = 0
    if accept:
        detached = Authorship.objects.filter(
            researcher=researcher, work_id=split_request.work_id
        ).update(researcher=None)
        # Their own record's listing of it goes too (the work counts as theirs by it); the
        # importer keeps both off from now on (claims.apps: accepted_splits_of_works).
        WorkListedBy.objects.filter(researcher=researcher, work_id=split_request.work_id).delete()
        researcher_metrics_refresh(researcher_ids=[researcher.pk])
        coauthor_edges_schedule(researcher_ids=[researcher.pk], include_coauthors=True)
        trust_refresh_on_commit([researcher.pk], include_coauthors=False)
    split_request.status = SplitRequestStatus.ACCEPTED if accept else SplitRequestStatus.DISMISSED
    split_request.resolved_by = moderator
    split_request.resolved_at = timezone.now()
    split_request.save()
    audit(
        action=ModerationAction.SPLIT_ACCEPTED if accept else ModerationAction.SPLIT_DISMISSED,
        actor=moderator,
        researcher=researcher,
        reason=note,
        details={"work": split_request.work_id, "authorships_detached": detached},
    )
    notification_create(
        user=split_request.requested_by,
        category=NotificationCategory.CLAIMS,
        kind=f"split_{split_request.status}",
        subject=f"Your request about a work on {researcher.display_name}",
        message=(
            "A moderator detached the work from your record."
            if accept
            else f"A moderator kept the work on your record. {note}".strip()
        ),
        url=profile_url(researcher),
    )
    return split_request
