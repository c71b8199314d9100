"""The figures OpenAlex states for an author's whole record (issue 24, item 13): mapped from the
real records, written beside bzpeer's own figures with the source and the record's date, and
replaced by a newer record."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

from ingest.openalex import mapper
from researchers.models import Researcher


def _load(testdata_dir: Path, relative: str) -> dict:
    return json.loads((testdata_dir / "openalex" / relative).read_text(encoding="utf-8"))


def test_the_mapper_reads_summary_stats_works_and_citations_with_the_records_date(testdata_dir):
    record = mapper.map_author(_load(testdata_dir, "api/authors/bv_A5023888391.json"))

    figures = record.stated_figures
    assert figures is not None
    assert figures.source == "openalex"
    assert figures.as_of == "2025-06-08"
    assert (figures.works_count, figures.cited_by_count) == (62, 3890)
    assert (figures.h_index, figures.i10_index) == (17, 20)
    assert figures.two_year_mean_citedness == 6.0


def test_an_author_without_any_figures_states_none():
    record = mapper.map_author(
        {"id": "https://openalex.org/A1", "display_name": "Ada Lovelace", "summary_stats": None}
    )
    assert record.stated_figures is None


def test_figures_that_are_not_counts_are_left_out():
    record = mapper.map_author(
        {
            "id": "https://openalex.org/A1",
            "display_name": "Ada Lovelace",
            "works_count": -3,
            "cited_by_count": True,
            "summary_stats": {"h_index": "10", "i10_index": 4, "2yr_mean_citedness": 1.5},
        }
    )
    figures = record.stated_figures
    assert figures is not None
    assert (figures.works_count, figures.cited_by_count, figures.h_index) == (None, None, None)
    assert (figures.i10_index, figures.two_year_mean_citedness) == (4, 1.5)


@pytest.mark.django_db(transaction=True)
def test_the_import_stores_them_and_a_newer_record_replaces_them(run_import, testdata_dir):
    authors = testdata_dir / "openalex" / "api" / "authors"
    run_import(authors / "go_A5023888391_2023schema.json")
    jason = Researcher.objects.get(openalex_id="A5023888391")
    assert (jason.stated_h_index, jason.stated_i10_index, jason.stated_works_count) == (16, 17, 53)
    assert jason.stated_cited_by_count == 2140
    assert jason.stated_two_year_mean_citedness == 0.5
    assert jason.stated_figures_source == "openalex"
    assert jason.stated_figures_as_of == datetime.date(2023, 10, 28)
    # bzpeer's own figures count only the works it holds (none here): they stay its own.
    assert (jason.h_index, jason.works_count) == (0, 0)

    run_import(authors / "bv_A5023888391.json")
    jason.refresh_from_db()
    assert (jason.stated_h_index, jason.stated_i10_index, jason.stated_works_count) == (17, 20, 62)
    assert jason.stated_figures_as_of == datetime.date(2025, 6, 8)
