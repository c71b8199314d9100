"""Direct collaboration in Chromium: alice, verified at L3, invites bob from his profile with a
purpose; bob signs in, sees the inbox badge, opens the inbox and accepts; they exchange two
messages; bob blocks alice and her next message is refused as "unavailable". Screenshots at
desktop and phone width go to test-artifacts/screenshots/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from bzpeer.celery import app as celery_app
from collaboration.models import Block, Invitation, Message
from tests.browser.conftest import ARTIFACTS, DESKTOP, PHONE
from tests.factories import AuthorshipFactory, ResearcherFactory, TopicFactory, WorkTopicFactory
from tests.support.people import approved_claimant, make_member

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's
PURPOSE = (
    "Your 2024 results on optical circuit switching fit our scheduler: shall we write a joint "
    "paper on predictable communication for training clusters?"
)


@pytest.fixture(autouse=True)
def eager_celery():
    """Claim checks and notification tasks run in the live server's own thread."""
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


def _verified(email: str, name: str, slug: str):
    user = make_member(email, display_name=name)
    record = ResearcherFactory(display_name=name, slug=slug)
    authorship = AuthorshipFactory(researcher=record)
    WorkTopicFactory(work=authorship.work, topic=TopicFactory(name=f"Optics topic of {name}"))
    approved_claimant(user, record, level=3)
    record.refresh_from_db()
    return user, record


def _log_in(page, base: str, email: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.locator("input[name=login]").fill(email)
    page.locator("input[name=password]").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()


def _shots(page, screenshot, name: str) -> None:
    """The page at desktop width, then at phone width, then back."""
    screenshot(f"{name}-desktop")
    page.set_viewport_size(PHONE)
    screenshot(f"{name}-phone")
    page.set_viewport_size(DESKTOP)


def test_invite_accept_talk_and_block(page, browser, live_server, console_errors, screenshot):
    base = live_server.url
    alice, alice_record = _verified("alice@example.org", "Alice Liddell", "alice-liddell")
    bob, bob_record = _verified("bob@example.org", "Bob Bobson", "bob-bobson")
    assert alice_record.verification_level == 3 and bob_record.claimed_by_id == bob.pk

    # 1. Alice opens bob's profile and invites him with a purpose (the counter follows her).
    _log_in(page, base, "alice@example.org")
    page.goto(f"{base}/researchers/{bob_record.slug}/")
    panel = page.locator("#collaboration-panel")
    expect(panel.get_by_role("heading", name="Open a focused conversation")).to_be_visible()
    panel.get_by_label("What kind of collaboration").select_option("coauthor")
    panel.get_by_label("Purpose").fill(PURPOSE[:30])
    expect(panel.locator("#invite-purpose-count")).to_contain_text("at least 20 more")
    panel.get_by_label("Purpose").fill(PURPOSE)
    expect(panel.locator("#invite-purpose-count")).to_have_text(
        f"{len(PURPOSE)} / 1,000 characters"
    )
    panel.get_by_label("Optics topic of Bob Bobson").check()
    panel.scroll_into_view_if_needed()
    _shots(page, screenshot, "1-invitation-form")
    panel.get_by_role("button", name="Send the invitation").click()
    # The panel comes back as an htmx fragment: the message, then the pending state.
    panel = page.locator("#collaboration-panel")
    expect(panel.get_by_text("Your invitation is sent to Bob Bobson")).to_be_visible()
    expect(panel.get_by_text("Invitation pending")).to_be_visible()
    invitation = Invitation.objects.get()
    assert invitation.sender_id == alice.pk and invitation.purpose == PURPOSE
    _shots(page, screenshot, "1-invitation-sent")

    # 2. Bob signs in, sees the badge, opens the inbox and accepts.
    bob_context = browser.new_context(viewport=DESKTOP)
    bob_page = bob_context.new_page()
    bob_errors: list[str] = []
    bob_page.on("console", lambda m: bob_errors.append(m.text) if m.type == "error" else None)
    bob_page.on("pageerror", lambda error: bob_errors.append(str(error)))
    _log_in(bob_page, base, "bob@example.org")
    badge = bob_page.locator("#inbox-link")
    expect(badge.locator(".badge-count")).to_have_text("1")
    _page_shots(bob_page, "2-bob-badge")
    badge.click()
    expect(bob_page.get_by_role("heading", name="Inbox", exact=True)).to_be_visible()
    received = bob_page.locator(f"#invitation-{invitation.pk}")
    expect(received.get_by_text("Alice Liddell")).to_be_visible()
    _page_shots(bob_page, "2-bob-inbox")
    received.get_by_role("button", name="Accept").click()
    expect(bob_page.get_by_text("Invitation accepted: the conversation is open.")).to_be_visible()
    expect(bob_page.get_by_role("heading", name="Alice Liddell")).to_be_visible()

    # 3. Two messages: bob first, alice answers from her inbox.
    bob_page.get_by_label("Message", exact=True).fill(
        "Hello Alice, gladly. See https://example.org/draft"
    )
    bob_page.get_by_role("button", name="Send", exact=True).click()
    expect(bob_page.get_by_role("link", name="https://example.org/draft")).to_be_visible()

    page.goto(f"{base}/inbox/")
    expect(page.locator("#inbox-link .badge-count")).to_have_text("1")
    page.get_by_role("link", name="Bob Bobson").first.click()
    expect(page.get_by_text("Hello Alice, gladly.")).to_be_visible()
    page.get_by_label("Message", exact=True).fill(
        "Wonderful <b>news</b>: I will send the outline tonight."
    )
    page.get_by_role("button", name="Send", exact=True).click()
    expect(
        page.get_by_text("Wonderful <b>news</b>: I will send the outline tonight.")
    ).to_be_visible()
    expect(page.locator("#inbox-link .badge-count")).to_have_count(0)
    _shots(page, screenshot, "3-alice-conversation")
    assert Message.objects.count() == 2

    # 4. Bob blocks alice; her next message is refused with "unavailable".
    bob_page.reload()
    expect(bob_page.get_by_text("I will send the outline tonight.")).to_be_visible()
    _page_shots(bob_page, "4-bob-conversation")
    bob_page.get_by_role("button", name="Block", exact=True).click()
    expect(bob_page.get_by_role("button", name="Unblock")).to_be_visible()
    assert Block.objects.filter(blocker=bob, blocked=alice).exists()

    page.get_by_label("Message", exact=True).fill("Did you get my outline?")
    page.get_by_role("button", name="Send", exact=True).click()
    expect(page.locator(".messages .message-error")).to_contain_text("unavailable")
    # Said once, and what she typed is still in the box (issue 24, item 4).
    expect(page.get_by_text("This researcher is unavailable.")).to_have_count(1)
    expect(page.get_by_label("Message", exact=True)).to_have_value("Did you get my outline?")
    assert Message.objects.count() == 2
    _shots(page, screenshot, "4-alice-refused")

    bob_context.close()
    assert bob_errors == [], f"bob's browser console showed errors: {bob_errors}"


def _page_shots(page, name: str) -> None:
    """As _shots, for bob's page (the `screenshot` fixture shoots alice's)."""
    folder = ARTIFACTS / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    for label, size in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(size)
        path = folder / f"test_invite_accept_talk_and_block-{name}-{label}.png"
        page.screenshot(path=str(path), full_page=True)
    page.set_viewport_size(DESKTOP)
