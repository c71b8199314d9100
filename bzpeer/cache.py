"""The default cache: Redis, with every connection error ignored, and the rate limits' keys kept
in PostgreSQL while Redis cannot be reached.

A cache is an accelerator, not a dependency (issue 29): with IGNORE_EXCEPTIONS (settings) a
read that cannot reach Redis is a miss and a write is dropped, each logged by django-redis, so
a page is rendered from the database. That would also open every limit kept in the cache
(allauth's sign-in, sign-up, password-reset and login-code limits count attempts under
"allauth:rl:..." keys, with a lock under the same prefix): with Redis gone, a password could be
guessed at any speed. So the keys under RATE_LIMIT_PREFIXES fall back to a small table
(bzpeer.users.models.RateLimitEntry) whenever Redis raises a connection error, and a limit
holds through the outage. docs/operating.md, "When a dependency fails", states the rule.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django_redis.cache import RedisCache
from django_redis.exceptions import ConnectionInterrupted


class CacheErrorsSampled(logging.Filter):
    """One record per INTERVAL seconds, its traceback replaced by the error's text and the
    number left out. While Redis is down every cache operation fails; a traceback for each
    would cost more than the request's own work (15-40 ms apiece, measured) and bury the log."""

    INTERVAL = 10.0

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._next = 0.0
        self._left_out = 0

    def filter(self, record: logging.LogRecord) -> bool:
        now = time.monotonic()
        with self._lock:
            if now < self._next:
                self._left_out += 1
                return False
            left_out, self._left_out, self._next = self._left_out, 0, now + self.INTERVAL
        error = record.exc_info[1] if record.exc_info else None
        # The record's own text is taken before its msg is replaced: formatted afterwards, its
        # args (ResilientRedisCache._unreachable's operation, key, error) met the new "%d" and
        # raised TypeError, a 500 on the first sign-in after 10 s without a cache error.
        text = error if error is not None else record.getMessage()
        record.msg = "Redis unreachable, cache operations skipped: %s (%d more in the last %d s)"
        record.args = (text, left_out, int(self.INTERVAL))
        record.exc_info, record.exc_text = None, None
        return True


# django-redis logs each error it ignores here (settings: DJANGO_REDIS_LOGGER); so does the
# rate limits' fallback below.
logger = logging.getLogger("bzpeer.cache.unreachable")
logger.addFilter(CacheErrorsSampled())

# allauth's rate limits and their locks (allauth.core.internal.ratelimit.get_cache_key).
RATE_LIMIT_PREFIXES = ("allauth:rl:",)


def _is_rate_limit(key: str) -> bool:
    return key.startswith(RATE_LIMIT_PREFIXES)


class ResilientRedisCache(RedisCache):
    """django-redis's cache whose rate-limit keys survive Redis being unreachable."""

    def _fallback_timeout(self, timeout: Any) -> float:
        seconds = self.default_timeout if timeout is DEFAULT_TIMEOUT else timeout
        # None means "forever" in Django's API; a limit's entry never needs more than a day.
        return 86400.0 if seconds is None else float(seconds)

    def _unreachable(self, operation: str, key: str, error: ConnectionInterrupted) -> None:
        logger.warning("cache: %s %s falls back to the database: %s", operation, key, error)

    def add(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None, **kw: Any
    ) -> Any:
        if not _is_rate_limit(str(key)):
            return super().add(key, value, timeout=timeout, version=version, **kw)
        try:
            return self.client.add(key, value, timeout=timeout, version=version, **kw)
        except ConnectionInterrupted as error:
            self._unreachable("add", key, error)
            from bzpeer.users.rate_limit_entries import entry_add

            return entry_add(
                key=self.make_key(key, version),
                value=value,
                seconds=self._fallback_timeout(timeout),
            )

    def set(
        self, key: Any, value: Any, timeout: Any = DEFAULT_TIMEOUT, version: Any = None, **kw: Any
    ) -> Any:
        if not _is_rate_limit(str(key)):
            return super().set(key, value, timeout=timeout, version=version, **kw)
        try:
            return self.client.set(key, value, timeout=timeout, version=version, **kw)
        except ConnectionInterrupted as error:
            self._unreachable("set", key, error)
            from bzpeer.users.rate_limit_entries import entry_set

            entry_set(
                key=self.make_key(key, version),
                value=value,
                seconds=self._fallback_timeout(timeout),
            )
            return True

    def get(self, key: Any, default: Any = None, version: Any = None, client: Any = None) -> Any:
        if not _is_rate_limit(str(key)):
            return super().get(key, default=default, version=version, client=client)
        try:
            return self.client.get(key, default=default, version=version, client=client)
        except ConnectionInterrupted as error:
            self._unreachable("get", key, error)
            from bzpeer.users.rate_limit_entries import entry_get

            return entry_get(key=self.make_key(key, version), default=default)

    def delete(self, key: Any, version: Any = None, prefix: Any = None, client: Any = None) -> Any:
        if not _is_rate_limit(str(key)):
            return super().delete(key, version=version, prefix=prefix, client=client)
        try:
            return bool(self.client.delete(key, version=version, prefix=prefix, client=client))
        except ConnectionInterrupted as error:
            self._unreachable("delete", key, error)
            from bzpeer.users.rate_limit_entries import entry_delete

            return entry_delete(key=self.make_key(key, version))
