"""The time zones a user may choose: the IANA names Python's zoneinfo knows.

PostgreSQL computes who is due for a digest with `AT TIME ZONE` on the stored name, so a name it
did not know would fail the whole selection; tests/feed/test_digest_time_zones.py checks that it
knows every name offered here (both read the system's tz database on this platform).
"""

from __future__ import annotations

import zoneinfo
from functools import cache

from django.core.exceptions import ValidationError

DEFAULT_TIME_ZONE = "UTC"


@cache
def available_time_zones() -> tuple[str, ...]:
    """Sorted; read once per process (the tz database does not change while it runs)."""
    return tuple(sorted(zoneinfo.available_timezones()))


def is_time_zone(name: str) -> bool:
    return name in frozenset(available_time_zones())


def validate_time_zone(name: str) -> None:
    """The model field's validator (the admin's form)."""
    if not is_time_zone(name):
        raise ValidationError(f"“{name[:60]}” is not a time zone.", code="invalid")
