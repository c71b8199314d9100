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
from bench.harness import DATA_DIR, bench_database_url, ensure_database, manage, say
from bench.measure import machine_describe

DATA_TABLES = (
    "feed_feedstate",
    "feed_topicfollow",
    "feed_institutionfollow",
    "researchers_follow",
    "publications_worktopic",
    "publications_authorship",
    "publications_work",
    "publications_topic",
    "researchers_researcher",
)

GENERATE = [
    (
        "researchers",
        """
        INSERT INTO researchers_researcher (id, slug, display_name, name_normalized,
            alternate_names, tagline, open_to_collaborate, homepage, verification_level,
            trust_score, trust_breakdown, works_count, cited_by_count, h_index, i10_index,
            topics_count, followers_count, citations_by_year, content_hash, created_at,
            updated_at, links)
        SELECT i, 'r-' || i, 'Researcher ' || i, 'researcher ' || i, '{}', '', true, '', 1,
               0, '{}', 0, 0, 0, 0, 0, 0, '{}', '', now(), now(), '[]'
        FROM generate_series(1, %(researchers)s) i
        """,
    ),
    (
        "topics",
        """
        INSERT INTO publications_topic (id, external_id, name, code, level, description,
            content_hash)
        SELECT i, 'T' || i, 'Topic ' || i, '', 'topic', '', ''
        FROM generate_series(1, %(topics)s) i
        """,
    ),
    (
        "works",
        # Arrivals run over two years with the ids; one work in 20 is an old paper that
        # arrived at a random time (its id says nothing about its arrival).
        """
        INSERT INTO publications_work (id, title, abstract, type, publication_year,
            cited_by_count, counts_by_year, open_access_url, code_url, language, authors_count,
            content_hash, created_at, updated_at)
        SELECT i, 'Work ' || i, '', 'article', 1990 + (i %% 36), 0, '{}', '', '', 'en', 0, '',
               CASE WHEN random() < 0.05
                    THEN now() - random() * interval '730 days'
                    ELSE now() - interval '730 days'
                         + (i::float8 / %(works)s) * interval '730 days'
                         + random() * interval '1 hour'
               END,
               now()
        FROM generate_series(1, %(works)s) i
        """,
    ),
    (
        "authorships",
        # 1 to 10 authors a work (5.5 on average); researcher ids skewed to the low end, so the
        # first researchers are prolific.
        """
        INSERT INTO publications_authorship (work_id, researcher_id, position, raw_name,
            is_corresponding, institution_ids, work_created_at)
        SELECT w.id, 1 + floor(%(researchers)s * power(random(), 2.0))::bigint, p, 'Author',
               p = 1, '{}', w.created_at
        FROM publications_work w
        CROSS JOIN LATERAL generate_series(1, 1 + (w.id * 7919) %% 10) p
        """,
    ),
    (
        "work topics",
        """
        INSERT INTO publications_worktopic (work_id, topic_id, score, work_created_at)
        SELECT DISTINCT ON (w.id, t) w.id, t, 0.5, w.created_at
        FROM publications_work w
        CROSS JOIN LATERAL (
            SELECT 1 + floor(%(topics)s * power(random() + w.id * 0, 1.5))::bigint AS t
            FROM generate_series(1, 3)
        ) topics
        """,
    ),
    (
        "users",
        """
        INSERT INTO users_user (id, password, is_superuser, username, first_name, last_name,
            is_staff, is_active, date_joined, email, display_name)
        SELECT i, '!', false, 'u' || i, '', '', false, true, now() - interval '30 days',
               'u' || i || '@example.org', ''
        FROM generate_series(1, %(users)s) i
        """,
    ),
    (
        "follows of everyone",
        # Every user follows `background` researchers, drawn with a strong skew so the first
        # hundred researchers have tens of thousands of followers each.
        """
        INSERT INTO researchers_follow (user_id, researcher_id, created_at, muted)
        SELECT DISTINCT ON (u, r) u, r, now(), false
        FROM generate_series(%(measured)s + 1, %(users)s) u
        CROSS JOIN LATERAL (
            SELECT 1 + floor(%(researchers)s * power(random() + u * 0, 6.0))::bigint AS r
            FROM generate_series(1, %(background)s)
        ) drawn
        """,
    ),
    (
        "follows of the measured users",
        # Users 1..measured/2 follow small_follows researchers, the others large_follows: drawn
        # uniformly (most researchers have a handful of works), plus the 20 most prolific.
        """
        INSERT INTO researchers_follow (user_id, researcher_id, created_at, muted)
        SELECT DISTINCT ON (u, r) u, r, now(), false
        FROM generate_series(1, %(measured)s) u
        CROSS JOIN LATERAL (
            SELECT 1 + floor(%(researchers)s * random() + u * 0)::bigint AS r
            FROM generate_series(1, CASE WHEN u <= %(measured)s / 2
                                         THEN %(small_follows)s ELSE %(large_follows)s END - 20)
            UNION SELECT generate_series(1, 20)
        ) drawn
        ON CONFLICT DO NOTHING
        """,
    ),
    (
        "topic follows of the measured users",
        """
        INSERT INTO feed_topicfollow (user_id, topic_id, created_at, muted)
        SELECT DISTINCT ON (u, t) u, t, now(), false
        FROM generate_series(1, %(measured)s) u
        CROSS JOIN LATERAL (
            SELECT 1 + floor(%(topics)s * random() + u * 0)::bigint AS t FROM generate_series(1, 20)
        ) drawn
        """,
    ),
    (
        "followers counts",
        """
        UPDATE researchers_researcher r SET followers_count = f.n
        FROM (SELECT researcher_id, count(*) AS n FROM researchers_follow GROUP BY 1) f
        WHERE f.researcher_id = r.id
        """,
    ),
]

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


def corpus_generate(
    url: str, params: dict[str, int], *, clock: datetime | None = None
) -> dict[str, float]:
    """Generate the corpus. With `clock`, every arrival, follow and sign-up is dated as if the
    statements ran at that time (the digest benchmark's run clock), instead of now()."""
    seconds: dict[str, float] = {}
    values: dict[str, object] = {**params, "clock": clock}
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(
            f"TRUNCATE {', '.join(DATA_TABLES)}, users_user RESTART IDENTITY CASCADE"
        )
        connection.execute("SELECT setseed(0.42)")
        for name, statement in GENERATE:
            say(f"  generating {name} ...")
            if clock is not None:
                statement = statement.replace("now()", "%(clock)s::timestamptz")
            seconds[name] = round(_timed(lambda s=statement: connection.execute(s, values)), 1)
        for table in (
            "researchers_researcher",
            "publications_work",
            "publications_topic",
            "users_user",
        ):
            connection.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"
            )
        connection.execute("CREATE TABLE IF NOT EXISTS feed_bench_corpus (params jsonb)")
        connection.execute("DELETE FROM feed_bench_corpus")
        connection.execute("INSERT INTO feed_bench_corpus VALUES (%s)", [json.dumps(params)])
        say("  VACUUM ANALYZE ...")
        for table in DATA_TABLES + ("users_user",):
            connection.execute(f"VACUUM ANALYZE {table}")
    return seconds


def corpus_params_stored(url: str) -> dict[str, int] | None:
    with psycopg.connect(url, autocommit=True) as connection:
        exists = connection.execute("SELECT to_regclass('feed_bench_corpus')").fetchone()[0]
        if not exists:
            return None
        row = connection.execute("SELECT params FROM feed_bench_corpus").fetchone()
        return row[0] if row else None


def main(argv: Sequence[str] | None = None) -> int:
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
    ensure_database(url)
    DATA_DIR.mkdir(exist_ok=True)
    env = {**os.environ, "DATABASE_URL": url, "DJANGO_SETTINGS_MODULE": "bzpeer.settings.local"}
    say(f"migrating {args.database} ...")
    manage(["migrate", "--noinput"], env=env, log=DATA_DIR / "feed-migrate.log")
    generated = None
    if args.regenerate or corpus_params_stored(url) != params:
        say(f"generating the corpus: {params}")
        generated = corpus_generate(url, params)

    os.environ["DATABASE_URL"] = url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bzpeer.settings.local")
    import django

    django.setup()
    from django.db import connection

    from feed import selectors

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
            [params["measured"]],
        ).fetchall()
    say(f"machine: {machine}")
    say(f"corpus: {counts}")

    from bzpeer.users.models import User

    half = params["measured"] // 2
    groups = {
        f"follow {params['small_follows']:,}": [u for u, _ in measured if u <= half],
        f"follow {params['large_follows']:,}": [u for u, _ in measured if u > half],
    }
    follows_of = dict(measured)
    page_limit = selectors.PAGE_SIZE + 1

    def run_sql(sql: str, values: dict) -> list:
        with connection.cursor() as cursor:
            cursor.execute(sql, values)
            return cursor.fetchall()

    def time_runs(sql: str, values: dict, runs: int) -> list[float]:
        return [_timed(lambda: run_sql(sql, values)) for _ in range(runs)]

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
        run_sql(
            selectors._PAGE_SQL,
            {"user_id": warm_user, "before_at": selectors._TOP[0], "before_id": selectors._TOP[1]},
        )
        run_sql(selectors._NEW_COUNT_SQL, {"user_id": warm_user})

    for label, user_ids in groups.items():
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
            rows = run_sql(selectors._PAGE_SQL, top)
            below = {
                **top,
                "before_at": rows[selectors.PAGE_SIZE - 1][0],
                "before_id": rows[selectors.PAGE_SIZE - 1][1],
            }
            new_count = {"user_id": user.pk, "cap": selectors.NEW_COUNT_CAP + 1}
            first_runs.append(time_runs(selectors._PAGE_SQL, top, args.runs))
            second_runs.append(time_runs(selectors._PAGE_SQL, below, args.runs))
            count_runs.append(time_runs(selectors._NEW_COUNT_SQL, new_count, args.runs))
            if len(yard_first) < args.yardstick_users:
                run_sql(YARDSTICK_SQL, top)  # warm, as the feed's statement was
                yard_first.append(time_runs(YARDSTICK_SQL, top, 2))
                yard_second.append(time_runs(YARDSTICK_SQL, below, 2))
        figures = {
            "follows": round(statistics.fmean(follows_of[u.pk] for u in users)),
            "page_1": _figures(first_runs),
            "page_2": _figures(second_runs),
            "new_count": _figures(count_runs),
            "yardstick_page_1": _figures(yard_first),
            "yardstick_page_2": _figures(yard_second),
        }
        report["feed"][label] = figures  # type: ignore[index]
        say(f"{label}: {json.dumps(figures)}")

    # The plan of page 1 for the user with the most follows, and of the yardstick.
    heaviest = max(follows_of, key=follows_of.__getitem__)
    top = {
        "user_id": heaviest,
        "before_at": selectors._TOP[0],
        "before_id": selectors._TOP[1],
        "limit": page_limit,
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
        plan = "\n".join(r[0] for r in run_sql(f"EXPLAIN (ANALYZE, BUFFERS) {sql}", values))
        plans[name] = plan
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
