"""The whole claim journey in Chromium: sign up and verify the email through the test mail
outbox, claim seed 000's person, a staff user approves at L4 in the admin, the profile shows
Claimed, L4 and a higher trust score, and the claimant edits the tagline and sets "Open to
collaborate". Screenshots of each step go to test-artifacts/screenshots/."""

from __future__ import annotations

import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail
from playwright.sync_api import expect

from bzpeer.celery import app as celery_app
from claims.models import Claim
from researchers.models import Researcher
from tests.browser.conftest import ARTIFACTS
from tests.conftest import REPO_ROOT
from tests.support.people import totp_code, two_factor_on

pytestmark = pytest.mark.django_db(transaction=True)

EMAIL = "zhizhen.zhong@example.org"
PASSWORD = "optical-networks-2025"


@pytest.fixture(autouse=True)
def eager_celery():
    """The claim's checks and the notifications run in the live server's own thread."""
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


@pytest.fixture
def zhong(run_import):
    run_import(REPO_ROOT / "demo" / "openalex")
    record = Researcher.objects.get(display_name="Zhizhen Zhong")
    # Start from "not open to collaborate" so the claimant's change is visible.
    Researcher.objects.filter(pk=record.pk).update(open_to_collaborate=False)
    record.refresh_from_db()
    return record


@pytest.fixture
def staff(django_user_model):
    user = django_user_model.objects.create_superuser(
        username="moderator", email="moderator@example.org", password="moderator-password"
    )
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    # Staff reach the admin only with two-factor authentication on (issue 28).
    user.totp_secret = two_factor_on(user)
    return user


def test_sign_up_claim_approve_at_l4_and_edit_the_profile(
    page, browser, live_server, console_errors, screenshot, zhong, staff
):
    base = live_server.url
    profile_url = f"{base}/researchers/{zhong.slug}/"
    assert zhong.trust_score == 13

    # 1. Sign up and verify the email through the test mail outbox.
    page.goto(f"{base}/accounts/signup/")
    page.locator("input[name=email]").fill(EMAIL)
    page.locator("input[name=password1]").fill(PASSWORD)
    page.locator("input[name=password2]").fill(PASSWORD)
    screenshot("1-signup")
    page.get_by_role("button", name="Sign Up").click()
    expect(page.get_by_role("heading", name="Verify Your Email Address")).to_be_visible()
    (message,) = [m for m in mail.outbox if EMAIL in m.to]
    link = re.search(r"https?://\S+/accounts/confirm-email/\S+/", message.body).group(0)
    page.goto(link)
    page.get_by_role("button", name="Confirm").click()
    if page.get_by_role("link", name="Log in").is_visible():
        page.goto(f"{base}/accounts/login/")
        page.locator("input[name=login]").fill(EMAIL)
        page.locator("input[name=password]").fill(PASSWORD)
        page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    screenshot("1-verified")

    # 2. Claim seed 000's person.
    page.goto(profile_url)
    expect(page.get_by_text("Trust 13 - Unverified")).to_be_visible()
    page.get_by_role("link", name="Claim this record").click()
    page.get_by_label("Your name as it appears on your papers").fill("Zhizhen Zhong")
    page.get_by_label("Why is this record yours?").fill(
        "I wrote both papers: ConfigTuner for LLM training and Netcast, during my PhD."
    )
    page.get_by_label("Evidence links (optional)").fill("https://example.org/zhizhen-zhong")
    screenshot("2-claim-form")
    page.get_by_role("button", name="Submit claim").click()
    claim_card = page.locator(".claim").first
    expect(claim_card.get_by_text("Pending", exact=True)).to_be_visible()
    expect(claim_card.get_by_text("Name match")).to_be_visible()
    screenshot("2-claim-pending")
    claim = Claim.objects.get(researcher=zhong)
    assert claim.status == "pending" and claim.checks.count() == 4

    # 3. A staff user approves at L4 in the admin.
    moderator_context = browser.new_context()
    admin = moderator_context.new_page()
    # The admin's login sends the moderator to the site's (allauth's limits apply), and back.
    admin.goto(f"{base}/admin/login/")
    admin.locator("input[name=login]").fill("moderator@example.org")
    admin.locator("input[name=password]").fill("moderator-password")
    admin.get_by_role("button", name="Log in").click()
    admin.locator("input[name=code]").fill(totp_code(staff.totp_secret))
    admin.get_by_role("button", name="Log in").click()
    admin.goto(f"{base}/admin/claims/pendingclaim/")
    expect(admin.get_by_text("Zhizhen Zhong").first).to_be_visible()
    admin.get_by_role("link", name=str(claim.pk), exact=True).click()
    expect(admin.get_by_text("I wrote both papers")).to_be_visible()
    admin.screenshot(
        path=str(ARTIFACTS / "screenshots" / "claim-journey-3-admin-claim.png"), full_page=True
    )
    admin.get_by_role("button", name="Approve at L4").click()
    expect(admin.get_by_text("approved at L4")).to_be_visible()
    moderator_context.close()
    claim.refresh_from_db()
    assert claim.status == "approved" and claim.level == 4

    # 4. The profile shows Claimed, L4 and a higher trust score.
    page.goto(profile_url)
    expect(page.get_by_text("Claimed author")).to_be_visible()
    expect(page.get_by_text("Verification L4").first).to_be_visible()
    expect(page.get_by_text("Trust 48 - Emerging")).to_be_visible()
    screenshot("4-profile-claimed")

    # 5. The claimant edits the tagline and sets "Open to collaborate".
    page.get_by_role("link", name="Edit your profile").click()
    page.get_by_label("Tagline").fill(
        "Optical interconnects and predictable communication for ML systems."
    )
    page.get_by_label("Open to collaborate").check()
    screenshot("5-edit")
    page.get_by_role("button", name="Save profile").click()
    expect(
        page.get_by_text("Optical interconnects and predictable communication for ML systems.")
    ).to_be_visible()
    expect(page.locator(".identity-badges").get_by_text("Open to collaborate")).to_be_visible()
    screenshot("5-profile-edited")
    zhong.refresh_from_db()
    assert zhong.open_to_collaborate and zhong.claimed_by.email == EMAIL
