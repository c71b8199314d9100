"""The API authenticates by session only: a password cannot be tried over HTTP Basic, and an
account whose email is not verified (which allauth's login refuses) never reaches it signed in."""

from __future__ import annotations

import base64

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.urls import reverse

from tests.factories import ResearcherFactory, UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # noqa: S105 (UserFactory's)
CLAIMS_URL = "/api/v1/claims/"


def member(email: str, *, verified: bool = True):
    user = UserFactory(email=email)
    EmailAddress.objects.create(user=user, email=email, verified=verified, primary=True)
    return user


def basic(login: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{login}:{password}".encode()).decode()


def claim_body(user) -> dict[str, str]:
    return {
        "researcher": ResearcherFactory().slug,
        "claimant_name": "Alice Liddell",
        "statement": "I wrote these papers during my PhD.",
        "presented_email": user.email,
    }


def test_it_does_not_sign_in_with_the_right_password_after_sixty_wrong_ones_over_basic():
    alice = member("alice@example.org")
    client = Client()
    wrong = [
        client.get(CLAIMS_URL, HTTP_AUTHORIZATION=basic(alice.email, f"guess {n}")).status_code
        for n in range(60)
    ]
    right = client.get(CLAIMS_URL, HTTP_AUTHORIZATION=basic(alice.email, PASSWORD))
    assert set(wrong) == {403}
    assert right.status_code == 403
    assert "results" not in right.json()


def test_a_basic_header_cannot_open_a_claim():
    alice = member("alice@example.org")
    response = Client().post(
        CLAIMS_URL,
        claim_body(alice),
        content_type="application/json",
        HTTP_AUTHORIZATION=basic(alice.email, PASSWORD),
    )
    assert response.status_code == 403
    assert not alice.claims.exists()


@pytest.mark.parametrize(
    "header",
    [
        "Basic " + base64.b64encode(b"alice@example.org\x00:x").decode(),
        "Basic " + base64.b64encode(b"\xff\xfe:\xc3\x28").decode(),
        "Basic !!!not base64!!!",
        "Basic",
        "Basic a b c",
        "Bearer " + "x" * 5000,
        "Basic \u00e9\u00e8",
    ],
)
def test_an_odd_authorization_header_is_not_a_server_error(header):
    member("alice@example.org")
    response = Client().get(CLAIMS_URL, HTTP_AUTHORIZATION=header)
    assert response.status_code < 500
    assert response.status_code != 200


def test_a_signed_in_session_reads_and_writes_with_a_csrf_token():
    alice = member("alice@example.org")
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.get(CLAIMS_URL).status_code == 200
    body = claim_body(alice)
    # Without the token an unsafe request is refused; the claim form page hands one out.
    assert client.post(CLAIMS_URL, body, content_type="application/json").status_code == 403
    client.get(reverse("claims:claim-start", args=[body["researcher"]]))
    token = client.cookies["csrftoken"].value
    response = client.post(
        CLAIMS_URL, body, content_type="application/json", HTTP_X_CSRFTOKEN=token
    )
    assert response.status_code == 201
    assert alice.claims.count() == 1


def test_an_account_with_an_unverified_email_never_reaches_the_api_signed_in():
    unverified = member("unverified@example.org", verified=False)
    client = Client()
    client.post(reverse("account_login"), {"login": unverified.email, "password": PASSWORD})
    assert "_auth_user_id" not in client.session
    assert client.get(CLAIMS_URL).status_code == 403
    over_basic = client.get(CLAIMS_URL, HTTP_AUTHORIZATION=basic(unverified.email, PASSWORD))
    assert over_basic.status_code == 403
