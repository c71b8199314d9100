"""Moderation in the Django admin: the queue, approval at L3/L4, rejection and revocation with
a reason the claimant sees, bulk decisions, merges, and the append-only audit log."""

from __future__ import annotations

import pytest
from django.contrib.admin import helpers
from django.core import mail
from django.db import DatabaseError, connection, transaction
from django.urls import reverse

from claims.models import (
    Claim,
    ClaimStatus,
    ModerationAction,
    ModerationEvent,
)
from notifications.models import Notification
from researchers.models import VerificationLevel
from tests.factories import ResearcherFactory
from tests.support.people import approved_claimant, make_member, submit

pytestmark = pytest.mark.django_db

QUEUE = reverse("admin:claims_pendingclaim_changelist")
CLAIMS = reverse("admin:claims_claim_changelist")


def act(client, url, action, *claims, **extra):
    data = {
        "action": action,
        helpers.ACTION_CHECKBOX_NAME: [c.pk for c in claims],
        "index": 0,
        **extra,
    }
    return client.post(url, data)


def test_the_queue_lists_pending_claims_oldest_first_with_their_checks(
    moderator_client, alice, bob, commit
):
    older = ResearcherFactory(display_name="Older Record")
    newer = ResearcherFactory(display_name="Newer Record")
    with commit():
        first = submit(alice, older)
        second = submit(bob, newer)
    decided = submit(
        make_member("c@example.org"), ResearcherFactory(display_name="Withdrawn Record")
    )
    decided.status = ClaimStatus.WITHDRAWN
    decided.save()
    page = moderator_client.get(QUEUE).content.decode()
    assert page.index("Older Record") < page.index("Newer Record")
    assert "Withdrawn Record" not in page
    assert "Name match ✘" in page and "ORCID match –" in page
    detail = moderator_client.get(
        reverse("admin:claims_pendingclaim_change", args=[first.pk])
    ).content.decode()
    # Evidence, check results and the two sides next to each other.
    assert "https://wonderland.example.edu/~alice" in detail
    assert "I wrote these papers at Wonderland University." in detail
    assert "alice@example.org" in detail and "(verified)" in detail
    assert older.openalex_id in detail
    assert "No automatic check corroborated the claim." in detail
    assert "Approve at L4" in detail
    assert second.pk


def test_moderation_approval_at_l4(moderator_client, moderator, alice, record, commit):
    claim = submit(alice, record)
    with commit():
        response = act(moderator_client, QUEUE, "approve_l4", claim)
    assert response.status_code == 302
    claim.refresh_from_db()
    record.refresh_from_db()
    assert (
        claim.status == ClaimStatus.APPROVED and claim.level == 4 and claim.decided_by == moderator
    )
    assert record.claimed_by == alice
    assert record.verification_level == VerificationLevel.MODERATOR_VERIFIED
    event = ModerationEvent.objects.get(claim_id=claim.pk, action=ModerationAction.CLAIM_APPROVED)
    assert event.actor_id == moderator.pk and event.details["level"] == 4
    assert Notification.objects.filter(user=alice, kind="claim_approved").exists()
    (message,) = mail.outbox
    assert message.to == [alice.email] and "approved" in message.subject
    assert message.alternatives and "L4" in message.alternatives[0][0]


def test_moderation_approval_at_l3_in_bulk(moderator_client, alice, bob):
    claims = [submit(alice, ResearcherFactory()), submit(bob, ResearcherFactory())]
    act(moderator_client, QUEUE, "approve_l3", *claims)
    assert set(Claim.objects.values_list("status", "level")) == {("approved", 3)}


def test_moderation_rejection_asks_for_a_reason_the_claimant_sees(
    moderator_client, alice, alice_client, record, commit
):
    claim = submit(alice, record)
    page = act(moderator_client, QUEUE, "reject_claims", claim)
    assert page.status_code == 200 and "The claimant sees this reason." in page.content.decode()
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING  # nothing happens before the reason is given
    with commit():
        act(
            moderator_client,
            QUEUE,
            "reject_claims",
            claim,
            apply="1",
            reason="The evidence links do not mention you.",
        )
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.REJECTED
    assert claim.decision_reason == "The evidence links do not mention you."
    account = alice_client.get(reverse("claims:account")).content.decode()
    assert "The evidence links do not mention you." in account
    assert "Rejected" in account
    assert "The evidence links do not mention you." in mail.outbox[-1].body
    assert ModerationEvent.objects.filter(
        claim_id=claim.pk, action="claim_rejected", reason__contains="evidence links"
    ).exists()


def test_bulk_rejection(moderator_client, alice, bob):
    claims = [submit(alice, ResearcherFactory()), submit(bob, ResearcherFactory())]
    act(moderator_client, QUEUE, "reject_claims", *claims, apply="1", reason="Spam.")
    assert set(Claim.objects.values_list("status", flat=True)) == {"rejected"}


def test_moderation_revocation(moderator_client, moderator, alice, record, commit):
    claim = approved_claimant(alice, record, level=4, moderator=moderator)
    page = act(moderator_client, CLAIMS, "revoke_claims", claim)
    assert "The record becomes unclaimed again." in page.content.decode()
    with commit():
        act(
            moderator_client,
            CLAIMS,
            "revoke_claims",
            claim,
            apply="1",
            reason="Impersonation confirmed.",
        )
    claim.refresh_from_db()
    record.refresh_from_db()
    assert (
        claim.status == ClaimStatus.REVOKED and claim.decision_reason == "Impersonation confirmed."
    )
    assert record.claimed_by is None and record.verification_level == VerificationLevel.IDENTIFIED
    assert Notification.objects.filter(user=alice, kind="claim_revoked").exists()


def test_a_claim_page_offers_the_decisions_as_post_forms(moderator_client, alice, record):
    claim = submit(alice, record)
    page = moderator_client.get(
        reverse("admin:claims_claim_change", args=[claim.pk])
    ).content.decode()
    assert (
        'name="action" value="approve_l3"' in page and 'name="action" value="reject_claims"' in page
    )
    assert page.count('name="csrfmiddlewaretoken"') >= 3


def test_the_decision_refuses_a_second_approval_on_the_same_record_with_a_message(
    moderator_client, alice, bob, record
):
    first, second = submit(alice, record), submit(bob, record)
    act(moderator_client, QUEUE, "approve_l4", first)
    response = act(moderator_client, CLAIMS, "approve_l4", second)
    second.refresh_from_db()
    assert second.status == ClaimStatus.REJECTED  # closed when the first was approved
    messages = [m.message for m in response.wsgi_request._messages]
    assert any("already been claimed by another user" in m for m in messages)


def test_a_user_who_is_not_staff_cannot_reach_moderation(alice_client, alice, record):
    claim = submit(alice, record)
    for url in (
        QUEUE,
        CLAIMS,
        reverse("admin:claims_claim_change", args=[claim.pk]),
        reverse("admin:claims_moderationevent_changelist"),
    ):
        response = alice_client.get(url)
        assert response.status_code == 302 and response["Location"].startswith(
            reverse("admin:login")
        )
    response = act(alice_client, QUEUE, "approve_l4", claim)
    assert response.status_code == 302 and response["Location"].startswith(reverse("admin:login"))
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING


def test_staff_without_the_claims_permission_cannot_decide(alice, record):
    from tests.support.people import client_for

    staff = make_member("staff@example.org", is_staff=True)
    claim = submit(alice, record)
    client = client_for(staff)
    assert client.get(QUEUE).status_code == 403
    assert act(client, QUEUE, "approve_l4", claim).status_code == 403
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING


def test_nobody_can_edit_or_delete_the_audit_log_in_the_admin(admin_client, alice, record):
    submit(alice, record)
    event = ModerationEvent.objects.get()
    change_url = reverse("admin:claims_moderationevent_change", args=[event.pk])
    page = admin_client.get(change_url)
    assert page.status_code == 200 and "Save" not in page.content.decode()
    admin_client.post(change_url, {"reason": "rewritten"})
    assert (
        admin_client.get(
            reverse("admin:claims_moderationevent_delete", args=[event.pk])
        ).status_code
        == 403
    )
    assert admin_client.get(reverse("admin:claims_moderationevent_add")).status_code == 403
    event.refresh_from_db()
    assert event.reason == ""


def test_the_database_refuses_to_change_or_delete_audit_log_rows(alice, record):
    submit(alice, record)
    event = ModerationEvent.objects.get()
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        ModerationEvent.objects.filter(pk=event.pk).update(reason="rewritten")
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        ModerationEvent.objects.filter(pk=event.pk).delete()
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("DELETE FROM claims_moderationevent")
    assert ModerationEvent.objects.filter(pk=event.pk, reason="").exists()


def test_every_decision_is_in_the_audit_log_with_who_when_what_and_why(
    moderator, alice, bob, commit
):
    from claims import services

    with commit():
        a = submit(alice, ResearcherFactory())
        b = submit(bob, ResearcherFactory())
        services.claim_approve(claim=a, moderator=moderator, level=4, reason="ID card seen")
        services.claim_reject(claim=b, moderator=moderator, reason="No evidence")
        services.claim_revoke(claim=a, moderator=moderator, reason="Changed my mind")
    rows = list(
        ModerationEvent.objects.filter(actor=moderator)
        .order_by("id")
        .values_list("action", "reason")
    )
    assert rows == [
        ("claim_approved", "ID card seen"),
        ("claim_rejected", "No evidence"),
        ("claim_revoked", "Changed my mind"),
    ]
    assert all(
        e.created_at and e.actor_label.startswith("mod@example.org")
        for e in ModerationEvent.objects.filter(actor=moderator)
    )
