"""Smoke mode, shared by the benchmarks: `python -m bench.<name> --smoke [--database NAME]`.

A benchmark that no longer runs is a test that no longer runs (issue 30), so every benchmark
takes `--smoke`: every phase end to end at a tiny size (hundreds of works, a handful of users,
one or two repetitions, a second or two of load, one worker process), in a database of its own,
and a non-zero exit when a phase fails. tests/bench/test_benchmarks_smoke.py runs each one in
the suite. The figures it prints mean nothing at that size; they only show every phase ran.

Isolation, so two smoke runs (two xdist processes, two checkouts) never meet, nor meet a real
run: the database is the one given (its name must contain "bench"; the default is
bzpeer_bench_smoke_<benchmark>, never a real run's), the cache keys and Celery queues carry the
database's name, and the result files and corpora go to a temporary directory of their own
(under $TMPDIR), never over bench-data/ or the figures in bench/README.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

# The tiny sizes: hundreds of works, a handful of users, seconds of load at most.
WORKS = 300
LOAD_SECONDS = 1
LOAD_CLIENTS = 2
HELP = (
    "run every phase end to end at a tiny size, in a database of its own (--database), with "
    "results under a temporary directory: the suite's check that the benchmark still runs"
)


def add_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--smoke", action="store_true", help=HELP)


def default_database(benchmark: str) -> str:
    return f"bzpeer_bench_smoke_{benchmark}"


def apply(parser: argparse.ArgumentParser, options: argparse.Namespace, **sizes: Any) -> None:
    """The smoke sizes, for every option left at its default (one given on the command line
    wins, so a smoke run can still be pointed at another database or size)."""
    for name, value in sizes.items():
        if getattr(options, name) == parser.get_default(name):
            setattr(options, name, value)


def begin(database: str, *, redis_db: int = 11) -> Path:
    """Enter smoke mode for a run on `database`: its own cache prefix, queues and Redis URL in
    this process's environment (inherited by every command, server and worker it starts), and
    every benchmark module's DATA_DIR pointed at a fresh temporary directory. Returns it."""
    if "bench" not in database:
        raise SystemExit(f"refusing to use database {database!r}: use a name with 'bench'")
    data_dir = Path(tempfile.mkdtemp(prefix=f"{database}-"))
    # Every module that names a DATA_DIR, loaded now so that none keeps bench-data/: the ones
    # that define it, those that import it, and the benchmark itself (__main__ under -m).
    import bench.harness
    import bench.import_bench
    import bench.pages_bench  # noqa: F401

    bench.harness.CHECKPOINTS = False

    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        name = getattr(spec, "name", None) or getattr(module, "__name__", "")
        if name.startswith("bench.") and hasattr(module, "DATA_DIR"):
            module.DATA_DIR = data_dir  # type: ignore[attr-defined]
    redis = urlsplit(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"))
    os.environ.update(
        {
            "REDIS_URL": redis._replace(path=f"/{redis_db}").geturl(),
            "CACHE_KEY_PREFIX": key_prefix(database),
            "CELERY_DEFAULT_QUEUE": key_prefix(database),
        }
    )
    # Queue names set in the caller's environment could point the run's workers elsewhere.
    for name in (
        "CELERY_BROKER_URL",
        "CELERY_IMPORTS_QUEUE",
        "CELERY_GRAPH_QUEUE",
        "CELERY_DISCOVERY_QUEUE",
    ):
        os.environ.pop(name, None)
    os.environ.pop("CELERY_MAIL_QUEUE", None)
    say(f"smoke mode: database {database}, results under {data_dir}")
    return data_dir


def key_prefix(database: str) -> str:
    """The cache key prefix and queue name of a run on `database` (the suite deletes every
    Redis key that contains it afterwards)."""
    return f"bzpeer-{database}"


def say(text: str = "") -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


# Set by the suite (tests/bench/test_benchmarks_smoke.py) to its test database's name: the
# tiny corpus is then imported once and kept as a template database that the next benchmark
# reading it copies (a second) instead of importing it again (a Django start-up and the
# import: 10-25 s on a loaded machine). A smoke run by hand imports it, as before.
CORPUS_TEMPLATES = "BZPEER_SMOKE_CORPUS_TEMPLATES"


def _code_digest(works: int, seed: int) -> str:
    """What the imported corpus depends on: its parameters, the generator, and every module of
    the apps (their migrations, the import, the models it writes)."""
    import hashlib

    from bench.harness import REPO_ROOT

    digest = hashlib.sha1(f"{works}-{seed}".encode())  # noqa: S324 - a name, not a secret
    packages = [
        path.parent
        for path in sorted(REPO_ROOT.glob("*/__init__.py"))
        if path.parent.name not in ("bench", "tests")
    ]
    for path in [REPO_ROOT / "tests/support/synthetic.py"] + [
        file for package in packages for file in sorted(package.rglob("*.py"))
    ]:
        digest.update(str(path.relative_to(REPO_ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _corpus_template(works: int, seed: int) -> tuple[str, str] | None:
    """The (prefix, name) of the template database of this corpus, when the suite asked for one."""
    import hashlib

    owner = os.environ.get(CORPUS_TEMPLATES)
    if not owner:
        return None
    prefix = f"bzpeer_bench_smoke_corpus_{hashlib.sha1(owner.encode()).hexdigest()[:8]}_"  # noqa: S324
    return prefix, prefix + _code_digest(works, seed)


def tiny_corpus(database: str, *, works: int = WORKS, seed: int = 7, redis_db: int = 11) -> dict:
    """A synthetic corpus of `works` works in `database`: what a benchmark that reads the
    import benchmark's corpus (bzpeer_bench) measures in smoke mode instead. Imported with
    `import_openalex --sync` on emptied data tables; under the suite, copied from the template
    an earlier benchmark left (one at a time, under an advisory lock; `database` is made anew)."""
    import psycopg
    from psycopg import sql

    from bench.harness import bench_database_url
    from bzpeer.database_settings import database_settings_apply

    template = _corpus_template(works, seed)
    if template is None:
        return _corpus_import(database, works=works, seed=seed, redis_db=redis_db)
    prefix, name = template
    server = urlsplit(bench_database_url(database))._replace(path="/postgres").geturl()
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute("SELECT pg_advisory_lock(hashtext(%s))", [prefix])
        try:
            found = connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
            if found.fetchone() is None:
                report = _corpus_import(database, works=works, seed=seed, redis_db=redis_db)
                connection.execute(
                    sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                        sql.Identifier(name), sql.Identifier(database)
                    )
                )
                _templates_drop(connection, prefix, keep=name)
                return report
            say(f"smoke: {works} works copied into {database} from {name} ...")
            connection.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(database))
            )
            connection.execute(
                sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                    sql.Identifier(database), sql.Identifier(name)
                )
            )
            # The settings stored on a database are not part of what a template copies.
            database_settings_apply(connection.execute, database)
            return {"works": works, "seed": seed, "copied_from": name}
        finally:
            connection.execute("SELECT pg_advisory_unlock(hashtext(%s))", [prefix])


def _templates_drop(connection: Any, prefix: str, *, keep: str) -> None:
    """The templates of older code: of no further use to this checkout."""
    from psycopg import sql

    stale = connection.execute(
        "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s",
        [prefix.replace("_", r"\_") + "%", keep],
    ).fetchall()
    for (old,) in stale:
        connection.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(old))
        )


def _corpus_import(database: str, *, works: int, seed: int, redis_db: int) -> dict:
    import psycopg

    from bench.harness import (
        BOOKKEEPING_TABLES,
        DATA_TABLES,
        DERIVED_TABLES,
        bench_environment,
        corpus_prepare,
        manage,
        truncate,
    )

    url, env, work_dir = bench_environment(database, redis_db=redis_db)
    corpus = corpus_prepare(
        works=works, authors=max(1, works // 2), seed=seed, files=1, gzipped=False
    )
    with psycopg.connect(url, autocommit=True) as connection:
        truncate(
            connection,
            (*DATA_TABLES, *DERIVED_TABLES, *BOOKKEEPING_TABLES, "graph_coauthoredge"),
        )
    say(f"smoke: importing {works} works into {database} (import_openalex --sync) ...")
    started = time.perf_counter()
    manage(
        ["import_openalex", corpus.path, "--sync", "--no-progress"],
        env=env,
        log=work_dir / "smoke-import.log",
    )
    return {"works": works, "seed": seed, "import_seconds": round(time.perf_counter() - started, 1)}


def python_load(
    base_url: str,
    requests: Sequence[tuple[str, dict[str, str]]],
    *,
    seconds: float,
    clients: int,
) -> dict[str, float]:
    """A small closed-loop load in threads, for a smoke run on a machine without wrk: the same
    figures as pages_bench's wrk parser (requests/s, p50/p99, non-2xx/3xx answers), from
    `clients` threads sending the given (path, headers) in turn for `seconds`."""
    import httpx

    durations: list[float] = []
    errors = 0
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client_loop(offset: int) -> None:
        nonlocal errors
        with httpx.Client(base_url=base_url, timeout=30) as client:
            index = offset
            while time.monotonic() < deadline:
                path, headers = requests[index % len(requests)]
                index += 1
                started = time.perf_counter()
                response = client.get(path, headers=headers)
                elapsed = time.perf_counter() - started
                with lock:
                    durations.append(elapsed)
                    errors += response.status_code >= 400
        return None

    started = time.monotonic()
    threads = [threading.Thread(target=client_loop, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.monotonic() - started
    ordered = sorted(durations)
    if not ordered:
        raise SystemExit(f"no request to {base_url} was answered")

    def percentile(share: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(share * (len(ordered) - 1)))] * 1000, 1)

    return {
        "requests_per_second": round(len(ordered) / wall, 1),
        "p50_ms": round(statistics.median(ordered) * 1000, 1),
        "p99_ms": percentile(0.99),
        "non_2xx": errors,
    }


def have_wrk() -> bool:
    return shutil.which("wrk") is not None


def redis_keys_delete(redis_url: str, database: str) -> int:
    """Delete the keys a run on `database` left in one Redis database (its cache entries, its
    Celery queues and their bindings), and no other: instead of FLUSHDB, which would take a
    parallel run's queues too."""
    import redis

    client = redis.Redis.from_url(redis_url)
    names = list(client.scan_iter(match=f"*{key_prefix(database)}*", count=1000))
    for start in range(0, len(names), 1000):
        client.delete(*names[start : start + 1000])
    return len(names)
