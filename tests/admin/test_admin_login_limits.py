"""The admin is signed in to through the site's login (allauth, secure_admin_login), so it has
the same limits: failed attempts lock an address and an account out, and an account whose email
is not verified cannot sign in. The admin's own form takes no password any more."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.urls import reverse

from tests.factories import UserFactory
from tests.support.people import totp_code, two_factor_on

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # noqa: S105 (UserFactory's)


@pytest.fixture
def moderator():
    user = UserFactory(email="mod@example.org", is_staff=True, is_superuser=True)
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    user.totp_secret = two_factor_on(user)
    return user


def admin_form_post(client: Client, login: str, password: str):
    return client.post(
        reverse("admin:login"), {"username": login, "password": password, "next": "/admin/"}
    )


def site_login_post(client: Client, login: str, password: str):
    return client.post(
        reverse("account_login") + "?next=/admin/", {"login": login, "password": password}
    )


def in_the_admin(client: Client) -> bool:
    return client.get(reverse("admin:index")).status_code == 200


def test_the_admin_login_sends_people_to_the_sites_login(moderator):
    client = Client()
    response = client.get(reverse("admin:index"), follow=True)
    landed = urlsplit(response.redirect_chain[-1][0])
    assert landed.path == reverse("account_login")
    assert parse_qs(landed.query)["next"] == ["/admin/"]


def test_the_admin_form_does_not_sign_in_even_with_the_right_password(moderator):
    client = Client()
    wrong = [admin_form_post(client, moderator.email, f"guess {n}") for n in range(60)]
    right = admin_form_post(client, moderator.email, PASSWORD)
    assert all(page.status_code == 302 for page in [*wrong, right])
    assert right["Location"].startswith(reverse("account_login"))
    assert not in_the_admin(client)


def test_a_moderator_signs_in_to_the_admin_through_the_sites_login(moderator):
    client = Client()
    response = site_login_post(client, moderator.email, PASSWORD)
    # Staff have two-factor authentication on: the code comes next, then the admin.
    assert response.status_code == 302 and response["Location"] == reverse("mfa_authenticate")
    assert not in_the_admin(client)
    response = client.post(reverse("mfa_authenticate"), {"code": totp_code(moderator.totp_secret)})
    assert response.status_code == 302 and response["Location"] == "/admin/"
    assert in_the_admin(client)


def test_the_admin_sign_in_is_locked_after_repeated_failures(moderator):
    attacker = Client()
    pages = [site_login_post(attacker, moderator.email, f"guess {n}") for n in range(6)]
    assert "Too many failed login attempts" in pages[5].content.decode()
    # The right password no longer opens the admin from this address; from another it signs
    # in as far as the second factor (issue 28: an attacker cannot keep the owner out).
    site_login_post(attacker, moderator.email, PASSWORD)
    assert not in_the_admin(attacker)
    elsewhere = Client(REMOTE_ADDR="198.51.100.9")
    response = site_login_post(elsewhere, moderator.email, PASSWORD)
    assert response.status_code == 302
    assert response["Location"] == reverse("mfa_authenticate")


def test_a_staff_account_with_an_unverified_email_cannot_sign_in_to_the_admin():
    staff = UserFactory(email="staff@example.org", is_staff=True, is_superuser=True)
    EmailAddress.objects.create(user=staff, email=staff.email, verified=False, primary=True)
    for sign_in in (admin_form_post, site_login_post):
        client = Client()
        sign_in(client, staff.email, PASSWORD)
        assert not in_the_admin(client)
