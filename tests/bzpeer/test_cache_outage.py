"""The cache unreachable (issue 29), in this process: the cache pointed at a port where nothing
listens. A read is a miss and a write is dropped, but every rate limit keeps holding, counted in
PostgreSQL (bzpeer.cache, bzpeer.users.rate_limit_entries); the live outage, with a Redis
stopped under gunicorn, is tests/ops/test_dependency_faults.py."""

from __future__ import annotations

import logging

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from bzpeer.cache import CacheErrorsSampled
from bzpeer.users.models import RateLimitEntry
from claims.ratelimit import RateLimited, rate_limit_check
from tests.support.people import make_member

pytestmark = pytest.mark.django_db

UNREACHABLE = "redis://127.0.0.1:1/0"  # nothing listens on port 1
LOCKED = "Too many failed login attempts"


@pytest.fixture
def cache_unreachable(settings):
    settings.CACHES = {"default": {**settings.CACHES["default"], "LOCATION": UNREACHABLE}}


def test_a_cache_read_is_a_miss_and_a_write_is_dropped(cache_unreachable):
    assert cache.set("anything", 1) is None
    assert cache.get("anything", "missed") == "missed"
    assert cache.add("anything", 1) is None


def test_failed_sign_ins_are_still_limited_and_counted_in_the_database(cache_unreachable):
    owner = make_member("owner-outage@example.org", display_name="Olive Outage")
    attacker = Client(REMOTE_ADDR="203.0.113.9")
    pages = [
        attacker.post(reverse("account_login"), {"login": owner.email, "password": f"guess {n}"})
        for n in range(6)
    ]

    assert LOCKED not in pages[4].content.decode()
    assert LOCKED in pages[5].content.decode()
    assert RateLimitEntry.objects.filter(key__contains="allauth:rl:").exists()
    # The owner, elsewhere, still signs in.
    home = Client(REMOTE_ADDR="198.51.100.21")
    response = home.post(
        reverse("account_login"),
        {"login": owner.email, "password": "correct horse battery staple"},
    )
    assert response.status_code == 302
    assert "_auth_user_id" in home.session


def test_our_own_limits_hold_their_window_in_the_database(cache_unreachable, settings):
    settings.CLAIMS_RATE_LIMITS = {**settings.CLAIMS_RATE_LIMITS, "claim_submit": "2/h"}
    start = 1_900_000_000_000
    rate_limit_check(action="claim_submit", key="user:7", at_ms=start)
    rate_limit_check(action="claim_submit", key="user:7", at_ms=start + 1000)

    with pytest.raises(RateLimited) as refusal:
        rate_limit_check(action="claim_submit", key="user:7", at_ms=start + 2000)
    # The oldest attempt leaves the window an hour after it was made.
    assert refusal.value.retry_after == 3600 - 2
    rate_limit_check(action="claim_submit", key="user:7", at_ms=start + 3600 * 1000 + 1)


def test_a_sampled_cache_warning_without_a_traceback_keeps_its_own_text():
    """The rate limits' fallback logs "cache: <operation> <key> ..." with no exc_info; the
    sampling filter once formatted those args into its own "%d" and raised (a 500)."""
    record = logging.LogRecord(
        "bzpeer.cache.unreachable",
        logging.WARNING,
        __file__,
        1,
        "cache: %s %s falls back to the database: %s",
        ("add", "allauth:rl:login_failed:x", "Error 111"),
        None,
    )

    assert CacheErrorsSampled().filter(record) is True
    assert record.getMessage() == (
        "Redis unreachable, cache operations skipped: cache: add allauth:rl:login_failed:x "
        "falls back to the database: Error 111 (0 more in the last 10 s)"
    )
