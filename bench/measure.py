"""Measuring a benchmark's subprocess and the machine it runs on: CPU time (the process's, its
database session's and the whole machine's, so a phase can say how much went to other work),
the memory of its process tree, and what its database session spent waiting on.
"""

from __future__ import annotations

import os
import platform
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import sql

from bench.harness import REPO_ROOT

# A phase during which other processes used this share of the CPUs or more is flagged.
BUSY_SHARE = 0.1


# --- measuring a subprocess -------------------------------------------------------------------


class MachineCpu:
    """CPU time the whole machine spent busy between start() and stop() (from /proc/stat), so a
    phase can say how much of it went to other work than the benchmark's."""

    def __init__(self) -> None:
        self.busy_seconds = 0.0
        self._start = (0, 0)

    @staticmethod
    def _read() -> tuple[int, int]:
        fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + fields[4]  # idle + iowait
        return sum(fields[:8]) - idle, idle

    def start(self) -> MachineCpu:
        self._start = self._read()
        return self

    def stop(self) -> float:
        busy, _ = self._read()
        self.busy_seconds = (busy - self._start[0]) / os.sysconf("SC_CLK_TCK")
        return self.busy_seconds


def other_work_share(*, busy_seconds: float, own_seconds: float, wall_seconds: float) -> float:
    """Share of the machine's CPUs that other processes used during a phase (0 = quiet)."""
    capacity = wall_seconds * (os.cpu_count() or 1)
    return round(max(0.0, busy_seconds - own_seconds) / capacity, 3) if capacity else 0.0


def backend_cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class TreeMemorySampler(threading.Thread):
    """Samples the resident memory of a process and all its descendants, summed.

    The kernel's own high-water mark (wait4's ru_maxrss) covers the largest single process
    exactly; this covers the whole tree (a pipeline of several processes) by sampling.
    """

    def __init__(self, pid: int, interval: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.interval = interval
        self.peak_bytes = 0
        self._stopping = threading.Event()

    def run(self) -> None:
        page_size = os.sysconf("SC_PAGE_SIZE")
        while not self._stopping.is_set():
            total = sum(self._rss_pages(pid) for pid in self._tree()) * page_size
            self.peak_bytes = max(self.peak_bytes, total)
            self._stopping.wait(self.interval)

    def stop(self) -> None:
        self._stopping.set()
        self.join()

    def _tree(self) -> list[int]:
        children: dict[int, list[int]] = {}
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parent = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(parent, []).append(int(entry))
        tree, pending = [], [self.pid]
        while pending:
            pid = pending.pop()
            tree.append(pid)
            pending.extend(children.get(pid, []))
        return tree

    @staticmethod
    def _rss_pages(pid: int) -> int:
        try:
            return int(Path(f"/proc/{pid}/statm").read_text().split()[1])
        except (OSError, IndexError, ValueError):
            return 0


@dataclass
class ProcessFigures:
    seconds: float
    peak_rss_mb: float  # the largest single process, exact (kernel high-water mark)
    peak_tree_rss_mb: float  # the process and its children summed, sampled
    cpu_user_seconds: float
    cpu_system_seconds: float
    database_cpu_seconds: float  # the import's PostgreSQL backends
    database_profile: list[tuple[str, float]]  # sampled share of time per statement / state
    other_work_share: float  # of the machine's CPUs, used by processes other than these


class SessionSampler(threading.Thread):
    """Samples what the import's database sessions are doing, from pg_stat_activity.

    A statistical profile of the database side: the share of samples per statement (its first
    words), per "idle in transaction" (Python work inside a batch) and per "idle" (Python work
    between batches). It also reads the sessions' backend CPU time from /proc, as PostgreSQL
    runs on this machine.
    """

    def __init__(self, url: str, *, application_name: str, interval: float = 0.25) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.application_name = application_name
        self.interval = interval
        self.samples: dict[str, int] = {}
        self.backend_cpu_ticks: dict[int, int] = {}
        self._stopping = threading.Event()

    def run(self) -> None:
        with psycopg.connect(self.url, autocommit=True) as connection:
            while not self._stopping.is_set():
                sessions = connection.execute(
                    "SELECT pid, state, query FROM pg_stat_activity WHERE application_name = %s",
                    [self.application_name],
                ).fetchall()
                for pid, state, query in sessions:
                    self._count(self._label(state, query))
                    self._read_cpu(pid)
                if not sessions:
                    self._count("(no session: start-up, planning the chunks)")
                self._stopping.wait(self.interval)

    def stop(self) -> None:
        self._stopping.set()
        self.join()

    def profile(self, top: int = 10) -> list[tuple[str, float]]:
        total = sum(self.samples.values()) or 1
        ranked = sorted(self.samples.items(), key=lambda item: -item[1])[:top]
        return [(label, round(100 * count / total, 1)) for label, count in ranked]

    @property
    def backend_cpu_seconds(self) -> float:
        return round(sum(self.backend_cpu_ticks.values()) / os.sysconf("SC_CLK_TCK"), 1)

    def _count(self, label: str) -> None:
        self.samples[label] = self.samples.get(label, 0) + 1

    @staticmethod
    def _label(state: str | None, query: str) -> str:
        if state == "idle in transaction":
            return "(idle in transaction: Python inside a batch)"
        if state != "active":
            return "(idle: Python between batches)"
        words = " ".join(query.split()).split(" ")
        return " ".join(words[:6])[:70]

    def _read_cpu(self, pid: int) -> None:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return
        self.backend_cpu_ticks[pid] = int(fields[11]) + int(fields[12])  # utime + stime


def run_measured(command: Sequence[str], *, env: dict[str, str], log: Path) -> ProcessFigures:
    # libpq names the subprocess's sessions after PGAPPNAME, so the sampler finds exactly them.
    application_name = f"import-bench-{os.getpid()}-{time.monotonic_ns()}"
    env = {**env, "PGAPPNAME": application_name}
    sessions = SessionSampler(env["DATABASE_URL"], application_name=application_name)
    sessions.start()
    machine = MachineCpu().start()
    with log.open("wb") as output:
        started = time.perf_counter()
        process = subprocess.Popen(
            command, env=env, cwd=REPO_ROOT, stdout=output, stderr=subprocess.STDOUT
        )
        sampler = TreeMemorySampler(process.pid)
        sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        machine.stop()
        sampler.stop()
        sessions.stop()
        process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"{' '.join(command)} exited with {process.returncode}; see {log}")
    return ProcessFigures(
        seconds=round(seconds, 2),
        peak_rss_mb=round(usage.ru_maxrss / 1024, 1),
        peak_tree_rss_mb=round(sampler.peak_bytes / 2**20, 1),
        cpu_user_seconds=round(usage.ru_utime, 1),
        cpu_system_seconds=round(usage.ru_stime, 1),
        database_cpu_seconds=sessions.backend_cpu_seconds,
        database_profile=sessions.profile(),
        other_work_share=other_work_share(
            busy_seconds=machine.busy_seconds,
            own_seconds=usage.ru_utime + usage.ru_stime + sessions.backend_cpu_seconds,
            wall_seconds=seconds,
        ),
    )


# --- the three measurements -------------------------------------------------------------------


# --- machine ----------------------------------------------------------------------------------


def machine_describe(connection: psycopg.Connection) -> dict[str, object]:
    cpu_model = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
        memory_kb = next(
            int(line.split()[1])
            for line in Path("/proc/meminfo").read_text().splitlines()
            if line.startswith("MemTotal")
        )
    except (OSError, StopIteration):
        memory_kb = 0
    settings = {
        name: connection.execute(sql.SQL("SHOW {}").format(sql.Identifier(name))).fetchone()[0]
        for name in (
            "shared_buffers",
            "max_wal_size",
            "synchronous_commit",
            "wal_level",
            "work_mem",
        )
    }
    return {
        "cpu": cpu_model,
        "cores": os.cpu_count(),
        "memory_gb": round(memory_kb / 2**20, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "postgresql": connection.execute("SHOW server_version").fetchone()[0],
        "postgresql_settings": settings,
    }


def git_revision() -> str:
    """HEAD, with '+dirty' when the importer's code differs from it in the working tree."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            [
                "git",
                "status",
                "--porcelain",
                "--",
                "publications",
                "graph",
                "researchers",
                "claims",
            ],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return f"{head}+dirty" if dirty else head


def other_imports_running() -> list[str]:
    """Imports and benchmarks (any bench module) on this machine, other than this one."""
    mine = {os.getpid(), os.getppid()}
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in mine:
            continue
        try:
            command = (
                Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
            )
        except OSError:
            continue
        if "import_openalex" in command or "bench." in command:
            found.append(f"pid {entry}: {command[:160]}")
    return found


# --- report -----------------------------------------------------------------------------------


def busy_note(share: float) -> str:
    return f"   [other work used {share:.0%} of the CPUs]" if share >= BUSY_SHARE else ""
