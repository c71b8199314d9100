"""The feed benchmark's corpus (bench/feed_bench.py; bench/digest_bench.py uses it too),
generated set-based with generate_series: researchers, works arriving over two years, skewed
bylines, topics, users and skewed follows. The parameters it was made with are stored beside
it, so a run with the same ones reuses it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import datetime

import psycopg

from bench.harness import say

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


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started
