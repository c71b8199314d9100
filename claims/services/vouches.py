"""Vouches: a verified coauthor vouches for a pending claim; enough vouches corroborate it."""

from __future__ import annotations

import datetime

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from bzpeer.db import retry_on_lock_conflict
from bzpeer.users.models import User
from claims.models import Claim, ClaimStatus, ModerationAction, Vouch
from claims.selectors import vouch_eligibility

from .audit import audit
from .checks_queue import claim_checks_run_on_commit
from .errors import ClaimError


@retry_on_lock_conflict
def vouch_submit(*, voucher: User, claim: Claim, note: str = "") -> Vouch:
    """A verified coauthor vouches for a pending claim; enough vouches corroborate it (the
    claim's checks run again). At most CLAIMS_VOUCHES_PER_MONTH vouches per user in any 30
    days, counted under a lock on the voucher's user row so parallel vouches cannot exceed it."""
    if claim.status != ClaimStatus.PENDING:
        raise ClaimError("You can only vouch for a pending claim.")
    voucher_record, why_not = vouch_eligibility(voucher=voucher, claim=claim)
    if voucher_record is None:
        raise ClaimError(why_not)
    with transaction.atomic():
        # FOR NO KEY UPDATE: it serialises this voucher's vouches and, unlike FOR UPDATE, does
        # not hold up the foreign key checks of rows naming the user (their messages).
        User.objects.select_for_update(no_key=True).filter(pk=voucher.pk).first()
        since = timezone.now() - datetime.timedelta(days=30)
        used = Vouch.objects.filter(voucher=voucher, created_at__gte=since).count()
        if used >= settings.CLAIMS_VOUCHES_PER_MONTH:
            raise ClaimError(
                f"You have used your {settings.CLAIMS_VOUCHES_PER_MONTH} vouches for this month."
            )
        if Vouch.objects.filter(claim=claim, voucher=voucher).exists():
            raise ClaimError("You have already vouched for this claim.")
        vouch = Vouch.objects.create(
            claim=claim, voucher=voucher, voucher_researcher=voucher_record, note=note[:300]
        )
        # The re-check is owed from now: a lost task message leaves the mark for the sweep.
        Claim.objects.filter(pk=claim.pk).update(recheck_requested_at=timezone.now())
        audit(
            action=ModerationAction.VOUCH_ADDED,
            actor=voucher,
            claim=claim,
            details={"voucher_researcher": voucher_record.pk},
        )
        claim_checks_run_on_commit(claim.pk)
    return vouch
