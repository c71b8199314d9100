"""How bench/worker_import_bench.py measures: the `--sync` import and Celery workers importing the
same corpus, timed until the data is complete, with the workers' CPU, their database sessions'
lock waits, their chunks' durations and a fingerprint of the derived tables to compare.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from bench.harness import REPO_ROOT, Corpus, worker_ready_wait
from bench.measure import (
    MachineCpu,
    other_work_share,
)

CELERY = Path(sys.executable).with_name("celery")
DERIVED = (
    "graph_coauthoredge",
    "graph_closecollaboratorscount",
    "graph_pendingbyline",
    "graph_slicesummary",
    "imports_pendingfollowup",
)
_FINGERPRINT_SQL = """
SELECT
    (SELECT count(*) FROM publications_work),
    (SELECT count(*) FROM publications_authorship),
    (SELECT count(*) FROM researchers_researcher),
    (SELECT sum(works_count) FROM researchers_researcher),
    (SELECT sum(cited_by_count) FROM researchers_researcher),
    (SELECT sum(h_index) FROM researchers_researcher),
    (SELECT sum(i10_index) FROM researchers_researcher),
    (SELECT sum(topics_count) FROM researchers_researcher),
    (SELECT sum(trust_score) FROM researchers_researcher),
    (SELECT md5(string_agg(r.openalex_id || ':' || r.citations_by_year::text, ','
                           ORDER BY r.openalex_id)) FROM researchers_researcher r),
    (SELECT count(*) FROM graph_coauthoredge),
    (SELECT sum(joint_works_count) FROM graph_coauthoredge),
    (SELECT sum(close_collaborators_count) FROM graph_closecollaboratorscount),
    (SELECT count(*) FROM graph_slicesummary),
    (SELECT sum(cardinality(recent_work_ids) + cardinality(cited_work_ids)
                + cardinality(topic_ids)) FROM graph_slicesummary)
"""
_FINGERPRINT_NAMES = (
    "works",
    "authorships",
    "researchers",
    "sum works_count",
    "sum cited_by_count",
    "sum h_index",
    "sum i10_index",
    "sum topics_count",
    "sum trust_score",
    "citations_by_year digest",
    "edges",
    "sum joint works",
    "sum close collaborators",
    "slice summaries",
    "slice summary entries",
)


def fingerprint(connection: psycopg.Connection) -> dict[str, object]:
    row = connection.execute(_FINGERPRINT_SQL).fetchone()
    return {
        name: value if isinstance(value, str) or value is None else int(value)
        for name, value in zip(_FINGERPRINT_NAMES, row, strict=True)
    }


def complete(connection: psycopg.Connection) -> bool:
    return not connection.execute(
        """
        SELECT EXISTS (SELECT 1 FROM publications_importrun WHERE status IN ('pending', 'running'))
            OR EXISTS (SELECT 1 FROM imports_pendingfollowup)
            OR EXISTS (SELECT 1 FROM graph_pendingbyline)
        """
    ).fetchone()[0]


class WorkerSampler(threading.Thread):
    """Samples the worker's database sessions (by application name) from pg_stat_activity: the
    share waiting on a lock, on researcher rows in particular, and the busiest statements."""

    def __init__(self, url: str, *, application_name: str, interval: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.url, self.application_name, self.interval = url, application_name, interval
        self.active = 0
        self.lock_waits = 0
        self.researcher_lock_waits = 0
        self.statements: dict[str, int] = {}
        self.backend_ticks: dict[int, int] = {}
        self._stopping = threading.Event()

    def run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as connection:
            while not self._stopping.is_set():
                for pid, state, wait_type, query in connection.execute(
                    "SELECT pid, state, wait_event_type, query FROM pg_stat_activity"
                    " WHERE application_name = %s",
                    [self.application_name],
                ).fetchall():
                    try:
                        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                        self.backend_ticks[pid] = int(fields[11]) + int(fields[12])
                    except OSError:
                        pass
                    if state != "active":
                        continue
                    self.active += 1
                    words = " ".join(" ".join(query.split()).split(" ")[:6])[:70]
                    if wait_type == "Lock":
                        self.lock_waits += 1
                        self.researcher_lock_waits += "researchers_researcher" in query
                        words = f"(lock wait) {words}"
                    self.statements[words] = self.statements.get(words, 0) + 1
                self._stopping.wait(self.interval)

    def stop(self) -> None:
        self._stopping.set()
        self.join()

    def top(self, count: int = 8) -> list[tuple[str, float]]:
        total = self.active or 1
        ranked = sorted(self.statements.items(), key=lambda item: -item[1])[:count]
        return [(label, round(100 * samples / total, 1)) for label, samples in ranked]

    @property
    def backend_cpu_seconds(self) -> float:
        return round(sum(self.backend_ticks.values()) / os.sysconf("SC_CLK_TCK"), 1)


@dataclass
class SyncFigures:
    seconds: float
    works_per_second: float
    cpu_seconds: float
    database_cpu_seconds: float
    other_work_share: float
    fingerprint: dict[str, object]


@dataclass
class WorkerFigures:
    processes: int
    seconds: float
    works_per_second: float
    share_of_sync: float
    run_seconds: float  # until the run was marked succeeded (its last chunk committed)
    complete_after_run_seconds: float  # the follow-up drain and the edge drain's tail
    follow_up_drain_seconds: list[float]
    # The slices a drain handed to the workers (researchers_follow_up_slice), each task's time.
    follow_up_slice_seconds: list[float]
    chunks: int
    first_chunk_seconds: float
    last_chunk_seconds: float
    last_over_first_chunk: float
    lock_wait_share: float
    researcher_lock_wait_share: float
    top_statements: list[tuple[str, float]]
    worker_cpu_seconds: float
    database_cpu_seconds: float
    other_work_share: float
    fingerprint_equals_sync: bool
    fingerprint_differences: dict[str, tuple[object, object]] = field(default_factory=dict)


def _task_seconds(log: str, task: str) -> list[float]:
    return [
        float(seconds)
        for seconds in re.findall(rf"Task {re.escape(task)}\[[^\]]+\] succeeded in ([\d.]+)s", log)
    ]


def sync_measure(
    *, corpus: Corpus, env: dict[str, str], connection: psycopg.Connection, work_dir: Path
) -> SyncFigures:
    application_name = f"bench-sync-{os.getpid()}"
    sampler = WorkerSampler(env["DATABASE_URL"], application_name=application_name)
    sampler.start()
    machine = MachineCpu().start()
    started = time.perf_counter()
    with (work_dir / "worker-bench-sync.log").open("wb") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "import_openalex",
                corpus.path,
                "--sync",
                "--no-progress",
            ],
            env={**env, "PGAPPNAME": application_name},
            cwd=REPO_ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    machine.stop()
    sampler.stop()
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"the --sync import failed; see {work_dir / 'worker-bench-sync.log'}")
    cpu = usage.ru_utime + usage.ru_stime
    return SyncFigures(
        seconds=round(seconds, 1),
        works_per_second=round(corpus.works / seconds),
        cpu_seconds=round(cpu, 1),
        database_cpu_seconds=sampler.backend_cpu_seconds,
        other_work_share=other_work_share(
            busy_seconds=machine.busy_seconds,
            own_seconds=cpu + sampler.backend_cpu_seconds,
            wall_seconds=seconds,
        ),
        fingerprint=fingerprint(connection),
    )


def _worker_cpu_seconds(pids: Sequence[int]) -> float:
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def _tree(pid: int) -> list[int]:
    pids = [pid]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                parent = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            if parent == pid:
                pids.append(int(entry))
    return pids


def _worker_start(
    processes: int, worker_env: dict[str, str], queue: str, log_path: Path
) -> subprocess.Popen:
    """A Celery worker of `processes` processes on the run's queues, logging to log_path."""
    log_path.unlink(missing_ok=True)
    with log_path.open("wb") as log:
        return subprocess.Popen(
            [
                str(CELERY),
                "-A",
                "bzpeer",
                "worker",
                "-Q",
                f"{queue},{queue}-imports,{queue}-graph",
                "--concurrency",
                str(processes),
                "--prefetch-multiplier",
                "1",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel",
                "info",
                "-n",
                f"bench-{processes}@%h",
            ],
            env=worker_env,
            cwd=REPO_ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


@dataclass
class _WorkerRun:
    run_seconds: float  # until import_openalex returned (the chunks queued)
    seconds: float  # until the database was complete
    worker_cpu: float
    sampler: WorkerSampler
    machine: MachineCpu


def _import_through_workers(
    worker: subprocess.Popen,
    *,
    corpus: Corpus,
    env: dict[str, str],
    connection: psycopg.Connection,
    application_name: str,
) -> _WorkerRun:
    """Queue the corpus's import for the worker and wait until the database is complete,
    sampling the worker's sessions, its CPU and the machine's."""
    pool = _tree(worker.pid)
    cpu_before = _worker_cpu_seconds(pool)
    sampler = WorkerSampler(env["DATABASE_URL"], application_name=application_name)
    sampler.start()
    machine = MachineCpu().start()
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "manage.py", "import_openalex", corpus.path, "--no-progress"],
        env=env,
        cwd=REPO_ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    run_seconds = time.perf_counter() - started
    while not complete(connection):
        time.sleep(0.2)
    seconds = time.perf_counter() - started
    machine.stop()
    sampler.stop()
    worker_cpu = _worker_cpu_seconds(pool) - cpu_before
    return _WorkerRun(run_seconds, seconds, worker_cpu, sampler, machine)


def workers_measure(
    *,
    processes: int,
    corpus: Corpus,
    env: dict[str, str],
    connection: psycopg.Connection,
    work_dir: Path,
    sync: SyncFigures,
) -> WorkerFigures:
    application_name = f"bench-workers-{processes}-{os.getpid()}"
    worker_env = {**env, "PGAPPNAME": application_name}
    log_path = work_dir / f"worker-bench-{processes}.log"
    worker = _worker_start(processes, worker_env, env["CELERY_DEFAULT_QUEUE"], log_path)
    try:
        worker_ready_wait(worker, log_path)
        run = _import_through_workers(
            worker,
            corpus=corpus,
            env=env,
            connection=connection,
            application_name=application_name,
        )
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=120)
    seconds, run_seconds, worker_cpu = run.seconds, run.run_seconds, run.worker_cpu
    sampler, machine = run.sampler, run.machine
    log = log_path.read_text(errors="replace")
    chunks = _task_seconds(log, "ingest.tasks.import_chunk")
    taken = fingerprint(connection)
    differences = {
        name: (sync.fingerprint[name], value)
        for name, value in taken.items()
        if sync.fingerprint.get(name) != value
    }
    works_per_second = corpus.works / seconds
    return WorkerFigures(
        processes=processes,
        seconds=round(seconds, 1),
        works_per_second=round(works_per_second),
        share_of_sync=round(works_per_second / sync.works_per_second, 3),
        run_seconds=round(run_seconds, 1),
        complete_after_run_seconds=round(seconds - run_seconds, 1),
        follow_up_drain_seconds=_task_seconds(log, "ingest.tasks.researchers_follow_up_drain"),
        follow_up_slice_seconds=_task_seconds(log, "ingest.tasks.researchers_follow_up_slice"),
        chunks=len(chunks),
        first_chunk_seconds=chunks[0] if chunks else 0.0,
        last_chunk_seconds=chunks[-1] if chunks else 0.0,
        last_over_first_chunk=round(chunks[-1] / chunks[0], 2) if chunks else 0.0,
        lock_wait_share=round(sampler.lock_waits / (sampler.active or 1), 3),
        researcher_lock_wait_share=round(sampler.researcher_lock_waits / (sampler.active or 1), 3),
        top_statements=sampler.top(),
        worker_cpu_seconds=round(worker_cpu, 1),
        database_cpu_seconds=sampler.backend_cpu_seconds,
        other_work_share=other_work_share(
            busy_seconds=machine.busy_seconds,
            own_seconds=worker_cpu + sampler.backend_cpu_seconds,
            wall_seconds=seconds,
        ),
        fingerprint_equals_sync=not differences,
        fingerprint_differences=differences,
    )
