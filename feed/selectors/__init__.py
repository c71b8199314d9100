"""Reads of the feed app.

- feed:    the feed page, its new-items count, the user's follows, the Atom feeds' works
- digests: the window of a user's feed a digest lists (the feed's statement cut in time), the
           works' columns for many windows at once, the digest's default choice, the
           deliveries still to send
"""

from __future__ import annotations

from .digests import (
    DEFAULT_DELIVERY_SQL,
    FeedWindow,
    WindowEntry,
    digest_default_delivery,
    digest_deliveries_pending,
    feed_window,
    feed_window_items,
    feed_works_listed,
)
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
    InvalidCursor,
    cursor_decode,
    cursor_encode,
    feed_new_count,
    feed_page,
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
