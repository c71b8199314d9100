"""The list of one's logged-in sessions, with "log out everywhere else" (issue 28, item 7;
allauth's user sessions)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # noqa: S105 (UserFactory's)
SESSIONS = reverse("usersessions_list")


def logged_in(address: str, email: str) -> Client:
    client = Client(REMOTE_ADDR=address, HTTP_USER_AGENT=f"Browser at {address}")
    response = client.post(reverse("account_login"), {"login": email, "password": PASSWORD})
    assert response.status_code == 302
    return client


def test_the_sessions_page_lists_ones_own_sessions_only(alice, bob):
    laptop = logged_in("198.51.100.1", alice.email)
    logged_in("198.51.100.2", alice.email)
    logged_in("203.0.113.9", bob.email)
    response = laptop.get(SESSIONS)
    page = response.content.decode()
    assert response.status_code == 200
    assert "198.51.100.1" in page and "198.51.100.2" in page
    assert "203.0.113.9" not in page
    assert "Log out everywhere else" in page
    assert "no-store" in response.get("Cache-Control", "")


def test_logging_out_everywhere_else_keeps_this_session_only(alice, bob):
    laptop = logged_in("198.51.100.1", alice.email)
    phone = logged_in("198.51.100.2", alice.email)
    bobs = logged_in("203.0.113.9", bob.email)
    laptop.post(SESSIONS)
    assert laptop.get(reverse("claims:account")).status_code == 200
    assert phone.get(reverse("claims:account")).status_code == 302
    assert bobs.get(reverse("claims:account")).status_code == 200


def test_logging_out_elsewhere_needs_a_csrf_token(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post(SESSIONS).status_code == 403
