"""The HTTP validators (ETags) of the public pages, for bzpeer.http_caching.public_page.

Each is one small read, run before the view on every anonymous request (a 304 runs nothing
else). The profile's is the state that keys its page cache (cached_profile_page below): the
record's fields the page shows, the query string and the works version, so a changed record gets
a new ETag exactly when its cached page stops being served. The other pages have no page cache;
their ETags take the record's own row and the cheapest sign of new works, and
bzpeer.http_caching adds a period (HTTP_CACHE_VALIDATOR_SECONDS) for what they show of other
records (rankings of researchers, a coauthor renamed).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest

from bzpeer.db import fetchone_without_health_check
from publications.models import (
    Authorship,
    Citation,
    RelatedWork,
    Topic,
    Work,
    WorkListedBy,
    WorkNovelty,
    WorkTopic,
)
from researchers import page_cache
from researchers.models import Institution, Researcher

from . import selectors

_MISSING = object()


def profile_page_state(request: HttpRequest, slug: str) -> selectors.ProfilePageState | None:
    """The profile's state, read once per request (the ETag and the page cache both use it)."""
    state: Any = getattr(request, "_profile_page_state", _MISSING)
    if state is _MISSING:
        state = selectors.researcher_profile_page_state(slug)
        request._profile_page_state = state  # type: ignore[attr-defined]
    return state  # type: ignore[no-any-return]


def _digest(*parts: Any) -> str:
    return hashlib.md5(repr(parts).encode(), usedforsecurity=False).hexdigest()


@dataclass(frozen=True)
class CachedProfilePage:
    """The anonymous profile page cache's answer for one request: the record, the page's name
    in the cache (a digest of the record's fields and the query string), the page when it is
    cached and current (None otherwise, or when only the version was read), and the works
    version a freshly rendered page is stored under."""

    researcher_id: int
    page: str
    content: bytes | None
    works_version: bytes


def cached_profile_page(
    request: HttpRequest, slug: str, *, version_only: bool = False
) -> CachedProfilePage | None:
    """The profile's cached page and works version, read from Redis once per request (the ETag
    and the view both use them: a cache hit is one query and one round trip to Redis). None when
    the page is not cached for this request: the cache off, a signed-in visitor or an htmx
    fragment, or a record that is not a page of its own (unknown, merged).

    `version_only` (a conditional GET, answered 304 without a page most of the time) reads the
    version alone; the view reads the page afterwards if it must answer with one.
    """
    if settings.PROFILE_PAGE_CACHE_SECONDS <= 0 or request.user.is_authenticated or request.htmx:
        return None
    read: tuple[CachedProfilePage, bool] | None = getattr(request, "_cached_profile_page", None)
    if read is not None and (version_only or read[1]):
        return read[0]
    state = profile_page_state(request, slug)
    if state is None or state.merged_into_id:
        return None
    page = _digest(state.fields, request.get_full_path())
    if version_only:
        content, version = None, page_cache.works_version(researcher_id=state.researcher_id)
    else:
        content, version = page_cache.cached_profile_page(
            researcher_id=state.researcher_id, page=page
        )
    answer = CachedProfilePage(state.researcher_id, page, content, version)
    request._cached_profile_page = (answer, not version_only)  # type: ignore[attr-defined]
    return answer


def profile_etag(request: HttpRequest, slug: str) -> str | None:
    cached = cached_profile_page(request, slug, version_only="HTTP_IF_NONE_MATCH" in request.META)
    if cached is None:
        return None  # no page cache, a 404 or a redirect: nothing to validate
    return f"{cached.page}-{cached.works_version.decode()}"


_WORK_STATE_SQL = f"""
SELECT w.updated_at,
       (SELECT max(r.updated_at) FROM {Authorship._meta.db_table} a
        JOIN {Researcher._meta.db_table} r ON r.id = a.researcher_id WHERE a.work_id = w.id),
       (SELECT count(*) FROM {Authorship._meta.db_table} a WHERE a.work_id = w.id),
       (SELECT row(count(*), max(greatest(l.updated_at, r.updated_at)))
        FROM {WorkListedBy._meta.db_table} l
        JOIN {Researcher._meta.db_table} r ON r.id = l.researcher_id WHERE l.work_id = w.id),
       -- Its references and the works citing it (index-only counts): a citation arriving
       -- changes the page. The listed works' own titles change rarely; the validator period
       -- (bzpeer.http_caching) bounds how long a page can show an old one.
       (SELECT count(*) FROM {Citation._meta.db_table} c WHERE c.citing_id = w.id),
       (SELECT count(*) FROM {Citation._meta.db_table} c WHERE c.cited_id = w.id),
       -- Its novelty, rewritten by each run (publications.services.novelty).
       (SELECT n.computed_at FROM {WorkNovelty._meta.db_table} n WHERE n.work_id = w.id),
       -- Its related works (ten rows of the primary key): the drain rewrites them when the
       -- works around it are cited, without a citation of this work changing.
       (SELECT array_agg(row(r.related_id, r.cocitations, r.shared_references)::text
                         ORDER BY r.rank)
        FROM {RelatedWork._meta.db_table} r WHERE r.work_id = w.id)
FROM {Work._meta.db_table} w WHERE w.id = %s
"""


def work_etag(request: HttpRequest, pk: int) -> str | None:
    """The work's row, its authors' records and those who list it (their names and links are on
    the page)."""
    row = fetchone_without_health_check(_WORK_STATE_SQL, [pk])
    return None if row is None else _digest(row, request.get_full_path())


# The newest arrival in the topic: one probe of work_topic_arrival_idx (topic, work_created_at).
_TOPIC_STATE_SQL = f"""
SELECT t.name, t.description, t.parent_id, t.followers_count,
       (SELECT max(wt.work_created_at) FROM {WorkTopic._meta.db_table} wt WHERE wt.topic_id = t.id)
FROM {Topic._meta.db_table} t WHERE t.id = %s
"""


def topic_etag(request: HttpRequest, pk: int) -> str | None:
    row = fetchone_without_health_check(_TOPIC_STATE_SQL, [pk])
    return None if row is None else _digest(row, request.get_full_path())


_INSTITUTION_STATE_SQL = f"""
SELECT i.updated_at, i.followers_count FROM {Institution._meta.db_table} i WHERE i.id = %s
"""


def institution_etag(request: HttpRequest, pk: int) -> str | None:
    row = fetchone_without_health_check(_INSTITUTION_STATE_SQL, [pk])
    return None if row is None else _digest(row, request.get_full_path())


_HOME_STATE_SQL = f"SELECT max(id) FROM {Work._meta.db_table}"  # noqa: S608  # a model's table


def home_etag(request: HttpRequest) -> str | None:
    """The counts the page shows (cached in Redis already) and the newest work's id."""
    row = fetchone_without_health_check(_HOME_STATE_SQL, [])
    return _digest(selectors.site_counts(), row, request.get_full_path())
