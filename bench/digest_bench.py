"""The digest benchmark (issue 14): `python -m bench.digest_bench`.

The weekly digest of every user, computed and handed to the mail backend in one process, as one
worker would (the `send_digests --sync` path: plan, then chunk after chunk of claim, the chunk's
windows in one statement, render, send, mark). Target: all 200,000 users in under 5 minutes.
Then (`--worker-processes`, 1,2 by default, the machine's cores being 2; 0 skips it) the same
digests the way the product sends them, once per concurrency, back to back: `send_digests`
without --sync plans and queues a task per chunk and one Celery worker of that many processes
claims and sends them (each process a chunk at a time, under the same claim and lease), timed
from the command until every delivery is finished (the worker's start-up is not timed), with
the CPU of the worker's processes and of their PostgreSQL sessions.

The corpus is feed_bench's, generated the same way (its GENERATE statements, set-based with
generate_series) in a database of its own (default bzpeer_digest_bench): researchers, works
arriving over two years, skewed bylines and topics, `--users` users each following
`--follows` (23) researchers drawn so a few have tens of thousands of followers. On top, the
week before the run's clock gets what a digest lists: the works that arrived in it are given a
publication date a few days before their arrival, except one in ten left as old papers (the
backfill the digest must not announce). Every user is in UTC, so all of them are due at the
run's clock (Monday 08:00 UTC); each one's time zone is still evaluated by the selection.

The mail backend (`--backend`): "serialize" (default) builds each message's MIME bytes, as a
real backend must before it hands them over, and drops them; "dummy" is Django's, which builds
nothing. It reports the plan, the send, the rate per user, the database's share (every query
timed through Django's execute_wrapper) and the extrapolation to 200,000 users, and writes
bench-data/digest-report.json. Figures, not a test; the corpus is kept while the parameters
match (`--regenerate` to force).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg

from bench import feed_corpus, smoke
from bench.digest_worker import backend_cpu_seconds, worker_measure
from bench.harness import (
    DATA_DIR,
    bench_database_url,
    ensure_database,
    manage,
    say,
)
from bench.measure import machine_describe

# Monday 30 November 2026, 08:00 UTC.
CLOCK = datetime(2026, 11, 30, 8, 0, tzinfo=UTC)
TARGET_USERS = 200_000
TARGET_SECONDS = 5 * 60

# The week's works: feed_bench's arrivals are generated to end an hour before CLOCK (its
# statements run with that time for now(), so no 1M-row UPDATE shifts them afterwards); the works
# that arrived in the week before it get a publication date a few days before their arrival,
# except one in ten left as old papers (a backfill the digest must skip).
PREPARE = [
    (
        "publication dates of the week's works",
        """
        UPDATE publications_work
        SET publication_date = CASE
                WHEN id %% 10 = 0 THEN date '2019-06-01'
                ELSE (created_at - (id %% 20) * interval '1 day')::date END
        WHERE created_at > %(clock)s::timestamptz - interval '7 days'
        """,
    ),
    ("users in UTC, with addresses", "UPDATE users_user SET time_zone = 'UTC', is_active = true"),
]


def corpus_ready(url: str, params: dict[str, int]) -> bool:
    return feed_corpus.corpus_params_stored(url) == params


def corpus_build(url: str, params: dict[str, int]) -> dict[str, float]:
    seconds = feed_corpus.corpus_generate(url, params, clock=CLOCK - timedelta(hours=1))
    with psycopg.connect(url, autocommit=True) as connection:
        for name, statement in PREPARE:
            say(f"  {name} ...")
            started = time.perf_counter()
            connection.execute(statement, {"clock": CLOCK})
            seconds[name] = round(time.perf_counter() - started, 1)
        for table in ("publications_work", "publications_authorship", "publications_worktopic"):
            connection.execute(f"VACUUM ANALYZE {table}")
    return seconds


def _process_counts(text: str) -> list[int]:
    counts = [int(part) for part in text.split(",") if part.strip()]
    if any(count < 0 for count in counts):
        raise argparse.ArgumentTypeError(f"not process counts: {text!r}")
    return [count for count in counts if count]


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="bzpeer_digest_bench")
    parser.add_argument("--works", type=int, default=200_000)
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--follows", type=int, default=23, help="researchers per user")
    parser.add_argument("--backend", choices=["serialize", "dummy"], default="serialize")
    parser.add_argument("--limit-users", type=int, default=0, help="send to the first N only")
    parser.add_argument("--regenerate", action="store_true")
    parser.add_argument(
        "--worker-processes",
        type=_process_counts,
        default=[1, 2],
        help="then the same digests through send_digests and one Celery worker of each of "
        "these concurrencies, one after the other (comma-separated; default 1,2, the machine's "
        "cores being 2; 0: skip)",
    )
    smoke.add_argument(parser)
    args = parser.parse_args(argv)
    if args.smoke:
        smoke.apply(
            parser,
            args,
            database=smoke.default_database("digest"),
            works=smoke.WORKS,
            users=20,
            follows=3,
            worker_processes=[1],
        )
        smoke.begin(args.database)
    return args


def _database_prepare(
    args: argparse.Namespace, url: str, params: dict[str, int]
) -> tuple[dict[str, str], dict[str, float] | None]:
    """The database migrated and the corpus built unless it is ready; returns the commands'
    environment and the corpus build's seconds (None when it was reused)."""
    ensure_database(url)
    DATA_DIR.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "DATABASE_URL": url,
        "DJANGO_SETTINGS_MODULE": "bzpeer.settings.local",
        "DEBUG": "false",
    }
    say(f"migrating {args.database} ...")
    manage(["migrate", "--noinput"], env=env, log=DATA_DIR / "digest-migrate.log")
    generated = None
    if args.regenerate or not corpus_ready(url, params):
        say(f"generating the corpus: {params}")
        generated = corpus_build(url, params)
    return env, generated


def _corpus_describe(url: str) -> tuple[dict, dict[str, int], tuple[float, float, float]]:
    """The machine, the corpus's counts (after clearing the deliveries of an earlier run) and
    the load average before the run."""
    with psycopg.connect(url, autocommit=True) as raw:
        machine = machine_describe(raw)
        raw.execute("DELETE FROM feed_digestdelivery")
        counts = {
            table: raw.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in (
                "publications_work",
                "publications_authorship",
                "users_user",
                "researchers_follow",
            )
        }
        counts["works_in_the_week"] = raw.execute(
            "SELECT count(*) FROM publications_work"
            " WHERE created_at > %s::timestamptz - interval '7 days' AND created_at <= %s",
            [CLOCK, CLOCK],
        ).fetchone()[0]
        counts["max_followers"] = raw.execute(
            "SELECT max(n) FROM (SELECT count(*) n FROM researchers_follow GROUP BY researcher_id) f"
        ).fetchone()[0]
        load_before = os.getloadavg()
    return machine, counts, load_before


def _digests_send(limit_users: int) -> dict[str, Any]:
    """Plan the week's digests and send them in chunks in this process, as the task does, with
    the time and statements spent in the database and the CPU of both sides; then plan again
    (nothing should be left)."""
    from django.db import connection

    from feed import services

    database_seconds = 0.0
    statements = 0

    def timed(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        nonlocal database_seconds, statements
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            database_seconds += time.perf_counter() - started
            statements += 1

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend_pid = cursor.fetchone()[0]
    backend_cpu_before = backend_cpu_seconds(backend_pid)
    python_cpu_before = time.process_time()
    with connection.execute_wrapper(timed):
        started = time.perf_counter()
        plan = services.digests_plan(period="weekly", clock=CLOCK)
        plan_seconds = time.perf_counter() - started
        pending = plan.pending[:limit_users] if limit_users else plan.pending
        say(f"planned {plan.planned:,} in {plan_seconds:.1f} s; sending {len(pending):,} ...")
        emailed = empty = 0
        send_started = time.perf_counter()
        chunks = services.digest_chunks(pending)
        for number, chunk in enumerate(chunks, start=1):
            outcome = services.digest_deliveries_send(delivery_ids=chunk)
            emailed += outcome.emailed
            empty += outcome.empty
            if number % 10 == 0 or number == len(chunks):
                elapsed = time.perf_counter() - send_started
                say(f"  {number * len(chunk):,} users, {elapsed:.1f} s, {emailed:,} emailed")
        send_seconds = time.perf_counter() - send_started
        total_seconds = time.perf_counter() - started
        python_cpu = time.process_time() - python_cpu_before
        backend_cpu = backend_cpu_seconds(backend_pid) - backend_cpu_before
        again_started = time.perf_counter()
        again = services.digests_plan(period="weekly", clock=CLOCK)
        again_seconds = time.perf_counter() - again_started
    return {
        "plan": plan,
        "pending": pending,
        "plan_seconds": plan_seconds,
        "emailed": emailed,
        "empty": empty,
        "send_seconds": send_seconds,
        "total_seconds": total_seconds,
        "python_cpu": python_cpu,
        "backend_cpu": backend_cpu,
        "again": again,
        "again_seconds": again_seconds,
        "database_seconds": database_seconds,
        "statements": statements,
    }


def _report(
    args: argparse.Namespace, run: dict[str, Any], works_listed: Any, **measured: Any
) -> dict[str, Any]:
    """The report's figures; `measured`: machine, load_before, counts, params, generated."""
    users = len(run["pending"])
    total_seconds, python_cpu, backend_cpu = (
        run["total_seconds"],
        run["python_cpu"],
        run["backend_cpu"],
    )
    per_user_ms = total_seconds / users * 1000 if users else 0.0
    return {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": measured["machine"],
        "load_average_before": measured["load_before"],
        "load_average_after": os.getloadavg(),
        "corpus": measured["counts"],
        "params": measured["params"],
        "generated_seconds": measured["generated"],
        "backend": args.backend,
        "users": users,
        "planned": run["plan"].planned,
        "emailed": run["emailed"],
        "nothing_to_send": run["empty"],
        "works_per_email_listed_avg": float(works_listed[0] or 0),
        "works_in_largest_digest": works_listed[1],
        "plan_seconds": round(run["plan_seconds"], 2),
        "send_seconds": round(run["send_seconds"], 2),
        "total_seconds": round(total_seconds, 2),
        "database_seconds": round(run["database_seconds"], 2),
        "statements": run["statements"],
        "per_user_ms": round(per_user_ms, 3),
        "extrapolated_200k_seconds": round(per_user_ms * TARGET_USERS / 1000, 1),
        # On a shared machine the wall time waits for other processes' CPU: the CPU the run
        # itself used (this process, then its PostgreSQL session, one after the other) is what
        # one worker on a quiet machine would take.
        "python_cpu_seconds": round(python_cpu, 2),
        "postgres_cpu_seconds": round(backend_cpu, 2),
        "cpu_per_user_ms": round((python_cpu + backend_cpu) / users * 1000, 3) if users else 0,
        "cpu_extrapolated_200k_seconds": round((python_cpu + backend_cpu) / users * TARGET_USERS, 1)
        if users
        else 0,
        "target_seconds": TARGET_SECONDS,
        "second_run": {
            "planned": run["again"].planned,
            "pending": len(run["again"].pending),
            "seconds": round(run["again_seconds"], 2),
        },
    }


def _summary_print(report: dict[str, Any]) -> None:
    """The paths side by side: wall and CPU, each extrapolated to 200,000 users."""
    say("")
    say(f"{'path':<24}{'users':>8}{'wall s':>9}{'200k wall s':>13}{'CPU py+pg s':>16}"
        f"{'CPU ms/user':>13}{'200k CPU s':>12}")  # fmt: skip
    rows = [
        (
            "in one process (--sync)",
            report["users"],
            report["total_seconds"],
            report["extrapolated_200k_seconds"],
            f"{report['python_cpu_seconds']:.1f}+{report['postgres_cpu_seconds']:.1f}",
            report["cpu_per_user_ms"],
            report["cpu_extrapolated_200k_seconds"],
        ),
        *(
            (
                f"one worker, {run['processes']} process(es)",
                run["planned"],
                run["seconds"],
                run["extrapolated_200k_seconds"],
                f"{run['worker_cpu_seconds']:.1f}+{run['postgres_cpu_seconds']:.1f}",
                run["cpu_per_user_ms"],
                run["cpu_extrapolated_200k_seconds"],
            )
            for run in report.get("workers", [])
        ),
    ]
    for name, users, wall, wall_200k, cpu, cpu_per_user, cpu_200k in rows:
        say(f"{name:<24}{users:>8,}{wall:>9.1f}{wall_200k:>13.1f}{cpu:>16}{cpu_per_user:>13.3f}"
            f"{cpu_200k:>12.1f}")  # fmt: skip
    say(f"load average: {os.getloadavg()}")


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    params = {
        "works": args.works,
        "researchers": max(1, args.works // 2),
        "topics": 4_500,
        "users": args.users,
        "background": args.follows,
        "measured": 0,
        "small_follows": 0,
        "large_follows": 0,
    }
    url = bench_database_url(args.database)
    env, generated = _database_prepare(args, url, params)

    os.environ.update(
        DATABASE_URL=url,
        DJANGO_SETTINGS_MODULE="bzpeer.settings.local",
        DEBUG="false",
        SITE_URL="https://bzpeer.example",
        EMAIL_BACKEND=(
            "bench.digest_worker.SerializingBackend"
            if args.backend == "serialize"
            else "django.core.mail.backends.dummy.EmailBackend"
        ),
    )
    import django

    django.setup()

    machine, counts, load_before = _corpus_describe(url)
    say(f"machine: {machine}")
    say(f"corpus: {counts}")
    run = _digests_send(args.limit_users)

    with psycopg.connect(url, autocommit=True) as raw:
        works_listed = raw.execute(
            "SELECT avg(least(items_count, 50)), max(items_count), sum(items_count)"
            " FROM feed_digestdelivery WHERE emailed"
        ).fetchone()
    report = _report(
        args,
        run,
        works_listed,
        machine=machine,
        load_before=load_before,
        counts=counts,
        params=params,
        generated=generated,
    )
    if not args.limit_users:
        # A queue of the database's own, so two runs on other databases never share tasks.
        queue = smoke.key_prefix(args.database)
        report["workers"] = [
            worker_measure(
                url=url,
                env=env,
                processes=processes,
                backend=args.backend,
                queue=queue,
                clock=CLOCK,
                target_users=TARGET_USERS,
            )
            for processes in args.worker_processes
        ]
    say(json.dumps({k: v for k, v in report.items() if k not in ("machine",)}, indent=2))
    _summary_print(report)
    (DATA_DIR / "digest-report.json").write_text(json.dumps(report, indent=2, default=str))
    say(f"report: {DATA_DIR / 'digest-report.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
