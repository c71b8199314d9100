"""The graph slice: its shape, its caps, its cache, and the pages and API that serve it."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse

from graph import services
from graph.selectors import SLICE_CAPS, graph_slice_for
from researchers.models import Researcher
from tests.graph.conftest import author, close_count, work, write_jsonl

# The demo graph is copied into each test's transaction; tests that import commit their own.
pytestmark = pytest.mark.django_db

ZHOU = "A9900000004"
ZHONG = "A9900000001"
NODE_TYPES = {"researcher", "work", "topic", "institution"}
EDGE_KINDS = {"coauthor", "authored", "about", "affiliated"}


def _slug(openalex_id: str) -> str:
    return Researcher.objects.get(openalex_id=openalex_id).slug


def _api(client, slug: str):
    return client.get(reverse("api:researcher-graph", args=[slug]))


def test_the_slice_holds_typed_nodes_and_edges_that_join_them(client, demo_graph):
    response = _api(client, _slug(ZHOU))

    assert response.status_code == 200
    body = response.json()
    nodes = {node["id"]: node for node in body["nodes"]}
    for node in body["nodes"]:
        assert node["type"] in NODE_TYPES
        assert node["label"] and node["url"].startswith("/")
        assert isinstance(node["weight"], int | float)
    assert {node["type"] for node in body["nodes"]} == NODE_TYPES
    for edge in body["edges"]:
        assert edge["kind"] in EDGE_KINDS
        assert edge["source"] in nodes and edge["target"] in nodes, edge
        assert isinstance(edge["weight"], int | float)
    assert {edge["kind"] for edge in body["edges"]} == EDGE_KINDS
    center = nodes[body["researcher"]["id"]]
    assert center["center"] and center["label"] == "Zhongzhu Zhou"
    # Collaborators are close ones, strongest first.
    people = [n for n in body["nodes"] if n["type"] == "researcher" and not n.get("center")]
    assert [p["weight"] for p in people] == sorted((p["weight"] for p in people), reverse=True)
    assert len(people) == min(SLICE_CAPS["collaborators"], center_count(ZHOU))
    assert any(n["label"] == "Together AI" for n in body["nodes"] if n["type"] == "institution")


def center_count(openalex_id: str) -> int:
    return close_count(openalex_id)


def test_the_reference_researcher_shows_his_four_close_collaborators(client, demo_graph):
    zhong = Researcher.objects.get(openalex_id=ZHONG)
    assert close_count(ZHONG) == 4

    body = _api(client, zhong.slug).json()

    people = {
        n["label"] for n in body["nodes"] if n["type"] == "researcher" and not n.get("center")
    }
    assert people == {"Wenxue Li", "Xudong Liao", "Ryan Hamerly", "Dirk Englund"}
    assert len([n for n in body["nodes"] if n["type"] == "work"]) == 2
    assert len([n for n in body["nodes"] if n["type"] == "topic"]) == 3


@pytest.mark.django_db(transaction=True)
def test_every_kind_is_capped(client, run_import, purge_graph_queue, tmp_path: Path):
    hub = author("A9610000000", "Hub Person")
    records = [
        # 40 coauthors, two works each with the hub: all close; 80 works; 16 topics.
        work(
            n,
            [hub, author(f"A96100{(n % 40) + 1:05d}")],
            year=1990 + n % 30,
            cited=n,
            topic=f"T96{n % 16:04d}",
        )
        for n in range(80)
    ]
    run_import(write_jsonl(tmp_path / "works.jsonl", records))
    services.coauthor_edges_drain()

    body = _api(client, _slug("A9610000000")).json()

    def count(node_type: str) -> int:
        return len([n for n in body["nodes"] if n["type"] == node_type])

    assert count("researcher") == 1 + SLICE_CAPS["collaborators"]
    assert count("work") <= SLICE_CAPS["recent_works"] + SLICE_CAPS["cited_works"]
    assert count("work") > SLICE_CAPS["recent_works"]  # recent and most cited differ here
    assert count("topic") == SLICE_CAPS["topics"]
    years = sorted(n["year"] for n in body["nodes"] if n["type"] == "work" and "recent" in n["why"])
    assert years == [2016, 2016, 2017, 2017, 2018, 2018, 2019, 2019]  # the newest eight
    cited = [n["weight"] for n in body["nodes"] if n["type"] == "work" and "cited" in n["why"]]
    assert sorted(cited, reverse=True)[:3] == [79, 78, 77]


def test_a_cached_slice_is_served_without_rebuilding_it(
    client, demo_graph, django_assert_max_num_queries
):
    slug = _slug(ZHOU)
    first = _api(client, slug).json()

    with django_assert_max_num_queries(1):  # the researcher lookup; the slice comes from Redis
        second = _api(client, slug).json()

    assert second == first


@pytest.mark.django_db(transaction=True)
def test_the_cache_is_renewed_when_a_new_work_arrives(
    client, run_import, purge_graph_queue, tmp_path: Path
):
    a, b, c = author("A9620000001", "Ada"), author("A9620000002", "Bo"), author("A9620000003", "Cy")
    run_import(write_jsonl(tmp_path / "v1.jsonl", [work(1, [a, b], year=2020)]))
    services.coauthor_edges_drain()
    slug = _slug("A9620000001")
    before = _api(client, slug).json()
    assert {n["label"] for n in before["nodes"] if n["type"] == "work"} == {"Handmade work 1"}

    run_import(write_jsonl(tmp_path / "v2.jsonl", [work(2, [a, c], year=2024)]))

    # The batch's commit already made the cached slice stale: the new work is there at once.
    after_import = _api(client, slug).json()
    assert {n["label"] for n in after_import["nodes"] if n["type"] == "work"} == {
        "Handmade work 1",
        "Handmade work 2",
    }
    # The new coauthor arrives with the edge refresh, which renews the slice again.
    services.coauthor_edges_drain()
    after_drain = _api(client, slug).json()
    people = {n["label"] for n in after_drain["nodes"] if n["type"] == "researcher"}
    assert people == {"Ada", "Bo", "Cy"}


def test_the_slice_is_computed_in_a_fixed_number_of_queries(
    demo_graph, django_assert_max_num_queries
):
    zhou = Researcher.objects.get(openalex_id=ZHOU)

    with django_assert_max_num_queries(9):
        graph_slice_for(zhou)


def test_an_unknown_slug_is_a_json_404(client, db):
    response = _api(client, "nobody-here")

    assert response.status_code == 404
    assert response.json()["detail"]


def test_the_slice_api_refuses_post(client, demo_graph):
    assert client.post(reverse("api:researcher-graph", args=[_slug(ZHOU)])).status_code == 405


def test_a_merged_record_redirects_to_its_survivor(client, demo_graph):
    merged = Researcher.objects.get(openalex_id="A9900000005")
    survivor = Researcher.objects.get(openalex_id=ZHONG)
    Researcher.objects.filter(id=merged.id).update(merged_into=survivor)

    response = _api(client, merged.slug)

    assert response.status_code == 302
    assert response["Location"].endswith(reverse("api:researcher-graph", args=[survivor.slug]))


# --- The profile panel ----------------------------------------------------------------------


def test_the_panel_lists_the_slice_for_screen_readers(client, demo_graph):
    zhong = Researcher.objects.get(openalex_id=ZHONG)

    response = client.get(reverse("graph:slice-panel", args=[zhong.slug]), HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    html = response.content.decode()
    for name in ("Wenxue Li", "Xudong Liao", "Ryan Hamerly", "Dirk Englund"):
        assert name in html
    assert "Netcast: Low-Power Edge Computing" in html
    assert "data-graph-panel" in html and "graph-slice-data-" in html
    assert "at least two joint works" in html  # the definition, beside the count
    assert "<html" not in html  # a fragment for htmx


def test_the_panel_runs_a_fixed_number_of_queries(
    client, demo_graph, django_assert_max_num_queries
):
    slug = _slug(ZHOU)
    with django_assert_max_num_queries(10):
        assert client.get(reverse("graph:slice-panel", args=[slug])).status_code == 200


def test_the_panel_of_an_unknown_researcher_is_404(client, db):
    assert client.get(reverse("graph:slice-panel", args=["nobody-here"])).status_code == 404


def test_the_panel_refuses_post(client, demo_graph):
    assert client.post(reverse("graph:slice-panel", args=[_slug(ZHOU)])).status_code == 405


# --- The explorer page ----------------------------------------------------------------------


def test_the_explorer_page_names_its_starting_researcher(client, demo_graph):
    slug = _slug(ZHOU)
    response = client.get(reverse("graph:explorer"), {"researcher": slug})

    assert response.status_code == 200
    html = response.content.decode()
    assert "Zhongzhu Zhou" in html and f'data-start="{slug}"' in html
    assert "graph/vendor/cytoscape.min.js" in html
    assert "How are we connected?" in html


def test_the_explorer_without_a_researcher_asks_for_a_search(client, db):
    response = client.get(reverse("graph:explorer"))

    assert response.status_code == 200
    assert "Search for a person to start." in response.content.decode()


def test_the_explorer_for_an_unknown_researcher_is_404(client, db):
    assert client.get(reverse("graph:explorer"), {"researcher": "nobody"}).status_code == 404


def test_the_explorer_refuses_post(client, db):
    assert client.post(reverse("graph:explorer")).status_code == 405


@pytest.mark.django_db(transaction=True)
def test_a_record_with_many_works_shows_the_same_slice_from_its_summary(
    client, run_import, purge_graph_queue, tmp_path: Path, monkeypatch
):
    from graph.models import SliceSummary
    from graph.selectors import slices
    from graph.services import metrics

    # Every record counts as one with many works, so this small corpus gets summaries.
    monkeypatch.setattr(metrics, "SLICE_SUMMARY_MIN_WORKS", 1)
    hub = author("A9630000000", "Hub Person")

    def records(cited_shift: int) -> list[dict]:
        return [
            work(
                n,
                [hub, author(f"A96300{(n % 12) + 1:05d}")],
                year=None if n % 9 == 0 else 2000 + n % 7,  # ties, and works without a year
                cited=(n * 7 + cited_shift) % 23,
                topic=f"T97{n % 11:04d}",
            )
            for n in range(60)
        ]

    run_import(write_jsonl(tmp_path / "v1.jsonl", records(0)))
    services.coauthor_edges_drain()
    researcher = Researcher.objects.get(openalex_id="A9630000000")

    def both() -> tuple[dict, dict]:
        researcher.refresh_from_db()
        monkeypatch.setattr(slices, "SLICE_SUMMARY_MIN_WORKS", 1)
        summarised = slices.graph_slice_build(researcher)
        monkeypatch.setattr(slices, "SLICE_SUMMARY_MIN_WORKS", 10**9)
        return summarised, slices.graph_slice_build(researcher)

    assert SliceSummary.objects.filter(researcher=researcher).exists()
    summarised, live = both()
    assert summarised == live
    assert len([n for n in live["nodes"] if n["type"] == "work"]) > SLICE_CAPS["recent_works"]

    # New citations reach the summary with the batch that brings them.
    run_import(write_jsonl(tmp_path / "v2.jsonl", records(11)))
    summarised_again, live_again = both()
    assert summarised_again == live_again
    assert summarised_again != summarised

    # Below the threshold the summary goes, and the slice reads the works themselves.
    monkeypatch.setattr(metrics, "SLICE_SUMMARY_MIN_WORKS", 10**9)
    services.researcher_metrics_refresh(researcher_ids=[researcher.id])
    assert not SliceSummary.objects.filter(researcher=researcher).exists()


def test_the_slice_shows_which_of_its_works_cite_which(db):
    """Issue 25, item 3: citation links between the works of a slice (no other work's)."""
    from graph.selectors import graph_slice_build
    from publications.models import Authorship, Citation, Work

    ada = Researcher.objects.create(slug="ada", display_name="Ada", works_count=3)
    works = [
        Work.objects.create(title=f"Work {n}", publication_year=2020 + n, cited_by_count=n)
        for n in range(3)
    ]
    outside = Work.objects.create(title="Not in the slice", publication_year=2001)
    Authorship.objects.bulk_create(
        Authorship(work=w, researcher=ada, position=1, raw_name="Ada") for w in works
    )
    Citation.objects.bulk_create(
        [
            Citation(citing=works[2], cited=works[0]),
            Citation(citing=works[1], cited=works[0]),
            Citation(citing=works[2], cited=outside),
        ]
    )

    edges = graph_slice_build(ada)["edges"]

    cites = {(e["source"], e["target"]) for e in edges if e["kind"] == "cites"}
    assert cites == {
        (f"w:{works[2].pk}", f"w:{works[0].pk}"),
        (f"w:{works[1].pk}", f"w:{works[0].pk}"),
    }
