"""Rate limits' entries in PostgreSQL, for while Redis cannot be reached (bzpeer.cache).

Values are JSON (allauth keeps a list of attempt times and a True lock; claims.ratelimit a list
of attempt times in milliseconds). Each statement is atomic on its own, as the Redis command it
stands for: an add is one INSERT ... ON CONFLICT that takes the key only when it is free or
expired, so two requests at once never both hold allauth's lock.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from .models import RateLimitEntry

_TABLE = RateLimitEntry._meta.db_table


def _expires(seconds: float) -> datetime:
    return timezone.now() + timedelta(seconds=max(seconds, 0.001))


def entry_add(*, key: str, value: Any, seconds: float) -> bool:
    """Store value under key unless a live entry holds it; True when stored (cache.add)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {_TABLE} (key, value, expires_at) VALUES (%s, %s::jsonb, %s)
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, expires_at = EXCLUDED.expires_at
            WHERE {_TABLE}.expires_at <= now()
            RETURNING 1
            """,  # noqa: S608 - the table's name is ours
            [key, json.dumps(value), _expires(seconds)],
        )
        return cursor.fetchone() is not None


def entry_set(*, key: str, value: Any, seconds: float) -> None:
    RateLimitEntry.objects.filter(expires_at__lte=timezone.now()).delete()
    RateLimitEntry.objects.update_or_create(
        key=key, defaults={"value": value, "expires_at": _expires(seconds)}
    )


def entry_get(*, key: str, default: Any = None) -> Any:
    entry = RateLimitEntry.objects.filter(key=key, expires_at__gt=timezone.now()).first()
    return default if entry is None else entry.value


def entry_delete(*, key: str) -> bool:
    deleted, _ = RateLimitEntry.objects.filter(key=key).delete()
    return bool(deleted)


def sliding_window_hit(*, key: str, limit: int, period_seconds: int, now_ms: int) -> int:
    """claims.ratelimit's sliding window, counted in a row locked for the count: 0 when the
    attempt is counted, else the milliseconds until it would be (as its Redis script)."""
    window_ms = period_seconds * 1000
    with transaction.atomic():
        entry_add(key=key, value=[], seconds=period_seconds)
        entry = RateLimitEntry.objects.select_for_update().get(key=key)
        times = [t for t in entry.value if isinstance(t, int) and t > now_ms - window_ms]
        if len(times) < limit:
            times.append(now_ms)
            entry.value = sorted(times)
            entry.expires_at = _expires(period_seconds)
            entry.save(update_fields=["value", "expires_at"])
            return 0
        return max(1, math.ceil(min(times) + window_ms - now_ms))
