"""The feed's statements probe a user's follows one by one, through the follow's unique
(user, record) index, also in the generic plan PostgreSQL keeps for a prepared statement. That
plan estimates a user's follows at the average (a few dozen), and left free it joined each
scanned work's authors to all of a heavy follower's follows by hash: 5,000 rows read per work,
250 ms a page on the 1M-work benchmark corpus instead of about 10 (bench/feed_bench.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from django.db import connection

from bench.feed_bench import GENERATE
from feed import selectors
from feed.selectors.feed import ARRIVAL_SCAN_FROM_FOLLOWS

pytestmark = [pytest.mark.corpus, pytest.mark.django_db]

# A small corpus with the benchmark's shape: most users follow a few researchers, user 2 follows
# more than ARRIVAL_SCAN_FROM_FOLLOWS of them, so the arrival scan is the path its page takes.
CORPUS = {
    "works": 3000,
    "researchers": 6000,
    "topics": 50,
    "users": 3000,
    "background": 3,
    "measured": 2,
    "small_follows": 30,
    "large_follows": 1300,
}
FOLLOW_TABLES = {"researchers_follow", "feed_topicfollow"}


def _nodes(node: dict) -> Iterator[dict]:
    yield node
    for child in node.get("Plans", []):
        yield from _nodes(child)


def _follows_hashed(sql: str, params: dict) -> list[str]:
    """The hash (or merge) joins of the generic plan that read a follows table whole."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        raw = cursor.fetchone()[0]
    plan = (json.loads(raw) if isinstance(raw, str) else raw)[0]["Plan"]
    return [
        f"{join['Node Type']} over {relation}"
        for join in _nodes(plan)
        if join["Node Type"] in {"Hash Join", "Merge Join"}
        for relation in {n.get("Relation Name") for n in _nodes(join)} & FOLLOW_TABLES
    ]


@pytest.fixture
def heavy_follower() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT setseed(0.42)")
        for _name, statement in GENERATE:
            cursor.execute(statement, CORPUS)
        cursor.execute(
            "ANALYZE users_user, researchers_follow, feed_topicfollow, publications_work,"
            " publications_authorship, publications_worktopic"
        )
        cursor.execute("SELECT count(*) FROM researchers_follow WHERE user_id = 2")
        assert cursor.fetchone()[0] >= ARRIVAL_SCAN_FROM_FOLLOWS
    return 2


def test_the_page_statement_probes_follows_in_its_generic_plan(heavy_follower):
    params = {
        "user_id": heavy_follower,
        "before_at": selectors._TOP[0],
        "before_id": selectors._TOP[1],
    }
    assert _follows_hashed(selectors._PAGE_SQL, params) == []


def test_the_new_items_count_probes_follows_in_its_generic_plan(heavy_follower):
    assert _follows_hashed(selectors._NEW_COUNT_SQL, {"user_id": heavy_follower}) == []
