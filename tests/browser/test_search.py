"""Finding a researcher by typing in the header box, and the search page on a phone, in
Chromium."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def demo(run_import):
    run_import(REPO_ROOT / "demo" / "openalex")
    from researchers.models import Researcher

    return Researcher.objects.get(display_name="Zhizhen Zhong")


def test_typing_a_name_in_the_header_suggests_it_and_the_keyboard_opens_the_profile(
    page, live_server, demo, console_errors, screenshot
):
    page.goto(live_server.url + "/")
    box = page.get_by_role("searchbox", name="Search researchers, works, topics, institutions")
    box.focus()
    page.keyboard.type("zhizhen", delay=30)

    suggestions = page.locator("#header-suggestions")
    first = suggestions.get_by_role("link").first
    expect(first).to_contain_text("Zhizhen Zhong")
    screenshot("suggestions")

    # Keyboard alone: Tab moves from the box into the list, Enter follows the link.
    page.keyboard.press("Tab")
    expect(first).to_be_focused()
    with page.expect_navigation() as navigation:
        page.keyboard.press("Enter")

    assert navigation.value.status == 200
    assert page.url == f"{live_server.url}/researchers/{demo.slug}/"
    expect(page.get_by_role("heading", level=1)).to_have_text("Zhizhen Zhong")


def test_a_short_input_empties_the_suggestions(page, live_server, demo, console_errors):
    page.goto(live_server.url + "/")
    box = page.locator("#header-q")
    box.fill("zhong")
    expect(page.locator("#header-suggestions").get_by_role("link").first).to_be_visible()

    box.fill("z")

    expect(page.locator("#header-suggestions")).to_be_empty()


def test_the_search_page_at_phone_width_by_keyboard_alone(
    page, live_server, demo, console_errors, screenshot
):
    page.set_viewport_size(PHONE)
    page.goto(live_server.url + "/search/")
    expect(page).to_have_title("Search · bzpeer")

    page.get_by_label("Researchers, works, topics or institutions").fill("Zhong Zhizhen")
    page.keyboard.press("Enter")

    expect(page).to_have_title("“Zhong Zhizhen”: researchers · bzpeer")
    description = page.locator('meta[name="description"]')
    expect(description).to_have_attribute("content", re.compile("Zhong Zhizhen"))
    results = page.locator("ol.results > li")
    expect(results.first).to_contain_text("Zhizhen Zhong")
    # Nothing sticks out sideways on a phone.
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot("phone")

    # Tab from the top of the page reaches the first result.
    page.locator("body").focus()
    first_result = results.first.get_by_role("link").first
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent") == "Zhizhen Zhong":
            break
    expect(first_result).to_be_focused()

    # A new search keeps the tab; the empty state offers the tab that has results.
    page.get_by_label("Researchers, works, topics or institutions").fill("optical network")
    page.keyboard.press("Enter")
    expect(page.get_by_text("No researchers matched “optical network”.")).to_be_visible()
    page.get_by_role("link", name="Works (2)").focus()
    page.keyboard.press("Enter")
    expect(page.locator('.tabs a[aria-current="page"]')).to_contain_text("Works")
    expect(page.locator("ol.results mark").first).to_be_visible()
    year_from = page.get_by_label("From year")
    year_from.focus()
    page.keyboard.type("2030")
    page.keyboard.press("Enter")
    expect(
        page.get_by_text("No works matched “optical network” with these filters.")
    ).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot("phone-works-filtered")
