"""Which requests read from a replica (bzpeer.db_router applies the choice).

GET and HEAD requests read from a replica, except:
- paths under DATABASE_REPLICA_PRIMARY_PATHS (the admin, and allauth's pages: an email
  confirmation link is often opened seconds after the sign-up that created it, in another
  browser than the one that signed up);
- read-your-writes: a browser that sent a non-safe request (or whose request wrote) in the last
  DATABASE_REPLICA_STICKY_SECONDS carries a signed, timestamped cookie, and reads the primary
  until it expires, so a follow is on the very next page even when the replica lags.

Each request keeps one replica, chosen at random: a page is consistent with itself, and the
load spreads over the replicas.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import patch_cache_control

from .db_router import replica_reads, replicas_up, request_wrote

STICKY_COOKIE = "bzpeer_rw"
_STICKY_SALT = "bzpeer.replica_middleware.read-your-writes"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def _wrote_recently(request: HttpRequest) -> bool:
    value = request.get_signed_cookie(
        STICKY_COOKIE,
        default=None,
        salt=_STICKY_SALT,
        max_age=settings.DATABASE_REPLICA_STICKY_SECONDS,
    )
    return value is not None


def replica_for(request: HttpRequest) -> str | None:
    """The replica alias this request may read from, or None for the primary."""
    if request.method not in _SAFE_METHODS or not settings.DATABASE_REPLICAS:
        return None
    if request.path.startswith(tuple(settings.DATABASE_REPLICA_PRIMARY_PATHS)):
        return None
    if _wrote_recently(request):
        return None
    # A replica found unreachable is out of the pool for a while (bzpeer.db_router); with none
    # left, the primary serves the reads.
    replicas = replicas_up(settings.DATABASE_REPLICAS)
    if not replicas:
        return None
    return random.choice(replicas)  # noqa: S311  # load spreading, not security


class ReplicaReadsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        with replica_reads(replica_for(request)):
            response = self.get_response(request)
            wrote = request_wrote()
        if wrote or request.method not in _SAFE_METHODS:
            response.set_signed_cookie(
                STICKY_COOKIE,
                "1",
                salt=_STICKY_SALT,
                max_age=settings.DATABASE_REPLICA_STICKY_SECONDS,
                secure=settings.SESSION_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
            # A response setting this browser's cookie is this browser's alone.
            patch_cache_control(response, private=True)
        return response
