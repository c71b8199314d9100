"""Reads of the feed app.

- feed:    the feed page, its new-items count, the user's follows, the Atom feeds' works, and
           the digest's window of the same selection (feed_window)
- digests: who is due for an email digest, and each digest's work
"""

from __future__ import annotations

from .digests import DEFAULT_DELIVERY_SQL, digest_default_delivery, digest_deliveries_pending
from .feed import (
    _NEW_COUNT_SQL,
    _PAGE_SQL,
    _TOP,
    _WINDOW_SQL,
    ATOM_ITEMS,
    NEW_COUNT_CAP,
    PAGE_SIZE,
    FeedItem,
    FeedPage,
    FeedWindow,
    InvalidCursor,
    WindowEntry,
    cursor_decode,
    cursor_encode,
    feed_new_count,
    feed_page,
    feed_window,
    feed_window_items,
    feed_works_listed,
    institution_follows_of,
    institution_is_followed_by,
    new_count_label,
    topic_follows_of,
    topic_is_followed_by,
    works_newest_arrivals_of_researcher,
    works_newest_arrivals_of_topic,
)

__all__ = [
    "ATOM_ITEMS",
    "NEW_COUNT_CAP",
    "PAGE_SIZE",
    "_NEW_COUNT_SQL",
    "_PAGE_SQL",
    "_TOP",
    "_WINDOW_SQL",
    "DEFAULT_DELIVERY_SQL",
    "FeedItem",
    "FeedPage",
    "FeedWindow",
    "InvalidCursor",
    "WindowEntry",
    "cursor_decode",
    "cursor_encode",
    "digest_default_delivery",
    "digest_deliveries_pending",
    "feed_new_count",
    "feed_page",
    "feed_window",
    "feed_window_items",
    "feed_works_listed",
    "institution_follows_of",
    "institution_is_followed_by",
    "new_count_label",
    "topic_follows_of",
    "topic_is_followed_by",
    "works_newest_arrivals_of_researcher",
    "works_newest_arrivals_of_topic",
]
