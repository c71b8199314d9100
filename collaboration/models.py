"""Direct collaboration: invitations between verified researchers, the private conversations
they open, blocks, and reports of messages and invitations.

The rules (who may invite whom, quotas, cool-downs, blocks) live in collaboration.services; the
models hold what the database itself must guarantee: one pending invitation per pair of people
whichever way it was sent, a purpose and a message body within their limits, one report per
reporter and item, one block per pair and direction.

People are users (the account that claimed a record), not records: a claim can be revoked or
a record merged while the conversation goes on. The record each side spoke for is kept beside
the user for display. When an account is deleted, its rows stay with the user set to NULL and
show as "Deleted researcher"; the other side keeps what it wrote.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.db.models.functions import Greatest, Least, Length
from django.db.models.lookups import GreaterThanOrEqual, LessThanOrEqual
from django.utils import timezone

if TYPE_CHECKING:  # the helpers' return types; the fields name their models by string
    from bzpeer.users.models import User
    from researchers.models import Researcher

PURPOSE_MIN_LENGTH = 50
PURPOSE_MAX_LENGTH = 1_000
MESSAGE_MAX_LENGTH = 10_000


class InvitationKind(models.TextChoices):
    COAUTHOR = "coauthor", "Co-author a paper"
    REVIEW = "review", "Review"
    TALK = "talk", "Talk or visit"
    DATA_CODE = "data_code", "Data or code"
    OTHER = "other", "Other"


class InvitationStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    ACCEPTED = "accepted", "Accepted"
    DECLINED = "declined", "Declined"
    WITHDRAWN = "withdrawn", "Withdrawn"
    EXPIRED = "expired", "Expired"


class WhoMayInvite(models.TextChoices):
    VERIFIED = "verified", "Verified researchers"
    COAUTHORS = "coauthors", "Coauthors only"
    NOBODY = "nobody", "Nobody"


def _user_fk(
    related_name: str, *, db_index: bool = True
) -> models.ForeignKey[User | None, User | None]:
    # SET_NULL: deleting an account must not delete the other side's conversation.
    return models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name=related_name,
        db_index=db_index,
    )


def _researcher_fk() -> models.ForeignKey[Researcher | None, Researcher | None]:
    return models.ForeignKey(
        "researchers.Researcher",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )


class CollaborationSettings(models.Model):
    """A user's collaboration choices and standing. A missing row means the defaults.

    The sender's row is also the lock that serialises their sends, so the quota counted from
    the invitations table holds under concurrent requests.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        primary_key=True,
        on_delete=models.CASCADE,
        related_name="collaboration_settings",
    )
    who_may_invite = models.CharField(
        max_length=10, choices=WhoMayInvite.choices, default=WhoMayInvite.VERIFIED
    )
    # Set by a moderator (audited): no invitations or messages may be sent.
    messaging_suspended_at = models.DateTimeField(null=True, blank=True)
    messaging_suspended_reason = models.TextField(blank=True)
    # Set when five distinct people have reported or blocked this user; staff review it.
    flagged_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "collaboration settings"
        verbose_name_plural = "collaboration settings"
        indexes = [
            models.Index(
                fields=["flagged_at"],
                name="collab_flagged_idx",
                condition=Q(flagged_at__isnull=False),
            )
        ]

    def __str__(self) -> str:
        return f"Collaboration settings of user {self.user_id}"


class Invitation(models.Model):
    # No single-column indexes: the per-user indexes below start with these columns.
    sender = _user_fk("invitations_sent", db_index=False)
    recipient = _user_fk("invitations_received", db_index=False)
    # The records each side held when the invitation was sent (what the inbox shows).
    sender_researcher = _researcher_fk()
    recipient_researcher = _researcher_fk()
    kind = models.CharField(max_length=10, choices=InvitationKind.choices)
    purpose = models.TextField(max_length=PURPOSE_MAX_LENGTH)
    anchor_works = models.ManyToManyField("publications.Work", blank=True, related_name="+")
    anchor_topics = models.ManyToManyField("publications.Topic", blank=True, related_name="+")
    status = models.CharField(
        max_length=10, choices=InvitationStatus.choices, default=InvitationStatus.PENDING
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    responded_at = models.DateTimeField(null=True, blank=True)
    conversation = models.OneToOneField(
        "Conversation",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="invitation",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            # A user's invitations newest first, in the order the inbox and the API list them
            # (a LIMIT reads only the rows shown), and the quota: those sent in 24 hours.
            models.Index(fields=["sender", "-created_at", "-id"], name="invitation_sent_idx"),
            models.Index(
                fields=["recipient", "-created_at", "-id"], name="invitation_received_idx"
            ),
            # The pending ones alone, listed first: without these a user with thousands of
            # answered invitations would have them all read to find the few pending.
            models.Index(
                fields=["sender", "-created_at", "-id"],
                name="invitation_sent_pending_idx",
                condition=Q(status="pending"),
            ),
            models.Index(
                fields=["recipient", "-created_at", "-id"],
                name="invitation_recv_pending_idx",
                condition=Q(status="pending"),
            ),
            models.Index(
                fields=["expires_at"],
                name="invitation_pending_expiry_idx",
                condition=Q(status="pending"),
            ),
        ]
        constraints = [
            # One pending invitation per pair, whichever of the two sent it; safe under
            # concurrent sends because the database decides.
            models.UniqueConstraint(
                Least("sender", "recipient"),
                Greatest("sender", "recipient"),
                condition=Q(status="pending"),
                name="invitation_one_pending_per_pair",
            ),
            models.CheckConstraint(
                condition=~Q(sender=F("recipient")), name="invitation_not_to_oneself"
            ),
            # An erased purpose (the sender deleted their account) is the only short one.
            models.CheckConstraint(
                condition=LessThanOrEqual(Length("purpose"), PURPOSE_MAX_LENGTH)
                & (
                    GreaterThanOrEqual(Length("purpose"), PURPOSE_MIN_LENGTH)
                    | Q(sender__isnull=True)
                ),
                name="invitation_purpose_length",
            ),
        ]

    def __str__(self) -> str:
        return f"Invitation {self.pk} ({self.status})"


class Conversation(models.Model):
    created_at = models.DateTimeField(default=timezone.now)
    last_message_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-last_message_at", "-id"]

    def __str__(self) -> str:
        return f"Conversation {self.pk}"


class ConversationParticipant(models.Model):
    """One side of a conversation: what that person has read, muted and been emailed."""

    # Indexed by participant_once_per_conversation (conversation, user).
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="participants", db_index=False
    )
    user = _user_fk("conversation_memberships")
    researcher = _researcher_fk()
    # Kept up to date by message_send and conversation_mark_read, so the inbox and the header
    # badge never count messages row by row.
    unread_count = models.PositiveIntegerField(default=0)
    # When the oldest message this side has not read arrived (NULL when all is read).
    unread_since = models.DateTimeField(null=True, blank=True)
    last_read_at = models.DateTimeField(null=True, blank=True)
    muted = models.BooleanField(default=False)
    # The last "you have unread messages" email about this conversation (one per hour at most):
    # the time it came due, set when it is sent.
    last_emailed_at = models.DateTimeField(null=True, blank=True)
    # When the due sweep claimed the next email and queued its task; cleared when it is sent (or
    # found not to be wanted). A claim left this way for EMAIL_REQUEUE_AFTER had its message
    # lost, and the sweep claims and queues it again (collaboration.services.emails).
    email_queued_at = models.DateTimeField(null=True, blank=True)
    # Denormalised from the conversation so the inbox is one index scan per user.
    last_message_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["conversation", "user"], name="participant_once_per_conversation"
            )
        ]
        indexes = [
            models.Index(
                fields=["user", "-last_message_at", "-conversation"], name="participant_inbox_idx"
            ),
            models.Index(
                fields=["user"], name="participant_unread_idx", condition=Q(unread_count__gt=0)
            ),
            models.Index(
                fields=["unread_since"],
                name="participant_email_due_idx",
                condition=Q(unread_since__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"User {self.user_id} in conversation {self.conversation_id}"


class Message(models.Model):
    # Indexed by message_conversation_idx (conversation, -id) alone: a second index on the
    # column let the planner read a whole conversation and sort it to show the last 200.
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages", db_index=False
    )
    author = _user_fk("messages_written")
    body = models.TextField(max_length=MESSAGE_MAX_LENGTH)
    created_at = models.DateTimeField(default=timezone.now)
    # The author deleted it (the body is erased); it shows as "Message deleted".
    deleted_at = models.DateTimeField(null=True, blank=True)
    # A moderator hid it after a report (audited); it shows as "Hidden by a moderator".
    hidden_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["conversation", "-id"], name="message_conversation_idx")]
        constraints = [
            models.CheckConstraint(
                condition=LessThanOrEqual(Length("body"), MESSAGE_MAX_LENGTH),
                name="message_body_length",
            ),
        ]

    def __str__(self) -> str:
        return f"Message {self.pk} in conversation {self.conversation_id}"


class Block(models.Model):
    """blocker blocks blocked: silent, and it stops both directions."""

    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_made"
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks_received"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
            models.CheckConstraint(condition=~Q(blocker=F("blocked")), name="block_not_oneself"),
        ]
        indexes = [models.Index(fields=["blocked"], name="block_blocked_idx")]

    def __str__(self) -> str:
        return f"User {self.blocker_id} blocks user {self.blocked_id}"


class ReportStatus(models.TextChoices):
    OPEN = "open", "Open"
    ACTIONED = "actioned", "Action taken"
    DISMISSED = "dismissed", "Dismissed"


class CollaborationReport(models.Model):
    """A report of one message or one invitation; staff see the reported item and nothing else.

    What was reported is copied onto the report when it is filed (reported_text,
    reported_author_label): the author may delete the message or their account afterwards,
    which erases the message itself, and staff must still read what they are asked to judge.
    """

    reporter = _user_fk("collaboration_reports_filed")
    # Whom the report is about (the message's author or the invitation's sender).
    reported_user = _user_fk("collaboration_reports_received")
    message = models.ForeignKey(
        Message, null=True, blank=True, on_delete=models.SET_NULL, related_name="reports"
    )
    invitation = models.ForeignKey(
        Invitation, null=True, blank=True, on_delete=models.SET_NULL, related_name="reports"
    )
    reason = models.TextField(max_length=2_000)
    # The message's body or the invitation's purpose as it was when reported.
    reported_text = models.TextField(max_length=MESSAGE_MAX_LENGTH, blank=True)
    # Who wrote it, as they appeared then: "Alice Liddell (user #12)".
    reported_author_label = models.CharField(max_length=300, blank=True)
    status = models.CharField(max_length=10, choices=ReportStatus.choices, default="open")
    created_at = models.DateTimeField(default=timezone.now)
    handled_by = _user_fk("+")
    handled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["reporter", "message"],
                condition=Q(message__isnull=False),
                name="collab_report_once_per_message",
            ),
            models.UniqueConstraint(
                fields=["reporter", "invitation"],
                condition=Q(invitation__isnull=False),
                name="collab_report_once_per_invitation",
            ),
        ]
        indexes = [
            models.Index(
                fields=["created_at"], name="collab_report_open_idx", condition=Q(status="open")
            ),
            models.Index(fields=["reported_user"], name="collab_report_user_idx"),
        ]

    def __str__(self) -> str:
        return f"Report {self.pk} ({self.status})"


class AccountExportStatus(models.TextChoices):
    PENDING = "pending", "Being prepared"
    READY = "ready", "Ready"
    FAILED = "failed", "Failed"


class AccountExport(models.Model):
    """A "download my data" export: everything bzpeer holds about `user`, as JSON, built by
    collaboration.tasks.account_export_build after the request commits. Offered through a
    signed link that expires (collaboration.services.export); a newer request replaces it."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="account_exports"
    )
    status = models.CharField(
        max_length=10, choices=AccountExportStatus.choices, default=AccountExportStatus.PENDING
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The JSON document; kept in the database, never in public storage.
    content = models.BinaryField(null=True, blank=True, editable=False)

    class Meta:
        indexes = [models.Index(fields=["user", "-created_at"], name="account_export_user_idx")]

    def __str__(self) -> str:
        return f"Account export {self.pk} ({self.status})"
