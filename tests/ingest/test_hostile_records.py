"""Records the database would refuse never abort an import: each is cleaned (with a warning on
the run) or rejected (an ImportIssue with its reason), the good records beside it are stored
once, and the run ends "succeeded". A refusal nobody foresaw is isolated by the database
itself, and a run that stops for any reason is marked failed, never left "running"."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from ingest.models import ImportIssue, ImportRun
from publications.models import Authorship, Work, WorkTopic
from researchers.models import Institution, Researcher

pytestmark = pytest.mark.django_db(transaction=True)


def work(number: int, **fields) -> dict:
    """An OpenAlex work with one author at one institution and one topic, fields overridden."""
    record = {
        "id": f"https://openalex.org/W97{number:08d}",
        "doi": f"https://doi.org/10.99997/hostile.{number}",
        "title": f"Hostile record {number}",
        "publication_year": 2021,
        "publication_date": "2021-05-04",
        "type": "article",
        "language": "en",
        "cited_by_count": 3,
        "authorships": [
            {
                "author_position": "first",
                "author": {
                    "id": f"https://openalex.org/A97{number:08d}",
                    "display_name": f"Author {number}",
                    "orcid": None,
                },
                "institutions": [
                    {
                        "id": "https://openalex.org/I9700000001",
                        "display_name": "Hostile University",
                        "ror": None,
                        "country_code": "NZ",
                        "type": "education",
                    }
                ],
                "raw_author_name": f"Author {number}",
                "is_corresponding": True,
            }
        ],
        "topics": [
            {
                "id": "https://openalex.org/T9700001",
                "display_name": "Robust systems",
                "score": 0.9,
            }
        ],
        "updated_date": "2024-01-01T00:00:00",
    }
    record.update(fields)
    return record


def import_lines(tmp_path, records: list) -> tuple[ImportRun, str]:
    path = tmp_path / "hostile.jsonl"
    with path.open("w", encoding="utf-8") as file:
        for record in records:
            file.write((record if isinstance(record, str) else json.dumps(record)) + "\n")
    out = StringIO()
    call_command("import_openalex", str(path), sync=True, no_progress=True, stdout=out)
    return ImportRun.objects.latest("id"), out.getvalue()


def stored(number: int) -> Work:
    return Work.objects.get(openalex_id=f"W97{number:08d}")


def issues(run: ImportRun, severity: str) -> dict[int, str]:
    return dict(
        ImportIssue.objects.filter(run=run, severity=severity).values_list("line_number", "reason")
    )


def test_every_value_the_database_refuses_is_cleaned_or_rejected_and_the_rest_is_stored(tmp_path):
    authorship = work(0)["authorships"][0]
    records = [
        work(1),  # line 1: a good record
        work(2, title="Null\u0000byte title", abstract_inverted_index={"a\u0000b": [0]}),
        work(3, publication_year=-44, publication_date="-0044-03-15"),
        work(4, publication_date="2021-02-31"),
        work(5, doi="https://doi.org/10.1/" + "x" * 400),  # an identifier too long: rejected
        work(6, title="Long" * 3_750),
        work(7, cited_by_count=10**15, language="en-GB-oxendict-x-longer-than-ten"),
        work(
            8,
            authorships=[
                {**authorship, "raw_author_name": "R" * 2_000, "author": None},
            ],
        ),
        work(9, topics=[{"id": "https://openalex.org/T9700002", "display_name": "T" * 900}]),
        work(10, type="t" * 300),
        work(11, abstract_inverted_index={"word": list(range(200_000))}),
        "not json at all \u0000",
        json.dumps(work(13))[:-1],  # cut short
        work(14, authorships="nobody"),
        work(15, title=None),
    ]
    run, summary = import_lines(tmp_path, records)

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    # Every good or cleanable record is stored once, the rejected ones not at all.
    assert sorted(Work.objects.values_list("openalex_id", flat=True)) == sorted(
        f"W97{n:08d}" for n in (1, 2, 3, 4, 6, 7, 8, 9, 10, 11)
    )
    assert stored(2).title == "Nullbyte title"
    assert "\x00" not in stored(2).abstract
    assert (stored(3).publication_year, stored(3).publication_date) == (None, None)
    assert stored(4).publication_date is None
    assert stored(4).publication_year == 2021
    assert len(stored(6).title) == 2_000
    assert stored(7).cited_by_count == 0
    assert stored(7).language == "en-GB-oxen"  # the mapper keeps what the column holds
    assert len(Authorship.objects.get(work=stored(8)).raw_name) == 500
    assert WorkTopic.objects.filter(work=stored(9)).exists()
    assert len(stored(11).abstract) <= 100_000
    assert Researcher.objects.filter(openalex_id="A9700000001").exists()
    assert Institution.objects.filter(openalex_id="I9700000001").count() == 1

    rejected = issues(run, "error")
    assert set(rejected) == {5, 12, 13, 14, 15}
    assert "longer than the 300 an identifier can have" in rejected[5]
    assert rejected[12].startswith("malformed JSON")
    warned = issues(run, "warning")
    assert "NUL characters removed" in warned[2]
    assert "-44 is outside 0..32767" in warned[3]
    assert "cut from 15,000 to 2000 characters" in warned[6]
    assert "cited_by_count: 1000000000000000 is outside 0..2147483647" in warned[7]
    assert "raw_name" in warned[8]
    assert (run.read_count, run.failed_count) == (15, 5)
    assert "failed 5" in summary

    # The same file again: nothing new, nothing changed, the rejected ones rejected again.
    again, _ = import_lines(tmp_path, records)
    assert again.status == ImportRun.Status.SUCCEEDED
    assert (again.created_count, again.updated_count, again.failed_count) == (0, 0, 5)


def test_a_refusal_nobody_foresaw_costs_only_the_refused_record(tmp_path):
    """A rule the database has and the checks before the write do not know (here a check
    constraint added for the test): the batch is halved until the refused record is alone."""
    with connection.cursor() as cursor:
        cursor.execute(
            "ALTER TABLE publications_work ADD CONSTRAINT test_no_forbidden_title "
            "CHECK (title <> 'Forbidden title')"
        )
    try:
        records = [work(n) for n in range(20, 30)]
        records[6] = work(26, title="Forbidden title")
        run, _ = import_lines(tmp_path, records)
    finally:
        with connection.cursor() as cursor:
            cursor.execute(
                "ALTER TABLE publications_work DROP CONSTRAINT IF EXISTS test_no_forbidden_title"
            )

    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert Work.objects.count() == 9
    assert not Work.objects.filter(openalex_id="W9700000026").exists()
    refusal = ImportIssue.objects.get(run=run, severity="error")
    assert refusal.external_id == "W9700000026"
    assert "refused by the database" in refusal.reason
    assert "test_no_forbidden_title" in refusal.reason
    assert run.failed_count == 1


def test_a_run_that_stops_is_marked_failed_with_the_reason(tmp_path):
    """Whatever stops a --sync run (here the issues table refusing every row, so not even the
    refusal can be stored) leaves it failed, with the reason, and the command says so: never
    "running" with zero counts."""
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION test_refuse_issue() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'the issues table is closed for this test'; END $$"
        )
        cursor.execute(
            "CREATE TRIGGER test_refuse_issue BEFORE INSERT ON publications_importissue "
            "FOR EACH ROW EXECUTE FUNCTION test_refuse_issue()"
        )
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(work(40)) + "\nnot json\n", encoding="utf-8")
    try:
        with pytest.raises(CommandError, match="failed"):
            call_command("import_openalex", str(path), sync=True, no_progress=True)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TRIGGER IF EXISTS test_refuse_issue ON publications_importissue")
            cursor.execute("DROP FUNCTION IF EXISTS test_refuse_issue()")
    run = ImportRun.objects.latest("id")
    assert run.status == ImportRun.Status.FAILED
    assert "the issues table is closed for this test" in run.error
    assert run.finished_at is not None
