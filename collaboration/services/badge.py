"""Forgetting the header badge's cached count (collaboration.selectors.inbox_badge_count).

Every service that changes what the badge counts (unread messages in unmuted conversations,
pending invitations received) calls inbox_badge_forget with the users concerned. The entry is
deleted at once, so the same request (the conversation page marking read before it is drawn)
reads the new count, and again after the commit, so a page drawn by another request between
the two, which read the rows as they were before the commit, does not keep its count.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.core.cache import cache
from django.db import transaction

from collaboration.selectors.inbox import badge_cache_key


def inbox_badge_forget(user_ids: Iterable[int | None]) -> None:
    keys = sorted({badge_cache_key(user_id) for user_id in user_ids if user_id is not None})
    if not keys:
        return
    cache.delete_many(keys)
    transaction.on_commit(lambda: cache.delete_many(keys))
