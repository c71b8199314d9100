"""Accounts (django-allauth): sign-up with mandatory email verification, login by email,
password reset, a second (institutional) email, the primary email, and the account page."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from allauth.socialaccount.models import SocialAccount
from django.core import mail
from django.test import Client
from django.urls import reverse

from researchers.models import Follow
from tests.factories import ResearcherFactory
from tests.support.people import reauthenticated, submit

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-passphrase-for-tests"


def link_in(message) -> str:
    return re.search(r"https?://[^/\s]+(/\S+)", message.body).group(1)


def sign_up(client: Client, email: str) -> None:
    response = client.post(
        reverse("account_signup"), {"email": email, "password1": PASSWORD, "password2": PASSWORD}
    )
    assert response.status_code == 302


def test_sign_up_requires_verifying_the_email_before_logging_in(client, django_user_model):
    sign_up(client, "new@wonderland.edu")
    user = django_user_model.objects.get(email="new@wonderland.edu")
    assert not EmailAddress.objects.get(user=user).verified
    assert "_auth_user_id" not in client.session  # mandatory verification: not signed in yet
    response = client.post(
        reverse("account_login"), {"login": "new@wonderland.edu", "password": PASSWORD}
    )
    assert response.status_code == 302 and "confirm" in response["Location"]
    assert "_auth_user_id" not in client.session
    confirm = link_in(mail.outbox[-1])
    assert client.get(confirm).status_code == 200
    client.post(confirm)
    assert EmailAddress.objects.get(user=user).verified
    client.post(reverse("account_login"), {"login": "new@wonderland.edu", "password": PASSWORD})
    assert int(client.session["_auth_user_id"]) == user.pk


def test_login_is_by_email(client, alice):
    response = client.post(
        reverse("account_login"),
        {"login": "alice@example.org", "password": "correct horse battery staple"},
    )
    assert response.status_code == 302
    assert int(client.session["_auth_user_id"]) == alice.pk


def test_password_reset(client, alice):
    client.post(reverse("account_reset_password"), {"email": alice.email})
    reset = link_in(mail.outbox[-1])
    response = client.get(reset, follow=True)
    form_url = response.redirect_chain[-1][0] if response.redirect_chain else reset
    client.post(
        form_url, {"password1": "another-long-passphrase", "password2": "another-long-passphrase"}
    )
    alice.refresh_from_db()
    assert alice.check_password("another-long-passphrase")


def test_adding_and_verifying_a_second_institutional_email(alice, alice_client):
    reauthenticated(alice_client).post(
        reverse("account_email"), {"action_add": "", "email": "alice@wonderland.edu"}
    )
    address = EmailAddress.objects.get(user=alice, email="alice@wonderland.edu")
    assert not address.verified
    confirm = link_in(mail.outbox[-1])
    alice_client.post(confirm)
    address.refresh_from_db()
    assert address.verified and not address.primary


def test_changing_the_primary_email(alice, alice_client):
    EmailAddress.objects.create(user=alice, email="alice@wonderland.edu", verified=True)
    reauthenticated(alice_client).post(
        reverse("account_email"), {"action_primary": "", "email": "alice@wonderland.edu"}
    )
    alice.refresh_from_db()
    assert alice.email == "alice@wonderland.edu"
    assert EmailAddress.objects.get(user=alice, primary=True).email == "alice@wonderland.edu"


def test_the_account_page_lists_emails_orcid_claims_and_follows(
    alice, alice_client, record, django_assert_max_num_queries
):
    EmailAddress.objects.create(user=alice, email="alice@wonderland.edu", verified=False)
    SocialAccount.objects.create(user=alice, provider="orcid", uid="0000-0002-1825-0097")
    followed = ResearcherFactory(display_name="Followed Person")
    Follow.objects.create(user=alice, researcher=followed)
    submit(alice, record)
    with django_assert_max_num_queries(15):
        page = alice_client.get(reverse("claims:account")).content.decode()
    assert "alice@example.org" in page and "alice@wonderland.edu" in page
    assert "Verified" in page and "Unverified" in page
    assert "0000-0002-1825-0097" in page
    assert record.display_name in page and "Pending" in page
    assert "Followed Person" in page


def test_the_account_page_answers_get_only(alice_client):
    assert alice_client.post(reverse("claims:account")).status_code == 405


def test_the_allauth_pages_use_the_site_layout(client, alice_client):
    for page in (
        client.get(reverse("account_login")),
        client.get(reverse("account_signup")),
        alice_client.get(reverse("account_email")),
    ):
        html = page.content.decode()
        assert page.status_code == 200
        assert 'class="site-header"' in html and "claims/account.css" in html
