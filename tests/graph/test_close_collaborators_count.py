"""The close-collaborators counts (graph.models.CloseCollaboratorsCount): the drain and the
rebuild store the same rows, a researcher without close collaborators has no row and shows 0,
and the profile, the slice and the page-cache fingerprint read the stored count."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import transaction
from django.urls import reverse

from graph import services
from graph.models import CloseCollaboratorsCount, CoauthorEdge
from graph.services import coauthor_edges_schedule
from pages.selectors import researcher_profile_page_state
from publications.models import Authorship
from researchers.models import Researcher
from tests.graph.conftest import author, close_count, work, write_jsonl

pytestmark = pytest.mark.django_db(transaction=True)

SOLO = "A9650000009"


def _corpus() -> list[dict]:
    unnamed = [author(None, f"Unidentified {i}") for i in range(12)]
    return [
        work(1, [author("A9650000001"), author("A9650000002"), author("A9650000003")]),
        work(2, [author("A9650000001"), author("A9650000002")], year=2022),
        # 12 authors, one joint work: coauthors, not close ones.
        work(3, [author("A9650000003"), author("A9650000004"), *unnamed[:10]]),
        # Alone on a work: no coauthor at all.
        work(4, [author(SOLO, "Solo Person")]),
    ]


def _stored() -> dict[str, int]:
    return dict(
        CloseCollaboratorsCount.objects.values_list(
            "researcher__openalex_id", "close_collaborators_count"
        )
    )


EXPECTED = {"A9650000001": 2, "A9650000002": 2, "A9650000003": 2}


def _slug(openalex_id: str) -> str:
    return Researcher.objects.get(openalex_id=openalex_id).slug


def _profile_count(client, openalex_id: str) -> int:
    """The number the profile page shows next to "close collaborators"."""
    response = client.get(reverse("researcher-profile", args=[_slug(openalex_id)]))
    assert response.status_code == 200
    found = re.search(r"(\d+)\s*</strong>\s*close collaborators", response.content.decode())
    assert found, "the profile shows no close-collaborators count"
    return int(found.group(1))


def test_the_drain_and_the_rebuild_store_the_same_counts(run_import, tmp_path: Path):
    run_import(write_jsonl(tmp_path / "works.jsonl", _corpus()))
    services.coauthor_edges_drain()
    drained = _stored()
    CoauthorEdge.objects.all().delete()
    CloseCollaboratorsCount.objects.all().delete()

    call_command("rebuild_graph", no_progress=True, slices=2)

    assert drained == EXPECTED  # only researchers with close collaborators have a row
    assert _stored() == drained


def test_a_rebuild_replaces_counts_that_were_wrong(run_import, tmp_path: Path):
    run_import(write_jsonl(tmp_path / "works.jsonl", _corpus()))
    services.coauthor_edges_drain()
    solo = Researcher.objects.get(openalex_id=SOLO)
    CloseCollaboratorsCount.objects.filter(researcher__openalex_id="A9650000001").update(
        close_collaborators_count=7
    )
    CloseCollaboratorsCount.objects.create(researcher=solo, close_collaborators_count=3)

    call_command("rebuild_graph", no_progress=True)

    assert _stored() == EXPECTED


def test_a_count_that_falls_to_zero_loses_its_row(run_import, tmp_path: Path):
    run_import(write_jsonl(tmp_path / "v1.jsonl", _corpus()))
    services.coauthor_edges_drain()
    # Newer copies: work 1 loses A3 and A2 leaves work 2, so A1 and A3 keep no close collaborator.
    one = work(1, [author("A9650000001"), author("A9650000002")])
    two = work(2, [author("A9650000001"), author(None, "Someone")], year=2022)
    for record in (one, two):
        record["updated_date"] = "2030-01-01T00:00:00"
    run_import(write_jsonl(tmp_path / "v2.jsonl", [one, two]))

    services.coauthor_edges_drain()

    assert _stored() == {"A9650000001": 1, "A9650000002": 1}
    assert close_count("A9650000003") == 0


def test_moving_authorships_refreshes_the_counts_as_a_rebuild_would(
    run_import, purge_graph_queue, tmp_path: Path
):
    run_import(write_jsonl(tmp_path / "works.jsonl", _corpus()))
    services.coauthor_edges_drain()
    source = Researcher.objects.get(openalex_id="A9650000002")
    survivor = Researcher.objects.get(openalex_id=SOLO)
    with transaction.atomic():
        Authorship.objects.filter(researcher=source).update(researcher=survivor)
        coauthor_edges_schedule(researcher_ids=[source.id, survivor.id], include_coauthors=True)
    services.coauthor_edges_drain()
    after_merge = _stored()

    call_command("rebuild_graph", no_progress=True)

    assert after_merge == {"A9650000001": 2, "A9650000003": 2, SOLO: 2}
    assert _stored() == after_merge


def test_a_researcher_without_close_collaborators_shows_zero(
    client, run_import, purge_graph_queue, tmp_path: Path
):
    run_import(write_jsonl(tmp_path / "works.jsonl", _corpus()))
    services.coauthor_edges_drain()

    for openalex_id in (SOLO, "A9650000004"):  # no coauthor; one coauthor, not close
        assert _profile_count(client, openalex_id) == 0
        slug = _slug(openalex_id)
        body = client.get(reverse("api:researcher-graph", args=[slug])).json()
        assert body["researcher"]["close_collaborators_count"] == 0
        panel = client.get(reverse("graph:slice-panel", args=[slug])).content.decode()
        assert 'class="badge"' in panel and ">0</span>" in panel
        assert "No close collaborators yet." in panel


def test_the_profile_and_the_slice_show_the_stored_count(
    client, run_import, purge_graph_queue, tmp_path: Path
):
    run_import(write_jsonl(tmp_path / "works.jsonl", _corpus()))
    services.coauthor_edges_drain()
    slug = _slug("A9650000001")

    assert _profile_count(client, "A9650000001") == 2
    body = client.get(reverse("api:researcher-graph", args=[slug])).json()
    assert body["researcher"]["close_collaborators_count"] == 2
    panel = client.get(reverse("graph:slice-panel", args=[slug])).content.decode()
    assert ">2</span>" in panel


def test_a_changed_count_changes_the_cached_page_fingerprint(run_import, tmp_path: Path):
    run_import(write_jsonl(tmp_path / "works.jsonl", _corpus()))
    services.coauthor_edges_drain()
    slug = _slug("A9650000001")
    before = researcher_profile_page_state(slug)
    CloseCollaboratorsCount.objects.filter(researcher__openalex_id="A9650000001").delete()

    after = researcher_profile_page_state(slug)

    assert after.fields != before.fields
