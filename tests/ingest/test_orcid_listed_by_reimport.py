"""Re-importing an ORCID record (issue 15): the works it no longer lists stop being listed by
its owner, and his works count follows; the same record again changes nothing; a record read
partially (a works entry that fails to parse, no works section) removes nothing. On the real
record of the shared corpus (Charles Tapley Hoyt's, v2.x, 26 work groups)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.management import call_command

from ingest.models import ImportRun
from publications.models import WorkListedBy, WorkSource
from researchers.models import Researcher

# The command reads its run back outside the test's transaction, as the pipeline does.
pytestmark = pytest.mark.django_db(transaction=True)

HOYT = "0000-0003-4423-4370"
OTHER_ORCID = "0000-0002-1825-0097"  # ORCID's own example iD, checksum-valid
RECORD = Path("orcid") / "v2.x" / "pyorcidator_record_0000-0003-4423-4370.json"


def _import(path: Path) -> ImportRun:
    call_command("import", "orcid", str(path), sync=True, no_progress=True)
    run = ImportRun.objects.order_by("-id").first()
    assert run is not None and run.status == ImportRun.Status.SUCCEEDED, run and run.error
    return run


def _record(testdata_dir: Path) -> dict:
    return json.loads((testdata_dir / RECORD).read_text())


def _copy(tmp_path: Path, record: dict) -> Path:
    # The iD in the file name, as in the corpus (a /works answer names it only there).
    path = tmp_path / f"record_{HOYT}.json"
    path.write_text(json.dumps(record))
    return path


def _listed(researcher: Researcher) -> dict[int, str]:
    return dict(
        WorkListedBy.objects.filter(researcher=researcher).values_list("work_id", "origin_id")
    )


def _dropped(record: dict, count: int) -> tuple[dict, set[str]]:
    """The record without its first `count` work groups, and the origin ids of their works."""
    groups = record["activities-summary"]["works"]["group"]
    dropped = {
        f"{HOYT}:{summary['put-code']}"
        for group in groups[:count]
        for summary in group["work-summary"]
    }
    record["activities-summary"]["works"]["group"] = groups[count:]
    return record, dropped


def test_a_reimport_without_some_works_drops_their_listings_and_his_works_count(
    testdata_dir, tmp_path
):
    _import(testdata_dir / RECORD)
    hoyt = Researcher.objects.get(orcid=HOYT)
    before = _listed(hoyt)
    assert hoyt.works_count == len(before) >= 20
    # Another record's listing of one of his works, and another origin's: not this record's.
    other = Researcher.objects.create(display_name="Someone Else", orcid=OTHER_ORCID)
    some_work = next(iter(before))
    WorkListedBy.objects.create(
        work_id=some_work, researcher=other, origin="orcid", origin_id=f"{OTHER_ORCID}:1"
    )

    record, dropped = _dropped(_record(testdata_dir), 3)
    dropped_works = set(
        WorkSource.objects.filter(origin="orcid", origin_id__in=dropped).values_list(
            "work_id", flat=True
        )
    )
    assert dropped_works
    _import(_copy(tmp_path, record))

    hoyt.refresh_from_db()
    after = _listed(hoyt)
    assert set(after) == set(before) - dropped_works
    assert not dropped & set(after.values())
    assert hoyt.works_count == len(after) < len(before)
    assert WorkListedBy.objects.filter(researcher=other, work_id=some_work).exists()

    # The same record again: nothing changes.
    rows = list(WorkListedBy.objects.order_by("work", "researcher").values())
    _import(_copy(tmp_path, record))
    assert list(WorkListedBy.objects.order_by("work", "researcher").values()) == rows


def test_the_same_record_again_removes_nothing(testdata_dir):
    _import(testdata_dir / RECORD)
    hoyt = Researcher.objects.get(orcid=HOYT)
    rows = list(WorkListedBy.objects.order_by("work", "researcher").values())

    _import(testdata_dir / RECORD)

    hoyt.refresh_from_db()
    assert list(WorkListedBy.objects.order_by("work", "researcher").values()) == rows
    assert hoyt.works_count == len(rows)


def test_a_record_whose_works_section_failed_to_parse_removes_nothing(testdata_dir, tmp_path):
    _import(testdata_dir / RECORD)
    hoyt = Researcher.objects.get(orcid=HOYT)
    before = _listed(hoyt)

    # Some works gone, and an entry that cannot be read: the record is not read completely.
    record, _ = _dropped(_record(testdata_dir), 3)
    record["activities-summary"]["works"]["group"][0]["work-summary"].append("not an object")
    _import(_copy(tmp_path, record))
    assert _listed(hoyt) == before

    # No works section at all.
    record = _record(testdata_dir)
    del record["activities-summary"]["works"]
    _import(_copy(tmp_path, record))
    assert _listed(hoyt) == before
    hoyt.refresh_from_db()
    assert hoyt.works_count == len(before)
