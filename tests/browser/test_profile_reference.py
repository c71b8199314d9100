"""The profile and the printable CV as the reference pages show them (issue 24, items 1 and
10-14), on the demo data in Chromium at desktop and phone width: newest first with a year-only
work at its year, full dates, compact bylines, category tags, both sets of figures, the CV link
and the CV page; nothing scrolls sideways.

With BZPEER_DOCS_SCREENSHOTS=1 the screenshots are also written to docs/screenshots/ (the
README links them)."""

from __future__ import annotations

import os
import shutil

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.test_profile_cv import _cv
from tests.conftest import REPO_ROOT
from tests.factories import AuthorshipFactory, WorkFactory

pytestmark = pytest.mark.django_db(transaction=True)

DOCS_SCREENSHOTS = REPO_ROOT / "docs" / "screenshots"


@pytest.fixture
def zhu(run_import):
    """Zhenhua Zhu (seed 002) from the demo snapshot, with a CV and a work known only by its
    year, 2026: the newest of his works."""
    run_import(REPO_ROOT / "demo" / "openalex")
    from researchers.models import Researcher

    record = Researcher.objects.get(display_name="Zhenhua Zhu")
    record.orcid = "0000-0002-1825-0097"
    record.save(update_fields=["orcid"])
    _cv(record)
    year_only = WorkFactory(
        title="A work known only by its year", publication_date=None, publication_year=2026
    )
    AuthorshipFactory(work=year_only, researcher=record, position=1, raw_name="Zhenhua Zhu")
    return record


def _fits(page) -> None:
    width = page.evaluate("() => document.scrollingElement.scrollWidth")
    assert width <= page.viewport_size["width"], "the page scrolls sideways"


def _docs_copy(path, name: str) -> None:
    if os.environ.get("BZPEER_DOCS_SCREENSHOTS") == "1":
        DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, DOCS_SCREENSHOTS / f"{name}.png")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_profile_reads_as_the_reference(
    page, live_server, zhu, console_errors, screenshot, viewport
):
    page.set_viewport_size(viewport)
    page.goto(f"{live_server.url}/researchers/{zhu.slug}/")

    works = page.locator("#works article.work")
    # 1: the year-only 2026 work is the newest, not after every dated work.
    expect(works.first.locator("h3")).to_have_text("A work known only by its year")
    expect(works.first.locator("time.work-date")).to_have_text("2026")
    # 10: full dates where the source gives them.
    epim = works.filter(has_text="EPIM: Efficient Processing-In-Memory")
    expect(epim.locator("time.work-date")).to_have_text("Nov 12, 2023")
    # 11: the first authors, the profile's own author, et al., the institution's short name;
    # the whole byline one click away.
    byline = epim.locator(".byline-compact")
    expect(byline).to_have_text(
        "Chenyu Wang, Zhen Dong, Daquan Zhou, Zhenhua Zhu et al. · berkeley"
    )
    expect(byline.locator("a.own-author")).to_have_text("Zhenhua Zhu")
    full = epim.locator("details.byline-full p")
    expect(full).to_be_hidden()
    epim.get_by_text("All 7 authors").click()
    expect(full).to_contain_text("Kurt Keutzer")
    # 12: the primary category as its short tag, the full name on hover and for screen readers.
    primary = epim.locator("a.tag-primary")
    expect(primary).to_have_text("AR")
    expect(primary).to_have_attribute("title", "Hardware Architecture (cs.AR)")
    expect(
        epim.get_by_role("link", name="Primary category: Hardware Architecture (cs.AR)")
    ).to_be_visible()
    expect(epim.locator("a.tag:not(.tag-primary)").first).to_contain_text("LG")
    # 13: the figures computed here and those OpenAlex states, labelled with source and date.
    expect(page.get_by_role("heading", name="Computed on bzpeer")).to_be_visible()
    stated = page.locator("#figures-stated")
    expect(stated.get_by_role("heading", name="Stated by OpenAlex")).to_be_visible()
    expect(stated).to_contain_text("as of Nov 1, 2026")
    # 14: the CV link in the header goes to the CV section.
    page.locator("a.cv-link").click()
    expect(page).to_have_url(f"{live_server.url}/researchers/{zhu.slug}/#cv")
    expect(page.get_by_role("heading", name="Positions, education and awards")).to_be_in_viewport()
    page.evaluate("() => window.scrollTo(0, 0)")
    _fits(page)
    name = "desktop" if viewport == DESKTOP else "phone"
    _docs_copy(screenshot(name), f"profile-{name}")
    page.locator("#metrics-heading").scroll_into_view_if_needed()
    screenshot(f"{name}-figures", full_page=False)
    epim.scroll_into_view_if_needed()
    screenshot(f"{name}-works", full_page=False)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_printable_cv(page, live_server, zhu, console_errors, screenshot, viewport):
    page.set_viewport_size(viewport)
    page.goto(f"{live_server.url}/researchers/{zhu.slug}/")
    page.get_by_role("link", name="Printable CV").click()
    expect(page).to_have_url(f"{live_server.url}/researchers/{zhu.slug}/cv/")

    expect(page.get_by_role("heading", level=1)).to_have_text("Zhenhua Zhu")
    for heading in ("Experience", "Education", "Awards", "Works"):
        expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible()
    works = page.locator("ol.cv-works li")
    expect(works.first).to_contain_text("A work known only by its year")
    expect(page.locator("ol.cv-works")).to_contain_text("Nov 12, 2023")
    _fits(page)
    name = "desktop" if viewport == DESKTOP else "phone"
    _docs_copy(screenshot(name), f"cv-{name}")

    # On paper: the CV alone, without the site's header and tools.
    page.emulate_media(media="print")
    expect(page.locator(".site-header")).to_be_hidden()
    expect(page.get_by_role("button", name="Print this CV")).to_be_hidden()
    expect(page.get_by_role("heading", level=1)).to_be_visible()
