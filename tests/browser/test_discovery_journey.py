"""Discovery in Chromium, as people use it: a visitor finds a paper by describing it in other
words (the real model on the real abstracts of ../shared/testdata), by keyboard; a verified
researcher opens her collaborator suggestions from her account, reads why each is suggested,
follows one into the invitation form, and finds the same list on her own profile. Screenshots
at desktop and phone width go to test-artifacts/screenshots/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE
from tests.discovery.suggestions.builders import claimed, edges_refreshed, unclaimed, work_by

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"  # tests.factories.UserFactory's
# "A Novel Coronavirus from Patients with Pneumonia in China, 2019" in other words: full-text
# search finds nothing for it (tests/search/test_search_by_meaning.py).
PARAPHRASE = "a new virus behind an outbreak of lung infections traced to a food market"
TARGET = "W3001897055"


def _shots(page, screenshot, name: str) -> None:
    screenshot(f"{name}-desktop")
    page.set_viewport_size(PHONE)
    screenshot(f"{name}-phone")
    page.set_viewport_size(DESKTOP)


def test_a_visitor_finds_a_paper_described_in_other_words(
    page, live_server, embedded_corpus, console_errors, screenshot
):
    target = embedded_corpus[TARGET]
    page.goto(f"{live_server.url}/search/")
    search = page.get_by_label("Researchers, works, topics or institutions")
    search.fill(PARAPHRASE)
    # By words alone the paper is not there.
    search.press("Enter")
    page.get_by_role("link", name="Works").first.click()
    expect(page.locator("main")).not_to_contain_text(target.title)

    # The visitor ticks "by meaning" with the keyboard and searches again.
    checkbox = page.get_by_label("Works by meaning too")
    checkbox.focus()
    page.keyboard.press("Space")
    expect(checkbox).to_be_checked()
    search.press("Enter")
    hit = page.locator("li", has=page.get_by_role("link", name=target.title)).first
    expect(hit).to_be_visible()
    expect(hit.locator(".matched-by")).to_have_text("Matched by meaning")
    expect(page.get_by_label("Works by meaning too")).to_be_checked()
    _shots(page, screenshot, "by-meaning")

    hit.get_by_role("link", name=target.title).click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(target.title)


@pytest.fixture
def alice_and_her_neighbourhood():
    """alice, verified, with dave two steps away through an unclaimed coauthor and erin, open to
    collaborate, on nothing she shares; gina is already her coauthor."""
    alice = claimed("Alice Liddell")
    xavier = unclaimed("Xavier Unclaimed")
    dave = claimed("Dave Twostep")
    gina = claimed("Gina Coauthor")
    work_by(alice.record, xavier, year=2015)
    work_by(xavier, dave.record, year=2016)
    work_by(alice.record, gina.record, year=2012)
    edges_refreshed(alice.record, xavier, dave.record, gina.record)
    return alice, dave


def test_a_researcher_follows_a_suggestion_into_the_invitation_form(
    page, live_server, alice_and_her_neighbourhood, console_errors, screenshot
):
    alice, dave = alice_and_her_neighbourhood
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    page.locator("input[name=login]").fill(alice.email)
    page.locator("input[name=password]").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()

    # From her account page to her suggestions.
    page.goto(f"{base}/account/")
    page.get_by_role("link", name="Collaborator suggestions").click()
    suggestion = page.locator(f'li.suggestion[data-researcher="{dave.record.slug}"]')
    expect(suggestion).to_be_visible()
    expect(suggestion.locator(".suggestion-reason")).to_have_text(
        "1 of your coauthors has written with them."
    )
    # The list sits inside the page's card (the header's dropdown styles once spread it over
    # the whole window, its invitation button as wide as the screen).
    card, item = page.locator("article.card").bounding_box(), suggestion.bounding_box()
    assert card and item
    assert card["x"] < item["x"] and item["x"] + item["width"] < card["x"] + card["width"]
    invite = suggestion.get_by_role("link", name=f"Invite {dave.record.display_name}")
    invite_box = invite.bounding_box()
    assert invite_box and invite_box["width"] < item["width"] / 2
    # Her coauthor is not suggested to her again.
    expect(page.locator('li.suggestion[data-researcher="gina-coauthor"]')).to_have_count(0)
    _shots(page, screenshot, "suggestions")

    invite.click()
    expect(page).to_have_url(f"{base}/researchers/{dave.record.slug}/#collaboration-panel")
    panel = page.locator("#collaboration-panel")
    expect(panel.get_by_role("heading", name="Open a focused conversation")).to_be_visible()

    # Her own profile carries the same suggestions in its panel, loaded after the page.
    page.goto(f"{base}/researchers/{alice.record.slug}/")
    expect(
        page.locator(f'#suggestions-panel li.suggestion[data-researcher="{dave.record.slug}"]')
    ).to_be_visible()
    # Nobody is closest in meaning here (no embeddings): the profile says so, no error.
    expect(page.locator("#similar-researchers")).not_to_contain_text("Finding the researchers")


def test_a_visitor_reads_who_is_similar_and_how_the_ai_score_is_computed(
    page, live_server, real_works, index_dir, console_errors, screenshot
):
    from discovery.services.embeddings import work_embeddings_compute_all
    from discovery.services.similar import similar_researchers_compute
    from tests.factories import AuthorshipFactory, ResearcherFactory, TopicFactory, WorkTopicFactory
    from tests.support.discovery import CHEMCROW_ARTICLE, CHEMCROW_PREPRINT, embed_remembered

    ada = ResearcherFactory(display_name="Ada Agents", slug="ada-agents")
    ben = ResearcherFactory(display_name="Ben Bench", slug="ben-bench")
    agents = TopicFactory(name="Large language models")
    for researcher, openalex_id in ((ada, CHEMCROW_ARTICLE), (ben, CHEMCROW_PREPRINT)):
        AuthorshipFactory(work=real_works[openalex_id], researcher=researcher)
        WorkTopicFactory(work=real_works[openalex_id], topic=agents)
    work_embeddings_compute_all(embed=embed_remembered)
    similar_researchers_compute()

    page.goto(f"{live_server.url}/researchers/{ada.slug}/")
    similar = page.locator("#similar-researchers")
    expect(similar.get_by_role("link", name="Ben Bench")).to_be_visible()
    expect(similar).to_contain_text("Both write about Large language models")
    expect(similar).to_contain_text("closest pair of works")
    expect(page.locator("#ai-score-figure")).to_contain_text("Not enough data")
    _shots(page, screenshot, "similar")

    page.get_by_role("link", name="How is this computed?").last.click()
    expect(page).to_have_url(f"{live_server.url}/researchers/{ada.slug}/ai-score/")
    expect(page.locator("main")).to_contain_text("AI Score")
    _shots(page, screenshot, "ai-score")

    similar_link = page.goto(f"{live_server.url}/researchers/{ada.slug}/")
    assert similar_link is not None and similar_link.ok
    page.locator("#similar-researchers").get_by_role("link", name="Ben Bench").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Ben Bench")
