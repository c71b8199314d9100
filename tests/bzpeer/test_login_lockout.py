"""Failed logins lock one address out of one account, not the owner everywhere (issue 28).

allauth counted failures per account alone: five wrong passwords from anywhere kept the owner
out for five minutes. bzpeer.http.AccountAdapter counts them per account and client address,
with a higher ceiling per account alone, and the owner of a locked account signs in with a code
sent to the verified address (allauth's login by code), which no failed password blocks.
"""

from __future__ import annotations

import re

import pytest
from django.core import mail
from django.test import Client
from django.urls import reverse

from tests.support.people import make_member

pytestmark = pytest.mark.django_db

PASSWORD = "correct horse battery staple"  # noqa: S105 (UserFactory's)
LOCKED = "Too many failed login attempts"


@pytest.fixture
def owner():
    return make_member("owner@example.org", display_name="Olive Owner")


def login(client: Client, email: str, password: str):
    return client.post(reverse("account_login"), {"login": email, "password": password})


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


def test_an_attacker_at_one_address_does_not_keep_the_owner_out_at_another(owner):
    attacker = Client(REMOTE_ADDR="203.0.113.7")
    pages = [login(attacker, owner.email, f"guess {n}") for n in range(6)]
    assert LOCKED in pages[5].content.decode()
    # The attacker's address stays locked, even with the right password...
    login(attacker, owner.email, PASSWORD)
    assert not signed_in(attacker)
    # ...but the owner, at home, signs in.
    home = Client(REMOTE_ADDR="198.51.100.20")
    response = login(home, owner.email, PASSWORD)
    assert response.status_code == 302
    assert signed_in(home)


def test_the_lock_message_points_to_the_sign_in_by_code(owner):
    attacker = Client(REMOTE_ADDR="203.0.113.7")
    pages = [login(attacker, owner.email, f"guess {n}") for n in range(6)]
    assert "log in with a code sent to your email address" in pages[5].content.decode()
    assert reverse("account_request_login_code") in pages[5].content.decode()


def _sign_in_by_code(client: Client, email: str) -> None:
    mail.outbox.clear()
    response = client.post(reverse("account_request_login_code"), {"email": email})
    assert response.status_code == 302, response.content.decode()[:2000]
    [message] = mail.outbox
    code = re.search(r"^\s*([A-Z0-9-]{6,})\s*$", message.body, re.MULTILINE)
    assert code is not None, message.body
    client.post(reverse("account_confirm_login_code"), {"code": code.group(1)})


def test_many_addresses_lock_the_password_but_the_owner_signs_in_by_code(owner):
    # Seven addresses at five guesses each pass the account's own ceiling (30 in 15 minutes).
    for number in range(7):
        attacker = Client(REMOTE_ADDR=f"203.0.113.{number + 10}")
        for guess in range(5):
            login(attacker, owner.email, f"guess {number}-{guess}")
    home = Client(REMOTE_ADDR="198.51.100.20")
    page = login(home, owner.email, PASSWORD)
    assert LOCKED in page.content.decode()
    assert not signed_in(home)
    _sign_in_by_code(home, owner.email)
    assert signed_in(home)


def test_the_login_code_email_has_a_text_and_an_html_part(owner):
    mail.outbox.clear()
    Client().post(reverse("account_request_login_code"), {"email": owner.email})
    [message] = mail.outbox
    code = re.search(r"^\s*([A-Z0-9-]{6,})\s*$", message.body, re.MULTILINE)
    assert code is not None
    [(html, mimetype)] = message.alternatives
    assert mimetype == "text/html"
    assert code.group(1) in html
    assert "<script" not in html


def test_a_wrong_code_does_not_sign_in(owner):
    client = Client()
    client.post(reverse("account_request_login_code"), {"email": owner.email})
    client.post(reverse("account_confirm_login_code"), {"code": "WRONG1"})
    assert not signed_in(client)


def test_the_login_code_does_not_skip_two_factor_authentication():
    staff = make_member("staffer@example.org", is_staff=True)  # staff have 2FA on
    client = Client()
    mail.outbox.clear()
    client.post(reverse("account_request_login_code"), {"email": staff.email})
    [message] = mail.outbox
    code = re.search(r"^\s*([A-Z0-9-]{6,})\s*$", message.body, re.MULTILINE)
    assert code is not None
    response = client.post(reverse("account_confirm_login_code"), {"code": code.group(1)})
    assert response.status_code == 302
    assert response["Location"] == reverse("mfa_authenticate")
    assert not signed_in(client)
