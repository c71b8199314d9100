"""The edges a merge leaves to refresh are owed in PostgreSQL (issue 29): written in the merge's
transaction, they survive a lost drain message and a Redis that restarts empty, and beat's drain
(every five minutes) refreshes them once."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command

from bzpeer.queueing import registered_task
from claims import services as claim_services
from graph import keys, services
from graph.models import CoauthorEdge, PendingEdgeRefresh
from researchers.models import Researcher
from tests.graph.conftest import write_jsonl
from tests.graph.test_coauthor_edges import _edges, _handmade_corpus

# Real commits: the merge's on-commit queueing runs as in production, and the rebuild needs them.
pytestmark = pytest.mark.django_db(transaction=True)

DRAIN_TASK = "graph.tasks.coauthor_edges_drain"


@pytest.fixture
def drains_lost(monkeypatch) -> list[tuple]:
    """The drain messages the broker took and then lost: recorded instead of sent."""
    lost: list[tuple] = []
    monkeypatch.setattr(
        registered_task(DRAIN_TASK),
        "apply_async",
        lambda args=(), kwargs=None, **options: lost.append(args),
    )
    return lost


def _redis_restarts_empty() -> None:
    redis = keys.redis_client()
    for name in redis.scan_iter(match=keys.key("graph:*")):
        redis.delete(name)


def test_a_merge_whose_drain_message_was_lost_is_refreshed_by_the_next_drain_once(
    run_import, drains_lost, tmp_path: Path
):
    run_import(write_jsonl(tmp_path / "works.jsonl", _handmade_corpus()))
    services.coauthor_edges_drain()
    source = Researcher.objects.get(openalex_id="A9600000004")
    survivor = Researcher.objects.get(openalex_id="A9600000005")

    claim_services.researcher_merge(
        source=source, survivor=survivor, moderator=None, reason="same person"
    )
    assert drains_lost  # the merge queued its drain, and the broker lost it
    _redis_restarts_empty()
    assert PendingEdgeRefresh.objects.exists()
    assert any("A9600000004" in pair for pair in _edges())  # still the edges before the merge

    drain = registered_task(DRAIN_TASK)
    assert drain.run() > 0  # beat's drain, five minutes on
    after_merge = _edges()
    assert not any("A9600000004" in pair for pair in after_merge)
    assert ("A9600000002", "A9600000005") in after_merge
    assert not PendingEdgeRefresh.objects.exists()
    assert drain.run() == 0  # refreshed once: nothing is left for the next one
    CoauthorEdge.objects.all().delete()
    call_command("rebuild_graph", no_progress=True, slices=2)
    assert _edges() == after_merge


def test_the_drain_does_nothing_when_nothing_is_owed(
    run_import, django_assert_max_num_queries, tmp_path: Path
):
    run_import(write_jsonl(tmp_path / "works.jsonl", _handmade_corpus()))
    services.coauthor_edges_drain()
    edges = _edges()

    with django_assert_max_num_queries(1):  # one look at both pending tables
        assert registered_task(DRAIN_TASK).run() == 0
    assert _edges() == edges


def test_a_split_records_its_refresh_in_its_own_transaction(run_import, tmp_path: Path):
    from django.db import transaction

    run_import(write_jsonl(tmp_path / "works.jsonl", _handmade_corpus()))
    services.coauthor_edges_drain()
    researcher = Researcher.objects.get(openalex_id="A9600000002")
    with pytest.raises(RuntimeError), transaction.atomic():
        services.coauthor_edges_schedule(researcher_ids=[researcher.pk], include_coauthors=True)
        assert PendingEdgeRefresh.objects.filter(researcher_id=researcher.pk).exists()
        raise RuntimeError("the split rolls back")
    assert not PendingEdgeRefresh.objects.exists()  # a change rolled back owes nothing
