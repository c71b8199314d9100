"""A sliding-window rate limiter in Redis, for claims, reports and split requests.

Login and sign-up are limited by allauth (ACCOUNT_RATE_LIMITS); this covers our own actions.
Limits are written like allauth's: "5/h", "20/d", "3/10m" (count / [amount]unit).

Each (action, key) has a sorted set of the times of its accepted attempts. An attempt is let
through when fewer than `count` of them fall in the last `period` seconds, so no span of
`period` seconds ever holds more than `count`, wherever it starts (a fixed clock window let
twice the limit through across its boundary). Refused attempts are not recorded: the refusal
says exactly when the oldest counted attempt leaves the window, and waiting that long works.
"""

from __future__ import annotations

import logging
import math
import re
import time
import uuid

import redis
from django.conf import settings
from django.core.cache import cache
from django_redis import get_redis_connection

from bzpeer import errors
from bzpeer.users.rate_limit_entries import sliding_window_hit

logger = logging.getLogger(__name__)

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([smhd])\s*$")

# One script, so trimming, counting and adding are one atomic step in Redis: two requests at
# once cannot both see room for one more. The clock is Redis's own (TIME), the same for every
# web process (a test may pass its own as ARGV[4] to move it instead of sleeping). Returns 0 when
# the attempt is counted, else the milliseconds until it would be.
_SLIDING_WINDOW = """
local window_ms = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local now_ms = tonumber(ARGV[4])
if not now_ms then
    local clock = redis.call('TIME')
    now_ms = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms - window_ms)
if redis.call('ZCARD', KEYS[1]) < limit then
    redis.call('ZADD', KEYS[1], now_ms, now_ms .. ':' .. ARGV[3])
    redis.call('PEXPIRE', KEYS[1], window_ms)
    return 0
end
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if #oldest == 0 then
    return window_ms
end
return math.max(1, tonumber(oldest[2]) + window_ms - now_ms)
"""


class RateLimited(errors.RateLimited):
    """Raised when an action is over its limit; the message can be shown to the user."""

    def __init__(self, action: str, retry_after: int) -> None:
        self.action = action
        minutes = max(1, round(retry_after / 60))
        super().__init__(
            f"Too many attempts. Please try again in about {minutes} minute(s).",
            retry_after=retry_after,
        )


def parse_rate(rate: str) -> tuple[int, int]:
    """("5/h") -> (5, 3600). A malformed rate is a configuration error and fails loudly."""
    match = _RATE.match(rate)
    if not match:
        raise ValueError(f"Bad rate limit {rate!r}: write it as count/unit, e.g. 5/h or 3/10m.")
    count, amount, unit = match.groups()
    return int(count), int(amount or 1) * _UNITS[unit]


def rate_limit_check(*, action: str, key: str, at_ms: int | None = None) -> None:
    """Count one attempt of `action` by `key` (a user id); raise RateLimited when `action`'s
    limit (CLAIMS_RATE_LIMITS) already holds that many attempts in the last period. Its
    `retry_after` is the whole seconds until the next attempt is let through.

    at_ms: the attempt's time in Unix milliseconds, for tests that move the clock; otherwise
    Redis's own clock, the same for every web process."""
    rate = settings.CLAIMS_RATE_LIMITS.get(action)
    if not rate:
        return
    limit, period = parse_rate(rate)
    # Under the cache's key prefix, so the keys live and are cleared with the rest of the cache.
    redis_key = cache.make_key(f"claims:rl:{action}:{key}")
    try:
        wait_ms = get_redis_connection("default").eval(
            _SLIDING_WINDOW,
            1,
            redis_key,
            period * 1000,
            limit,
            uuid.uuid4().hex,
            "" if at_ms is None else at_ms,
        )
    except (redis.ConnectionError, redis.TimeoutError) as error:
        # Redis unreachable: the same window, counted in PostgreSQL (docs/operating.md).
        logger.warning("rate limit %s counted in the database: %s", action, error)
        now_ms = at_ms if at_ms is not None else int(time.time() * 1000)
        wait_ms = sliding_window_hit(
            key=redis_key, limit=limit, period_seconds=period, now_ms=now_ms
        )
    if wait_ms:
        raise RateLimited(action, retry_after=math.ceil(int(wait_ms) / 1000))
