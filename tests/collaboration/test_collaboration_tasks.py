"""The tasks are thin and scheduled: beat runs the expiry hourly and the email sweep every
minute; a send task for a row that is gone or read since returns quietly."""

from __future__ import annotations

import datetime

import pytest
from django.conf import settings
from django.core import mail
from django.utils import timezone

from bzpeer.celery import app as celery_app
from collaboration import services, tasks
from collaboration.models import ConversationParticipant, Invitation, InvitationStatus

pytestmark = pytest.mark.django_db


def test_beat_runs_the_expiry_hourly_and_the_email_sweep_every_minute():
    schedule = {
        entry["task"]: entry["schedule"] for entry in settings.CELERY_BEAT_SCHEDULE.values()
    }
    assert schedule["collaboration.tasks.invitations_expire"] == 3600
    assert schedule["collaboration.tasks.message_emails_send_due"] == 60
    for name in (
        "collaboration.tasks.invitations_expire",
        "collaboration.tasks.message_emails_send_due",
        "collaboration.tasks.message_email_send",
    ):
        assert name in celery_app.tasks


def test_the_expiry_task_marks_stale_invitations(invitation):
    Invitation.objects.filter(pk=invitation.pk).update(
        expires_at=timezone.now() - datetime.timedelta(seconds=1)
    )
    assert tasks.invitations_expire.delay().get() == 1
    invitation.refresh_from_db()
    assert invitation.status == InvitationStatus.EXPIRED


def test_a_send_task_for_a_gone_or_read_row_sends_nothing(alice, bob, conversation):
    services.message_send(author=alice, conversation_id=conversation.pk, body="Hi")
    side = ConversationParticipant.objects.get(conversation=conversation, user=bob)
    services.conversation_mark_read(user=bob, conversation_id=conversation.pk)
    mail.outbox.clear()
    assert tasks.message_email_send.delay(side.pk).get() is False
    assert tasks.message_email_send.delay(10**12).get() is False
    assert mail.outbox == []
