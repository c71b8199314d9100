"""Reads of public pages and API GETs from a streaming replica; everything else on the primary.

Installed only when DATABASE_REPLICA_URLS names at least one replica (settings/base.py adds the
router and bzpeer.replica_middleware.ReplicaReadsMiddleware then). The middleware decides per
request, before the view runs, whether its reads may go to a replica and which one (the same
one for the whole request, so its pages are consistent with themselves); this router only
applies that decision. Anything outside a request (Celery tasks, management commands, the
shell) reads the primary.

Why reads still go to the primary inside a replica request:
- inside an atomic block: a transaction reads what it is about to write, and SELECT ... FOR
  UPDATE cannot run on a hot standby at all;
- after the request wrote anything: a GET that changes a row (opening a conversation marks it
  read) must see that change, and the replica may not have it yet.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections

# The replica alias this request reads from, or None for the primary.
_replica_alias: ContextVar[str | None] = ContextVar("bzpeer_replica_alias", default=None)
# Whether this request has routed a write (it reads the primary from then on).
_wrote: ContextVar[bool] = ContextVar("bzpeer_request_wrote", default=False)


# Replicas this process found unreachable, until when (time.monotonic()): the readiness check
# and a request whose replica connection failed mark one; its reads go elsewhere meanwhile.
REPLICA_DOWN_SECONDS = 30
_replica_down_until: dict[str, float] = {}


def replica_mark_down(alias: str) -> None:
    _replica_down_until[alias] = time.monotonic() + REPLICA_DOWN_SECONDS


def replicas_up(aliases: list[str]) -> list[str]:
    """The replicas among `aliases` not marked down (all of them once their time has passed)."""
    now = time.monotonic()
    return [alias for alias in aliases if _replica_down_until.get(alias, 0.0) <= now]


def read_alias() -> str:
    """The alias reads go to now: raw SQL (bzpeer.db) asks here, as the ORM asks the router."""
    alias = _replica_alias.get()
    if alias is None or _wrote.get() or connections[DEFAULT_DB_ALIAS].in_atomic_block:
        return DEFAULT_DB_ALIAS
    return alias


def request_wrote() -> bool:
    return _wrote.get()


# Read where they are written, whatever the request: a session row is written at sign-in and read
# on the very next request (when the cache in front of it misses: a Redis outage, an eviction),
# before a lagging replica has it, which would sign the person out.
PRIMARY_ONLY_APPS = frozenset({"sessions"})


class ReplicaRouter:
    """Django's router interface over the request's decision (see the module docstring)."""

    def db_for_read(self, model: type[Any] | None, **hints: Any) -> str:
        if model is not None and model._meta.app_label in PRIMARY_ONLY_APPS:
            return DEFAULT_DB_ALIAS
        return read_alias()

    def db_for_write(self, model: type[Any] | None, **hints: Any) -> str:
        _wrote.set(True)
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool:
        # The replicas hold the primary's rows: an object read from one is the primary's object.
        return True

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool:
        # A replica follows the primary's WAL; migrating it directly would fail (read-only).
        return db == DEFAULT_DB_ALIAS


class replica_reads:  # noqa: N801  # used as a context manager, like transaction.atomic
    """Reads go to `alias` inside the block (the middleware's scope; tests use it directly)."""

    def __init__(self, alias: str | None) -> None:
        self.alias = alias

    def __enter__(self) -> replica_reads:
        self._tokens = (_replica_alias.set(self.alias), _wrote.set(False))
        return self

    def __exit__(self, *exc_info: object) -> None:
        alias_token, wrote_token = self._tokens
        _replica_alias.reset(alias_token)
        _wrote.reset(wrote_token)
