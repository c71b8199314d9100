"""Coauthor edges: exact weights and years on a handmade corpus, close collaborators, and the
incremental refresh after import batches agreeing with a full rebuild."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from graph import services
from graph.models import (
    CLOSE_MAX_TEAM_SIZE,
    CLOSE_MIN_JOINT_WORKS,
    MAX_AUTHORS_FOR_EDGES,
    CloseCollaboratorsCount,
    CoauthorEdge,
)
from graph.selectors import CLOSE_COLLABORATORS_DEFINITION
from researchers.models import Researcher
from tests.graph.conftest import author, close_count, close_counts, work, write_jsonl

pytestmark = pytest.mark.django_db(transaction=True)


def _handmade_corpus() -> list[dict]:
    unnamed = [author(None, f"Unidentified {i}") for i in range(150)]
    return [
        work(1, [author("A9600000001"), author("A9600000002"), author("A9600000003")], year=2020),
        work(2, [author("A9600000001"), author("A9600000002")], year=2022),
        # The unidentified third author still counts: 1 / (3 - 1).
        work(3, [author("A9600000002"), author("A9600000004"), unnamed[0]], year=2018),
        # 150 authors: a work of A1, A3 and A5, but no edge.
        work(
            4,
            [author("A9600000001"), author("A9600000003"), author("A9600000005"), *unnamed[:147]],
            year=2021,
        ),
        # 11 authors: weight 0.1, and a single joint work in a team over 10 is not close.
        work(5, [author("A9600000003"), author("A9600000004"), *unnamed[:9]], year=None),
        # 10 authors: weight 1/9, close.
        work(6, [author("A9600000004"), author("A9600000005"), *unnamed[:8]], year=2024),
    ]


def _edges() -> dict[tuple[str, str], tuple[int, float, int | None, int | None]]:
    names = dict(Researcher.objects.values_list("id", "openalex_id"))
    return {
        (names[e.researcher_a_id], names[e.researcher_b_id]): (
            e.joint_works_count,
            float(e.weight),
            e.first_year,
            e.last_year,
        )
        for e in CoauthorEdge.objects.all()
    }


def _expected_edges():
    return {
        ("A9600000001", "A9600000002"): (2, 1.5, 2020, 2022),
        ("A9600000001", "A9600000003"): (1, 0.5, 2020, 2020),
        ("A9600000002", "A9600000003"): (1, 0.5, 2020, 2020),
        ("A9600000002", "A9600000004"): (1, 0.5, 2018, 2018),
        ("A9600000003", "A9600000004"): (1, 0.1, None, None),
        ("A9600000004", "A9600000005"): (1, 1 / 9, 2024, 2024),
    }


def _close_counts() -> dict[str, int]:
    return close_counts(Researcher.objects.filter(openalex_id__startswith="A96"))


EXPECTED_CLOSE = {
    "A9600000001": 2,
    "A9600000002": 3,
    "A9600000003": 2,  # A3-A4 is one joint work of 11 authors: a coauthor, not a close one
    "A9600000004": 2,
    "A9600000005": 1,  # the 150-author work with A1 and A3 adds nobody
}


def test_edges_have_exact_weights_and_years_after_an_import(run_import, tmp_path: Path):
    run_import(write_jsonl(tmp_path / "works.jsonl", _handmade_corpus()))

    services.coauthor_edges_drain()

    edges = _edges()
    assert edges.keys() == _expected_edges().keys()
    for pair, (joint, weight, first, last) in _expected_edges().items():
        assert edges[pair][0] == joint, pair
        assert edges[pair][1] == pytest.approx(weight, abs=1e-12), pair
        assert edges[pair][2:] == (first, last), pair
    assert _close_counts() == EXPECTED_CLOSE
    a5 = Researcher.objects.get(openalex_id="A9600000005")
    assert a5.works_count == 2  # the 150-author work counts as a work


def test_the_rebuild_command_gives_the_same_table(run_import, tmp_path: Path):
    run_import(write_jsonl(tmp_path / "works.jsonl", _handmade_corpus()))
    services.coauthor_edges_drain()
    incremental = _edges()
    CoauthorEdge.objects.all().delete()
    CloseCollaboratorsCount.objects.all().delete()

    call_command("rebuild_graph", no_progress=True)

    assert _edges() == incremental
    assert _close_counts() == EXPECTED_CLOSE


def test_a_refresh_removes_an_edge_whose_joint_work_changed_its_byline(run_import, tmp_path):
    corpus = _handmade_corpus()
    run_import(write_jsonl(tmp_path / "v1.jsonl", corpus))
    services.coauthor_edges_drain()
    # A newer copy of work 3 drops A4 from the byline.
    changed = work(3, [author("A9600000002"), author(None, "Someone")], year=2018)
    changed["updated_date"] = "2030-01-01T00:00:00"
    run_import(write_jsonl(tmp_path / "v2.jsonl", [changed]))

    services.coauthor_edges_drain()

    assert ("A9600000002", "A9600000004") not in _edges()
    assert close_count("A9600000004") == 1


def test_a_refresh_twice_changes_nothing(run_import, tmp_path: Path):
    run_import(write_jsonl(tmp_path / "works.jsonl", _handmade_corpus()))
    services.coauthor_edges_drain()
    ids = list(Researcher.objects.values_list("id", flat=True))

    result = services.coauthor_edges_refresh(researcher_ids=ids)

    assert result.changed_researcher_ids == frozenset()
    assert _edges().keys() == _expected_edges().keys()


def test_the_definition_of_close_collaborators_states_the_thresholds_in_use():
    assert CLOSE_MIN_JOINT_WORKS == 2
    assert "at least two joint works" in CLOSE_COLLABORATORS_DEFINITION
    assert f"at most {CLOSE_MAX_TEAM_SIZE} authors" in CLOSE_COLLABORATORS_DEFINITION
    assert f"more than {MAX_AUTHORS_FOR_EDGES} authors" in CLOSE_COLLABORATORS_DEFINITION


def test_moving_authorships_between_records_refreshes_the_coauthors_too(
    run_import, purge_graph_queue, tmp_path: Path
):
    from django.db import transaction

    from graph.services import coauthor_edges_schedule
    from publications.models import Authorship

    run_import(write_jsonl(tmp_path / "works.jsonl", _handmade_corpus()))
    services.coauthor_edges_drain()
    source = Researcher.objects.get(openalex_id="A9600000004")
    survivor = Researcher.objects.get(openalex_id="A9600000005")

    # What a merge does: the source's authorships move to the survivor.
    with transaction.atomic():
        Authorship.objects.filter(researcher=source).update(researcher=survivor)
        coauthor_edges_schedule(researcher_ids=[source.id, survivor.id], include_coauthors=True)
    services.coauthor_edges_drain()

    after_merge = _edges()
    assert not any("A9600000004" in pair for pair in after_merge)
    assert ("A9600000002", "A9600000005") in after_merge
    CoauthorEdge.objects.all().delete()
    call_command("rebuild_graph", no_progress=True, slices=2)
    assert _edges() == after_merge


def test_a_researcher_listed_twice_on_a_byline_counts_once_in_both_routes(
    run_import, tmp_path: Path
):
    twice = [author("A9600000001"), author("A9600000002"), author("A9600000001")]
    run_import(write_jsonl(tmp_path / "works.jsonl", [work(1, twice, year=2020)]))
    services.coauthor_edges_drain()
    drained = _edges()

    CoauthorEdge.objects.all().delete()
    call_command("rebuild_graph", no_progress=True, slices=2)

    assert drained.keys() == {("A9600000001", "A9600000002")}
    assert drained[("A9600000001", "A9600000002")][0] == 1
    assert _edges() == drained
