"""A file mixing good records with broken ones: the good ones land, every bad one is kept with
its reason and text, and the command finishes successfully and says how many failed."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from ingest.models import ImportIssue, ImportRun
from publications.models import Work


@pytest.mark.django_db(transaction=True)
def test_good_records_land_and_every_bad_line_is_an_issue_with_its_reason(fixtures_dir):
    out = StringIO()
    call_command(
        "import_openalex",
        str(fixtures_dir / "openalex/works_mixed.jsonl"),
        sync=True,
        no_progress=True,
        stdout=out,
    )

    run = ImportRun.objects.latest("id")
    assert run.status == ImportRun.Status.SUCCEEDED
    assert set(Work.objects.values_list("openalex_id", flat=True)) == {
        "W9800000001",
        "W9800000002",
        "W9800000003",
    }
    reasons = dict(
        ImportIssue.objects.filter(run=run, severity="error").values_list("line_number", "reason")
    )
    assert reasons[2].startswith("malformed JSON")
    assert reasons[4] == "record has no id"
    assert reasons[5] == "field 'authorships' is a string, expected a list"
    assert reasons[6] == "field 'title' is a list, expected a string"
    assert reasons[7] == "id is a number, expected a string"
    assert reasons[8] == "record is a list, expected an object"
    assert reasons[11] == "duplicate of W9800000001 at line 1 in the same batch"
    assert len(reasons) == 7  # the blank line 9 is not a record
    truncated = ImportIssue.objects.get(run=run, line_number=2)
    assert truncated.raw.startswith('{"id": "https://openalex.org/W9800000090"')
    assert (run.read_count, run.created_count, run.failed_count) == (10, 3, 7)

    summary = out.getvalue()
    assert "read 10, created 3, updated 0, unchanged 0, failed 7" in summary
    assert "7 record(s) rejected" in summary


@pytest.mark.django_db(transaction=True)
def test_a_missing_path_is_a_clear_error_and_nothing_is_recorded(tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no such file or directory"):
        call_command("import_openalex", str(tmp_path / "nope.jsonl"), sync=True, no_progress=True)
    assert not ImportRun.objects.exists()


def test_the_command_exits_non_zero_on_a_missing_path(tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "manage.py", "import_openalex", str(tmp_path / "nope.jsonl"), "--sync"],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "DJANGO_SETTINGS_MODULE": "bzpeer.settings.test"},
    )
    assert result.returncode == 1
    assert "no such file or directory" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.django_db(transaction=True)
def test_a_corrupt_gzip_file_is_a_clear_error(tmp_path):
    from django.core.management.base import CommandError

    path = tmp_path / "part_000.gz"
    path.write_bytes(b"this is not gzip data")
    with pytest.raises(CommandError, match="cannot be read"):
        call_command("import_openalex", str(path), sync=True, no_progress=True)
