"""Work whose task message was lost is owed in the database and sent again by a sweep (issue 29):
immediate notification emails, claims' automatic checks and "download my data" exports. Each
sweep queues what is owed (past a grace period for a task that is only late), and each task
does its work once however many times it is delivered."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from bzpeer.queueing import registered_task
from claims.models import Claim
from claims.services.checks_queue import claim_checks_owed_send
from collaboration.models import AccountExport, AccountExportStatus
from collaboration.services import account_exports_owed_build
from notifications.kinds import Delivery
from notifications.models import Notification
from notifications.services.digest import (
    notification_digests_queue,
    notification_digests_resend_pending,
)
from notifications.services.notifications import notification_emails_owed_send
from tests.factories import ResearcherFactory
from tests.support.people import make_member, submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def sweep(django_capture_on_commit_callbacks):
    """Run a sweep and send what it queued, as its commit would."""

    def run(function) -> int:
        with django_capture_on_commit_callbacks(execute=True):
            return function()

    return run


@pytest.fixture
def sent(monkeypatch):
    """What reaches the broker, by task name: apply_async recorded instead of sent."""
    calls: dict[str, list[tuple]] = {}

    def recorder(name: str):
        return lambda args=(), kwargs=None, **options: calls.setdefault(name, []).append(args)

    for name in (
        "notifications.tasks.notification_email_send",
        "claims.tasks.claim_checks_run",
        "collaboration.tasks.account_export_build",
        "notifications.tasks.notification_digest_deliveries_send",
    ):
        monkeypatch.setattr(registered_task(name), "apply_async", recorder(name))
    return calls


def _notification(user, *, age: timedelta, **fields) -> Notification:
    fields = {"email_delivery": Delivery.IMMEDIATELY, **fields}
    return Notification.objects.create(
        user=user,
        category="claims",
        kind="claim_approved",
        subject="Your claim",
        message="It was approved.",
        created_at=timezone.now() - age,
        **fields,
    )


def test_an_immediate_email_never_sent_is_queued_again_and_sent_once(sent, sweep):
    alice = make_member("alice-owed@example.org", display_name="Alice Owed")
    owed = _notification(alice, age=timedelta(minutes=3))
    _notification(alice, age=timedelta(seconds=30))  # its task may only be late
    _notification(alice, age=timedelta(minutes=3), emailed_at=timezone.now())  # sent
    _notification(alice, age=timedelta(days=2))  # too old: the in-app copy is the notification

    assert sweep(notification_emails_owed_send) == 1
    assert sent["notifications.tasks.notification_email_send"] == [(owed.pk,)]

    task = registered_task("notifications.tasks.notification_email_send")
    task.run(owed.pk)
    task.run(owed.pk)  # the lost message turns up after all
    assert len(mail.outbox) == 1
    assert sweep(notification_emails_owed_send) == 0


def test_a_pending_claim_whose_checks_never_ran_is_checked_again_once(sent, sweep):
    alice = make_member("alice-claim-owed@example.org", display_name="Alice Claim")
    claim = submit(alice, ResearcherFactory(display_name="Alice Claim"))
    fresh = submit(
        make_member("bob-claim-owed@example.org", display_name="Bob Claim"),
        ResearcherFactory(display_name="Bob Claim"),
    )
    Claim.objects.filter(pk=claim.pk).update(created_at=timezone.now() - timedelta(minutes=3))

    assert sweep(claim_checks_owed_send) == 1
    assert sent["claims.tasks.claim_checks_run"] == [(claim.pk,)]
    assert fresh.pk not in {args[0] for args in sent["claims.tasks.claim_checks_run"]}

    registered_task("claims.tasks.claim_checks_run").run(claim.pk)
    claim.refresh_from_db()
    assert claim.checks_completed_at is not None
    checks = sorted(claim.checks.values_list("kind", flat=True))
    assert checks
    # The lost message turns up after all: the same checks, one row each, and one decision.
    registered_task("claims.tasks.claim_checks_run").run(claim.pk)
    assert sorted(claim.checks.values_list("kind", flat=True)) == checks
    assert sweep(claim_checks_owed_send) == 0


def test_a_pending_export_is_built_again_once(sent, sweep):
    alice = make_member("alice-export-owed@example.org", display_name="Alice Export")
    export = AccountExport.objects.create(user=alice)
    AccountExport.objects.filter(pk=export.pk).update(
        created_at=timezone.now() - timedelta(minutes=6)
    )

    assert sweep(account_exports_owed_build) == 1
    assert sent["collaboration.tasks.account_export_build"] == [(export.pk,)]

    build = registered_task("collaboration.tasks.account_export_build")
    assert build.run(export.pk) is True
    assert build.run(export.pk) is False  # built already
    export.refresh_from_db()
    assert export.status == AccountExportStatus.READY
    assert sweep(account_exports_owed_build) == 0


def test_a_daily_digest_whose_chunk_was_lost_is_queued_again_and_sent_once(sent, sweep):
    alice = make_member("alice-digest-owed@example.org", display_name="Alice Digest")
    _notification(alice, age=timedelta(hours=2), email_delivery=Delivery.DAILY)
    task = "notifications.tasks.notification_digest_deliveries_send"
    # The daily run planned it and queued its chunk, whose message the broker then lost.
    assert sweep(lambda: notification_digests_queue(clock=timezone.now())) == 1
    [(lost_chunk,)] = sent.pop(task)

    assert sweep(notification_digests_resend_pending) == 1
    assert sent[task] == [(lost_chunk,)]

    registered_task(task).run(lost_chunk)
    registered_task(task).run(lost_chunk)  # the lost message turns up after all
    assert len(mail.outbox) == 1
    assert sweep(notification_digests_resend_pending) == 0
