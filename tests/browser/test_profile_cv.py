"""The CV on a profile, at desktop and phone width, and its claimant hiding an entry from the
profile edit page: the page never scrolls sideways and the hidden entry leaves the profile."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from researchers.models import CVEntry
from tests.browser.conftest import DESKTOP, PHONE
from tests.factories import AuthorshipFactory, ResearcherFactory
from tests.support.people import approved_claimant, make_member

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's
ORCID_ID = "0000-0002-1825-0097"


def _cv(record) -> None:
    rows = [
        (
            "employment",
            "Amazon Web Services AI",
            "Applied Scientist",
            "Seattle",
            "US",
            (2023, 10),
            None,
        ),
        (
            "employment",
            "Amazon Web Services",
            "Applied Scientist Intern, mentored by Yida Wang and Zhen Jia",
            "Palo Alto",
            "US",
            (2022, 9),
            (2023, 6),
        ),
        ("employment", "ByteDance", "Research Intern", "Beijing", "CN", (2021, 2), (2022, 8)),
        (
            "education",
            "Rice University",
            "Ph.D. in Computer Science",
            "Houston",
            "US",
            (2019, None),
            (2023, None),
        ),
        (
            "education",
            "Institute of Computing Technology, Chinese Academy of Sciences",
            "M.S.",
            "Beijing",
            "CN",
            (2014, None),
            (2017, None),
        ),
        (
            "distinction",
            "Sun Yat-sen University",
            "National Scholarship (Top 1 of the major)",
            "Guangzhou",
            "CN",
            (2016, None),
            None,
        ),
    ]
    for index, (section, organisation, role, city, country, start, end) in enumerate(rows):
        CVEntry.objects.create(
            researcher=record,
            source="orcid",
            source_key=f"{ORCID_ID}:{index}",
            section=section,
            organisation=organisation,
            role=role,
            city=city,
            country=country,
            start_year=start[0],
            start_month=start[1],
            end_year=end[0] if end else None,
            end_month=end[1] if end else None,
        )


def _fits(page) -> None:
    width = page.evaluate("() => document.scrollingElement.scrollWidth")
    assert width <= page.viewport_size["width"], "the page scrolls sideways"


def test_the_cv_at_desktop_and_phone_width_and_hiding_an_entry(
    page, live_server, console_errors, screenshot
):
    user = make_member("zhuang@example.org", display_name="Zhuang Wang")
    record = ResearcherFactory(display_name="Zhuang Wang", slug="zhuang-wang", orcid=ORCID_ID)
    AuthorshipFactory(researcher=record)
    approved_claimant(user, record, level=3)
    _cv(record)
    profile = f"{live_server.url}/researchers/{record.slug}/"

    page.goto(profile)
    cv = page.get_by_role("region", name="Positions, education and awards")
    expect(cv.get_by_role("heading", name="Experience", exact=True)).to_be_visible()
    expect(cv.get_by_role("heading", name="Education", exact=True)).to_be_visible()
    expect(cv.get_by_role("heading", name="Awards", exact=True)).to_be_visible()
    expect(cv.get_by_text("Oct 2023 – present")).to_be_visible()
    _fits(page)
    screenshot("profile-desktop")
    page.set_viewport_size(PHONE)
    cv.scroll_into_view_if_needed()
    _fits(page)
    screenshot("profile-phone")
    page.set_viewport_size(DESKTOP)

    page.goto(f"{live_server.url}/accounts/login/?next=/claims/researchers/{record.slug}/edit/")
    page.locator("input[name=login]").fill(user.email)
    page.locator("input[name=password]").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("button", name="Hide from my profile: ByteDance").click()
    expect(page.get_by_text("The entry is hidden from your profile.")).to_be_visible()
    expect(page.get_by_role("button", name="Show on my profile: ByteDance")).to_be_visible()
    screenshot("edit-desktop")
    page.set_viewport_size(PHONE)
    _fits(page)
    screenshot("edit-phone")
    page.set_viewport_size(DESKTOP)

    page.goto(profile)
    expect(page.get_by_text("Amazon Web Services AI")).to_be_visible()
    expect(page.get_by_text("ByteDance")).to_have_count(0)
