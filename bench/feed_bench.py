"""The feed benchmark (issue 14): `python -m bench.feed_bench`.

In a database of its own (default bzpeer_feed_bench) it generates a corpus set-based with
generate_series (no import: the feed reads tables the importer fills, and the sizes here are
parameters): researchers, works arriving over two years (a share of them old papers imported
late), bylines of 1 to 10 authors drawn with a skew so some researchers are prolific, three
topics per work, users, and follows drawn with a skew so a few researchers have tens of
thousands of followers. Then, for users who follow `--small-follows` (500) and `--large-follows`
(5,000) researchers and 20 topics each, it measures the database time of the feed's own
statement (feed.selectors) for page 1 and page 2 (p50/p99 over the users' median runs), the
header's new-items count, and, in the same run, the yardstick: a plain JOIN ... DISTINCT of
follows, authorships and works cut to the same page. It prints EXPLAIN (ANALYZE) of page 1 for
the largest user and checks that no plan reads works or authorships by Seq Scan.

It prints the machine and the corpus size and writes bench-data/feed-report.json. Nothing
asserts a duration: figures, not a test. The corpus is kept and reused when the parameters
match (`--regenerate` to force).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import psycopg

from bench import smoke
from bench.feed_corpus import GENERATE, corpus_generate, corpus_params_stored
from bench.harness import DATA_DIR, bench_database_url, ensure_database, migrate, say
from bench.measure import machine_describe

# The corpus lives in bench/feed_corpus.py; GENERATE is named here as well for
# tests/feed/test_feed_plans.py, which builds its corpus with it.
__all__ = ["GENERATE", "corpus_generate", "corpus_params_stored", "main"]

# The yardstick: what one would write first. Every authorship of every followed researcher is
# joined to its work, deduplicated and sorted, for one page.
YARDSTICK_SQL = """
SELECT DISTINCT w.created_at, w.id
FROM researchers_follow f
JOIN publications_authorship a ON a.researcher_id = f.researcher_id
JOIN publications_work w ON w.id = a.work_id
WHERE f.user_id = %(user_id)s AND (w.created_at, w.id) < (%(before_at)s, %(before_id)s)
ORDER BY w.created_at DESC, w.id DESC
LIMIT %(limit)s
"""


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def _figures(per_user_runs: list[list[float]]) -> dict[str, float]:
    """p50/p99 over each user's median run (one stall on a shared machine is not a slow
    query), and the raw p99 over every run beside them."""
    medians = [statistics.median(runs) for runs in per_user_runs]
    every = [t for runs in per_user_runs for t in runs]
    return {
        "users": len(per_user_runs),
        "p50_ms": round(_percentile(medians, 0.5) * 1000, 2),
        "p99_ms": round(_percentile(medians, 0.99) * 1000, 2),
        "raw_p99_ms": round(_percentile(every, 0.99) * 1000, 2),
        "max_ms": round(max(every) * 1000, 2),
    }


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="bzpeer_feed_bench")
    parser.add_argument("--works", type=int, default=200_000)
    parser.add_argument("--researchers", type=int, default=0, help="default: works / 2")
    parser.add_argument("--topics", type=int, default=4_500)
    parser.add_argument("--users", type=int, default=20_000)
    parser.add_argument("--background-follows", type=int, default=23, help="per other user")
    parser.add_argument("--measured-users", type=int, default=40, help="half 500, half 5,000")
    parser.add_argument("--small-follows", type=int, default=500)
    parser.add_argument("--large-follows", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=5, help="runs per user and query")
    parser.add_argument("--yardstick-users", type=int, default=6, help="users per size")
    parser.add_argument("--regenerate", action="store_true")
    smoke.add_argument(parser)
    args = parser.parse_args(argv)
    if args.smoke:
        smoke.apply(
            parser,
            args,
            database=smoke.default_database("feed"),
            works=smoke.WORKS,
            topics=30,
            users=20,
            background_follows=3,
            measured_users=4,
            small_follows=20,
            large_follows=60,
            runs=1,
            yardstick_users=1,
        )
        smoke.begin(args.database)
    return args


def _database_prepare(args: argparse.Namespace, url: str, params: dict[str, int]) -> object:
    """The database migrated, and the corpus generated unless the stored one has these params;
    returns what corpus_generate returned, or None."""
    ensure_database(url)
    DATA_DIR.mkdir(exist_ok=True)
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "bzpeer.settings.local"}
    migrate(env, log=DATA_DIR / "feed-migrate.log", announce=f"migrating {args.database} ...")
    generated = None
    if args.regenerate or corpus_params_stored(url) != params:
        say(f"generating the corpus: {params}")
        generated = corpus_generate(url, params)
    return generated


def _corpus_describe(url: str, measured_users: int) -> tuple[dict, dict, list]:
    """The machine, the corpus's counts, and (user id, follows) of the measured users."""
    with psycopg.connect(url, autocommit=True) as raw:
        machine = machine_describe(raw)
        counts = {
            table: raw.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in (
                "publications_work",
                "publications_authorship",
                "publications_worktopic",
                "researchers_researcher",
                "users_user",
                "researchers_follow",
                "feed_topicfollow",
            )
        }
        counts["max_followers"] = raw.execute(
            "SELECT max(followers_count) FROM researchers_researcher"
        ).fetchone()[0]
        counts["researchers_with_10000_followers"] = raw.execute(
            "SELECT count(*) FROM researchers_researcher WHERE followers_count >= 10000"
        ).fetchone()[0]
        measured = raw.execute(
            "SELECT user_id, count(*) FROM researchers_follow WHERE user_id <= %s GROUP BY 1"
            " ORDER BY 1",
            [measured_users],
        ).fetchall()
    return machine, counts, measured


def _run_sql(sql: str, values: dict) -> list:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql, values)
        return cursor.fetchall()


def _time_runs(sql: str, values: dict, runs: int) -> list[float]:
    return [_timed(lambda: _run_sql(sql, values)) for _ in range(runs)]


def _group_measure(
    user_ids: list[int], follows_of: dict[int, int], args: argparse.Namespace
) -> dict[str, object]:
    """Page 1, page 2 and the new count of each user of a group, with the yardstick's pages
    for the first few."""
    from bzpeer.users.models import User
    from feed import selectors

    page_limit = selectors.PAGE_SIZE + 1
    users = list(User.objects.filter(pk__in=user_ids))
    first_runs, second_runs, count_runs, yard_first, yard_second = [], [], [], [], []
    for user in users:
        selectors.feed_page(user)  # warm: the index pages in memory, the statement prepared
        top = {
            "user_id": user.pk,
            "before_at": selectors._TOP[0],
            "before_id": selectors._TOP[1],
            "limit": page_limit,
        }
        rows = _run_sql(selectors._PAGE_SQL, top)
        below = {
            **top,
            "before_at": rows[selectors.PAGE_SIZE - 1][0],
            "before_id": rows[selectors.PAGE_SIZE - 1][1],
        }
        new_count = {"user_id": user.pk, "cap": selectors.NEW_COUNT_CAP + 1}
        first_runs.append(_time_runs(selectors._PAGE_SQL, top, args.runs))
        second_runs.append(_time_runs(selectors._PAGE_SQL, below, args.runs))
        count_runs.append(_time_runs(selectors._NEW_COUNT_SQL, new_count, args.runs))
        if len(yard_first) < args.yardstick_users:
            _run_sql(YARDSTICK_SQL, top)  # warm, as the feed's statement was
            yard_first.append(_time_runs(YARDSTICK_SQL, top, 2))
            yard_second.append(_time_runs(YARDSTICK_SQL, below, 2))
    return {
        "follows": round(statistics.fmean(follows_of[u.pk] for u in users)),
        "page_1": _figures(first_runs),
        "page_2": _figures(second_runs),
        "new_count": _figures(count_runs),
        "yardstick_page_1": _figures(yard_first),
        "yardstick_page_2": _figures(yard_second),
    }


def _plans(heaviest: int) -> dict[str, str]:
    """EXPLAIN (ANALYZE, BUFFERS) of page 1, the new count and the yardstick for one user."""
    from feed import selectors

    top = {
        "user_id": heaviest,
        "before_at": selectors._TOP[0],
        "before_id": selectors._TOP[1],
        "limit": selectors.PAGE_SIZE + 1,
    }
    plans = {}
    for name, sql in (
        ("feed page 1", selectors._PAGE_SQL),
        ("new count", selectors._NEW_COUNT_SQL),
        ("yardstick", YARDSTICK_SQL),
    ):
        values = (
            top
            if name != "new count"
            else {"user_id": heaviest, "cap": selectors.NEW_COUNT_CAP + 1}
        )
        plan = "\n".join(r[0] for r in _run_sql(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", values))
        plans[name] = plan
    return plans


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    params = {
        "works": args.works,
        "researchers": args.researchers or max(1, args.works // 2),
        "topics": args.topics,
        "users": args.users,
        "background": args.background_follows,
        "measured": args.measured_users,
        "small_follows": args.small_follows,
        "large_follows": args.large_follows,
    }
    url = bench_database_url(args.database)
    generated = _database_prepare(args, url, params)

    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bzpeer.settings.local")
    import django

    django.setup()
    from feed import selectors

    machine, counts, measured = _corpus_describe(url, params["measured"])
    say(f"machine: {machine}")
    say(f"corpus: {counts}")

    half = params["measured"] // 2
    groups = {
        f"follow {params['small_follows']:,}": [u for u, _ in measured if u <= half],
        f"follow {params['large_follows']:,}": [u for u, _ in measured if u > half],
    }
    follows_of = dict(measured)
    report: dict[str, object] = {
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine,
        "corpus": counts,
        "params": params,
        "generated_seconds": generated,
        "feed": {},
    }
    # The site's connections persist (CONN_MAX_AGE), so its statements run prepared, on a
    # generic plan, after their first runs on a connection: psycopg prepares a statement on its
    # fifth run and PostgreSQL plans a prepared one generically from its sixth. Those first runs
    # pay a plan each (2 to 9 ms here); they are run first, so that the figures are the steady
    # state rather than the first user's planning.
    warm_user = measured[0][0]
    for _ in range(12):
        _run_sql(
            selectors._PAGE_SQL,
            {"user_id": warm_user, "before_at": selectors._TOP[0], "before_id": selectors._TOP[1]},
        )
        _run_sql(selectors._NEW_COUNT_SQL, {"user_id": warm_user})

    for label, user_ids in groups.items():
        figures = _group_measure(user_ids, follows_of, args)
        report["feed"][label] = figures  # type: ignore[index]
        say(f"{label}: {json.dumps(figures)}")

    # The plan of page 1 for the user with the most follows, and of the yardstick.
    heaviest = max(follows_of, key=follows_of.__getitem__)
    plans = _plans(heaviest)
    seq_scans = {
        name: [
            line.strip()
            for line in plan.splitlines()
            if "Seq Scan on publications_work" in line
            or "Seq Scan on publications_authorship" in line
        ]
        for name, plan in plans.items()
    }
    report["plans"] = plans
    report["seq_scans_of_works_or_authorships"] = seq_scans
    say("")
    say(f"EXPLAIN ANALYZE, feed page 1, user following {follows_of[heaviest]:,} researchers:")
    say(plans["feed page 1"])
    say("")
    say(f"Seq Scan on works/authorships: {seq_scans}")
    (DATA_DIR / "feed-report.json").write_text(json.dumps(report, indent=2, default=str))
    say(f"report: {DATA_DIR / 'feed-report.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
