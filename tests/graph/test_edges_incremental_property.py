"""Incremental edges equal a full rebuild, and both equal a plain-Python count, whatever the
order the records come in, however they are split into batches and runs, and whenever the
drains run in between. Includes newer copies of works that change their byline."""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graph import keys, services
from graph.models import CloseCollaboratorsCount, CoauthorEdge, PendingEdgeRefresh
from ingest.models import ImportRun
from publications.models import Authorship, Source, Topic, Work
from researchers.models import Institution, Researcher
from tests.graph.conftest import author, close_counts, work, write_jsonl

pytestmark = pytest.mark.django_db(transaction=True)

AUTHORS = [f"A96300{i:05d}" for i in range(10)]


def _corpus(seed: int) -> list[dict]:
    """14 works over 10 people, sizes 1 to 5 plus one of 120 authors, some without a year,
    and 4 newer copies that change bylines (one drops a person, one adds two)."""
    rng = random.Random(seed)
    records = []
    for number in range(14):
        size = rng.randint(1, 5)
        people = rng.sample(AUTHORS, size)
        byline = [author(p) for p in people] + [author(None, "Unidentified")] * rng.randint(0, 2)
        records.append(work(number, byline, year=rng.choice([None, 2015, 2019, 2020, 2024])))
    records.append(
        work(14, [author(p) for p in AUTHORS[:4]] + [author(None, f"X{i}") for i in range(116)])
    )
    for number in rng.sample(range(14), 4):
        people = rng.sample(AUTHORS, rng.randint(2, 5))
        newer = work(number, [author(p) for p in people], year=rng.choice([2016, 2021, None]))
        newer["updated_date"] = "2031-01-01T00:00:00"
        records.append(newer)
    return records


def _oracle() -> dict:
    """The edges by definition, counted in plain Python from the works and bylines the imports
    left in the database (which copy of a work won is the importer's business, not ours)."""
    names = dict(Researcher.objects.values_list("id", "openalex_id"))
    bylines: dict[int, set[str]] = {}
    for work_id, researcher_id in Authorship.objects.exclude(researcher=None).values_list(
        "work_id", "researcher_id"
    ):
        bylines.setdefault(work_id, set()).add(names[researcher_id])
    pairs: dict[tuple[str, str], list] = {}
    for work_id, authors_count, year in Work.objects.values_list(
        "id", "authors_count", "publication_year"
    ):
        if not 2 <= authors_count <= 100:
            continue
        people = sorted(bylines.get(work_id, ()))
        for i, a in enumerate(people):
            for b in people[i + 1 :]:
                entry = pairs.setdefault((a, b), [0, Fraction(0), []])
                entry[0] += 1
                entry[1] += Fraction(1, authors_count - 1)
                if year:
                    entry[2].append(year)
    return {
        pair: (joint, float(weight), min(years, default=None), max(years, default=None))
        for pair, (joint, weight, years) in pairs.items()
    }


def _table() -> dict:
    names = dict(Researcher.objects.values_list("id", "openalex_id"))
    return {
        tuple(sorted((names[e.researcher_a_id], names[e.researcher_b_id]))): (
            e.joint_works_count,
            e.weight,
            e.first_year,
            e.last_year,
        )
        for e in CoauthorEdge.objects.all()
    }


def _close_counts() -> dict:
    """The stored rows as they are (a researcher without close collaborators has none)."""
    return dict(
        CloseCollaboratorsCount.objects.values_list(
            "researcher__openalex_id", "close_collaborators_count"
        )
    )


def _oracle_close_counts(edges: dict) -> dict:
    """Close collaborators by definition: two joint works, or weight of at least 1/9."""
    counts = dict.fromkeys(Researcher.objects.values_list("openalex_id", flat=True), 0)
    for (a, b), (joint, weight, _, _) in edges.items():
        if joint >= 2 or weight >= 1 / 9 - 1e-9:
            counts[a] += 1
            counts[b] += 1
    return counts


def _reset() -> None:
    CoauthorEdge.objects.all().delete()
    Work.objects.all().delete()
    Researcher.objects.all().delete()
    PendingEdgeRefresh.objects.all().delete()
    for model in (Institution, Source, Topic, ImportRun):
        model.objects.all().delete()
    redis = keys.redis_client()
    for name in redis.scan_iter(match=keys.key("graph:*")):
        redis.delete(name)


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    corpus_seed=st.integers(0, 3),
    order_seed=st.integers(0, 10_000),
    batch_size=st.integers(1, 8),
    runs=st.integers(1, 4),
    drain_between=st.lists(st.booleans(), min_size=4, max_size=4),
)
def test_incremental_edges_equal_a_rebuild_and_the_definition(
    run_import,
    purge_graph_queue,
    tmp_path_factory,
    corpus_seed: int,
    order_seed: int,
    batch_size: int,
    runs: int,
    drain_between: list[bool],
):
    _reset()
    records = _corpus(corpus_seed)
    shuffled = records[:]
    random.Random(order_seed).shuffle(shuffled)
    folder: Path = tmp_path_factory.mktemp("runs")
    cuts = sorted(random.Random(order_seed + 1).sample(range(1, len(shuffled)), runs - 1))
    parts = [shuffled[i:j] for i, j in zip([0, *cuts], [*cuts, len(shuffled)], strict=True)]

    with override_settings(IMPORT_BATCH_SIZE=batch_size):
        for number, part in enumerate(parts):
            run_import(write_jsonl(folder / f"run{number}.jsonl", part))
            if drain_between[number]:
                services.coauthor_edges_drain()
    services.coauthor_edges_drain()
    incremental, incremental_close = _table(), _close_counts()

    call_command("rebuild_graph", no_progress=True, slices=3)

    assert _table() == incremental  # exactly, weights included (they are decimals)
    assert _close_counts() == incremental_close
    expected = _oracle()
    assert close_counts(Researcher.objects.all()) == _oracle_close_counts(expected)
    assert 0 not in incremental_close.values()
    assert len(expected) > 5
    assert incremental.keys() == expected.keys()
    for pair, (joint, weight, first, last) in expected.items():
        got = incremental[pair]
        assert (got[0], got[2], got[3]) == (joint, first, last), pair
        assert float(got[1]) == pytest.approx(weight, rel=1e-10), pair
