"""Account security in Chromium (issue 28): setting up two-factor authentication and logging in
with it; the owner of an account locked by someone else's guesses logging in with a code sent
by email; downloading one's data from the account page."""

from __future__ import annotations

import json
import re

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from django.core import mail
from django.test import Client
from django.urls import reverse
from playwright.sync_api import expect

from bzpeer.celery import app as celery_app
from tests.support.people import make_member, totp_code

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"  # noqa: S105 (UserFactory's)


@pytest.fixture(autouse=True)
def eager_celery():
    """The export's task runs in the live server's own thread, after the request commits."""
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


@pytest.fixture
def alice():
    return make_member("alice@example.org", display_name="Alice Liddell")


def _log_in_with_password(page, base: str, email: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.locator("input[name=login]").fill(email)
    page.locator("input[name=password]").fill(PASSWORD)
    page.get_by_role("button", name="Log in", exact=True).click()


def _confirm_password_if_asked(page) -> None:
    if "/accounts/reauthenticate/" in page.url:
        page.locator("input[name=password]").fill(PASSWORD)
        page.get_by_role("button", name="Confirm").click()


def test_set_up_two_factor_then_log_in_with_it(
    page, live_server, console_errors, screenshot, alice
):
    base = live_server.url
    _log_in_with_password(page, base, alice.email)
    expect(page.get_by_role("heading", name="Your account")).to_be_visible()
    page.get_by_role("link", name="Two-factor authentication").first.click()
    page.get_by_role("link", name="Activate").first.click()
    _confirm_password_if_asked(page)
    secret = page.locator("#authenticator_secret").input_value()
    screenshot("totp-activate")
    page.locator("input[name=code]").fill(totp_code(secret))
    page.get_by_role("button", name="Activate").click()
    expect(page.get_by_text("Recovery codes", exact=False).first).to_be_visible()
    assert Authenticator.objects.filter(user=alice, type="totp").exists()

    # Logging in again takes the password, then the second factor (a recovery code here: the
    # TOTP code of this half-minute was used once already).
    page.context.clear_cookies()
    _log_in_with_password(page, base, alice.email)
    expect(page.locator("input[name=code]")).to_be_visible()
    screenshot("totp-authenticate")
    recovery = Authenticator.objects.get(user=alice, type="recovery_codes")
    page.locator("input[name=code]").fill(RecoveryCodes(recovery).get_unused_codes()[0])
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("heading", name="Your account")).to_be_visible()


def test_the_locked_out_owner_logs_in_with_a_code(
    page, live_server, console_errors, screenshot, alice
):
    # Guesses from seven addresses pass the account's own ceiling: its password login is locked.
    for number in range(7):
        attacker = Client(REMOTE_ADDR=f"203.0.113.{number + 10}")
        for guess in range(5):
            attacker.post(
                reverse("account_login"), {"login": alice.email, "password": f"guess {guess}"}
            )
    base = live_server.url
    _log_in_with_password(page, base, alice.email)
    expect(page.get_by_text("Too many failed login attempts")).to_be_visible()
    screenshot("locked")
    mail.outbox.clear()
    page.get_by_role("link", name="Email me a login code").click()
    page.locator("input[name=email]").fill(alice.email)
    page.get_by_role("button", name="Email me the code").click()
    expect(page.locator("input[name=code]")).to_be_visible()
    [message] = mail.outbox
    code = re.search(r"^\s*([A-Z0-9-]{6,})\s*$", message.body, re.MULTILINE)
    assert code is not None
    page.locator("input[name=code]").fill(code.group(1))
    page.get_by_role("button", name=re.compile("Log in|Confirm|Sign in", re.I)).first.click()
    expect(page.get_by_role("heading", name="Your account")).to_be_visible()


def test_download_my_data_from_the_account_page(
    page, live_server, console_errors, screenshot, alice
):
    base = live_server.url
    _log_in_with_password(page, base, alice.email)
    page.get_by_role("link", name="Download your data").click()
    page.get_by_role("button", name="Prepare my data").click()
    link = page.get_by_role("link", name="Download my data (JSON)")
    expect(link).to_be_visible()
    screenshot("export-ready")
    with page.expect_download() as download_info:
        link.click()
    download = download_info.value
    assert download.suggested_filename.startswith("bzpeer-my-data-")
    data = json.loads(open(download.path(), encoding="utf-8").read())
    assert data["account"]["email"] == "alice@example.org"
