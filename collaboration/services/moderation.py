"""Reports of a message or an invitation, and what staff do about them in the admin.

Every step writes the append-only audit log (claims.services.audit), its details naming the
report, the item and the user concerned by id.
"""

from __future__ import annotations

import logging

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.http import Http404
from django.utils import timezone

from bzpeer.errors import Conflict, Forbidden, InvalidRequest
from bzpeer.users.models import User
from claims.models import ModerationAction
from claims.services import audit
from collaboration.models import (
    CollaborationReport,
    ConversationParticipant,
    Invitation,
    Message,
    ReportStatus,
)
from collaboration.selectors import DELETED_NAME

from .flags import user_flag_if_needed
from .quotas import settings_lock
from .text import reason_clean

logger = logging.getLogger(__name__)


def _author_label(name: str | None, user_id: int | None) -> str:
    """The author as the report keeps them: the name they wrote under and their account."""
    if user_id is None:
        return DELETED_NAME
    return f"{name or 'A researcher'} (user #{user_id})"


@transaction.atomic
def report_create(
    *,
    reporter: User,
    reason: str,
    message_id: int | None = None,
    invitation_id: int | None = None,
) -> CollaborationReport:
    """Report a message (its conversation's other participant) or an invitation (its
    recipient). Items the reporter cannot see are a 404; a second report of the same item by
    the same person is a 409. The report keeps a copy of the reported text and of its
    author's name: deleting the message or the account later erases the item, not this."""
    if (message_id is None) == (invitation_id is None):
        raise InvalidRequest("Report either a message or an invitation.")
    reason = reason_clean(reason)
    message: Message | None = None
    invitation: Invitation | None = None
    if message_id is not None:
        message = Message.objects.filter(
            pk=message_id, conversation__participants__user=reporter
        ).first()
        if message is None:
            raise Http404("No such message.")
        if message.author_id == reporter.pk:
            raise Forbidden("You cannot report your own message.")
        reported_user_id = message.author_id
        item = "message"
        reported_text = message.body
        author_name = (
            ConversationParticipant.objects.filter(
                conversation_id=message.conversation_id, user_id=message.author_id
            )
            .values_list("researcher__display_name", flat=True)
            .first()
            if message.author_id is not None
            else None
        )
    else:
        assert invitation_id is not None
        invitation = (
            Invitation.objects.filter(Q(sender=reporter) | Q(recipient=reporter), pk=invitation_id)
            .select_related("sender_researcher")
            .first()
        )
        if invitation is None:
            raise Http404("No such invitation.")
        if invitation.recipient_id != reporter.pk:
            raise Forbidden("Only the person invited can report an invitation.")
        reported_user_id = invitation.sender_id
        item = "invitation"
        reported_text = invitation.purpose
        record = invitation.sender_researcher
        author_name = record.display_name if record is not None else None
    try:
        with transaction.atomic():
            report = CollaborationReport.objects.create(
                reporter=reporter,
                reported_user_id=reported_user_id,
                message=message,
                invitation=invitation,
                reason=reason,
                reported_text=reported_text,
                reported_author_label=_author_label(author_name, reported_user_id),
            )
    except IntegrityError as error:
        raise Conflict(f"You have already reported this {item}.") from error
    audit(
        action=ModerationAction.COLLABORATION_REPORTED,
        actor=reporter,
        reason=reason,
        details=_details(report),
    )
    if reported_user_id is not None:
        user_flag_if_needed(user_id=reported_user_id)
    return report


def _details(report: CollaborationReport) -> dict[str, int | None]:
    details: dict[str, int | None] = {
        "collaboration_report": report.pk,
        "reported_user": report.reported_user_id,
    }
    if report.message_id is not None:
        details["message"] = report.message_id
    if report.invitation_id is not None:
        details["invitation"] = report.invitation_id
    return details


def _open_report_lock(report_id: int) -> CollaborationReport:
    report = CollaborationReport.objects.select_for_update().filter(pk=report_id).first()
    if report is None:
        raise Http404("No such report.")
    if report.status != ReportStatus.OPEN:
        raise Conflict(f"Report {report.pk} was already handled ({report.get_status_display()}).")
    return report


def _close(report: CollaborationReport, *, moderator: User, status: str) -> None:
    report.status = status
    report.handled_by = moderator
    report.handled_at = timezone.now()
    report.save(update_fields=["status", "handled_by", "handled_at"])


@transaction.atomic
def message_hide(*, moderator: User, report_id: int) -> CollaborationReport:
    """Hide the reported message from both sides; the report (and any other open report of
    the same message) is closed as actioned."""
    report = _open_report_lock(report_id)
    if report.message_id is None:
        raise InvalidRequest("This report is not about a message.")
    now = timezone.now()
    Message.objects.filter(pk=report.message_id, hidden_at__isnull=True).update(hidden_at=now)
    CollaborationReport.objects.filter(
        message_id=report.message_id, status=ReportStatus.OPEN
    ).update(status=ReportStatus.ACTIONED, handled_by=moderator, handled_at=now)
    report.refresh_from_db()
    audit(action=ModerationAction.MESSAGE_HIDDEN, actor=moderator, details=_details(report))
    return report


@transaction.atomic
def messaging_suspend(
    *, moderator: User, user_id: int, reason: str, report_id: int | None = None
) -> None:
    """Stop `user_id` sending invitations and messages; with `report_id`, that report is
    closed as actioned."""
    reason = reason_clean(reason, empty="Give the reason for the suspension.")
    report = _open_report_lock(report_id) if report_id is not None else None
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        raise Http404("No such user.")
    row = settings_lock(user)
    if row.messaging_suspended_at is None:
        row.messaging_suspended_at = timezone.now()
    row.messaging_suspended_reason = reason
    row.save(update_fields=["messaging_suspended_at", "messaging_suspended_reason"])
    details: dict[str, int | None] = {"user": user_id}
    if report is not None:
        _close(report, moderator=moderator, status=ReportStatus.ACTIONED)
        details.update(_details(report))
    audit(
        action=ModerationAction.MESSAGING_SUSPENDED, actor=moderator, reason=reason, details=details
    )
    logger.info("messaging of user %s suspended by %s", user_id, moderator.pk)


@transaction.atomic
def messaging_restore(*, moderator: User, user_id: int) -> None:
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        raise Http404("No such user.")
    row = settings_lock(user)
    if row.messaging_suspended_at is None:
        return
    row.messaging_suspended_at = None
    row.messaging_suspended_reason = ""
    row.save(update_fields=["messaging_suspended_at", "messaging_suspended_reason"])
    audit(action=ModerationAction.MESSAGING_RESTORED, actor=moderator, details={"user": user_id})


@transaction.atomic
def report_dismiss(*, moderator: User, report_id: int) -> CollaborationReport:
    report = _open_report_lock(report_id)
    _close(report, moderator=moderator, status=ReportStatus.DISMISSED)
    audit(
        action=ModerationAction.COLLABORATION_REPORT_DISMISSED,
        actor=moderator,
        details=_details(report),
    )
    return report
