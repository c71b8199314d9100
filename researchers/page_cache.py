"""The anonymous profile page cache, in Redis.

Each cached page is stored with the researcher's works version at the time it was rendered, and
served only while that version is current; researcher_pages_invalidate moves the version when
the researcher's works change. (The record's own fields are in the page key: see
pages.validators.cached_profile_page.) A page rendered from data an import was replacing is
stored under the version read before rendering, so it is never served once that import has
moved the version.

A cached hit is the busiest request the site answers, so this speaks to Redis directly through
django-redis's client, with the cache's key prefix but no pickling: one MGET of the page and the
version. Going through the cache API cost about as much as the Redis round trip itself.

Redis unreachable (issue 29): a read is a miss (the page is rendered from the database), a store
or an invalidation is dropped and logged. A page cached before an outage whose invalidation was
dropped is served at most PROFILE_PAGE_CACHE_SECONDS after it, if Redis kept its data.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Collection
from typing import cast

from django.core.cache import cache
from django_redis import get_redis_connection
from redis import ConnectionError as RedisConnectionError
from redis import TimeoutError as RedisTimeoutError

_SEPARATOR = b"\n"  # between the version (hex) and the page
_UNREACHABLE = (RedisConnectionError, RedisTimeoutError)

logger = logging.getLogger(__name__)


def _version_key(researcher_id: int) -> str:
    return cache.make_key(f"profile-page-version:{researcher_id}")


def _page_key(researcher_id: int, page: str) -> str:
    return cache.make_key(f"profile-page:{researcher_id}:{page}")


def cached_profile_page(*, researcher_id: int, page: str) -> tuple[bytes | None, bytes]:
    """The cached page named `page` (a digest of the record's fields and the query) if it is
    current, and the works version a freshly rendered page is to be stored under."""
    # django-redis makes its client without decode_responses: replies are bytes.
    try:
        replies = cast(
            "list[bytes | None]",
            get_redis_connection("default").mget(
                [_page_key(researcher_id, page), _version_key(researcher_id)]
            ),
        )
    except _UNREACHABLE as error:
        logger.warning("profile page cache unreachable (researcher %s): %s", researcher_id, error)
        return None, b"0"
    stored, version = replies[0], replies[1] or b"0"
    if stored is not None:
        stored_version, _, content = stored.partition(_SEPARATOR)
        if stored_version == version:
            return content, version
    return None, version


def works_version(*, researcher_id: int) -> bytes:
    """The researcher's current works version alone (the profile's HTTP validator, pages.views:
    a conditional GET needs the version, not the page)."""
    try:
        version = get_redis_connection("default").get(_version_key(researcher_id))
    except _UNREACHABLE as error:
        logger.warning("profile page cache unreachable (researcher %s): %s", researcher_id, error)
        return b"0"
    return cast("bytes | None", version) or b"0"


def profile_page_store(
    *, researcher_id: int, page: str, version: bytes, content: bytes, seconds: int
) -> None:
    try:
        get_redis_connection("default").set(
            _page_key(researcher_id, page), version + _SEPARATOR + content, ex=seconds
        )
    except _UNREACHABLE as error:
        logger.warning("profile page not cached (researcher %s): %s", researcher_id, error)


def profile_pages_invalidate(*, researcher_ids: Collection[int]) -> None:
    """Move the works version of these researchers: their cached pages are stale. One round
    trip for the whole set."""
    if not researcher_ids:
        return
    version = uuid.uuid4().hex[:12].encode()
    try:
        get_redis_connection("default").mset(
            {_version_key(researcher_id): version for researcher_id in researcher_ids}
        )
    except _UNREACHABLE as error:
        logger.warning(
            "profile pages of %d researchers not invalidated (first ids %s): %s",
            len(researcher_ids),
            sorted(researcher_ids)[:20],
            error,
        )
