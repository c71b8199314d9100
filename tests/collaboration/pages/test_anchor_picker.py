"""Issue 24, item 9: the invitation's anchor picker scales. The panel offers a few works and
topics and a search over all of both people's, a bounded list in a fixed number of queries
whatever the records hold (a researcher with 5,000 works); only someone who may invite gets
it, and only the two people's works and topics; the form takes any of them."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from collaboration import services
from collaboration.models import Invitation
from collaboration.selectors.panel import ANCHOR_SEARCH_LIMIT
from publications.models import Authorship, Work
from tests.factories import AuthorshipFactory, WorkFactory

from .conftest import PURPOSE

pytestmark = pytest.mark.django_db


def _search(client: Client, researcher, q: str = "", kind: str = "works"):
    return client.get(
        reverse("collaboration:invite-anchors", args=[researcher.slug]), {"q": q, "kind": kind}
    )


def _many_works(record, count: int) -> None:
    works = Work.objects.bulk_create(
        (
            Work(title=f"Optical study number {n}", publication_year=2000 + n % 25)
            for n in range(count)
        ),
        batch_size=1_000,
    )
    Authorship.objects.bulk_create(
        (
            Authorship(work=work, researcher=record, position=1, raw_name=record.display_name)
            for work in works
        ),
        batch_size=1_000,
    )


def test_alice_finds_works_of_both_people_by_title(alice, alice_client, bob):
    AuthorshipFactory(researcher=alice.record, work=WorkFactory(title="Photonic <b>chips</b>"))
    AuthorshipFactory(researcher=bob.record, work=WorkFactory(title="Photonic lasers"))

    response = _search(alice_client, bob.record, "photonic")

    page = response.content.decode()
    assert response.status_code == 200
    assert response["Cache-Control"] == "private, no-store"
    assert "Photonic &lt;b&gt;chips&lt;/b&gt;" in page and "Photonic lasers" in page
    assert page.count('name="works"') == 2


def test_the_search_never_offers_a_third_persons_work(alice, alice_client, bob, charlie):
    AuthorshipFactory(researcher=charlie.record, work=WorkFactory(title="Photonic secrets"))

    page = _search(alice_client, bob.record, "photonic").content.decode()

    assert "Photonic secrets" not in page


def test_topics_are_searched_too(alice, alice_client, bob):
    page = _search(alice_client, bob.record, "Topic of Bob", kind="topics").content.decode()
    assert "Topic of Bob Bobson" in page and 'name="topics"' in page


def test_someone_who_may_not_invite_gets_the_refusal(alice, bob, charlie, newcomer):
    services.block_create(blocker=bob, researcher=charlie.record)
    from tests.support.people import client_for

    blocked = _search(client_for(charlie), bob.record, "a")
    assert blocked.status_code == 403 and "unavailable" in blocked.content.decode()
    unclaimed = _search(client_for(newcomer), bob.record, "a")
    assert unclaimed.status_code == 403
    # On one's own record there is nobody to invite.
    assert _search(client_for(bob), bob.record, "a").status_code == 400


def test_the_search_requires_login_and_a_safe_method(client, alice_client, bob):
    url = reverse("collaboration:invite-anchors", args=[bob.record.slug])
    assert client.get(url).status_code == 302
    assert alice_client.post(url).status_code == 405
    assert (
        alice_client.get(reverse("collaboration:invite-anchors", args=["nobody"])).status_code
        == 404
    )


@pytest.mark.parametrize("count", [1, 5_000])
def test_a_record_with_5000_works_gives_a_bounded_list_in_the_same_queries(
    count, alice, alice_client, bob, django_assert_num_queries
):
    _many_works(bob.record, count)
    _search(alice_client, bob.record, "optical")  # the session, loaded once

    with django_assert_num_queries(QUERIES_ANCHOR_SEARCH):
        response = _search(alice_client, bob.record, "optical")

    assert response.content.decode().count('name="works"') == min(count, ANCHOR_SEARCH_LIMIT)


# The user, the researcher, the viewer's verified record, the rule's reads (blocks, settings,
# pending, cool-down) and the search; counted once: the same for 1 and 5,000 works is what matters.
QUERIES_ANCHOR_SEARCH = 8


def test_the_profile_panel_stays_small_for_a_record_with_5000_works(alice, alice_client, bob):
    _many_works(bob.record, 5_000)

    page = alice_client.get(reverse("researcher-profile", args=[bob.record.slug])).content.decode()

    assert page.count('name="works"') <= 8
    assert reverse("collaboration:invite-anchors", args=[bob.record.slug]) in page


def test_a_work_found_by_search_can_anchor_the_invitation(alice, alice_client, bob):
    _many_works(bob.record, 30)
    oldest = Work.objects.get(title="Optical study number 0")

    alice_client.post(
        reverse("collaboration:invite", args=[bob.record.slug]),
        {"kind": "coauthor", "purpose": PURPOSE, "works": [oldest.pk]},
    )

    assert list(Invitation.objects.get().anchor_works.values_list("pk", flat=True)) == [oldest.pk]


def test_a_forged_anchor_id_is_refused(alice, alice_client, bob):
    response = alice_client.post(
        reverse("collaboration:invite", args=[bob.record.slug]),
        {"kind": "coauthor", "purpose": PURPOSE, "works": ["not-a-number"]},
    )
    assert response.status_code == 302
    assert not Invitation.objects.exists()
