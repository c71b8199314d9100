"""An import on real Celery workers ends with the same tables as --sync, and the researchers it
touched are current within a bounded time after the run ends."""

from __future__ import annotations

import json
import re
import time
import uuid
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import override_settings

from ingest.models import ImportRun, PendingFollowUp
from tests.ingest.test_import_on_workers import Workers
from tests.support.synthetic import iter_works, write_works_snapshot

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

# From the moment a run is marked succeeded until every researcher it touched is current. The
# drain is queued by the task of the run's last chunk and starts as soon as a worker is free; on
# this corpus it takes a second or two. (The benchmark measures it at 200,000 and 1M works.)
CURRENT_WITHIN_SECONDS = 30


@pytest.fixture
def workers(tmp_path: Path):
    """Two worker processes on queues of this test's own, imports and graph alike."""
    from bzpeer.celery import app as celery_app

    queue = f"bzpeer-test-{uuid.uuid4().hex[:10]}"
    previous = celery_app.conf.task_default_queue
    celery_app.conf.task_default_queue = queue
    pool = Workers(queue, tmp_path)
    pool.env["CELERY_GRAPH_QUEUE"] = queue
    pool.env["IMPORT_BATCH_SIZE"] = "250"
    # Slices of 5 of the corpus's 40 researchers: the drain hands them to both processes, as a
    # drain of a large run's hundreds of thousands does with the default slice.
    pool.env["IMPORT_FOLLOW_UP_SLICE"] = "5"
    with override_settings(GRAPH_QUEUE=queue):
        try:
            pool.start()
            yield pool
        finally:
            pool.stop_all()
            celery_app.conf.task_default_queue = previous
            with celery_app.connection_for_write() as broker:
                broker.default_channel.queue_purge(queue)


def _complete() -> bool:
    """Every run finished, no researcher pending, no byline waiting for the edge drain."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT EXISTS (SELECT 1 FROM publications_importrun"
            "               WHERE status IN ('pending', 'running'))"
            " OR EXISTS (SELECT 1 FROM imports_pendingfollowup)"
            " OR EXISTS (SELECT 1 FROM graph_pendingbyline)"
        )
        return not cursor.fetchone()[0]


def _wait(predicate, *, timeout: float, workers: Workers, what: str) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if predicate():
            return time.monotonic() - started
        time.sleep(0.1)
    pytest.fail(f"timed out waiting for {what}\n{workers.logs()}")


# Every derived figure, keyed by the records' own identifiers (database ids differ between runs).
_TABLES = {
    "works": """
        SELECT openalex_id, title, cited_by_count, publication_year, authors_count
        FROM publications_work""",
    "authorships": """
        SELECT w.openalex_id, r.openalex_id, a.position
        FROM publications_authorship a
        JOIN publications_work w ON w.id = a.work_id
        JOIN researchers_researcher r ON r.id = a.researcher_id""",
    "researchers": """
        SELECT r.openalex_id, r.works_count, r.cited_by_count, r.h_index, r.i10_index,
               r.topics_count, r.citations_by_year::text, r.trust_score, r.trust_breakdown::text,
               coalesce(c.close_collaborators_count, 0)
        FROM researchers_researcher r
        LEFT JOIN graph_closecollaboratorscount c ON c.researcher_id = r.id""",
    "edges": """
        SELECT ra.openalex_id, rb.openalex_id, e.joint_works_count, round(e.weight::numeric, 6)
        FROM graph_coauthoredge e
        JOIN researchers_researcher ra ON ra.id = e.researcher_a_id
        JOIN researchers_researcher rb ON rb.id = e.researcher_b_id""",
    # Each ranked list as (item, the key it is ranked by), in rank order: items of equal key
    # are ordered by database id, which differs between the two imports (see _ranked).
    "slice_summaries": """
        SELECT r.openalex_id,
               (SELECT array_agg(ARRAY[w.openalex_id, coalesce(w.publication_date::text, ''),
                                       coalesce(w.publication_year::text, '')] ORDER BY n)
                FROM unnest(s.recent_work_ids) WITH ORDINALITY AS u(id, n)
                JOIN publications_work w ON w.id = u.id),
               (SELECT array_agg(ARRAY[w.openalex_id, w.cited_by_count::text] ORDER BY n)
                FROM unnest(s.cited_work_ids) WITH ORDINALITY AS u(id, n)
                JOIN publications_work w ON w.id = u.id),
               (SELECT array_agg(ARRAY[t.external_id, u.works::text] ORDER BY n)
                FROM unnest(s.topic_ids, s.topic_works) WITH ORDINALITY AS u(id, works, n)
                JOIN publications_topic t ON t.id = u.id)
        FROM graph_slicesummary s JOIN researchers_researcher r ON r.id = s.researcher_id""",
}


def _ranked(pairs: list[list[str]]) -> tuple:
    """A ranked list compared without its tie order: the keys in rank order, and which items
    rank where their key is not the last one (the last key's ties may be cut either way)."""
    keys = tuple(tuple(pair[1:]) for pair in pairs)
    return keys, frozenset(pair[0] for pair in pairs if tuple(pair[1:]) != keys[-1])


def _tables() -> dict[str, set[tuple]]:
    tables = {}
    with connection.cursor() as cursor:
        for name, statement in _TABLES.items():
            cursor.execute(statement)
            rows = cursor.fetchall()
            if name == "slice_summaries":
                rows = [(row[0], *(_ranked(lists) for lists in row[1:])) for row in rows]
            tables[name] = set(rows)
    return tables


def _truncate() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "TRUNCATE publications_work, researchers_researcher, publications_topic,"
            " researchers_institution, publications_source, publications_importrun,"
            " graph_coauthoredge, graph_closecollaboratorscount, graph_pendingbyline,"
            " graph_slicesummary, imports_pendingfollowup CASCADE"
        )


def _updated_copy(source: Path, target: Path, *, every: int) -> Path:
    """The same snapshot with every n-th work cited 50 times more, as a later upstream copy."""
    target.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for number, line in enumerate(source.read_text().splitlines()):
        work = json.loads(line)
        if number % every == 0:
            work["cited_by_count"] = work.get("cited_by_count", 0) + 50
            work["updated_date"] = "2026-06-01T00:00:00"
        lines.append(json.dumps(work))
    target.write_text("\n".join(lines) + "\n")
    return target


def test_a_worker_import_and_a_later_run_give_the_tables_a_sync_import_gives(workers, tmp_path):
    # 4,000 works over 40 authors: the most prolific holds well over SLICE_SUMMARY_MIN_WORKS
    # (2,000), so slice summaries are compared too.
    works, authors = 4000, 40
    (first,) = write_works_snapshot(tmp_path / "v1", works=works, authors=authors)
    later = _updated_copy(first, tmp_path / "v2" / "works" / "part_000", every=7)

    citations_after = []
    for path in (first, later):
        call_command("import_openalex", str(path), chunk_lines=1000, no_progress=True)
        run = ImportRun.objects.latest("id")
        assert run.status == ImportRun.Status.SUCCEEDED, run.error
        waited = _wait(_complete, timeout=120, workers=workers, what="complete data")
        assert waited < CURRENT_WITHIN_SECONDS, f"researchers current {waited:.1f} s after the run"
        with connection.cursor() as cursor:
            cursor.execute("SELECT sum(cited_by_count) FROM researchers_researcher")
            citations_after.append(cursor.fetchone()[0])
    assert not PendingFollowUp.objects.exists()
    worker_logs = "".join(path.read_text() for path in workers.log_dir.glob("*.log"))
    slices_done = re.findall(r"researchers_follow_up_slice\[[^\]]+\] succeeded", worker_logs)
    assert len(slices_done) >= 2 * 2, "the drains did not hand their slices to the workers"
    on_workers = _tables()
    assert on_workers["slice_summaries"], "no record large enough for a slice summary"
    assert len(on_workers["works"]) == works
    synthetic = list(iter_works(works=works, authors=authors))
    assert len(on_workers["authorships"]) == sum(len(w["authorships"]) for w in synthetic)
    # The later run's 50 more citations of every 7th work reached each of its authors' records.
    assert citations_after[1] - citations_after[0] == 50 * sum(
        len(w["authorships"]) for number, w in enumerate(synthetic) if number % 7 == 0
    )

    _truncate()
    for path in (first, later):
        call_command("import_openalex", str(path), sync=True, no_progress=True)
    in_process = _tables()

    for name in _TABLES:
        assert on_workers[name] == in_process[name], f"{name} differ"
