"""Every benchmark runs end to end at a tiny size (issue 30: graph_bench had stopped in its
incremental phase and nothing noticed). Each one's `--smoke` mode (bench/smoke.py) runs in a
subprocess, as `python -m bench.<name> --smoke`, against a database of its own made from a
migrated template, and must exit 0 having printed the figures of every phase. Figures, not
timings: nothing here looks at a duration. The databases and Redis keys go afterwards.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
from psycopg import sql

from bench import harness, smoke
from tests.bzpeer.servers import missing
from tests.support import template_database

pytestmark = pytest.mark.bench

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
TIMEOUT_SECONDS = 600

# What each benchmark prints when every phase ran: one pattern (a line's start or a JSON key)
# per phase of its report.
FIGURES = {
    "import_bench": [r"^end to end\s+\d", r"^unchanged\s+\d", r"^raw COPY\s+\d", r"^end to end / raw COPY = "],
    "citations_bench": [r'"without_references": \{', r'"with_references": \{', r'"ratio": '],
    "sources_bench": [
        *(rf"^{source}\s+[\d,]+\s+[\d,]+\s+[\d,]+\s+\d" for source in ("openalex", "crossref", "arxiv", "orcid", "bibtex")),
        r"^written to ",
    ],
    "worker_import_bench": [
        r"^raw COPY \(yardstick\)\s+\d",
        r"^--sync\s+\d",
        r"^worker, 1 process\(es\)\s+\d",
        r"tables equal --sync: True",
    ],
    "search_bench": [
        r"names, misspelt: researcher_search",
        r"names typed part way: researcher_suggestions",
        r"works, all queries: work_search",
        r"works tab: counts \+ page \+ facets",
        r"baseline: uncapped ts_rank",
        r"^suggestions: the same eight",
    ],
    "graph_bench": [r"^plain agg\s+\d", r"^rebuild\s+\d", r"^incremental\s+\d", r"edges after the batches as before them: True", r"^slice p99 ", r"^graph_stats in "],
    "related_bench": [r"^full: \{.*workers_1_seconds", r"^incremental: \{.*drain_seconds"],
    "pages_bench": [r"^trivial\s+\d", r"^cold\s+\d", r"^warm\s+\d", r"^work\s+\d", r"^cold / trivial = ", r"^work / trivial = "],
    "collaboration_bench": [r"^queries\s+inbox \d", r"^inbox page\s+cold", r"^conversation, 200\s+cold", r"^send a message\s+cold"],
    "feed_bench": [r'^follow 20: \{"follows"', r'^follow 60: \{"follows"', r"^Seq Scan on works/authorships: "],
    "digest_bench": [r'"plan_seconds": ', r'"send_seconds": ', r"^one worker: \{.*'left_unfinished': 0"],
    "ops_bench": [
        r"^primary only\s+trivial",
        r"^replica router\s+cold",
        r"^pgbouncer\s+warm",
        r"^pgbouncer\s+304",
        r"^replica replay lag while importing",
    ],
    "resolver_bench": [r"^\s+resolve: .*\s[\d,]+ mentions/s", r"^\s+write\s+[\d,]+ mentions/s", r"^\s+outcomes: "],
    "resolver_eval": [r"^\s+links made:\s+\d", r"^\s+B3 precision / recall / F1:\s+\d"],
    "l0_share_bench": [r"^\s+left on an L0 record\s+[\d,]+\s+[\d.]+$", r"^\s+linked to their record\s+[\d,]+"],
}  # fmt: skip


def _identifier(text: str) -> str:
    return re.sub(r"[^a-z0-9_]", "_", text.lower())


def _run_name() -> str:
    """This test run's part of every database name: its test database and xdist process, so
    two runs (two checkouts, two processes of one run) never share a database."""
    test_database = _identifier(os.environ.get("TEST_DATABASE_NAME", "test_bzpeer"))
    worker = _identifier(os.environ.get("PYTEST_XDIST_WORKER", "") or "main")
    name = f"{test_database}_{worker}"
    # PostgreSQL cuts names at 63 bytes: a long one is shortened to a digest, never cut.
    return name if len(name) <= 29 else hashlib.sha1(name.encode()).hexdigest()[:16]  # noqa: S324


def _drop(connection: psycopg.Connection, database: str) -> None:
    connection.execute(
        sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
    )


def _environment(temporary: Path, static: Path) -> dict[str, str]:
    """The suite's environment, less what points a process at the test settings or at the run's
    own queues: a benchmark runs with the settings `make bench` gives it. Its temporary files
    (corpora, logs, reports, ops_bench's clusters) go under `temporary`. The benchmarks that
    read a tiny corpus share one imported corpus, kept as a template database named after this
    run's test database (bench/smoke.py, tiny_corpus); those that serve pages, the static files
    collected once in `static` (bench/harness.py, static_collect)."""
    env = {
        **os.environ,
        "TMPDIR": str(temporary),
        "PYTHONUNBUFFERED": "1",
        smoke.CORPUS_TEMPLATES: os.environ.get("TEST_DATABASE_NAME", "test_bzpeer"),
        harness.STATIC_CACHE: str(static),
    }
    for name in ("DJANGO_SETTINGS_MODULE", "CELERY_DEFAULT_QUEUE", "CACHE_KEY_PREFIX"):
        env.pop(name, None)
    return env


@pytest.fixture
def temporary() -> Iterator[Path]:
    """A temporary folder the postgres user can use too, as it uses /tmp (ops_bench's clusters
    run as it, in folders it makes and removes under $TMPDIR; pytest's tmp_path is root's)."""
    folder = Path(tempfile.mkdtemp(prefix="bzpeer-bench-smoke-"))
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def static_cache() -> Iterator[Path]:
    """A folder of this test process's session for the static files the benchmarks serve."""
    folder = Path(tempfile.mkdtemp(prefix="bzpeer-bench-smoke-static-"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def migrated_template() -> str:
    """The suite's migrated template (tests/support/template_database.py), copied for each
    benchmark (CREATE DATABASE ... TEMPLATE): a benchmark's check for migrations to apply
    (bench/harness.py, migrate) then finds none, and Django is not started for it."""
    from django.conf import settings

    return template_database.migrated_template(settings.TEST_DATABASE_NAME)


def _redis_keys_delete(prefix: str) -> None:
    """Every key a run left (its cache entries, Celery queues and their bindings carry the
    database's name), in whichever Redis database the benchmark used."""
    import redis

    base = urlsplit(os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))
    for number in range(16):
        client = redis.Redis.from_url(base._replace(path=f"/{number}").geturl())
        names = list(client.scan_iter(match=f"*{prefix}*", count=1000))
        if names:
            client.delete(*names)


@pytest.mark.parametrize("benchmark", sorted(FIGURES))
def test_the_benchmark_runs_every_phase_at_a_tiny_size(
    benchmark: str,
    migrated_template: str,
    temporary: Path,
    static_cache: Path,
    request: pytest.FixtureRequest,
) -> None:
    if benchmark == "resolver_eval":
        request.getfixturevalue("testdata_dir")  # a skip locally without it, a failure on CI
    if benchmark == "ops_bench" and not (
        shutil.which("pgbouncer") or Path("/usr/sbin/pgbouncer").exists()
    ):
        missing("pgbouncer (apt-get install pgbouncer)")  # as tests/bzpeer/test_pgbouncer.py
    database = f"bzpeer_bench_smoke_{_run_name()}_{benchmark.removesuffix('_bench')}"
    with psycopg.connect(template_database.server_url(), autocommit=True) as connection:
        _drop(connection, database)
        connection.execute(
            sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                sql.Identifier(database), sql.Identifier(migrated_template)
            )
        )
    try:
        result = subprocess.run(
            [sys.executable, "-m", f"bench.{benchmark}", "--smoke", "--database", database],
            cwd=REPO_ROOT,
            env=_environment(temporary, static_cache),
            capture_output=True,
            text=True,
            timeout=TIMEOUT_SECONDS,
        )
    finally:
        with psycopg.connect(template_database.server_url(), autocommit=True) as connection:
            _drop(connection, database)
        _redis_keys_delete(f"bzpeer-{database}")
    output = result.stdout + result.stderr
    assert result.returncode == 0, f"{benchmark} exited with {result.returncode}:\n{output[-6000:]}"
    absent = [p for p in FIGURES[benchmark] if not re.search(p, result.stdout, flags=re.M)]
    assert not absent, f"{benchmark} did not print {absent}:\n{result.stdout[-6000:]}"
