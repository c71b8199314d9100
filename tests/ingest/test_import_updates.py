"""Re-importing a changed work replaces its byline and refreshes the people it touches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from publications.models import Authorship, Work
from researchers.models import Researcher


def _work_lines(fixtures_dir: Path) -> list[dict]:
    return [
        json.loads(line)
        for line in (fixtures_dir / "openalex/works_good.jsonl").read_text().splitlines()
    ]


def _write(path: Path, works: list[dict]) -> Path:
    path.write_text("".join(json.dumps(work) + "\n" for work in works))
    return path


@pytest.mark.django_db(transaction=True)
def test_an_updated_work_has_its_authorships_replaced(run_import, fixtures_dir, tmp_path):
    works = _work_lines(fixtures_dir)
    run_import(_write(tmp_path / "v1.jsonl", works))
    second_work = works[1]
    assert [a["raw_author_name"] for a in second_work["authorships"]] == [
        "Bo Sample",
        "Cyrille Témoin",
        "Ada Example",
    ]

    # Upstream dropped the middle author and moved Ada first.
    second_work["authorships"] = [second_work["authorships"][2], second_work["authorships"][0]]
    second_work["updated_date"] = "2026-01-02T00:00:00"
    run = run_import(_write(tmp_path / "v2.jsonl", works))

    assert (run.created_count, run.updated_count, run.unchanged_count) == (0, 1, 2)
    work = Work.objects.get(openalex_id="W9800000002")
    assert list(work.authorships.values_list("position", "raw_name")) == [
        (1, "Ada Example"),
        (2, "Bo Sample"),
    ]
    assert work.authors_count == 2
    cyrille = Researcher.objects.get(openalex_id="A9800000003")
    assert cyrille.works_count == 1  # only the third work is left to her
    assert Authorship.objects.filter(work=work).count() == 2


@pytest.mark.django_db(transaction=True)
def test_an_older_copy_does_not_overwrite_a_newer_one(run_import, fixtures_dir, tmp_path):
    works = _work_lines(fixtures_dir)[:1]
    works[0]["updated_date"] = "2026-02-01T00:00:00"
    works[0]["cited_by_count"] = 40
    run_import(_write(tmp_path / "new.jsonl", works))

    works[0]["updated_date"] = "2025-01-01T00:00:00"
    works[0]["cited_by_count"] = 12
    run = run_import(_write(tmp_path / "old.jsonl", works))

    assert (run.updated_count, run.unchanged_count) == (0, 1)
    assert Work.objects.get(openalex_id="W9800000001").cited_by_count == 40


@pytest.mark.django_db(transaction=True)
def test_a_doi_already_held_by_another_work_is_dropped_with_a_warning(
    run_import, fixtures_dir, tmp_path
):
    from ingest.models import ImportIssue

    works = _work_lines(fixtures_dir)
    works[1]["doi"] = works[0]["doi"]
    run_import(_write(tmp_path / "first.jsonl", works[:1]))
    run = run_import(_write(tmp_path / "second.jsonl", works[1:2]))

    assert Work.objects.get(openalex_id="W9800000002").doi is None
    warning = ImportIssue.objects.get(run=run)
    assert warning.severity == ImportIssue.Severity.WARNING
    assert (
        warning.reason
        == "doi 10.99998/example.1 already belongs to W9800000001; imported without it"
    )
    assert run.failed_count == 0 and run.created_count == 1


@pytest.mark.django_db(transaction=True)
def test_works_of_a_merged_record_go_to_its_survivor(run_import, fixtures_dir, tmp_path):
    works = _work_lines(fixtures_dir)
    run_import(_write(tmp_path / "first.jsonl", works[:1]))
    ada = Researcher.objects.get(openalex_id="A9800000001")
    survivor = Researcher.objects.create(
        slug="ada-example", display_name="Ada Example", name_normalized="ada example"
    )
    Authorship.objects.filter(researcher=ada).update(researcher=survivor)
    ada.merged_into = survivor
    ada.save()

    run_import(_write(tmp_path / "second.jsonl", works[1:2]))

    work = Work.objects.get(openalex_id="W9800000002")
    assert work.authorships.get(raw_name="Ada Example").researcher == survivor
    survivor.refresh_from_db()
    assert survivor.works_count == 2
