"""The suggestions page (/suggestions/), its panel (loaded by htmx into the owner's profile and
the inbox), who sees what, and their query counts on a small and a larger graph."""

from __future__ import annotations

import pytest
from django.urls import reverse

from researchers.models import Researcher
from tests.support.people import client_for

from .builders import claimed, edges_refreshed, unclaimed, work_by

PAGE = reverse("discovery:suggestions")
PANEL = reverse("discovery:suggestions-panel")
# The user (1), the record and suspension (2), the embeddings with alice's own (1), the signals
# (1), the short list's records (1), graph's COI rule (2: no last known institution here
# lacks an affiliation row) and the invitation rule on the whole short list (4): the same for
# one suggestion and twenty. The page adds the header's inbox badge (1, its cache is cold).
PANEL_QUERIES = 12
PAGE_QUERIES = PANEL_QUERIES + 1


def test_alice_sees_her_suggestions_each_with_why_and_the_way_to_invite(alice_client, web):
    response = alice_client.get(PAGE)
    assert response.status_code == 200
    body = response.content.decode()
    for slug in ("dave-twostep", "erin-topical", "frank-citer"):
        assert f'data-researcher="{slug}"' in body
        assert f'href="/researchers/{slug}/#collaboration-panel"' in body
    assert "They cited you 4 times." in body
    assert "gina-coauthor" not in body
    assert response["Cache-Control"] == "private, no-store"


def test_bob_never_sees_alices_suggestions_and_sees_his_own(verified_person, web):
    bob = verified_person("bob")
    link = unclaimed("Bobs Coauthor")
    henry = claimed("Henry Bobsfriend")
    work_by(bob.record, link)
    work_by(link, henry.record)
    edges_refreshed(bob.record, link, henry.record)
    body = client_for(bob).get(PAGE).content.decode()
    assert 'data-researcher="henry-bobsfriend"' in body
    for slug in ("dave-twostep", "erin-topical", "frank-citer"):
        assert slug not in body


def test_charlie_without_a_claim_is_told_why_and_how_to_claim(charlie_client, web):
    response = charlie_client.get(PAGE)
    assert response.status_code == 200
    body = response.content.decode()
    assert "You have no approved claim yet" in body
    assert 'href="/search/"' in body
    assert "data-researcher" not in body


def test_a_pending_claim_is_named_as_such(newcomer, web):
    from tests.support.people import submit

    submit(newcomer, Researcher.objects.get(display_name="Yann Unclaimed"))
    body = client_for(newcomer).get(PAGE).content.decode()
    assert "Your claim of an author record is awaiting review" in body


@pytest.mark.parametrize("url", [PAGE, PANEL])
def test_it_requires_login(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("account_login"))


@pytest.mark.parametrize("url", [PAGE, PANEL])
def test_it_answers_405_to_a_post(alice_client, url):
    assert alice_client.post(url).status_code == 405


def test_names_are_escaped(alice_client, web):
    Researcher.objects.filter(pk=web["dave"].record.pk).update(
        display_name="<script>alert(1)</script>", tagline="<b>bold</b>"
    )
    body = alice_client.get(PAGE).content.decode()
    assert "<script>alert(1)" not in body
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in body
    assert "<b>bold</b>" not in body


def test_the_panel_shows_the_top_five_privately(alice_client, larger):
    response = alice_client.get(PANEL, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    assert response.content.decode().count("data-researcher=") == 5


def test_the_page_shows_twenty(alice_client, larger):
    assert alice_client.get(PAGE).content.decode().count("data-researcher=") == 20


def test_the_owners_profile_loads_the_panel_and_nobody_elses_does(
    alice, alice_client, verified_person, client, web
):
    profile = reverse("researcher-profile", args=[alice.record.slug])
    owner = alice_client.get(profile).content.decode()
    assert f'hx-get="{PANEL}"' in owner
    bob = client_for(verified_person("bob"))
    assert f'hx-get="{PANEL}"' not in bob.get(profile).content.decode()
    assert PANEL not in client.get(profile).content.decode()
    dave_profile = reverse("researcher-profile", args=["dave-twostep"])
    assert PANEL not in alice_client.get(dave_profile).content.decode()


def test_the_inbox_loads_the_panel(alice_client, web):
    assert f'hx-get="{PANEL}"' in alice_client.get(reverse("collaboration:inbox")).content.decode()


@pytest.fixture
def one(alice):
    """alice with a single suggestion: dave, two steps away through xavier (unclaimed)."""
    xavier = unclaimed("Xavier Unclaimed")
    dave = claimed("Dave Twostep")
    work_by(alice.record, xavier, year=2015)
    work_by(xavier, dave.record, year=2016)
    edges_refreshed(alice.record, xavier, dave.record)


SIZES = {"one": 1, "small": 3, "larger": 20}


@pytest.mark.parametrize("size", list(SIZES))
def test_the_page_runs_the_same_queries_for_one_suggestion_and_twenty(
    alice_client, request, django_assert_num_queries, size
):
    request.getfixturevalue({"one": "one", "small": "web", "larger": "larger"}[size])
    with django_assert_num_queries(PAGE_QUERIES):
        response = alice_client.get(PAGE)
    assert response.status_code == 200
    assert response.content.decode().count("data-researcher=") == SIZES[size]


@pytest.mark.parametrize("size", list(SIZES))
def test_the_panel_runs_the_same_queries_for_one_suggestion_and_five(
    alice_client, request, django_assert_num_queries, size
):
    request.getfixturevalue({"one": "one", "small": "web", "larger": "larger"}[size])
    with django_assert_num_queries(PANEL_QUERIES):
        response = alice_client.get(PANEL, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert response.content.decode().count("data-researcher=") == min(SIZES[size], 5)


def test_the_account_page_links_the_suggestions_for_an_approved_claim_only(
    alice_client, charlie_client
):
    # The page lists the claims already: the link costs no query.
    assert f'href="{PAGE}"' in alice_client.get(reverse("claims:account")).content.decode()
    assert f'href="{PAGE}"' not in charlie_client.get(reverse("claims:account")).content.decode()
