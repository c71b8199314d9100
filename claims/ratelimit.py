"""A small fixed-window rate limiter on Django's cache (Redis), for claims, disputes and vouches.

Login and sign-up are limited by allauth (ACCOUNT_RATE_LIMITS); this covers our own actions.
Limits are written like allauth's: "5/h", "20/d", "3/10m" (count / [amount]unit).
"""

from __future__ import annotations

import re
import time

from django.conf import settings
from django.core.cache import cache

from bzpeer import errors

_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([smhd])\s*$")


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


def rate_limit_check(*, action: str, key: str) -> None:
    """Count one attempt of `action` by `key` (a user id, an IP); raise RateLimited when over.

    The counter lives in a window keyed by its start, created with add() and bumped with
    incr(), both atomic in Redis, so concurrent requests cannot both slip under the limit.
    """
    rate = settings.CLAIMS_RATE_LIMITS.get(action)
    if not rate:
        return
    limit, period = parse_rate(rate)
    now = int(time.time())
    window_start = now - now % period
    cache_key = f"claims:rl:{action}:{key}:{window_start}"
    cache.add(cache_key, 0, timeout=period + 1)
    try:
        attempts = cache.incr(cache_key)
    except ValueError:  # expired between add() and incr(): this is the first attempt again
        cache.set(cache_key, 1, timeout=period + 1)
        attempts = 1
    if attempts > limit:
        raise RateLimited(action, retry_after=window_start + period - now)
