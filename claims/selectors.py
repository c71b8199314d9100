"""Reads for claims shared by the pages, the API, the admin, the services and the tasks.

Every lookup of a claim by a user-supplied id goes through a permission-checked helper here:
another user's claim is a 404, never a 403 that would confirm it exists.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db.models import Count, F, Prefetch, QuerySet
from django.http import Http404

from bzpeer.db import read_connection
from bzpeer.users.models import User
from notifications.models import Notification
from notifications.selectors import notifications_for, unread_notifications_count
from publications.models import Authorship, Work
from researchers.models import Affiliation, Follow, Institution, Researcher, VerificationLevel

from . import checks
from .models import Claim, ClaimStatus, Report, ReportStatus, SplitRequest
from .trust import trust_band, trust_explanation


def claims_of_user(user: User) -> QuerySet[Claim]:
    """The user's own claims, newest first, with what the account page and the API show."""
    return (
        Claim.objects.visible_to(user)
        .select_related("researcher")
        .prefetch_related("checks")
        .annotate(vouch_count=Count("vouches"))
        .order_by("-created_at", "-id")
    )


def claim_for_user_or_404(*, user: User, claim_id: int) -> Claim:
    claim = claims_of_user(user).filter(pk=claim_id).first()
    if claim is None:
        raise Http404("No such claim.")
    return claim


def researcher_for_claims_or_404(slug: str) -> Researcher:
    """A record that is not merged (a merged record is claimed through its survivor)."""
    researcher = Researcher.objects.filter(slug=slug).first()
    if researcher is None or researcher.merged_into_id:
        raise Http404("No such researcher.")
    return researcher


def user_is_approved_claimant(*, researcher: Researcher, user: User | AnonymousUser) -> bool:
    """Whether `user` holds the approved claim on `researcher` (and the record says so)."""
    return (
        user.is_authenticated
        and researcher.claimed_by_id == user.pk
        and Claim.objects.filter(
            researcher=researcher, user=user, status=ClaimStatus.APPROVED
        ).exists()
    )


def researcher_claimed_by_user_or_404(*, slug: str, user: User | AnonymousUser) -> Researcher:
    """The record the user is the approved claimant of; anything else is a 404."""
    researcher = researcher_for_claims_or_404(slug)
    if not user_is_approved_claimant(researcher=researcher, user=user):
        raise Http404("No such researcher.")
    return researcher


@dataclass
class AccountOverview:
    emails: list[EmailAddress]
    orcid_accounts: list[SocialAccount]
    claims: list[Claim]
    follows: list[Follow]
    notifications: list[Notification]
    unread_count: int
    reports: list[Report] = field(default_factory=list)
    split_requests: list[SplitRequest] = field(default_factory=list)


def account_overview(user: User, *, follows_limit: int = 100) -> AccountOverview:
    return AccountOverview(
        emails=list(EmailAddress.objects.filter(user=user).order_by("-primary", "email")),
        orcid_accounts=list(SocialAccount.objects.filter(user=user, provider="orcid")),
        claims=list(claims_of_user(user)),
        follows=list(Follow.objects.filter(user=user).select_related("researcher")[:follows_limit]),
        notifications=notifications_for(user, limit=20),
        unread_count=unread_notifications_count(user),
        reports=list(Report.objects.filter(reporter=user).select_related("researcher")[:20]),
        split_requests=list(
            SplitRequest.objects.filter(requested_by=user).select_related("researcher", "work")[:20]
        ),
    )


@dataclass
class ClaimPanel:
    """What the profile's identity panel shows to this visitor about this record."""

    researcher: Researcher
    is_claimed: bool
    viewer_is_claimant: bool = False
    viewer_claim: Claim | None = None
    open_claims_count: int = 0
    open_disputes_count: int = 0
    viewer_has_open_report: bool = False
    can_claim: bool = False
    claim_blocked_reason: str = ""
    vouchable_claims: list[Claim] = field(default_factory=list)
    trust_band: str = ""


# Both counts in one round trip: every profile page rendered shows them.
_OPEN_CLAIMS_AND_DISPUTES_SQL = f"""
SELECT (SELECT count(*) FROM {Claim._meta.db_table}
        WHERE researcher_id = %(id)s AND status = %(pending)s),
       (SELECT count(*) FROM {Report._meta.db_table}
        WHERE researcher_id = %(id)s AND status = %(open)s)
"""


def _open_claims_and_disputes(researcher_id: int) -> tuple[int, int]:
    with read_connection().cursor() as cursor:
        cursor.execute(
            _OPEN_CLAIMS_AND_DISPUTES_SQL,
            {"id": researcher_id, "pending": ClaimStatus.PENDING, "open": ReportStatus.OPEN},
        )
        return cursor.fetchone()


def claim_panel(*, researcher: Researcher, user: User | AnonymousUser) -> ClaimPanel:
    """A handful of small queries whatever the record's size (the profile counts its queries)."""
    panel = ClaimPanel(
        researcher=researcher,
        is_claimed=researcher.claimed_by_id is not None,
        trust_band=trust_band(researcher.trust_score),
    )
    counts, panel.open_disputes_count = _open_claims_and_disputes(researcher.pk)
    panel.open_claims_count = counts
    if not isinstance(user, User):
        return panel  # a visitor (AnonymousUser): the panel's public part only
    panel.viewer_is_claimant = researcher.claimed_by_id == user.pk
    panel.viewer_claim = (
        Claim.objects.filter(
            researcher=researcher,
            user=user,
            status__in=[ClaimStatus.PENDING, ClaimStatus.APPROVED],
        )
        .order_by("-created_at")
        .first()
    )
    if panel.is_claimed and not panel.viewer_is_claimant:
        panel.claim_blocked_reason = "This record has already been claimed by another user."
        panel.viewer_has_open_report = Report.objects.filter(
            researcher=researcher, reporter=user, status=ReportStatus.OPEN
        ).exists()
    if not panel.is_claimed and panel.viewer_claim is None:
        if not EmailAddress.objects.filter(user=user, verified=True).exists():
            panel.claim_blocked_reason = "Verify your email address to claim this record."
        elif Claim.objects.filter(user=user, status=ClaimStatus.APPROVED).exists():
            panel.claim_blocked_reason = "Your account already holds a verified record."
        else:
            panel.can_claim = True
    if not panel.is_claimed and counts:
        pending = Claim.objects.filter(researcher=researcher, status=ClaimStatus.PENDING).exclude(
            user=user
        )
        panel.vouchable_claims = [
            claim
            for claim in pending.select_related("user")[:5]
            if vouch_eligibility(voucher=user, claim=claim)[0] is not None
        ]
    return panel


@dataclass
class TrustView:
    researcher: Researcher
    band: str
    rows: list[dict]
    open_disputes: int


def trust_view(researcher: Researcher) -> TrustView:
    return TrustView(
        researcher=researcher,
        band=trust_band(researcher.trust_score),
        rows=trust_explanation(researcher.trust_breakdown),
        open_disputes=Report.objects.filter(
            researcher=researcher, status=ReportStatus.OPEN
        ).count(),
    )


def works_for_claimant(researcher: Researcher, *, limit: int = 200) -> list[Work]:
    """The record's works for the "not mine" list, newest first, with any open split request."""
    open_requests = SplitRequest.objects.filter(researcher=researcher, status="open")
    return list(
        Work.objects.filter(authorships__researcher=researcher)
        .distinct()
        .order_by(F("sort_date").desc(nulls_last=True), "-id")
        .prefetch_related(
            Prefetch("split_requests", queryset=open_requests, to_attr="open_split_requests")
        )[:limit]
    )


# --- the user's verified addresses and connected ORCID iDs -----------------------------------


def user_verified_emails(user: User) -> list[str]:
    return list(
        EmailAddress.objects.filter(user=user, verified=True)
        .order_by("-primary", "email")
        .values_list("email", flat=True)
    )


def user_connected_orcids(user: User) -> list[str]:
    return list(
        SocialAccount.objects.filter(user=user, provider="orcid").values_list("uid", flat=True)
    )


# --- what the automatic checks and the decisions read ----------------------------------------


def base_verification_level(researcher: Researcher) -> int:
    """The level a record has without a claimant: L1 with a persistent identifier, else L0."""
    if researcher.openalex_id or researcher.orcid:
        return VerificationLevel.IDENTIFIED
    return VerificationLevel.NAME_ONLY


def record_institution_domains(researcher: Researcher) -> dict[str, str]:
    """Email domain -> institution name, over the record's institutions: its affiliations, its
    last known institution and the institutions on its bylines."""
    institution_ids = set(
        Affiliation.objects.filter(researcher=researcher).values_list("institution_id", flat=True)
    )
    if researcher.last_known_institution_id:
        institution_ids.add(researcher.last_known_institution_id)
    for ids in Authorship.objects.filter(researcher=researcher).values_list(
        "institution_ids", flat=True
    ):
        institution_ids.update(ids or [])
    domains: dict[str, str] = {}
    for name, email_domains in Institution.objects.filter(id__in=institution_ids).values_list(
        "name", "email_domains"
    ):
        for domain in email_domains or []:
            domains.setdefault(domain.lower().strip(), name)
    return domains


def claim_check_results(claim: Claim) -> list[checks.CheckResult]:
    """Run every automatic check of a claim on the current data (reads only)."""
    researcher = claim.researcher
    user = claim.user
    verified = {email.lower() for email in user_verified_emails(user)}
    orcid_names: list[str] = []
    connected = []
    for account in SocialAccount.objects.filter(user=user, provider="orcid"):
        connected.append(account.uid)
        name = (account.extra_data or {}).get("person", {}).get("name") or {}
        given = (name.get("given-names") or {}).get("value", "")
        family = (name.get("family-name") or {}).get("value", "")
        if given or family:
            orcid_names.append(f"{given} {family}".strip())
    return [
        checks.orcid_check(connected_orcids=connected, record_orcid=researcher.orcid),
        checks.institution_email_check(
            email=claim.presented_email,
            email_verified=claim.presented_email.lower() in verified,
            institution_domains=record_institution_domains(researcher),
        ),
        checks.name_check(
            claimant_names=[claim.claimant_name, user.display_name, *orcid_names],
            record_names=[researcher.display_name, *(researcher.alternate_names or [])],
        ),
        checks.vouches_check(
            vouch_count=claim.vouches.count(), needed=settings.CLAIMS_VOUCHES_NEEDED
        ),
    ]


def vouch_eligibility(*, voucher: User, claim: Claim) -> tuple[Researcher | None, str]:
    """(the voucher's own verified record, "") if they may vouch for this claim, else
    (None, why not). Reads only; vouch_submit checks again under locks."""
    if claim.user_id == voucher.pk:
        return None, "You cannot vouch for your own claim."
    own = (
        Claim.objects.select_related("researcher")
        .filter(user=voucher, status=ClaimStatus.APPROVED, level__gte=3)
        .first()
    )
    if own is None:
        return None, "Only researchers with a claim verified at L3 or L4 can vouch."
    if own.researcher_id == claim.researcher_id:
        return None, "You cannot vouch for a claim on your own record."
    shared = Authorship.objects.filter(
        researcher_id=claim.researcher_id,
        work__authorships__researcher_id=own.researcher_id,
    ).exists()
    if not shared:
        return None, "Only coauthors of this researcher can vouch for the claim."
    return own.researcher, ""
