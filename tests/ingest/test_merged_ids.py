"""OpenAlex merges (issue 15, item 8): the snapshot's merged_ids files, applied when an OpenAlex
import run finishes. A merged-away author's record redirects to the survivor (301 page, API
lookup by the old id), with its authorships, follows and claims; a merged-away work goes into
the survivor's and its id answers 301 with the survivor (page and API), chains included. The
merged_ids files here are written by the tests."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from claims.models import Claim, ModerationEvent, SplitRequest
from ingest.models import ImportIssue, ImportRun
from ingest.openalex.merged_ids import MergedId, merged_id_files, read_merged_ids
from ingest.services.merged_ids import openalex_merges_apply
from publications.models import Authorship, MergedWork, Work, WorkListedBy, WorkSource, WorkTopic
from researchers.models import Follow, Researcher
from tests.factories import (
    AuthorshipFactory,
    ResearcherFactory,
    TopicFactory,
    UserFactory,
    WorkFactory,
    WorkTopicFactory,
)

pytestmark = pytest.mark.django_db


def _snapshot(
    tmp_path: Path, entity: str, rows: list[str], *, gz: bool = True, date: str = "2024-05-01"
) -> Path:
    folder = tmp_path / "snapshot" / "merged_ids" / entity
    folder.mkdir(parents=True, exist_ok=True)
    text = "merge_date,id,merge_into_id\n" + "".join(f"{row}\n" for row in rows)
    if gz:
        (folder / f"{date}.csv.gz").write_bytes(gzip.compress(text.encode()))
    else:
        (folder / f"{date}.csv").write_text(text)
    return tmp_path / "snapshot"


def _import(path: Path) -> ImportRun:
    call_command("import", "openalex", str(path), sync=True, no_progress=True)
    return ImportRun.objects.latest("id")


@pytest.fixture
def duplicate_author():
    old = ResearcherFactory(
        display_name="Zhizhen Zhong", slug="zhizhen-zhong-a111", openalex_id="A111"
    )
    survivor = ResearcherFactory(
        display_name="Zhizhen Zhong", slug="zhizhen-zhong-a222", openalex_id="A222"
    )
    for _ in range(2):
        AuthorshipFactory(researcher=old)
    AuthorshipFactory(researcher=survivor)
    return old, survivor


def test_a_merged_author_moves_to_the_survivor_with_follows_claims_and_authorships(
    tmp_path, duplicate_author
) -> None:
    old, survivor = duplicate_author
    alice, bob = UserFactory(), UserFactory()
    Follow.objects.create(user=bob, researcher=old)
    Claim.objects.create(
        researcher=old,
        user=alice,
        claimant_name="Zhizhen Zhong",
        statement="These are my works.",
        presented_email=alice.email,
    )
    path = _snapshot(
        tmp_path,
        "authors",
        [
            "2024-05-01,https://openalex.org/A111,https://openalex.org/A222",
            "2024-05-01,A999,A998",  # neither held: nothing to do
            "2024-05-01,W1,not-an-id",
        ],
    )
    run = _import(path)
    assert run.status == ImportRun.Status.SUCCEEDED
    old.refresh_from_db()
    survivor.refresh_from_db()
    assert old.merged_into == survivor
    assert Authorship.objects.filter(researcher=survivor).count() == 3
    assert not Authorship.objects.filter(researcher=old).exists()
    assert Follow.objects.get(user=bob).researcher == survivor
    assert Claim.objects.get(user=alice).researcher == survivor
    assert survivor.works_count == 3
    event = ModerationEvent.objects.get(action="researcher_merged")
    assert event.actor is None and "OpenAlex merged A111 into A222" in event.reason
    issue = ImportIssue.objects.get(run=run)
    assert "not a merge of two authors ids" in issue.reason
    # The old page answers 301; an API lookup by the old id finds the survivor.
    page = Client().get(reverse("researcher-profile", args=[old.slug]))
    assert page.status_code == 301
    assert page["Location"] == reverse("researcher-profile", args=[survivor.slug])
    listing = Client().get(reverse("api:researcher-list"), {"openalex_id": "A111"})
    assert [r["slug"] for r in listing.json()["results"]] == [survivor.slug]
    detail = Client().get(reverse("api:researcher-detail", args=[old.slug]))
    assert detail.status_code == 302 and detail.json()["merged_into"] == survivor.slug


def test_applying_the_same_file_again_changes_nothing(tmp_path, duplicate_author) -> None:
    old, survivor = duplicate_author
    path = _snapshot(tmp_path, "authors", ["2024-05-01,A111,A222"], gz=False)
    _import(path)
    _import(path)
    assert ModerationEvent.objects.filter(action="researcher_merged").count() == 1
    assert Researcher.objects.get(pk=old.pk).merged_into_id == survivor.pk


def test_a_survivor_bzpeer_does_not_hold_is_made_from_the_old_record(tmp_path) -> None:
    old = ResearcherFactory(display_name="Heather Piwowar", openalex_id="A333")
    AuthorshipFactory(researcher=old)
    _import(_snapshot(tmp_path, "authors", ["2024-05-01,A333,A444"]))
    old.refresh_from_db()
    survivor = Researcher.objects.get(openalex_id="A444")
    assert old.merged_into == survivor and survivor.display_name == "Heather Piwowar"
    assert Authorship.objects.get().researcher == survivor


def test_a_merge_of_two_orcid_ids_is_refused_and_reported(tmp_path) -> None:
    old = ResearcherFactory(openalex_id="A555", orcid="0000-0002-1825-0097")
    survivor = ResearcherFactory(openalex_id="A666", orcid="0000-0001-5109-3700")
    run = _import(_snapshot(tmp_path, "authors", ["2024-05-01,A555,A666"]))
    old.refresh_from_db()
    assert old.merged_into is None
    assert "different ORCID iDs" in ImportIssue.objects.get(run=run).reason
    assert survivor.pk


def test_a_merged_work_goes_into_the_survivor(tmp_path) -> None:
    alice, bob = ResearcherFactory(), ResearcherFactory()
    old = WorkFactory(openalex_id="W111", doi=None)
    survivor = WorkFactory(openalex_id="W222")
    AuthorshipFactory(work=old, researcher=alice, position=1)
    AuthorshipFactory(work=survivor, researcher=bob, position=1)
    shared, own = TopicFactory(), TopicFactory()
    WorkTopicFactory(work=old, topic=shared)
    WorkTopicFactory(work=old, topic=own)
    WorkTopicFactory(work=survivor, topic=shared)
    WorkSource.objects.create(work=old, origin="crossref", origin_id="10.1/x", content_hash="h")
    WorkSource.objects.create(work=old, origin="openalex", origin_id="W111", content_hash="h")
    Researcher.objects.filter(pk=alice.pk).update(works_count=1)
    _import(_snapshot(tmp_path, "works", ["2024-05-01,W111,W222"]))
    assert not Work.objects.filter(pk=old.pk).exists()
    # The survivor's byline stands; the old work's topics and other sources move.
    assert list(Authorship.objects.filter(work=survivor).values_list("researcher", flat=True)) == [
        bob.pk
    ]
    assert set(WorkTopic.objects.filter(work=survivor).values_list("topic", flat=True)) == {
        shared.pk,
        own.pk,
    }
    assert WorkSource.objects.get(origin="crossref").work == survivor
    assert not WorkSource.objects.filter(origin_id="W111").exists()
    alice.refresh_from_db()
    assert alice.works_count == 0


def test_a_merged_work_without_a_byline_survivor_takes_the_old_byline(tmp_path) -> None:
    alice = ResearcherFactory()
    old = WorkFactory(openalex_id="W333")
    survivor = WorkFactory(openalex_id="W444")
    AuthorshipFactory(work=old, researcher=alice, position=1)
    _import(_snapshot(tmp_path, "works", ["2024-05-01,W333,W444"]))
    assert Authorship.objects.get().work == survivor
    alice.refresh_from_db()
    assert alice.works_count == 1


def _redirects_of(work_id: int) -> tuple[str, str]:
    """Where the work's page and its API URL send a client."""
    page = Client().get(reverse("publications:work-detail", args=[work_id]))
    api = Client().get(reverse("api:work-detail", args=[work_id]))
    assert (page.status_code, api.status_code) == (301, 301)
    return page["Location"], api["Location"]


def _assert_every_redirect_is_one_hop_to_a_live_work() -> None:
    survivors = set(MergedWork.objects.values_list("survivor_id", flat=True))
    assert survivors <= set(Work.objects.values_list("pk", flat=True))
    assert not MergedWork.objects.filter(pk__in=survivors).exists()


def test_a_merged_works_page_and_api_url_answer_301_with_the_survivor(tmp_path) -> None:
    old = WorkFactory(openalex_id="W111")
    survivor = WorkFactory(openalex_id="W222")

    _import(_snapshot(tmp_path, "works", ["2024-05-01,W111,W222"]))

    assert MergedWork.objects.get(pk=old.pk).survivor == survivor
    page, api = _redirects_of(old.pk)
    assert page == reverse("publications:work-detail", args=[survivor.pk])
    assert api == f"http://testserver{reverse('api:work-detail', args=[survivor.pk])}"
    assert Client().get(api).json()["id"] == survivor.pk


def _works_found_by_openalex_id(openalex_id: str) -> list[int]:
    """The works the API's ?openalex_id= lookup answers with."""
    response = Client().get(reverse("api:work-list"), {"openalex_id": openalex_id})
    assert response.status_code == 200
    return [work["id"] for work in response.json()["results"]]


def test_an_api_lookup_by_the_merged_away_openalex_id_finds_the_survivor(tmp_path) -> None:
    WorkFactory(openalex_id="W111")
    survivor = WorkFactory(openalex_id="W222")
    unrelated = WorkFactory(openalex_id="W333")

    _import(_snapshot(tmp_path, "works", ["2024-05-01,W111,W222"]))

    assert _works_found_by_openalex_id("W111") == [survivor.pk]
    assert _works_found_by_openalex_id("https://openalex.org/W111") == [survivor.pk]
    assert _works_found_by_openalex_id("W222") == [survivor.pk]
    assert _works_found_by_openalex_id("W333") == [unrelated.pk]
    assert _works_found_by_openalex_id("W444") == []


def test_a_chain_of_merges_leads_from_the_first_work_to_the_last_survivor(tmp_path) -> None:
    first = WorkFactory(openalex_id="W1")
    second = WorkFactory(openalex_id="W2")
    last = WorkFactory(openalex_id="W3")
    _import(_snapshot(tmp_path, "works", ["2024-05-01,W1,W2"], date="2024-05-01"))
    assert MergedWork.objects.get(pk=first.pk).survivor == second

    # A later snapshot merges the survivor in turn; its run applies both files.
    _import(_snapshot(tmp_path, "works", ["2024-06-01,W2,W3"], date="2024-06-01"))

    assert dict(MergedWork.objects.values_list("pk", "survivor_id")) == {
        first.pk: last.pk,
        second.pk: last.pk,
    }
    for merged_away in (first, second):
        assert _redirects_of(merged_away.pk)[0] == reverse(
            "publications:work-detail", args=[last.pk]
        )
    _assert_every_redirect_is_one_hop_to_a_live_work()
    # The old OpenAlex ids are lookup keys of the last survivor, whichever run merged them.
    for openalex_id in ("W1", "W2", "W3"):
        assert _works_found_by_openalex_id(openalex_id) == [last.pk]


def test_a_chain_within_one_file_is_followed_whatever_the_order_of_its_rows(tmp_path) -> None:
    first = WorkFactory(openalex_id="W1")
    second = WorkFactory(openalex_id="W2")
    last = WorkFactory(openalex_id="W3")

    _import(_snapshot(tmp_path, "works", ["2024-05-01,W2,W3", "2024-05-01,W1,W2"]))

    assert list(Work.objects.values_list("pk", flat=True)) == [last.pk]
    assert dict(MergedWork.objects.values_list("pk", "survivor_id")) == {
        first.pk: last.pk,
        second.pk: last.pk,
    }
    _assert_every_redirect_is_one_hop_to_a_live_work()


def test_a_chain_to_a_survivor_not_held_renames_the_first_work_to_the_last_id(tmp_path) -> None:
    first = WorkFactory(openalex_id="W1")

    _import(_snapshot(tmp_path, "works", ["2024-05-01,W2,W3", "2024-05-01,W1,W2"]))

    first.refresh_from_db()
    assert first.openalex_id == "W3"
    assert not MergedWork.objects.exists()
    # Every id of the chain finds it, W2 too (a work bzpeer never held).
    for openalex_id in ("W1", "W2", "W3"):
        assert _works_found_by_openalex_id(openalex_id) == [first.pk]


def test_applying_the_same_works_file_again_changes_nothing(tmp_path) -> None:
    old = WorkFactory(openalex_id="W111")
    survivor = WorkFactory(openalex_id="W222")
    path = _snapshot(tmp_path, "works", ["2024-05-01,W111,W222", "2024-05-01,W111,W222"])
    run = _import(path)
    merged = MergedWork.objects.get()

    counts = openalex_merges_apply(run_id=run.id, paths=[str(path)])

    assert not any(vars(counts).values())
    assert list(MergedWork.objects.values_list("pk", "survivor_id", "merged_at")) == [
        (old.pk, survivor.pk, merged.merged_at)
    ]
    assert Work.objects.get() == survivor


def test_who_listed_the_merged_work_and_its_split_requests_follow_it(tmp_path) -> None:
    owner, claimant = ResearcherFactory(), ResearcherFactory()
    old = WorkFactory(openalex_id="W111")
    survivor = WorkFactory(openalex_id="W222")
    AuthorshipFactory(work=survivor, position=1)
    WorkListedBy.objects.create(
        work=old, researcher=owner, origin="orcid", origin_id="0000-0002-1825-0097:1"
    )
    AuthorshipFactory(work=old, researcher=claimant, position=1)
    split = SplitRequest.objects.create(researcher=claimant, work=old, requested_by=UserFactory())

    _import(_snapshot(tmp_path, "works", ["2024-05-01,W111,W222"]))

    listed = WorkListedBy.objects.get(researcher=owner)
    assert (listed.work, listed.position) == (survivor, None)
    split.refresh_from_db()
    assert split.work == survivor


def test_a_work_whose_survivor_is_not_held_takes_its_id(tmp_path) -> None:
    old = WorkFactory(openalex_id="W555")
    WorkSource.objects.create(work=old, origin="openalex", origin_id="W555", content_hash="h")
    _import(_snapshot(tmp_path, "works", ["2024-05-01,W555,W666"]))
    old.refresh_from_db()
    assert old.openalex_id == "W666"
    assert WorkSource.objects.get(work=old).origin_id == "W666"


def test_the_real_snapshots_merged_ids_file_reads_as_merges(testdata_dir) -> None:
    files = merged_id_files([str(testdata_dir / "openalex" / "snapshot")])
    assert [entity for entity, _ in files] == ["authors"]
    rows = list(read_merged_ids(*files[0]))
    assert rows and all(isinstance(row, MergedId) for row in rows)
    lines = files[0][1].read_text().strip().splitlines()
    assert len(rows) == len(lines) - 1
    assert rows[0] == MergedId("authors", "2023-04-13", "A3125154712", "A4317838346")
