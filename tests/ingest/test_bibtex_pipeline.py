"""The whole BibTeX and dblp corpus through `manage.py import bibtex --sync`: every entry is read
(the run's read count is the independent count of entries), every rejected one is an issue
with its reason, organisations get no researcher, and a second run changes nothing."""

from __future__ import annotations

import re

import pytest
from django.core.management import call_command

from ingest.bibtex.mapper import map_record
from ingest.bibtex.reader import READER
from ingest.models import ImportIssue, ImportRun
from ingest.records import MappingError
from publications.models import Authorship, Work, WorkSource

_BLOCK_START = re.compile(r"^[ \t%]*@\s*([A-Za-z]+)", re.MULTILINE)


def _entries(path) -> int:
    return sum(
        1
        for kind in _BLOCK_START.findall(path.read_text(encoding="utf-8"))
        if kind.lower() not in ("string", "preamble", "comment")
    )


@pytest.mark.django_db(transaction=True)
def test_the_bibtex_and_dblp_corpus_imports_with_every_entry_accounted_for(testdata_dir):
    folders = [str(testdata_dir / "bibtex"), str(testdata_dir / "dblp")]
    files, _ = READER.files(folders)
    expected_entries = sum(_entries(path) for path in files)
    expected_rejections = 0
    for path in files:
        for raw in READER.records(path):
            try:
                map_record(raw)
            except MappingError:
                expected_rejections += 1

    call_command("import", "bibtex", *folders, sync=True, no_progress=True)

    run = ImportRun.objects.order_by("-id").first()
    assert run.status == ImportRun.Status.SUCCEEDED, run.error
    assert run.read_count == expected_entries
    errors = ImportIssue.objects.filter(run=run, severity=ImportIssue.Severity.ERROR)
    assert errors.count() == run.failed_count >= expected_rejections
    assert not errors.filter(reason="").exists()
    assert errors.filter(reason__contains="the entry has no title").exists()
    assert WorkSource.objects.filter(origin="bibtex").count() > 2000
    corporate = Authorship.objects.filter(
        raw_name="Council on Cardiopulmonary, Critical Care, Perioperative and Resuscitation"
    )
    assert corporate.count() == 1 and corporate.get().researcher_id is None
    assert not Authorship.objects.filter(raw_name__iexact="others").exists()
    works = Work.objects.count()

    call_command("import", "bibtex", *folders, sync=True, no_progress=True)

    second = ImportRun.objects.order_by("-id").first()
    assert second.status == ImportRun.Status.SUCCEEDED, second.error
    assert (second.created_count, second.updated_count) == (0, 0)
    assert second.read_count == expected_entries
    assert Work.objects.count() == works
