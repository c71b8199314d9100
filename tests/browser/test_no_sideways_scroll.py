"""Issue 24, item 7: at a phone's width (390 px) no page scrolls sideways, public or signed in.

Every page a visitor and a signed-in researcher can open is visited at 390 px, with the demo
data and a conversation, an invitation and a claim of their own, and the document's
scrollWidth must not exceed the window's width. The profile's graph is drawn at desktop width
first and the window then narrowed (the graph must follow it)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from bzpeer.celery import app as celery_app
from collaboration import services as collaboration_services
from graph import keys
from graph import services as graph_services
from publications.models import Topic, Work
from researchers.models import Institution, Researcher
from tests.browser.conftest import DESKTOP, PHONE
from tests.conftest import REPO_ROOT
from tests.support.people import verified_researcher

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's
PURPOSE = (
    "I would like to write a joint paper on optical interconnects for training clusters, "
    "building on both our recent results."
)
FITS = "() => document.scrollingElement.scrollWidth <= window.innerWidth"
SIZES = "() => [document.scrollingElement.scrollWidth, window.innerWidth]"


@pytest.fixture(autouse=True)
def eager_celery():
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates)
    celery_app.conf.task_always_eager = True
    celery_app.conf.task_eager_propagates = True
    yield
    celery_app.conf.task_always_eager, celery_app.conf.task_eager_propagates = previous


@pytest.fixture
def world(run_import):
    redis = keys.redis_client()
    for name in redis.scan_iter(match=keys.key("graph:*")):
        redis.delete(name)
    run_import(REPO_ROOT / "demo" / "openalex")
    graph_services.coauthor_edges_drain()
    alice = verified_researcher("alice@example.org", "Alice Liddell", "alice-liddell")
    bob = verified_researcher("bob@example.org", "Bob Bobson", "bob-bobson")
    charlie = verified_researcher("charlie@example.org", "Charlie Chaplin", "charlie-chaplin")
    invitation = collaboration_services.invitation_send(
        sender=bob, recipient_researcher=alice.record, kind="coauthor", purpose=PURPOSE
    )
    conversation = collaboration_services.invitation_accept(user=alice, invitation_id=invitation.pk)
    collaboration_services.message_send(
        author=bob,
        conversation_id=conversation.pk,
        body="A long link https://example.org/" + "a-very-long-path-segment-" * 8 + " end",
    )
    pending = collaboration_services.invitation_send(
        sender=charlie, recipient_researcher=alice.record, kind="coauthor", purpose=PURPOSE
    )
    return {
        "alice": alice,
        "conversation": conversation,
        "invitation": pending,
        "researcher": Researcher.objects.filter(openalex_id="A9900000001").first(),
    }


def _public_paths(world) -> list[str]:
    researcher = world["researcher"]
    work = Work.objects.order_by("pk").first()
    topic = Topic.objects.order_by("pk").first()
    institution = Institution.objects.order_by("pk").first()
    paths = [
        reverse("home"),
        reverse("search") + "?q=optical",
        reverse("researcher-profile", args=[researcher.slug]),
        reverse("claims:trust-explain", args=[researcher.slug]),
        reverse("graph:explorer") + f"?researcher={researcher.slug}",
        reverse("account_login"),
        reverse("account_signup"),
    ]
    if work is not None:
        paths.append(reverse("publications:work-detail", args=[work.pk]))
    if topic is not None:
        paths.append(reverse("publications:topic-detail", args=[topic.pk]))
    if institution is not None:
        paths.append(reverse("institution-detail", args=[institution.pk]))
    return paths


def _signed_in_paths(world) -> list[str]:
    slug = world["alice"].record.slug
    return [
        reverse("home"),
        reverse("researcher-profile", args=[slug]),
        reverse("claims:trust-explain", args=[slug]),
        reverse("claims:account"),
        reverse("claims:profile-edit", args=[slug]),
        reverse("ingest:bibtex-upload", args=[slug]),
        reverse("feed:feed"),
        reverse("following"),
        reverse("notifications:list"),
        reverse("notifications:preferences"),
        reverse("collaboration:inbox"),
        reverse("collaboration:conversation", args=[world["conversation"].pk]),
        reverse("collaboration:invitation-detail", args=[world["invitation"].pk]),
        reverse("collaboration:settings"),
        reverse("collaboration:account-delete"),
        reverse("graph:coi-check"),
    ]


def _overflowing(page, base: str, paths: list[str]) -> list[str]:
    wide = []
    for path in paths:
        response = page.goto(base + path)
        assert response is not None and response.status < 400, (path, response and response.status)
        page.wait_for_load_state("networkidle")
        if not page.evaluate(FITS):
            wide.append(f"{path}: {page.evaluate(SIZES)}")
    return wide


def test_no_public_page_scrolls_sideways_at_390_px(page, live_server, world, console_errors):
    page.set_viewport_size(PHONE)
    assert _overflowing(page, live_server.url, _public_paths(world)) == []


def test_no_signed_in_page_scrolls_sideways_at_390_px(page, live_server, world, console_errors):
    page.goto(f"{live_server.url}/accounts/login/")
    page.locator("input[name=login]").fill("alice@example.org")
    page.locator("input[name=password]").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()
    page.set_viewport_size(PHONE)

    assert _overflowing(page, live_server.url, _signed_in_paths(world)) == []


def test_the_profile_graph_narrows_with_the_window(page, live_server, world, console_errors):
    page.set_viewport_size(DESKTOP)
    page.goto(f"{live_server.url}/researchers/{world['researcher'].slug}/")
    expect(page.locator("[data-graph-canvas]")).to_have_attribute(
        "data-nodes", "10", timeout=10_000
    )

    page.set_viewport_size(PHONE)

    page.wait_for_function(FITS, timeout=5_000)
    assert page.evaluate(FITS), page.evaluate(SIZES)
