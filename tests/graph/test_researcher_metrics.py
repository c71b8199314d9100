"""Works count, citations, h-index, i10-index, topics and citations per year, after an import."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graph.services import researcher_metrics_refresh
from researchers.models import Researcher


def _work(number: int, cited: int, authors: list[str], topic: str = "T9800001") -> dict:
    return {
        "id": f"https://openalex.org/W97000000{number:02d}",
        "title": f"Work {number}",
        "publication_year": 2020 + number % 5,
        "cited_by_count": cited,
        "counts_by_year": [
            {"year": 2024, "cited_by_count": cited // 2},
            {"year": 2025, "cited_by_count": cited - cited // 2},
        ],
        "authorships": [
            {
                "author": {"id": f"https://openalex.org/{author}", "display_name": author},
                "raw_author_name": author,
            }
            for author in authors
        ],
        "topics": [{"id": f"https://openalex.org/{topic}", "display_name": topic, "score": 0.8}],
    }


@pytest.mark.django_db(transaction=True)
def test_metrics_follow_the_definitions(run_import, tmp_path: Path):
    # Citations 25, 12, 10, 4, 3, 0 -> h-index 4 (four works with at least 4 citations), i10 3.
    citations = [25, 12, 10, 4, 3, 0]
    works = [
        _work(
            i,
            cited,
            ["A9700000001", "A9700000002"] if i == 0 else ["A9700000001"],
            f"T970000{i % 3}",
        )
        for i, cited in enumerate(citations)
    ]
    path = tmp_path / "works.jsonl"
    path.write_text("".join(json.dumps(w) + "\n" for w in works))

    run_import(path)

    main = Researcher.objects.get(openalex_id="A9700000001")
    assert (
        main.works_count,
        main.cited_by_count,
        main.h_index,
        main.i10_index,
        main.topics_count,
    ) == (6, 54, 4, 3, 3)
    assert main.citations_by_year == {"2024": 26, "2025": 28}
    coauthor = Researcher.objects.get(openalex_id="A9700000002")
    assert (
        coauthor.works_count,
        coauthor.cited_by_count,
        coauthor.h_index,
        coauthor.i10_index,
    ) == (1, 25, 1, 1)


@pytest.mark.django_db(transaction=True)
def test_refreshing_costs_two_statements_whatever_the_number_of_researchers(
    run_import, tmp_path: Path, django_assert_num_queries
):
    works = [_work(i, i, [f"A97000001{i:02d}", "A9700000001"]) for i in range(30)]
    path = tmp_path / "works.jsonl"
    path.write_text("".join(json.dumps(w) + "\n" for w in works))
    run_import(path)
    Researcher.objects.update(works_count=0, h_index=0)
    ids = list(Researcher.objects.values_list("id", flat=True))

    with django_assert_num_queries(2):  # the figures, then the slice summaries
        changed = researcher_metrics_refresh(researcher_ids=ids)

    assert changed == 31
    assert Researcher.objects.get(openalex_id="A9700000001").works_count == 30
