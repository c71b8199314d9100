"""Invitations as the inbox and the API show them: the other side, the kind, the status (a
pending invitation past its 30 days reads as expired), the anchors. A fixed number of queries
whatever the count, and no query reads more of a user's invitations than it shows: a user can
have thousands of answered ones (each conversation began with one)."""

from __future__ import annotations

import datetime
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import F, Q
from django.http import Http404
from django.utils import timezone

from bzpeer.users.models import User
from collaboration.models import Invitation, InvitationKind, InvitationStatus
from researchers.models import Researcher

DELETED_NAME = "Deleted researcher"
BOXES = ("received", "sent")
INVITATIONS_SHOWN = 50


@dataclass
class InvitationSummary:
    id: int
    kind: str
    kind_label: str
    status: str
    status_label: str
    purpose: str
    created_at: datetime.datetime
    expires_at: datetime.datetime
    responded_at: datetime.datetime | None
    is_received: bool
    other_name: str
    other_slug: str | None
    conversation_id: int | None
    anchor_works: list[tuple[int, str]] = field(default_factory=list)
    anchor_topics: list[tuple[int, str]] = field(default_factory=list)

    @property
    def is_pending(self) -> bool:
        return self.status == InvitationStatus.PENDING


def effective_status(invitation: Invitation, *, now: datetime.datetime) -> str:
    """The status as everyone sees it: pending past expires_at is expired (the hourly task
    writes that down later)."""
    return _status(invitation.status, invitation.expires_at, now=now)


def _status(status: str, expires_at: datetime.datetime, *, now: datetime.datetime) -> str:
    if status == InvitationStatus.PENDING and expires_at <= now:
        return InvitationStatus.EXPIRED
    return status


# Plain rows, not model instances: a list shows up to 50 invitations, each with two records.
_ROW = (
    "id",
    "kind",
    "purpose",
    "status",
    "created_at",
    "expires_at",
    "responded_at",
    "sender_id",
    "recipient_id",
    "conversation_id",
)
_KIND_LABELS = {value: str(label) for value, label in InvitationKind.choices}
_STATUS_LABELS = {value: str(label) for value, label in InvitationStatus.choices}
# The row's keys in the order invitations_for selects them.
_COLUMNS = (*_ROW, "sender_slug", "sender_name", "recipient_slug", "recipient_name")
_RECORDS = {
    f"{side}_{name}": F(f"{side}_researcher__{column}")
    for side in ("sender", "recipient")
    for name, column in (("slug", "slug"), ("name", "display_name"))
}


def _anchors(
    invitation_ids: list[int],
) -> tuple[dict[int, list[tuple[int, str]]], dict[int, list[tuple[int, str]]]]:
    """The works and topics anchoring each invitation: two queries whatever the count."""
    works: dict[int, list[tuple[int, str]]] = defaultdict(list)
    topics: dict[int, list[tuple[int, str]]] = defaultdict(list)
    if not invitation_ids:
        return works, topics
    for invitation_id, work_id, title in (
        Invitation.anchor_works.through.objects.filter(invitation_id__in=invitation_ids)
        .order_by("work_id")
        .values_list("invitation_id", "work_id", "work__title")
    ):
        works[invitation_id].append((work_id, title))
    for invitation_id, topic_id, name in (
        Invitation.anchor_topics.through.objects.filter(invitation_id__in=invitation_ids)
        .order_by("topic__name")
        .values_list("invitation_id", "topic_id", "topic__name")
    ):
        topics[invitation_id].append((topic_id, name))
    return works, topics


def _summaries(
    rows: list[dict[str, Any]],
    *,
    viewer: User,
    now: datetime.datetime,
    with_anchors: bool = True,
) -> list[InvitationSummary]:
    works, topics = _anchors([row["id"] for row in rows]) if with_anchors else ({}, {})
    summaries = []
    for row in rows:
        received = row["recipient_id"] == viewer.pk
        side = "sender" if received else "recipient"
        other_user_id = row[f"{side}_id"]
        other_name = row[f"{side}_name"]
        gone = other_user_id is None or other_name is None
        status = _status(row["status"], row["expires_at"], now=now)
        summaries.append(
            InvitationSummary(
                id=row["id"],
                kind=row["kind"],
                kind_label=_KIND_LABELS.get(row["kind"], row["kind"]),
                status=status,
                status_label=_STATUS_LABELS.get(status, status),
                purpose=row["purpose"],
                created_at=row["created_at"],
                expires_at=row["expires_at"],
                responded_at=row["responded_at"],
                is_received=received,
                other_name=DELETED_NAME if gone else other_name,
                other_slug=None if gone else row[f"{side}_slug"],
                conversation_id=row["conversation_id"],
                anchor_works=works.get(row["id"], []),
                anchor_topics=topics.get(row["id"], []),
            )
        )
    return summaries


_BOX_COLUMN = {"received": "recipient_id", "sent": "sender_id"}


def invitations_for(
    user: User, *, box: str, limit: int = INVITATIONS_SHOWN, with_anchors: bool = True
) -> list[InvitationSummary]:
    """The user's received or sent invitations: the open ones (pending, unexpired) first,
    then the newest others, `limit` in all. One query (three with the anchors, which the
    inbox does not show): each half of the union is a LIMIT read of an index in its order
    (invitation_*_pending_idx, invitation_*_idx), so only the rows shown are read.

    Written in SQL: the inbox runs it twice, and the ORM took ten times longer to compile
    this union than PostgreSQL takes to answer it."""
    if box not in BOXES:
        raise ValueError(f"box must be one of {BOXES}, not {box!r}")
    now = timezone.now()
    column = _BOX_COLUMN[box]
    invitation = Invitation._meta.db_table
    researcher = Researcher._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            SELECT i.id, i.kind, i.purpose, i.status, i.created_at, i.expires_at,
                   i.responded_at, i.sender_id, i.recipient_id, i.conversation_id,
                   s.slug, s.display_name, r.slug, r.display_name
            FROM (
                (SELECT id, created_at, true AS open FROM {invitation}
                 WHERE {column} = %(user)s AND status = %(pending)s AND expires_at > %(now)s
                 ORDER BY created_at DESC, id DESC LIMIT %(limit)s)
                UNION ALL
                (SELECT id, created_at, false FROM {invitation}
                 WHERE {column} = %(user)s
                   AND NOT (status = %(pending)s AND expires_at > %(now)s)
                 ORDER BY created_at DESC, id DESC LIMIT %(limit)s)
            ) shown
            JOIN {invitation} i ON i.id = shown.id
            LEFT JOIN {researcher} s ON s.id = i.sender_researcher_id
            LEFT JOIN {researcher} r ON r.id = i.recipient_researcher_id
            ORDER BY shown.open DESC, shown.created_at DESC, shown.id DESC
            LIMIT %(limit)s
            """,  # noqa: S608 - table and column names from the models and _BOX_COLUMN
            {"user": user.pk, "pending": InvitationStatus.PENDING, "now": now, "limit": limit},
        )
        rows = [dict(zip(_COLUMNS, values, strict=True)) for values in cursor.fetchall()]
    return _summaries(rows, viewer=user, now=now, with_anchors=with_anchors)


def invitation_for(user: User, invitation_id: int) -> InvitationSummary:
    """One invitation the user sent or received; anyone else's is a 404."""
    rows = list(
        Invitation.objects.filter(Q(sender=user) | Q(recipient=user), pk=invitation_id).values(
            *_ROW, **_RECORDS
        )
    )
    if not rows:
        raise Http404("No such invitation.")
    return _summaries(rows, viewer=user, now=timezone.now())[0]
