"""The digest benchmark's worker phase (bench/digest_bench.py): the weekly digests sent the way
the product sends them, by one Celery worker of N processes, with the CPU of its processes and
of their PostgreSQL sessions read from /proc; and the mail backend that builds each message's
bytes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg

from bench.harness import DATA_DIR, REPO_ROOT, say, worker_ready_wait


def _worker_environment(env: dict[str, str], *, queue: str, backend: str) -> dict[str, str]:
    """The worker's (and its send_digests command's) environment: a Redis database and a queue of
    the benchmark's own, and the chosen mail backend."""
    redis = urlsplit(env.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    worker_env = {
        **env,
        "REDIS_URL": redis._replace(path="/13").geturl(),
        "CELERY_DEFAULT_QUEUE": queue,
        "SITE_URL": "https://bzpeer.example",
        "EMAIL_BACKEND": (
            "bench.digest_worker.SerializingBackend"
            if backend == "serialize"
            else "django.core.mail.backends.dummy.EmailBackend"
        ),
    }
    for name in ("CELERY_BROKER_URL", "CELERY_MAIL_QUEUE", "PGAPPNAME"):
        worker_env.pop(name, None)
    return worker_env


def worker_measure(
    *,
    url: str,
    env: dict[str, str],
    processes: int,
    backend: str,
    queue: str,
    clock: datetime,
    target_users: int,
) -> dict:
    """The same weekly digests as the product sends them: `send_digests` plans and queues one
    task per chunk, and one Celery worker of `processes` processes (its default concurrency is
    the machine's cores) claims and sends them, each process a chunk at a time. Timed from the
    command's start until every planned delivery is finished (the worker's start-up is not);
    the deliveries of an earlier run are deleted first. The CPU is the worker's (its main
    process and its pool, from /proc) and its PostgreSQL sessions' (sampled while it runs: they
    live as long as the worker's connections, settings.CONN_MAX_AGE); the plan's command is
    timed, its own CPU (mostly Django's start-up) left out."""
    worker_env = _worker_environment(env, queue=queue, backend=backend)
    log_path = DATA_DIR / f"digest-worker-{processes}.log"
    database = urlsplit(url).path.lstrip("/")
    with psycopg.connect(url, autocommit=True) as raw:
        raw.execute("DELETE FROM feed_digestdelivery")
    say(f"one worker, {processes} processes: send_digests --period weekly ...")
    with log_path.open("wb") as log:
        worker = subprocess.Popen(
            [str(Path(sys.executable).with_name("celery")), "-A", "bzpeer", "worker",
             "-Q", f"{queue},{queue}-mail", "--concurrency", str(processes),
             "--prefetch-multiplier", "1", "--without-gossip", "--without-mingle",
             "--without-heartbeat", "--loglevel", "info", "-n", f"{queue}@%h"],
            env=worker_env, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        try:
            worker_ready_wait(worker, log_path)  # its start-up is not the digests' time
            with psycopg.connect(url, autocommit=True) as raw:
                poller = raw.execute("SELECT pg_backend_pid()").fetchone()[0]
                backends = BackendsCpu(raw, database=database, leave_out={poller})
                worker_cpu_before = session_cpu_seconds(worker.pid)
                load_before = os.getloadavg()
                started = time.perf_counter()
                subprocess.run(
                    [sys.executable, str(REPO_ROOT / "manage.py"), "send_digests", "--period",
                     "weekly", "--at", clock.isoformat()],
                    env=worker_env, cwd=REPO_ROOT, check=True, stdout=log,
                    stderr=subprocess.STDOUT,
                )  # fmt: skip
                queued_seconds = time.perf_counter() - started
                planned = raw.execute("SELECT count(*) FROM feed_digestdelivery").fetchone()[0]
                while True:
                    backends.sample()
                    left = raw.execute(
                        "SELECT count(*) FROM feed_digestdelivery WHERE finished_at IS NULL"
                    ).fetchone()[0]
                    if not left:
                        break
                    if worker.poll() is not None:
                        raise SystemExit(
                            f"the worker stopped with {left} deliveries unfinished; see {log_path}"
                        )
                    time.sleep(0.5)
                seconds = time.perf_counter() - started
                worker_cpu = session_cpu_seconds(worker.pid) - worker_cpu_before
                backends.sample()
                load_after = os.getloadavg()
                emailed, sent_twice = raw.execute(
                    "SELECT count(*) FILTER (WHERE emailed),"
                    " count(*) - count(DISTINCT (user_id, period, period_key))"
                    " FROM feed_digestdelivery"
                ).fetchone()
        finally:
            os.killpg(worker.pid, signal.SIGTERM)
            worker.wait(timeout=60)
    cpu = worker_cpu + backends.total
    figures = {
        "processes": processes,
        "planned": planned,
        "left_unfinished": left,
        "emailed": emailed,
        "deliveries_twice": sent_twice,
        "load_average_before": load_before,
        "load_average_after": load_after,
        "plan_and_queue_seconds": round(queued_seconds, 1),
        "seconds": round(seconds, 1),
        "per_user_ms": round(seconds / planned * 1000, 3) if planned else 0,
        "extrapolated_200k_seconds": round(seconds / planned * target_users, 1) if planned else 0,
        "worker_cpu_seconds": round(worker_cpu, 2),
        "postgres_cpu_seconds": round(backends.total, 2),
        # One session a pool process: both busy shows both processes sent chunks.
        "postgres_cpu_by_session": sorted(
            (round(cpu, 1) for cpu in backends.by_session().values()), reverse=True
        ),
        "cpu_per_user_ms": round(cpu / planned * 1000, 3) if planned else 0,
        "cpu_extrapolated_200k_seconds": round(cpu / planned * target_users, 1) if planned else 0,
        "log": str(log_path),
    }
    say(f"one worker: {figures}")
    return figures


def session_cpu_seconds(session_id: int) -> float:
    """CPU time (user + system) of every live process of a session (a worker started with
    start_new_session: its main process and its pool), from /proc."""
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if int(fields[3]) == session_id:  # the session id (stat's sixth field)
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


class BackendsCpu:
    """The CPU of a database's PostgreSQL sessions opened by others (a worker's), sampled: each
    session's last reading counts, less what it had used at the first sample."""

    def __init__(self, raw: psycopg.Connection, *, database: str, leave_out: set[int]) -> None:
        self._raw = raw
        self._database = database
        self._leave_out = leave_out
        self._first: dict[int, float] = {}
        self.seen: dict[int, float] = {}
        self.sample(first=True)

    def sample(self, *, first: bool = False) -> None:
        pids = [
            pid
            for (pid,) in self._raw.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s"
                " AND backend_type = 'client backend'",
                [self._database],
            ).fetchall()
            if pid not in self._leave_out
        ]
        for pid in pids:
            try:
                cpu = backend_cpu_seconds(pid)
            except (FileNotFoundError, ProcessLookupError):
                continue
            if first:
                self._first[pid] = cpu
            self.seen[pid] = cpu

    def by_session(self) -> dict[int, float]:
        return {pid: cpu - self._first.get(pid, 0.0) for pid, cpu in self.seen.items()}

    @property
    def total(self) -> float:
        return sum(self.by_session().values())


def backend_cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of a PostgreSQL backend on this machine, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class SerializingBackend:
    """Builds each message's bytes (what a real backend sends) and drops them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.bytes = 0

    def open(self) -> bool:
        return True

    def close(self) -> None:
        return None

    def send_messages(self, messages: Sequence[Any]) -> int:
        for message in messages:
            self.bytes += len(message.message().as_bytes())
        return len(messages)
