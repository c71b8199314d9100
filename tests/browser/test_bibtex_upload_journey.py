"""The claimant adds works from a BibTeX file: from their profile to the upload, the preview
(one new entry, one matching a work already on the record, one rejected with its reason),
the confirm, and the new work on their profile."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from publications.models import Authorship, Work
from tests.factories import AuthorshipFactory, ResearcherFactory, WorkFactory
from tests.support.people import approved_claimant, make_member

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's

BIB = r"""@article{liddell2021looking,
  title   = {Through the Looking-Glass: a Study of {M}irrors},
  author  = {Liddell, A. and Dodgson, Charles L.},
  journal = {Journal of Wonderland Studies},
  year    = {2021},
  month   = mar
}

@article{liddell2019known,
  title  = {What Alice Found There},
  author = {Alice Liddell},
  doi    = {10.5555/ALICE.KNOWN},
  year   = {2019}
}

@misc{untitled,
  author = {Liddell, Alice},
  year   = {2020}
}

@article{liddell2018broken,
  title  = {A Comma Short}
  author = {Alice Liddell},
  year   = {2018}
}
"""


def test_the_claimant_adds_works_from_a_bibtex_file(
    page, live_server, console_errors, screenshot, tmp_path
):
    user = make_member("alice@example.org", display_name="Alice Liddell")
    record = ResearcherFactory(display_name="Alice Liddell", slug="alice-liddell")
    known = WorkFactory(doi="10.5555/alice.known", title="What Alice Found There")
    AuthorshipFactory(work=known, researcher=record, position=1, raw_name="Alice Liddell")
    approved_claimant(user, record, level=3)
    bib = tmp_path / "alice.bib"
    bib.write_text(BIB, encoding="utf-8")
    profile = f"{live_server.url}/researchers/{record.slug}/"

    page.goto(f"{live_server.url}/accounts/login/?next=/researchers/{record.slug}/")
    page.locator("input[name=login]").fill(user.email)
    page.locator("input[name=password]").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.get_by_role("link", name="Add works from a BibTeX file").click()
    expect(page.get_by_role("heading", name="Add works from a BibTeX file")).to_be_visible()

    page.get_by_label("BibTeX file").set_input_files(str(bib))
    page.get_by_role("button", name="Preview").click()

    expect(page.get_by_role("heading", name="New works (1)")).to_be_visible()
    expect(page.locator("#new-entries")).to_contain_text(
        "Through the Looking-Glass: a Study of Mirrors"
    )
    expect(page.locator("#new-entries")).to_contain_text("you as “Liddell, A.”")
    expect(page.get_by_role("heading", name="Matching works already here (1)")).to_be_visible()
    expect(page.locator("#matched-entries")).to_contain_text("by DOI, already on your record")
    expect(
        page.locator("#matched-entries").get_by_role("link", name="What Alice Found There")
    ).to_be_visible()
    expect(page.get_by_role("heading", name="Not added (2)")).to_be_visible()
    expect(page.locator("#rejected-entries")).to_contain_text("the entry has no title")
    # Where in her file and what is wrong, in words she can act on (issue 24, item 5).
    rejected = page.locator("#rejected-entries")
    expect(rejected).to_contain_text("Line 21 of your file")
    expect(rejected).to_contain_text(
        "is not closed: a comma or a closing brace is missing after the field 'title' on line 22"
    )
    expect(rejected).not_to_contain_text("Unexpectedly")
    screenshot("preview")
    assert not Work.objects.filter(title__startswith="Through the Looking-Glass").exists()

    page.get_by_role("button", name="Confirm and add to my record").click()

    page.wait_for_url(profile)
    expect(page.get_by_text("1 new work added to your record")).to_be_visible()
    published = page.locator(".work-title")
    expect(
        published.get_by_role("link", name="Through the Looking-Glass: a Study of Mirrors")
    ).to_be_visible()
    expect(published.get_by_role("link", name="What Alice Found There")).to_be_visible()
    screenshot("profile")
    work = Work.objects.get(title__startswith="Through the Looking-Glass")
    assert Authorship.objects.get(work=work, position=1).researcher_id == record.pk
    assert Work.objects.count() == 2
