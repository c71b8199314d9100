"""What the benchmarks share: their databases (never the dev or test one), the environment of
the commands they run, and the synthetic OpenAlex corpus cached under bench-data/.

Split from bench/import_bench.py, whose corpus and database the other benchmarks read.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlsplit

import orjson
import psycopg
from psycopg import sql

from bzpeer.database_settings import database_settings_apply

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT / "bench-data"
DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/bzpeer"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"

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
    """The database of `url` created when missing, with the settings bzpeer stores on its own
    database (bzpeer/database_settings.py), as `make migrate` gives it."""
    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    with psycopg.connect(parts._replace(path="/postgres").geturl(), autocommit=True) as connection:
        if not connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [name]
        ).fetchone():
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
            say(f"created database {name}")
        database_settings_apply(connection.execute, name)


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
    migrate(env, log=work_dir / "migrate.log", announce=f"migrating {database} ...")
    return url, env, work_dir


def django_in_process(database: str, *, announce: bool = False) -> None:
    """The bench database `database` created when missing and migrated, then Django set up in
    this process on it (the resolver's benchmarks call the writer directly)."""
    url = bench_database_url(database)
    ensure_database(url)
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "bzpeer.settings.local"}
    migrate(env, announce=f"migrating {database} ..." if announce else "")
    os.environ.update(
        DATABASE_URL=url, DJANGO_SETTINGS_MODULE="bzpeer.settings.local", DEBUG="false"
    )
    import django

    django.setup()


# Run in a process of its own: importing the settings here would fix them on this process's
# environment before a benchmark that sets up Django in-process has pointed it at its database.
_INSTALLED_APPS = (
    "import importlib, json, os; "
    "print(json.dumps(importlib.import_module(os.environ['DJANGO_SETTINGS_MODULE']).INSTALLED_APPS))"
)


def migrations_on_disk(env: dict[str, str]) -> set[tuple[str, str]]:
    """(app label, migration name) of every migration file of the installed apps, found without
    setting Django up (which is most of a `migrate` that has nothing to do: 4-15 s on a loaded
    machine). The label is the app module's last part, as every app here has it; an app whose
    label differs only makes `migrate` run when it need not."""
    import importlib.util

    apps = json.loads(
        subprocess.run(
            [sys.executable, "-c", _INSTALLED_APPS],
            env=env,
            cwd=REPO_ROOT,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    )
    found: set[tuple[str, str]] = set()
    for app in apps:
        top, *rest = app.split(".")
        spec = importlib.util.find_spec(top)
        for location in (spec and spec.submodule_search_locations) or ():
            folder = Path(location).joinpath(*rest, "migrations")
            label = rest[-1] if rest else top
            found |= {(label, path.stem) for path in folder.glob("[0-9]*.py")}
    return found


def migrate(env: dict[str, str], *, log: Path | None = None, announce: str = "") -> bool:
    """`manage.py migrate` on env's DATABASE_URL unless every migration file is recorded as
    applied there already (a benchmark database made from the suite's migrated template, or
    migrated by an earlier run): a query instead of a Django start-up. Returns whether it ran."""
    with psycopg.connect(env["DATABASE_URL"]) as connection:
        recorded = connection.execute(
            "SELECT to_regclass('django_migrations') IS NOT NULL"
        ).fetchone()[0]
        applied = (
            set(connection.execute("SELECT app, name FROM django_migrations").fetchall())
            if recorded
            else set()
        )
    if applied and migrations_on_disk(env) <= applied:
        return False
    if announce:
        say(announce)
    manage(["migrate", "--noinput"], env=env, log=log)
    return True


# Set by the suite (tests/bench/test_benchmarks_smoke.py) to a folder of its session: the static
# files are collected once there and copied by every benchmark that serves pages (collectstatic
# compresses and hashes every file after a Django start-up: 5-15 s on a loaded machine).
STATIC_CACHE = "BZPEER_SMOKE_STATIC_CACHE"


def static_collect(env: dict[str, str]) -> None:
    """The static files in env's STATIC_ROOT, as `collectstatic` with env's settings leaves
    them; under the suite, a copy of the session's collection (one at a time, under a lock)."""
    import fcntl

    command = [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"]
    shared = env.get(STATIC_CACHE)
    if not shared:
        subprocess.run(command, cwd=REPO_ROOT, env=env, check=True)
        return
    folder = Path(shared)
    collected = folder / env["DJANGO_SETTINGS_MODULE"]
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (collected / "complete").exists():
            shutil.rmtree(collected, ignore_errors=True)
            static_env = {**env, "STATIC_ROOT": str(collected / "static")}
            subprocess.run(command, cwd=REPO_ROOT, env=static_env, check=True)
            (collected / "complete").touch()
    shutil.copytree(collected / "static", env["STATIC_ROOT"], dirs_exist_ok=True)


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


def worker_ready_wait(worker: subprocess.Popen, log: Path, *, timeout: float = 120) -> None:
    """Until the Celery worker writing to `log` (at --loglevel info) says it is ready, so its
    start-up is not counted in what is measured next; instead of a fixed sleep, which is too
    short on a loaded machine and wasted on an idle one."""
    deadline = time.monotonic() + timeout
    while "ready." not in log.read_text(errors="replace"):
        if worker.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the worker did not start; see {log}")
        time.sleep(0.1)


# A CHECKPOINT before a measured step, so the checkpointer does not write the pages of the step
# before during it. Off in smoke mode (bench/smoke.py, begin), whose figures mean nothing: on a
# server busy with other writers one takes seconds.
CHECKPOINTS = True


def checkpoint(connection: psycopg.Connection) -> None:
    if CHECKPOINTS:
        connection.execute("CHECKPOINT")


def truncate(connection: psycopg.Connection, tables: Sequence[str]) -> None:
    connection.execute(
        sql.SQL("TRUNCATE {} RESTART IDENTITY CASCADE").format(
            sql.SQL(", ").join(map(sql.Identifier, tables))
        )
    )
    checkpoint(connection)


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
