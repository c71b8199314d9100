"""After an import, a real Celery worker on the graph queue refreshes the edges by itself."""

from __future__ import annotations

import time
import uuid
from pathlib import Path

import pytest
from django.test import override_settings

from graph.models import CoauthorEdge, PendingByline, PendingEdgeRefresh
from tests.graph.conftest import author, close_count, work, write_jsonl
from tests.ingest.test_import_on_workers import Workers

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def _wait_for(predicate, *, timeout: float, workers: Workers, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}\n{workers.logs()}")


@pytest.fixture
def graph_worker(tmp_path: Path):
    """A worker consuming only a graph queue of this test's own."""
    queue = f"bzpeer-test-graph-{uuid.uuid4().hex[:10]}"
    pool = Workers(queue, tmp_path)
    pool.env["CELERY_GRAPH_QUEUE"] = queue
    with override_settings(GRAPH_QUEUE=queue):
        try:
            pool.start()
            yield pool
        finally:
            pool.stop_all()


def test_a_worker_drains_the_edges_after_an_import(graph_worker, run_import, tmp_path: Path):
    records = [
        work(1, [author("A9640000001"), author("A9640000002"), author("A9640000003")]),
        work(2, [author("A9640000001"), author("A9640000002")], year=2023),
    ]
    # Two runs: the second finds a drain already queued (or running) and adds to its set.
    # --defer-graph: the edges are left to the worker, as an import on the workers leaves them.
    run_import(write_jsonl(tmp_path / "one.jsonl", records[:1]), defer_graph=True)
    run_import(write_jsonl(tmp_path / "two.jsonl", records[1:]), defer_graph=True)

    def refreshed() -> bool:
        return (
            CoauthorEdge.objects.filter(joint_works_count=2).exists()
            and close_count("A9640000001") == 2
        )

    _wait_for(refreshed, timeout=60, workers=graph_worker, what="the worker's edge refresh")
    assert CoauthorEdge.objects.count() == 3
    _wait_for(
        lambda: not PendingByline.objects.exists() and not PendingEdgeRefresh.objects.exists(),
        timeout=30,
        workers=graph_worker,
        what="the pending rows to empty",
    )
    assert "coauthor_edges_drain" in graph_worker.logs()
