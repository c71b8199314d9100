"""A visitor and a signed-in reader on the researcher profile, in Chromium."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from playwright.sync_api import expect

from tests.browser.conftest import PHONE
from tests.conftest import REPO_ROOT
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"


@pytest.fixture
def demo(run_import):
    run_import(REPO_ROOT / "demo" / "openalex")
    from researchers.models import Researcher

    return Researcher.objects.get(display_name="Zhizhen Zhong")


@pytest.fixture
def reader():
    user = UserFactory(email="reader@example.org")
    EmailAddress.objects.create(user=user, email=user.email, verified=True, primary=True)
    return user


def test_a_visitor_reads_the_profile_and_expands_an_abstract(
    page, live_server, demo, console_errors, screenshot
):
    page.goto(f"{live_server.url}/researchers/{demo.slug}/")

    expect(page.get_by_role("heading", level=1)).to_have_text("Zhizhen Zhong")
    expect(
        page.get_by_text("Trust 0 - Unverified").or_(page.get_by_text("Unverified"))
    ).to_be_visible()
    expect(page.get_by_text("Verification L1")).to_be_visible()
    expect(page.get_by_text("2 published item(s)")).to_be_visible()
    first_work = page.locator("article.work").first
    abstract = first_work.locator("details.abstract p")
    expect(abstract).to_be_hidden()
    first_work.get_by_text("Abstract").click()
    expect(abstract).to_be_visible()
    expect(abstract).to_contain_text("1.36×")  # $\times$ from the seed abstract, rendered
    # The graph panel replaces its loading state once htmx has fetched it.
    expect(page.get_by_text("Building this graph slice")).to_be_hidden(timeout=10_000)
    screenshot("desktop")


def test_a_reader_logs_in_follows_and_unfollows(
    page, live_server, demo, reader, console_errors, screenshot
):
    profile = f"{live_server.url}/researchers/{demo.slug}/"
    page.goto(profile)
    page.get_by_role("link", name="Follow researcher").click()

    # Sent to log in, then back to the same profile.
    page.locator("input[name=login]").fill(reader.email)
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("form").filter(has=page.locator("input[name=password]")).locator(
        "button[type=submit]"
    ).click()
    page.wait_for_url(profile)

    follow = page.locator("#follow-button button")
    expect(follow).to_contain_text("Follow researcher 0")
    follow.click()
    expect(follow).to_contain_text("Following 1")
    page.reload()
    expect(page.locator("#follow-button button")).to_contain_text("Following 1")
    screenshot("following")
    page.locator("#follow-button button").click()
    expect(page.locator("#follow-button button")).to_contain_text("Follow researcher 0")


def test_the_profile_works_at_phone_width_and_by_keyboard(
    page, live_server, demo, console_errors, screenshot
):
    page.set_viewport_size(PHONE)
    page.goto(f"{live_server.url}/researchers/{demo.slug}/")

    expect(page.get_by_role("heading", level=1)).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], (
        "no sideways scrolling"
    )
    # Keyboard: the skip link comes first and lands on the main content.
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    page.keyboard.press("Enter")
    # An abstract opens from the keyboard.
    summary = page.locator("details.abstract summary").first
    summary.focus()
    page.keyboard.press("Enter")
    expect(page.locator("details.abstract p").first).to_be_visible()
    screenshot("phone")
