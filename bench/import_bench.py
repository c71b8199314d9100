"""The import benchmark: `make bench`, or `python -m bench.import_bench --works N`.

In one run it measures, on a synthetic OpenAlex works snapshot:

1. end to end: `manage.py import_openalex CORPUS --sync` in a subprocess, on empty tables;
2. the same command again on the same corpus (every record unchanged);
3. raw COPY: the rows the import produced, dumped with COPY TO, loaded back with COPY FROM
   into the same (truncated) tables with the same indexes and constraints.

It prints the figures and the machine they were measured on, and writes them to
bench-data/last-report.json. Nothing here asserts a duration: these are figures, not a test.

It works in a database of its own (bzpeer_bench by default, created and migrated when
missing) and truncates its data tables, so it never touches the dev or test database.
The corpus is cached under bench-data/, keyed by its parameters.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import orjson
import psycopg
from psycopg import sql

from bench import smoke

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "bench-data"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/bzpeer"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
# A phase during which other processes used this share of the CPUs or more is flagged.
BUSY_SHARE = 0.1
MEMORY_BUDGET_MB = 500  # peak memory of the import process, whatever the file size
TARGET_RATIO = 0.25  # the end-to-end rate is at least a quarter of the raw COPY rate

# The tables an import writes, in an order where every foreign key points backwards.
DATA_TABLES = (
    "researchers_institution",
    "publications_source",
    "publications_topic",
    "researchers_researcher",
    "researchers_affiliation",
    "publications_work",
    "publications_authorship",
    "publications_worktopic",
)
# Rows the import derives that the later benchmarks read (the graph slices of prolific
# researchers): copied back with the data tables, but not counted as imported rows.
DERIVED_TABLES = ("graph_slicesummary",)
# Truncated with the data tables; the import's bookkeeping, not part of the rows compared.
BOOKKEEPING_TABLES = (
    "publications_importissue",
    "publications_importchunk",
    "publications_importrun",
)


def say(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def shown(path: Path) -> str:
    """A path as the report and the commands name it: relative to the checkout when inside it
    (bench-data/), absolute otherwise (a smoke run's temporary directory). The commands run
    with the checkout as their working directory, so both work as arguments."""
    try:
        return str(path.relative_to(REPO_ROOT))
    except ValueError:
        return str(path)


# --- database ---------------------------------------------------------------------------------


def bench_database_url(name: str) -> str:
    """DATABASE_URL (or the default) with its database name replaced by the bench database."""
    if "bench" not in name:
        raise SystemExit(
            f"refusing to use database {name!r}: the bench truncates tables; use a name with 'bench'"
        )
    parts = urlsplit(os.environ.get("DATABASE_URL", DEFAULT_DATABASE_URL))
    return parts._replace(path=f"/{name}").geturl()


def ensure_database(url: str) -> None:
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True) as connection:
        if not connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone():
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            say(f"created database {name}")


def bench_environment(database: str, *, redis_db: int) -> tuple[str, dict[str, str], Path]:
    """A benchmark's database (created and migrated when missing), the environment of the
    commands it runs, and its folder under bench-data/ (logs, dumps, its report).

    Its own Redis database and queue names: the imports' cache writes and queued tasks never
    reach the dev site's cache or a dev worker. Queue and application names set in the caller's
    environment are dropped, so they cannot point the benchmark's workers elsewhere.
    """
    work_dir = DATA_DIR / database
    work_dir.mkdir(parents=True, exist_ok=True)
    url = bench_database_url(database)
    redis = urlsplit(os.environ.get("REDIS_URL", DEFAULT_REDIS_URL))
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DEBUG": "false",
        "REDIS_URL": redis._replace(path=f"/{redis_db}").geturl(),
        "CELERY_DEFAULT_QUEUE": f"bzpeer-{database}",
    }
    for name in ("CELERY_BROKER_URL", "CELERY_IMPORTS_QUEUE", "CELERY_GRAPH_QUEUE", "PGAPPNAME"):
        env.pop(name, None)
    env.setdefault("DJANGO_SETTINGS_MODULE", "bzpeer.settings.local")
    ensure_database(url)
    say(f"migrating {database} ...")
    manage(["migrate", "--noinput"], env=env, log=work_dir / "migrate.log")
    return url, env, work_dir


def manage(args: Sequence[str], *, env: dict[str, str], log: Path | None = None) -> None:
    output = log.open("wb") if log else subprocess.DEVNULL
    try:
        subprocess.run(
            [sys.executable, str(REPO_ROOT / "manage.py"), *args],
            env=env,
            cwd=REPO_ROOT,
            check=True,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    finally:
        if log:
            output.close()  # type: ignore[union-attr]


def truncate(connection: psycopg.Connection, tables: Sequence[str]) -> None:
    connection.execute(
        sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(
            sql.SQL(", ").join(map(sql.Identifier, tables))
        )
    )
    connection.execute("CHECKPOINT")


def table_counts(connection: psycopg.Connection) -> dict[str, int]:
    return {
        table: connection.execute(
            sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))
        ).fetchone()[0]
        for table in DATA_TABLES
    }


def stored_columns(connection: psycopg.Connection, table: str) -> list[str]:
    """Every column COPY can write: generated ones (the work's search vector) are recomputed."""
    rows = connection.execute(
        """
        SELECT column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = %s AND is_generated = 'NEVER'
        ORDER BY ordinal_position
        """,
        [table],
    ).fetchall()
    return [name for (name,) in rows]


# --- corpus -----------------------------------------------------------------------------------


@dataclass
class Corpus:
    path: str
    works: int
    authors_drawn_from: int
    seed: int
    files: int
    gzipped: bool
    bytes: int
    distinct_authors: int
    authorships: int
    mean_authors_per_work: float
    max_authors_per_work: int
    works_with_100_or_more_authors: int
    generated_seconds: float


def corpus_folder(
    *, works: int, authors: int, seed: int, files: int, gzipped: bool, references: int = 0
) -> Path:
    suffix = ("-gz" if gzipped else "") + (f"-r{references}" if references else "")
    return DATA_DIR / f"corpus-w{works}-a{authors}-s{seed}-f{files}{suffix}"


def corpus_prepare(
    *, works: int, authors: int, seed: int, files: int, gzipped: bool, references: int = 0
) -> Corpus:
    """The cached corpus for these parameters, generated first when missing.

    A corpus is complete when its corpus.json exists: generation writes to a temporary
    folder that is renamed at the end, so an interrupted run never leaves half a corpus.
    """
    from tests.support.synthetic import write_works_snapshot

    folder = corpus_folder(
        works=works,
        authors=authors,
        seed=seed,
        files=files,
        gzipped=gzipped,
        references=references,
    )
    summary = folder / "corpus.json"
    if summary.exists():
        return Corpus(**json.loads(summary.read_text()))
    say(f"generating {works:,} works by up to {authors:,} authors into {shown(folder)} ...")
    staging = folder.with_name(folder.name + ".partial")
    shutil.rmtree(staging, ignore_errors=True)
    started = time.perf_counter()
    paths = write_works_snapshot(
        staging / "data",
        works=works,
        authors=authors,
        files=files,
        gzipped=gzipped,
        seed=seed,
        references=references,
    )
    generated_seconds = time.perf_counter() - started
    author_ids: set[str] = set()
    authorships = 0
    max_authors = 0
    large = 0
    for path in paths:
        with gzip.open(path, "rb") if gzipped else path.open("rb") as handle:
            for line in handle:
                work = orjson.loads(line)
                count = len(work["authorships"])
                authorships += count
                max_authors = max(max_authors, count)
                large += count >= 100
                author_ids.update(a["author"]["id"] for a in work["authorships"])
    corpus = Corpus(
        path=shown(folder / "data"),
        works=works,
        authors_drawn_from=authors,
        seed=seed,
        files=files,
        gzipped=gzipped,
        bytes=sum(p.stat().st_size for p in paths),
        distinct_authors=len(author_ids),
        authorships=authorships,
        mean_authors_per_work=round(authorships / works, 2) if works else 0.0,
        max_authors_per_work=max_authors,
        works_with_100_or_more_authors=large,
        generated_seconds=round(generated_seconds, 1),
    )
    (staging / "corpus.json").write_text(json.dumps(asdict(corpus), indent=2))
    shutil.rmtree(folder, ignore_errors=True)
    staging.rename(folder)
    return corpus


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


@dataclass
class ImportFigures:
    process: ProcessFigures
    works_per_second: float
    rows_per_second: float
    run_counts: dict[str, int]


@dataclass
class CopyFigures:
    seconds: float
    works_per_second: float
    rows_per_second: float
    bytes: int
    cpu_seconds: float  # the loading session's PostgreSQL backend and this process
    other_work_share: float


def import_measure(
    *,
    corpus: Corpus,
    env: dict[str, str],
    connection: psycopg.Connection,
    rows: int | None,
    label: str,
    work_dir: Path,
) -> ImportFigures:
    command = [
        sys.executable,
        str(REPO_ROOT / "manage.py"),
        "import_openalex",
        corpus.path,
        "--sync",
        "--no-progress",
        # The import alone: the coauthor edges' drain is the graph benchmark's to measure.
        "--defer-graph",
    ]
    log = work_dir / f"{label}.log"
    figures = run_measured(command, env=env, log=log)
    run = connection.execute(
        """
        SELECT status, read_count, created_count, updated_count, unchanged_count, failed_count
        FROM publications_importrun ORDER BY id DESC LIMIT 1
        """
    ).fetchone()
    if run is None or run[0] != "succeeded":
        raise SystemExit(f"the {label} import did not succeed ({run}); see {log}")
    rows = rows if rows is not None else sum(table_counts(connection).values())
    return ImportFigures(
        process=figures,
        works_per_second=round(corpus.works / figures.seconds),
        rows_per_second=round(rows / figures.seconds),
        run_counts=dict(
            zip(("read", "created", "updated", "unchanged", "failed"), run[1:], strict=True)
        ),
    )


def copy_measure(
    *, corpus: Corpus, connection: psycopg.Connection, rows: int, work_dir: Path
) -> CopyFigures:
    """Dump the imported rows, truncate, and time loading them back with COPY."""
    dump_folder = work_dir / "copy-dump"
    shutil.rmtree(dump_folder, ignore_errors=True)
    dump_folder.mkdir(parents=True)
    columns = {
        table: stored_columns(connection, table) for table in (*DATA_TABLES, *DERIVED_TABLES)
    }
    for table in (*DATA_TABLES, *DERIVED_TABLES):
        statement = sql.SQL("COPY {} ({}) TO STDOUT (FORMAT binary)").format(
            sql.Identifier(table), sql.SQL(", ").join(map(sql.Identifier, columns[table]))
        )
        with (
            (dump_folder / f"{table}.copy").open("wb") as output,
            connection.cursor().copy(statement) as copy,
        ):
            for block in copy:
                output.write(block)
    truncate(connection, (*DATA_TABLES, *BOOKKEEPING_TABLES))
    backend_pid = connection.info.backend_pid
    own_before = backend_cpu_seconds(backend_pid) + time.process_time()
    machine = MachineCpu().start()
    started = time.perf_counter()
    with connection.transaction():
        for table in (*DATA_TABLES, *DERIVED_TABLES):
            statement = sql.SQL("COPY {} ({}) FROM STDIN (FORMAT binary)").format(
                sql.Identifier(table), sql.SQL(", ").join(map(sql.Identifier, columns[table]))
            )
            with (
                (dump_folder / f"{table}.copy").open("rb") as source,
                connection.cursor().copy(statement) as copy,
            ):
                while block := source.read(1 << 20):
                    copy.write(block)
    seconds = time.perf_counter() - started
    machine.stop()
    own = backend_cpu_seconds(backend_pid) + time.process_time() - own_before
    size = sum(p.stat().st_size for p in dump_folder.iterdir())
    # Leave the sequences past the copied ids, as an import would have.
    for table in DATA_TABLES:
        connection.execute(
            sql.SQL(
                "SELECT setval(pg_get_serial_sequence({}, 'id'), coalesce(max(id), 0) + 1, false) FROM {}"
            ).format(sql.Literal(table), sql.Identifier(table))
        )
    shutil.rmtree(dump_folder)
    return CopyFigures(
        seconds=round(seconds, 2),
        works_per_second=round(corpus.works / seconds),
        rows_per_second=round(rows / seconds),
        bytes=size,
        cpu_seconds=round(own, 1),
        other_work_share=other_work_share(
            busy_seconds=machine.busy_seconds, own_seconds=own, wall_seconds=seconds
        ),
    )


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


@dataclass
class Report:
    measured_at: str
    revision: str
    machine: dict[str, object]
    corpus: Corpus
    import_settings: dict[str, str]
    rows: dict[str, int]
    end_to_end: ImportFigures
    raw_copy: CopyFigures
    ratio: float
    meets_target: bool
    rerun_unchanged: ImportFigures | None = None
    notes: list[str] = field(default_factory=list)


def busy_note(share: float) -> str:
    return f"   [other work used {share:.0%} of the CPUs]" if share >= BUSY_SHARE else ""


def report_print(report: Report) -> None:
    machine, corpus = report.machine, report.corpus
    e2e, copy, rerun = report.end_to_end, report.raw_copy, report.rerun_unchanged
    total_rows = sum(report.rows.values())
    say()
    say(f"bzpeer import benchmark, {report.measured_at}, revision {report.revision}")
    say(f"machine     {machine['cpu']}, {machine['cores']} cores, {machine['memory_gb']} GB RAM")
    say(f"            PostgreSQL {machine['postgresql']}, Python {machine['python']}")
    say(f"            {', '.join(f'{k}={v}' for k, v in machine['postgresql_settings'].items())}")  # type: ignore[union-attr]
    say(
        f"corpus      {corpus.works:,} works, {corpus.distinct_authors:,} authors, {corpus.authorships:,} authorships"
    )
    say(
        f"            {corpus.mean_authors_per_work} authors per work on average, at most {corpus.max_authors_per_work}; "
        f"{corpus.works_with_100_or_more_authors} works with 100 or more"
    )
    say(f"            {corpus.bytes / 2**20:,.0f} MB in {corpus.files} file(s) at {corpus.path}")
    say(f"settings    {', '.join(f'{k}={v}' for k, v in report.import_settings.items())}")
    say(
        f"rows        {total_rows:,}: "
        + ", ".join(f"{k.split('_', 1)[1]} {v:,}" for k, v in report.rows.items())
    )
    say()
    say(
        f"end to end  {e2e.works_per_second:>8,} works/s {e2e.rows_per_second:>10,} rows/s "
        f"{e2e.process.seconds:>8.1f} s   peak RSS {e2e.process.peak_rss_mb:,.0f} MB "
        f"(process tree {e2e.process.peak_tree_rss_mb:,.0f} MB)"
        + busy_note(e2e.process.other_work_share)
    )
    if rerun:
        say(
            f"unchanged   {rerun.works_per_second:>8,} works/s {'':>17} "
            f"{rerun.process.seconds:>8.1f} s   peak RSS {rerun.process.peak_rss_mb:,.0f} MB"
            f"   (second run: {rerun.run_counts['unchanged']:,} unchanged, {rerun.run_counts['updated']:,} updated)"
            + busy_note(rerun.process.other_work_share)
        )
    say(
        f"raw COPY    {copy.works_per_second:>8,} works/s {copy.rows_per_second:>10,} rows/s {copy.seconds:>8.1f} s"
        + busy_note(copy.other_work_share)
    )
    say()
    verdict = "meets" if report.meets_target else "misses"
    say(
        f"end to end / raw COPY = {report.ratio:.2f}: {verdict} the target of at least {TARGET_RATIO:.2f}"
    )
    say()
    say(
        f"CPU of the end-to-end import: Python {e2e.process.cpu_user_seconds + e2e.process.cpu_system_seconds:,.0f} s, "
        f"its PostgreSQL sessions {e2e.process.database_cpu_seconds:,.0f} s, over {e2e.process.seconds:,.0f} s"
    )
    say("where its database session spent the time (sampled):")
    for label, share in e2e.process.database_profile:
        say(f"  {share:5.1f}%  {label}")
    for note in report.notes:
        say(f"note: {note}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], prog="python -m bench.import_bench"
    )
    parser.add_argument(
        "--works", type=int, default=200_000, help="works in the synthetic corpus (default 200000)"
    )
    parser.add_argument(
        "--authors", type=int, help="author ids the works draw from (default works / 2)"
    )
    parser.add_argument("--seed", type=int, default=7, help="corpus seed (default 7)")
    parser.add_argument("--files", type=int, default=1, help="snapshot part files (default 1)")
    parser.add_argument(
        "--gzip", action="store_true", help="gzip the part files, as OpenAlex ships them"
    )
    parser.add_argument(
        "--database", default="bzpeer_bench", help="bench database name (default bzpeer_bench)"
    )
    parser.add_argument(
        "--no-rerun", action="store_true", help="skip the second, all-unchanged import"
    )
    parser.add_argument(
        "--redis-db",
        type=int,
        default=11,
        help="Redis database for the import's cache and task queue (default 11, apart from dev's)",
    )
    smoke.add_argument(parser)
    options = parser.parse_args(argv)
    if options.smoke:
        smoke.apply(parser, options, works=smoke.WORKS, database=smoke.default_database("import"))
        smoke.begin(options.database, redis_db=options.redis_db)
    authors = options.authors or max(1, options.works // 2)

    url, env, work_dir = bench_environment(options.database, redis_db=options.redis_db)
    corpus = corpus_prepare(
        works=options.works,
        authors=authors,
        seed=options.seed,
        files=options.files,
        gzipped=options.gzip,
    )

    import_settings = {
        name: env.get(name, "default") for name in ("IMPORT_BATCH_SIZE", "IMPORT_CHUNK_LINES")
    }
    others_before = other_imports_running()
    with psycopg.connect(url, autocommit=True) as connection:
        machine = machine_describe(connection)
        truncate(connection, (*DATA_TABLES, *BOOKKEEPING_TABLES))
        say(f"end to end: import_openalex {corpus.path} --sync ...")
        end_to_end = import_measure(
            corpus=corpus,
            env=env,
            connection=connection,
            rows=None,
            label="import",
            work_dir=work_dir,
        )
        rows = table_counts(connection)
        rerun = None
        if not options.no_rerun:
            connection.execute("CHECKPOINT")
            say("the same corpus again (every record unchanged) ...")
            rerun = import_measure(
                corpus=corpus,
                env=env,
                connection=connection,
                rows=sum(rows.values()),
                label="rerun",
                work_dir=work_dir,
            )
        say("raw COPY of the same rows into the same tables ...")
        raw_copy = copy_measure(
            corpus=corpus, connection=connection, rows=sum(rows.values()), work_dir=work_dir
        )
        if table_counts(connection) != rows:
            raise SystemExit("the raw COPY did not load the rows the import produced")
    others = sorted(set(others_before) | set(other_imports_running()))

    ratio = end_to_end.works_per_second / raw_copy.works_per_second
    report = Report(
        measured_at=datetime.now(UTC).isoformat(timespec="seconds"),
        revision=git_revision(),
        machine=machine,
        corpus=corpus,
        import_settings=import_settings,
        rows=rows,
        end_to_end=end_to_end,
        raw_copy=raw_copy,
        ratio=round(ratio, 3),
        meets_target=ratio >= TARGET_RATIO,
        rerun_unchanged=rerun,
    )
    if end_to_end.process.peak_tree_rss_mb >= MEMORY_BUDGET_MB:
        report.notes.append(f"peak memory of the import is over the {MEMORY_BUDGET_MB} MB budget")
    shares = [end_to_end.process.other_work_share, raw_copy.other_work_share]
    if rerun:
        shares.append(rerun.process.other_work_share)
    if max(shares) >= BUSY_SHARE:
        report.notes.append(
            "other processes used a share of the CPUs during a phase (flagged above): its figure "
            "is low by about that much, and the ratio is off if the phases differ"
        )
    if others:
        report.notes.append(
            "other imports or benchmarks ran on this machine meanwhile, so these figures are "
            "disturbed: " + "; ".join(others)
        )
    report_print(report)
    payload = json.dumps(asdict(report), indent=2) + "\n"
    (work_dir / "last-report.json").write_text(payload)
    if options.database == parser.get_default("database") and not options.smoke:
        (DATA_DIR / "last-report.json").write_text(payload)
    say(f"\nwritten to {shown(work_dir / 'last-report.json')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
