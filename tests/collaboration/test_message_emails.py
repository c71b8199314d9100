"""The "you have unread messages" emails: only for a message still unread 10 minutes after it
arrived, at most one per conversation per hour (and only after a new message), never when
muted or blocked or when the user chose another delivery; optional-email headers. Every sweep
runs with an explicit `now`."""

from __future__ import annotations

import datetime

import pytest
from django.core import mail
from django.utils import timezone

from collaboration import services
from collaboration.models import ConversationParticipant, Message
from notifications.services import notification_preference_set

pytestmark = pytest.mark.django_db

T0 = timezone.now().replace(microsecond=0) - datetime.timedelta(hours=6)


def minutes(n: float) -> datetime.datetime:
    return T0 + datetime.timedelta(minutes=n)


def send_at(author, conversation, when: datetime.datetime, body: str = "Secret plans") -> Message:
    """A message as if sent at `when` (the service stamps the real time)."""
    message = services.message_send(author=author, conversation_id=conversation.pk, body=body)
    Message.objects.filter(pk=message.pk).update(created_at=when)
    ConversationParticipant.objects.filter(
        conversation=conversation, unread_since__isnull=False
    ).exclude(unread_since__lt=when).update(unread_since=when)
    return message


@pytest.fixture
def sweep(commit):
    def run(when: datetime.datetime) -> int:
        with commit():
            return services.message_emails_send_due(now=when)

    return run


def emails_to(user) -> list:
    return [message for message in mail.outbox if message.to == [user.email]]


def test_no_email_before_a_message_has_been_unread_for_10_minutes(alice, bob, conversation, sweep):
    send_at(alice, conversation, minutes(0))
    mail.outbox.clear()
    assert sweep(minutes(9)) == 0
    assert emails_to(bob) == []
    assert sweep(minutes(10)) == 1
    [email] = emails_to(bob)
    assert "Alice Liddell" in email.subject
    assert "1 unread message in your conversation with Alice Liddell" in email.body
    # The message text itself is never in the email.
    assert "Secret plans" not in email.body


def test_a_message_read_within_10_minutes_sends_nothing(alice, bob, conversation, sweep):
    send_at(alice, conversation, minutes(0))
    services.conversation_mark_read(user=bob, conversation_id=conversation.pk)
    mail.outbox.clear()
    assert sweep(minutes(30)) == 0


def test_at_most_one_email_per_conversation_per_hour(alice, bob, conversation, sweep):
    send_at(alice, conversation, minutes(0))
    assert sweep(minutes(10)) == 1
    send_at(alice, conversation, minutes(20))
    assert sweep(minutes(30)) == 0
    assert sweep(minutes(69)) == 0
    assert sweep(minutes(70)) == 1
    assert len(emails_to(bob)) == 2


def test_no_second_email_without_a_new_message(alice, bob, conversation, sweep):
    send_at(alice, conversation, minutes(0))
    assert sweep(minutes(10)) == 1
    assert sweep(minutes(200)) == 0
    # Bob writing is no news for bob (alice, who has not read it, gets her own email).
    send_at(bob, conversation, minutes(210))
    assert sweep(minutes(300)) == 1
    assert (len(emails_to(bob)), len(emails_to(alice))) == (1, 1)


def test_the_sender_is_not_emailed_about_their_own_message(alice, bob, conversation, sweep):
    send_at(alice, conversation, minutes(0))
    mail.outbox.clear()
    sweep(minutes(30))
    assert emails_to(alice) == []


def test_a_muted_conversation_sends_no_email(alice, bob, conversation, sweep):
    services.conversation_mute(user=bob, conversation_id=conversation.pk, muted=True)
    send_at(alice, conversation, minutes(0))
    mail.outbox.clear()
    assert sweep(minutes(30)) == 0
    assert emails_to(bob) == []


def test_a_block_stops_the_email(alice, bob, conversation, sweep):
    send_at(alice, conversation, minutes(0))
    services.block_create(blocker=bob, researcher=alice.record)
    mail.outbox.clear()
    assert sweep(minutes(30)) == 0
    assert emails_to(bob) == []


def test_only_an_immediate_delivery_gets_the_email(alice, bob, conversation, sweep):
    notification_preference_set(user=bob, category="messages", delivery="daily")
    send_at(alice, conversation, minutes(0))
    mail.outbox.clear()
    assert sweep(minutes(30)) == 0
    assert emails_to(bob) == []
    notification_preference_set(user=bob, category="messages", delivery="immediately")
    assert sweep(minutes(31)) == 1


def test_the_email_has_both_parts_and_the_one_click_unsubscribe_headers(
    alice, bob, conversation, sweep, settings
):
    settings.SITE_URL = "https://bzpeer.example"
    send_at(alice, conversation, minutes(0))
    mail.outbox.clear()
    sweep(minutes(10))
    [email] = emails_to(bob)
    assert email.extra_headers["List-Id"] == "bzpeer messages <messages.bzpeer.invalid>"
    unsubscribe = email.extra_headers["List-Unsubscribe"]
    assert unsubscribe.startswith("<https://bzpeer.example/") and unsubscribe.endswith(">")
    assert email.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    [(html, mimetype)] = email.alternatives
    assert mimetype == "text/html"
    assert "Alice Liddell" in html
    assert f"/inbox/conversations/{conversation.pk}/" in email.body


def test_the_sender_name_is_escaped_in_the_html_part(alice, bob, conversation, sweep):
    alice.record.display_name = "Alice <script>x</script>"
    alice.record.save(update_fields=["display_name"])
    send_at(alice, conversation, minutes(0))
    mail.outbox.clear()
    sweep(minutes(10))
    [email] = emails_to(bob)
    html = email.alternatives[0][0]
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_the_beat_task_claims_and_queues_the_sends(alice, bob, conversation, commit):
    from collaboration import tasks

    send_at(alice, conversation, minutes(0))
    ConversationParticipant.objects.filter(user=bob).update(
        unread_since=timezone.now() - datetime.timedelta(minutes=11)
    )
    mail.outbox.clear()
    with commit():
        assert tasks.message_emails_send_due() == 1
    assert len(emails_to(bob)) == 1


def test_an_email_whose_task_message_was_lost_is_claimed_again_and_sent_once(
    alice, bob, conversation, commit
):
    send_at(alice, conversation, minutes(0))
    mail.outbox.clear()
    lost: list[int] = []
    with commit():  # the sweep claims it, and the broker loses its task message
        assert services.message_emails_send_due(now=minutes(10), send=lost.append) == 1
    [participant_id] = lost
    assert ConversationParticipant.objects.get(pk=participant_id).last_emailed_at is None
    queued: list[int] = []
    with commit():  # its task may only be late
        assert services.message_emails_send_due(now=minutes(14), send=queued.append) == 0
    with commit():
        assert services.message_emails_send_due(now=minutes(15), send=queued.append) == 1
    assert queued == [participant_id]

    assert services.message_email_send(participant_id=participant_id) is True
    # The lost message turns up after all: the reminder is taken already.
    assert services.message_email_send(participant_id=participant_id) is False
    assert len(emails_to(bob)) == 1
    participant = ConversationParticipant.objects.get(pk=participant_id)
    assert (participant.last_emailed_at, participant.email_queued_at) == (minutes(15), None)
    with commit():
        assert services.message_emails_send_due(now=minutes(30), send=queued.append) == 0


def test_an_email_that_failed_to_send_stays_owed(alice, bob, conversation, commit, monkeypatch):
    from collaboration.services import emails

    send_at(alice, conversation, minutes(0))
    mail.outbox.clear()
    queued: list[int] = []
    with commit():
        assert services.message_emails_send_due(now=minutes(10), send=queued.append) == 1

    def refused(**kwargs):
        raise ConnectionError("the mail server went away")

    monkeypatch.setattr(emails, "optional_email_send", refused)
    with pytest.raises(ConnectionError):
        services.message_email_send(participant_id=queued[0])
    participant = ConversationParticipant.objects.get(pk=queued[0])
    assert (participant.last_emailed_at, participant.email_queued_at) == (None, minutes(10))
    monkeypatch.undo()
    assert services.message_email_send(participant_id=queued[0]) is True  # the task's retry
    assert len(emails_to(bob)) == 1


def test_the_sweep_queues_nothing_when_no_email_is_owed(alice, bob, conversation, sweep):
    assert sweep(minutes(30)) == 0
    send_at(alice, conversation, minutes(0))
    assert sweep(minutes(10)) == 1
    assert sweep(minutes(16)) == 0  # sent: nothing owed any more
    assert len(emails_to(bob)) == 1
