"""The CV of a researcher from ORCID: the mapper's CV entries of real records, written by the
set-based CV writer (idempotent by put-code, the claimant's hidden choice kept, entries the
source dropped deleted, other sources untouched)."""

from __future__ import annotations

import pytest

from ingest.orcid.mapper import map_record
from ingest.orcid.reader import READER
from ingest.orcid.writer import write_cv_entries
from ingest.records import CvEntryRecord
from researchers.models import CVEntry, Researcher
from researchers.services import CvEntryData, cv_entries_replace_for_source, cv_entry_hidden_set

pytestmark = pytest.mark.django_db


def _records(testdata_dir, relative):
    (raw,) = list(READER.records(testdata_dir / "orcid" / relative))
    return map_record(raw)


def _researcher(orcid="0000-0003-4423-4370", slug="charles-tapley-hoyt") -> Researcher:
    return Researcher.objects.create(slug=slug, display_name="Charles Tapley Hoyt", orcid=orcid)


def test_the_v2_record_gives_employments_and_educations_with_their_precision(testdata_dir):
    entries = [
        r
        for r in _records(testdata_dir, "v2.x/pyorcidator_record_0000-0003-4423-4370.json")
        if isinstance(r, CvEntryRecord)
    ]

    kinds = sorted(e.entry.section for e in entries)
    assert (
        kinds.count("employment") == 4
        and kinds.count("education") == 3
        and kinds.count("funding") == 3
    )
    enveda = next(e.entry for e in entries if e.entry.source_key == "0000-0003-4423-4370:11243167")
    assert (enveda.organisation, enveda.role, enveda.city, enveda.country) == (
        "Enveda Biosciences",
        "Computational Biologist",
        "Bonn",
        "DE",
    )
    assert (enveda.start, enveda.end) == ((2020, 1, None), (2020, 10, None))
    harvard = next(e.entry for e in entries if e.entry.source_key == "0000-0003-4423-4370:14207397")
    assert harvard.organisation_ids == (("ringgold", "1811"),)
    assert harvard.department == "Laboratory of Systems Pharmacology"


def test_writing_a_cv_twice_changes_nothing_and_keeps_hidden(testdata_dir):
    researcher = _researcher()
    entries = [
        r
        for r in _records(testdata_dir, "v2.x/pyorcidator_record_0000-0003-4423-4370.json")
        if isinstance(r, CvEntryRecord)
    ]

    from django.db import connection

    with connection.cursor() as cursor:
        first = write_cv_entries(cursor, entries)
    assert first.updated == 10 and researcher.pk in first.touched_researcher_ids
    rows = CVEntry.objects.filter(researcher=researcher)
    assert rows.count() == 10
    enveda = rows.get(source_key="0000-0003-4423-4370:11243167")
    assert (enveda.start_year, enveda.start_month, enveda.start_day) == (2020, 1, None)
    assert (enveda.end_year, enveda.end_month, enveda.end_day) == (2020, 10, None)
    assert enveda.years == "2020" and enveda.place == "Bonn, DE"
    assert cv_entry_hidden_set(researcher_id=researcher.pk, entry_id=enveda.pk, hidden=True)
    stamp = enveda.updated_at

    with connection.cursor() as cursor:
        second = write_cv_entries(cursor, entries)
    assert (second.updated, second.unchanged) == (0, 10)
    enveda.refresh_from_db()
    assert enveda.hidden and enveda.updated_at == stamp


def test_an_entry_the_source_dropped_goes_and_other_sources_stay():
    researcher = _researcher()
    mine = CVEntry.objects.create(
        researcher=researcher,
        section="distinction",
        organisation="Own prize",
        source="claimant",
        source_key="1",
    )
    one = CvEntryData(
        section="employment", source_key="o:1", organisation="A", start=(2001, None, None)
    )
    two = CvEntryData(section="education", source_key="o:2", organisation="B")
    cv_entries_replace_for_source(researcher_id=researcher.pk, source="orcid", entries=[one, two])
    result = cv_entries_replace_for_source(
        researcher_id=researcher.pk, source="orcid", entries=[one]
    )
    assert (result.written, result.deleted) == (0, 1)
    assert sorted(
        CVEntry.objects.filter(researcher=researcher).values_list("source_key", flat=True)
    ) == ["1", "o:1"]
    assert CVEntry.objects.filter(pk=mine.pk).exists()


def test_an_unknown_section_is_refused_and_an_owner_without_researcher_is_a_warning():
    with pytest.raises(ValueError, match="unknown CV sections"):
        cv_entries_replace_for_source(
            researcher_id=1, source="orcid", entries=[CvEntryData(section="hobby", source_key="x")]
        )
    from django.db import connection

    with connection.cursor() as cursor:
        result = write_cv_entries(
            cursor,
            [
                CvEntryRecord(
                    owner_orcid="0000-0002-1825-0097",
                    source="orcid",
                    entry=CvEntryData(section="employment", source_key="0000-0002-1825-0097:1"),
                )
            ],
        )
    assert [w.external_id for w in result.warnings] == ["0000-0002-1825-0097"]


def test_hiding_someone_elses_entry_does_nothing():
    alice = _researcher()
    bob = _researcher(orcid="0000-0002-1825-0097", slug="bob")
    entry = CVEntry.objects.create(
        researcher=alice, section="employment", source="orcid", source_key="k"
    )
    assert not cv_entry_hidden_set(researcher_id=bob.pk, entry_id=entry.pk, hidden=True)
    entry.refresh_from_db()
    assert not entry.hidden
