from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

import pytest

from graph.models import close_collaborators_count_of


def close_counts(researchers) -> dict[str, int]:  # noqa: ANN001
    """Close-collaborators counts of these researchers (a queryset) by OpenAlex id, 0 for
    those without a stored row."""
    counted = researchers.annotate(close=close_collaborators_count_of())
    return dict(counted.values_list("openalex_id", "close"))


def close_count(openalex_id: str) -> int:
    from researchers.models import Researcher

    return close_counts(Researcher.objects.filter(openalex_id=openalex_id))[openalex_id]


def author(openalex_id: str | None, name: str | None = None, institution: str | None = None):
    """One authorship; openalex_id None is a byline name the source could not identify."""
    entry: dict = {"raw_author_name": name or openalex_id or "Anonymous", "institutions": []}
    if openalex_id:
        entry["author"] = {"id": f"https://openalex.org/{openalex_id}", "display_name": name}
    if institution:
        entry["institutions"] = [
            {
                "id": f"https://openalex.org/{institution}",
                "display_name": f"Institute {institution}",
            }
        ]
    return entry


def work(
    number: int,
    authors: Iterable[dict],
    *,
    year: int | None = 2020,
    cited: int = 0,
    topic: str | None = None,
) -> dict:
    record = {
        "id": f"https://openalex.org/W96000{number:05d}",
        "title": f"Handmade work {number}",
        "publication_year": year,
        "publication_date": f"{year}-06-01" if year else None,
        "cited_by_count": cited,
        "authorships": list(authors),
    }
    if topic:
        record["topics"] = [
            {"id": f"https://openalex.org/{topic}", "display_name": f"Topic {topic}", "score": 0.9}
        ]
    return record


def write_jsonl(path: Path, records: Iterable[dict]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


@pytest.fixture
def purge_graph_queue():
    """Imports in a test queue real drain messages on the graph queue, which no worker of the
    test consumes: drop them afterwards so they never pile up in the test Redis."""
    yield
    from django.conf import settings

    from bzpeer.celery import app

    with app.connection_for_write() as broker:
        broker.default_channel.queue_purge(settings.GRAPH_QUEUE)


@pytest.fixture
def demo_graph(demo_data):
    """The demo snapshot (demo/openalex) imported through the real pipeline, edges drained:
    imported once per test process and copied into each test's transaction
    (tests/support/demo.py)."""
