"""The feed journey in Chromium: follow a researcher and a topic, a new work by that researcher
arrives through the real import, the feed shows it with its reason, "mark all read" clears the
header's badge."""

from __future__ import annotations

import json

import pytest
from allauth.account.models import EmailAddress
from playwright.sync_api import expect

from publications.models import Topic
from researchers.models import Researcher
from tests.browser.conftest import DESKTOP, PHONE
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"

# A paper from 1999 that reaches us today: it must still come first in the feed.
LATE_ARRIVAL = {
    "id": "https://openalex.org/W9800000099",
    "doi": "https://doi.org/10.99998/EXAMPLE.99",
    "title": "Sparse optics, revisited: $O(n \\log n)$ <b>bounds</b>",
    "display_name": "Sparse optics, revisited",
    "publication_year": 1999,
    "publication_date": "1999-06-01",
    "type": "article",
    "language": "en",
    "primary_location": {
        "source": {
            "id": "https://openalex.org/S9800000001",
            "display_name": "Journal of Examples",
            "issn_l": None,
            "type": "journal",
        }
    },
    "authorships": [
        {
            "author_position": "first",
            "author": {
                "id": "https://openalex.org/A9800000001",
                "display_name": "Ada Example",
                "orcid": None,
            },
            "institutions": [],
            "raw_author_name": "Ada Example",
            "is_corresponding": True,
        }
    ],
    "topics": [],
    "cited_by_count": 0,
    "counts_by_year": [],
}


def test_a_reader_follows_and_sees_a_new_work_in_the_feed(
    page, live_server, run_import, fixtures_dir, tmp_path, console_errors, screenshot
):
    run_import(fixtures_dir / "openalex" / "works_good.jsonl")
    ada = Researcher.objects.get(openalex_id="A9800000001")
    topic = Topic.objects.get(name="Optical networks")
    reader = UserFactory(email="reader@example.org")
    EmailAddress.objects.create(user=reader, email=reader.email, verified=True, primary=True)

    profile = f"{live_server.url}/researchers/{ada.slug}/"
    page.goto(f"{live_server.url}/accounts/login/?next=/researchers/{ada.slug}/")
    page.locator("input[name=login]").fill(reader.email)
    page.locator("input[name=password]").fill(PASSWORD)
    page.locator("form").filter(has=page.locator("input[name=password]")).locator(
        "button[type=submit]"
    ).click()
    page.wait_for_url(profile)
    page.locator("#follow-button button").click()
    expect(page.locator("#follow-button button")).to_contain_text("Following 1")
    page.goto(f"{live_server.url}/topics/{topic.pk}/")
    page.locator("#topic-follow button").click()
    expect(page.locator("#topic-follow button")).to_contain_text("Following 1")

    # Nothing new yet: what was here before the reader joined is not news.
    page.goto(f"{live_server.url}/feed/")
    expect(page.get_by_role("heading", name="Your feed")).to_be_visible()
    expect(page.locator("#feed-new-badge .badge-count")).to_have_count(0)

    snapshot = tmp_path / "late.jsonl"
    snapshot.write_text(json.dumps(LATE_ARRIVAL) + "\n")
    run_import(snapshot)

    page.goto(f"{live_server.url}/feed/")
    expect(page.locator("#feed-new-badge .badge-count")).to_have_text("1")
    first = page.locator(".feed-item").first
    expect(first.locator(".work-title")).to_contain_text("Sparse optics, revisited")
    expect(first.locator(".work-title")).to_contain_text("<b>bounds</b>")  # shown, not markup
    expect(first.locator(".feed-because")).to_contain_text("Because you follow Ada Example")
    # The older work of Ada's that is also on the followed topic is there once, for both.
    both = page.locator(".feed-item").filter(has_text="Optical interconnects for sparse training")
    expect(both).to_have_count(1)
    expect(both.locator(".feed-because")).to_contain_text("Ada Example and Optical networks")
    screenshot("desktop")
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot("phone")
    page.set_viewport_size(DESKTOP)

    page.get_by_role("button", name="Mark all read").click()
    page.wait_for_url(f"{live_server.url}/feed/")
    expect(page.locator("#feed-new-badge")).to_be_attached()
    expect(page.locator("#feed-new-badge .badge-count")).to_have_count(0)
    expect(page.locator(".feed-item-new")).to_have_count(0)
    screenshot("read")
