"""What bzpeer holds about one user, for "download my data" (issue 28, item 9).

`account_data(user)` gathers it as plain JSON-ready values: the account, its email addresses,
connected accounts, two-factor methods (never their secrets) and sessions; claims with their
evidence and checks; vouches given; reports made (of records and of messages or invitations);
split requests; follows of researchers, topics and institutions; notifications and their email
preferences; collaboration settings, blocks, invitations sent and received, and the messages of
the conversations the user takes part in.

Other people appear only as what the user already sees of them: the public name of the record
they stand for (a researcher's display name and slug), never their email, account id or what
they wrote elsewhere. What moderators decided is given as the decision and its reason, not who
decided. Messages hidden by moderation or deleted by their author are listed without text, as
the conversation page shows them.
"""

from __future__ import annotations

from typing import Any

from allauth.account.models import EmailAddress
from allauth.mfa.models import Authenticator
from allauth.socialaccount.models import SocialAccount
from allauth.usersessions.models import UserSession

from bzpeer.users.models import User
from claims.models import Claim, Report, SplitRequest, Vouch
from collaboration.models import (
    AccountExport,
    Block,
    CollaborationReport,
    CollaborationSettings,
    ConversationParticipant,
    Invitation,
    Message,
)
from feed.models import InstitutionFollow, TopicFollow
from notifications.models import Notification, NotificationPreference
from researchers.models import Follow, Researcher

EXPORT_FORMAT_VERSION = 1
DELETED_PERSON = "Deleted researcher"


def _record(researcher: Researcher | None) -> dict[str, str] | None:
    if researcher is None:
        return None
    return {"name": researcher.display_name, "slug": researcher.slug}


def _account(user: User) -> dict[str, Any]:
    return {
        "email": user.email,
        "display_name": user.display_name,
        "time_zone": user.time_zone,
        "date_joined": user.date_joined,
        "last_login": user.last_login,
        "email_addresses": [
            {"email": address.email, "verified": address.verified, "primary": address.primary}
            for address in EmailAddress.objects.filter(user=user).order_by("id")
        ],
        "connected_accounts": [
            {"provider": account.provider, "uid": account.uid, "date_joined": account.date_joined}
            for account in SocialAccount.objects.filter(user=user).order_by("id")
        ],
        "two_factor_methods": [
            {"type": authenticator.type, "created_at": authenticator.created_at}
            for authenticator in Authenticator.objects.filter(user=user).order_by("id")
        ],
        "sessions": [
            {"ip": session.ip, "user_agent": session.user_agent, "created_at": session.created_at}
            for session in UserSession.objects.filter(user=user).order_by("created_at")
        ],
    }


def _claims(user: User) -> list[dict[str, Any]]:
    claims = (
        Claim.objects.filter(user=user)
        .select_related("researcher")
        .prefetch_related("checks")
        .order_by("created_at", "id")
    )
    return [
        {
            "record": _record(claim.researcher),
            "status": claim.status,
            "level": claim.level,
            "claimant_name": claim.claimant_name,
            "statement": claim.statement,
            "presented_email": claim.presented_email,
            "evidence_links": claim.evidence_links,
            "approved_via": claim.approved_via,
            "decision_reason": claim.decision_reason,
            "decided_at": claim.decided_at,
            "created_at": claim.created_at,
            "checks": [
                {"kind": check.kind, "outcome": check.outcome, "detail": check.detail}
                for check in claim.checks.all()
            ],
            "vouches_received": claim.vouches.count(),
        }
        for claim in claims
    ]


def _vouches_given(user: User) -> list[dict[str, Any]]:
    vouches = Vouch.objects.filter(voucher=user).select_related("claim__researcher")
    return [
        {"record": _record(vouch.claim.researcher), "note": vouch.note, "at": vouch.created_at}
        for vouch in vouches.order_by("created_at", "id")
    ]


def _reports(user: User) -> dict[str, list[dict[str, Any]]]:
    record_reports = Report.objects.filter(reporter=user).select_related("researcher")
    collaboration_reports = CollaborationReport.objects.filter(reporter=user)
    return {
        "records": [
            {
                "record": _record(report.researcher),
                "kind": report.kind,
                "reason": report.reason,
                "status": report.status,
                "created_at": report.created_at,
            }
            for report in record_reports.order_by("created_at", "id")
        ],
        "messages_and_invitations": [
            {
                "reason": report.reason,
                "reported_text": report.reported_text,
                "about": report.reported_author_label,
                "status": report.status,
                "created_at": report.created_at,
            }
            for report in collaboration_reports.order_by("created_at", "id")
        ],
    }


def _split_requests(user: User) -> list[dict[str, Any]]:
    requests = SplitRequest.objects.filter(requested_by=user).select_related("researcher", "work")
    return [
        {
            "record": _record(split.researcher),
            "work": split.work.title,
            "note": split.note,
            "status": split.status,
            "created_at": split.created_at,
        }
        for split in requests.order_by("created_at", "id")
    ]


def _follows(user: User) -> dict[str, list[dict[str, Any]]]:
    return {
        "researchers": [
            {
                "record": _record(follow.researcher),
                "muted": follow.muted,
                "since": follow.created_at,
            }
            for follow in Follow.objects.filter(user=user).select_related("researcher")
        ],
        "topics": [
            {"topic": follow.topic.name, "muted": follow.muted, "since": follow.created_at}
            for follow in TopicFollow.objects.filter(user=user).select_related("topic")
        ],
        "institutions": [
            {"institution": follow.institution.name, "since": follow.created_at}
            for follow in InstitutionFollow.objects.filter(user=user).select_related("institution")
        ],
    }


def _notifications(user: User) -> dict[str, list[dict[str, Any]]]:
    return {
        "notifications": [
            {
                "category": notification.category,
                "kind": notification.kind,
                "subject": notification.subject,
                "message": notification.message,
                "url": notification.url,
                "created_at": notification.created_at,
                "read_at": notification.read_at,
            }
            for notification in Notification.objects.filter(user=user).order_by("created_at")
        ],
        "email_preferences": [
            {"category": preference.category, "delivery": preference.delivery}
            for preference in NotificationPreference.objects.filter(user=user).order_by("category")
        ],
    }


def _collaboration(user: User) -> dict[str, Any]:
    settings_row = CollaborationSettings.objects.filter(user=user).first()
    invitations = (
        Invitation.objects.filter(sender=user) | Invitation.objects.filter(recipient=user)
    ).select_related("sender_researcher", "recipient_researcher")
    participations = list(
        ConversationParticipant.objects.filter(user=user).values_list("conversation_id", flat=True)
    )
    others = {
        row.conversation_id: row.researcher
        for row in ConversationParticipant.objects.filter(conversation_id__in=participations)
        .exclude(user=user)
        .select_related("researcher")
    }
    messages = Message.objects.filter(conversation_id__in=participations).order_by(
        "conversation_id", "created_at", "id"
    )
    conversations: dict[int, dict[str, Any]] = {
        conversation_id: {
            "with": _record(others.get(conversation_id)) or {"name": DELETED_PERSON},
            "messages": [],
        }
        for conversation_id in participations
    }
    for message in messages:
        if message.hidden_at is not None:
            state, body = "hidden by moderation", ""
        elif message.deleted_at is not None:
            state, body = "deleted", ""
        else:
            state, body = "visible", message.body
        conversations[message.conversation_id]["messages"].append(
            {
                "from": "you" if message.author_id == user.pk else "the other person",
                "body": body,
                "state": state,
                "at": message.created_at,
            }
        )
    return {
        "settings": {
            "who_may_invite": settings_row.who_may_invite if settings_row else None,
            "messaging_suspended_at": settings_row.messaging_suspended_at if settings_row else None,
        },
        "blocked": [
            {"name": block.blocked.display_name or DELETED_PERSON, "since": block.created_at}
            for block in Block.objects.filter(blocker=user).select_related("blocked")
        ],
        "invitations": [
            {
                "direction": "sent" if invitation.sender_id == user.pk else "received",
                "from": _record(invitation.sender_researcher),
                "to": _record(invitation.recipient_researcher),
                "kind": invitation.kind,
                "purpose": invitation.purpose,
                "status": invitation.status,
                "created_at": invitation.created_at,
                "responded_at": invitation.responded_at,
            }
            for invitation in invitations.order_by("created_at", "id")
        ],
        "conversations": list(conversations.values()),
    }


def account_data(user: User) -> dict[str, Any]:
    """Everything bzpeer holds about `user`, JSON-ready (dates as datetimes: the caller encodes
    them with Django's JSON encoder)."""
    return {
        "format_version": EXPORT_FORMAT_VERSION,
        "account": _account(user),
        "claims": _claims(user),
        "vouches_given": _vouches_given(user),
        "reports_made": _reports(user),
        "split_requests": _split_requests(user),
        "follows": _follows(user),
        **_notifications(user),
        "collaboration": _collaboration(user),
    }


def account_export_latest(user: User) -> AccountExport | None:
    """The user's latest export, without its document (the page shows its state only)."""
    return AccountExport.objects.filter(user=user).defer("content").order_by("-created_at").first()
