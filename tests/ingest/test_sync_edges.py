"""import_openalex --sync finishes the coauthor edges itself: with no worker running, the
edges of what it imported are there when it returns. --defer-graph leaves them to a worker."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from graph.models import CoauthorEdge, PendingByline

pytestmark = pytest.mark.django_db(transaction=True)


def _import(fixtures_dir, **options) -> str:
    err = StringIO()
    call_command(
        "import_openalex",
        str(fixtures_dir / "openalex/works_good.jsonl"),
        sync=True,
        no_progress=True,
        stderr=err,
        **options,
    )
    return err.getvalue()


def test_a_sync_import_leaves_its_coauthor_edges_done(fixtures_dir):
    said = _import(fixtures_dir)

    assert CoauthorEdge.objects.exists()
    assert not PendingByline.objects.exists()
    assert "coauthor edges" in said


def test_deferring_the_graph_leaves_the_edges_to_a_worker(fixtures_dir):
    _import(fixtures_dir, defer_graph=True)

    assert not CoauthorEdge.objects.exists()
    assert PendingByline.objects.exists()
