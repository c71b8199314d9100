"""Access: someone else's claim is a 404 (pages and API); state changes are POST-only and
CSRF-checked; pages need a login; claims, reports and logins are rate-limited."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from claims.models import Claim, ClaimStatus, Report
from tests.factories import ResearcherFactory
from tests.support.people import approved_claimant, client_for, make_member, submit

pytestmark = pytest.mark.django_db

CLAIM_POST = {
    "claimant_name": "Alice Liddell",
    "statement": "I am the author of these two works.",
    "evidence_links": "",
    "presented_email": "alice@example.org",
}


def test_one_user_cannot_withdraw_another_users_claim(alice, bob_client, record):
    claim = submit(alice, record)
    response = bob_client.post(reverse("claims:claim-withdraw", args=[claim.pk]))
    assert response.status_code == 404
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING


def test_one_user_cannot_see_another_users_claim_in_the_api(alice, bob_client, record):
    claim = submit(alice, record)
    assert bob_client.get(reverse("api:claim-detail", args=[claim.pk])).status_code == 404
    assert bob_client.post(reverse("api:claim-withdraw", args=[claim.pk])).status_code == 404
    assert bob_client.get(reverse("api:claim-list")).json()["results"] == []
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING


def test_one_user_cannot_see_another_users_claim_on_the_account_page(alice, bob_client, record):
    submit(alice, record, name="Alice Secret-Name")
    assert "Alice Secret-Name" not in bob_client.get(reverse("claims:account")).content.decode()


@pytest.mark.parametrize("name", ["account", "claim-start", "report", "profile-edit"])
def test_the_pages_require_login(client, record, name):
    args = [] if name == "account" else [record.slug]
    response = client.get(reverse(f"claims:{name}", args=args))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("claim-withdraw", "claim"),
        ("vouch", "claim"),
        ("notifications-read", None),
        ("work-not-mine", "work"),
    ],
)
def test_state_changes_refuse_get(alice, alice_client, record, moderator, name, kind):
    claim = submit(alice, record)
    if kind == "claim":
        args = [claim.pk]
    elif kind == "work":
        args = [record.slug, record.authorships.first().work_id]
    else:
        args = []
    assert alice_client.get(reverse(f"claims:{name}", args=args)).status_code == 405


def test_the_withdraw_needs_a_csrf_token(alice, record):
    claim = submit(alice, record)
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(reverse("claims:claim-withdraw", args=[claim.pk])).status_code == 403
    claim.refresh_from_db()
    assert claim.status == ClaimStatus.PENDING


def test_the_claim_form_needs_a_csrf_token(alice, record):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post(reverse("claims:claim-start", args=[record.slug]), CLAIM_POST)
    assert response.status_code == 403
    assert not Claim.objects.exists()


def test_the_api_needs_a_csrf_token_for_a_session_user(alice, record):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    response = client.post(
        reverse("api:claim-list"),
        {
            "researcher": record.slug,
            "claimant_name": "A",
            "statement": "x" * 30,
            "presented_email": alice.email,
        },
        content_type="application/json",
    )
    assert response.status_code == 403
    assert not Claim.objects.exists()


def test_the_report_form_needs_a_csrf_token(alice, bob, record, moderator):
    approved_claimant(alice, record, moderator=moderator)
    client = Client(enforce_csrf_checks=True)
    client.force_login(bob)
    response = client.post(
        reverse("claims:report", args=[record.slug]), {"reason": "Not her at all."}
    )
    assert response.status_code == 403
    assert not Report.objects.exists()


def test_claims_are_rate_limited(settings, alice, alice_client):
    settings.CLAIMS_RATE_LIMITS = {**settings.CLAIMS_RATE_LIMITS, "claim_submit": "2/h"}
    records = [ResearcherFactory() for _ in range(3)]
    statuses = []
    for record in records:
        response = alice_client.post(reverse("claims:claim-start", args=[record.slug]), CLAIM_POST)
        statuses.append(response.status_code)
    assert statuses == [302, 302, 429]
    assert Claim.objects.filter(user=alice).count() == 2
    assert "Too many attempts" in response.content.decode()


def test_claims_through_the_api_are_rate_limited(settings, alice, alice_client):
    settings.CLAIMS_RATE_LIMITS = {**settings.CLAIMS_RATE_LIMITS, "claim_submit": "1/h"}
    answers = [
        alice_client.post(
            reverse("api:claim-list"),
            {
                "researcher": ResearcherFactory().slug,
                "claimant_name": "A",
                "statement": "x" * 30,
                "presented_email": alice.email,
            },
            content_type="application/json",
        )
        for _ in range(2)
    ]
    assert [a.status_code for a in answers] == [201, 429]
    assert int(answers[1]["Retry-After"]) > 0


def test_reports_are_rate_limited(settings, moderator):
    settings.CLAIMS_RATE_LIMITS = {**settings.CLAIMS_RATE_LIMITS, "report_submit": "1/h"}
    reporter = client_for(make_member("reporter@example.org"))
    codes = []
    for index in range(2):
        owner = make_member(f"owner{index}@example.org")
        record = ResearcherFactory()
        approved_claimant(owner, record, moderator=moderator)
        codes.append(
            reporter.post(
                reverse("claims:report", args=[record.slug]), {"reason": "Not this person."}
            ).status_code
        )
    assert codes == [302, 429]
    assert Report.objects.count() == 1


def test_logins_are_rate_limited(client, alice):
    pages = [
        client.post(reverse("account_login"), {"login": alice.email, "password": "wrong password"})
        for _ in range(6)
    ]
    # allauth's failed-login limit for one address (5 per 5 minutes) then refuses even the
    # right password.
    assert all("Too many failed login attempts" not in p.content.decode() for p in pages[:5])
    assert "Too many failed login attempts" in pages[5].content.decode()
    right = client.post(
        reverse("account_login"), {"login": alice.email, "password": "correct horse battery staple"}
    )
    assert "_auth_user_id" not in client.session
    assert "Too many failed login attempts" in right.content.decode()


def test_signups_are_rate_limited(client, settings):
    settings.ACCOUNT_RATE_LIMITS = {**settings.ACCOUNT_RATE_LIMITS, "signup": "2/m/ip"}
    codes = [
        client.post(
            reverse("account_signup"),
            {
                "email": f"new{i}@example.org",
                "password1": "a-long-passphrase-1",
                "password2": "a-long-passphrase-1",
            },
        ).status_code
        for i in range(3)
    ]
    client.logout()
    assert codes[2] == 429
