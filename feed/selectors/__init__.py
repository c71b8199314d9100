"""Reads of the feed app.

- feed:    the feed page and its new-items count
- follows: a user's follows of topics and institutions
- atom:    the works the Atom feeds list
- digests: the windows of a chunk of users' feeds their digests list (one statement per
           chunk), what a digest shows of each work, the digest's default choice (the
           deliveries still to send are notifications.selectors.digest_deliveries_pending)
"""

from __future__ import annotations

from .atom import ATOM_ITEMS, works_newest_arrivals_of_researcher, works_newest_arrivals_of_topic
from .digests import (
    DEFAULT_DELIVERY_SQL,
    DigestEntry,
    DigestWindowRequest,
    DigestWindows,
    DigestWork,
    digest_default_delivery,
    digest_windows,
    digest_works_listed,
)
from .feed import (
    _NEW_COUNT_SQL,
    _PAGE_SQL,
    _TOP,
    NEW_COUNT_CAP,
    PAGE_SIZE,
    FeedItem,
    FeedPage,
    InvalidCursor,
    cursor_decode,
    cursor_encode,
    feed_new_count,
    feed_page,
    new_count_label,
)
from .follows import (
    institution_follows_of,
    institution_is_followed_by,
    topic_follows_of,
    topic_is_followed_by,
)

__all__ = [
    "ATOM_ITEMS",
    "NEW_COUNT_CAP",
    "PAGE_SIZE",
    "_NEW_COUNT_SQL",
    "_PAGE_SQL",
    "_TOP",
    "DEFAULT_DELIVERY_SQL",
    "DigestEntry",
    "DigestWindowRequest",
    "DigestWindows",
    "DigestWork",
    "FeedItem",
    "FeedPage",
    "InvalidCursor",
    "cursor_decode",
    "cursor_encode",
    "digest_default_delivery",
    "digest_windows",
    "digest_works_listed",
    "feed_new_count",
    "feed_page",
    "institution_follows_of",
    "institution_is_followed_by",
    "new_count_label",
    "topic_follows_of",
    "topic_is_followed_by",
    "works_newest_arrivals_of_researcher",
    "works_newest_arrivals_of_topic",
]
