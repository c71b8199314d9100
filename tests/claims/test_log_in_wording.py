"""Issue 24, item 8: one wording for logging in everywhere, "Log in" as the header says; never
allauth's "Sign In" on its page, its button, its title or its messages."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.support.people import client_for

pytestmark = pytest.mark.django_db

SIGN_WORDING = re.compile(r"sign[ -]?(in|out)|signed (in|out)", re.IGNORECASE)


def _text(response) -> str:
    """The page without its markup's attribute values (a URL may say /login/)."""
    return re.sub(r"<[^>]*>", " ", response.content.decode())


def test_the_login_page_its_title_and_its_button_say_log_in(client):
    response = client.get(reverse("account_login"))
    page = response.content.decode()

    assert response.status_code == 200
    assert re.search(r"<title>\s*Log in", page)
    assert re.search(r"<h1[^>]*>\s*Log in\s*</h1>", page)
    assert re.search(r'<button[^>]*type="submit"[^>]*>\s*Log in\s*</button>', page)
    assert not SIGN_WORDING.search(_text(response))


def test_the_sign_up_and_log_out_pages_say_log_in_and_log_out(client, alice):
    signup = client.get(reverse("account_signup"))
    assert "log in" in _text(signup) and not SIGN_WORDING.search(_text(signup))

    logout = client_for(alice).get(reverse("account_logout"))
    assert "Log out" in _text(logout) and not SIGN_WORDING.search(_text(logout))


def test_the_messages_after_logging_in_and_out_say_logged(client, alice):
    from tests.claims.test_accounts import PASSWORD

    alice.set_password(PASSWORD)
    alice.save()
    response = client.post(
        reverse("account_login"), {"login": alice.email, "password": PASSWORD}, follow=True
    )
    assert "Successfully logged in as" in _text(response)

    response = client.post(reverse("account_logout"), follow=True)
    assert "You have logged out." in _text(response)


def test_a_public_page_header_says_log_in(client):
    page = _text(client.get(reverse("home")))
    assert "Log in" in page and not SIGN_WORDING.search(page)
