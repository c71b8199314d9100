"""Writes of the feed app.

- follows: follows of researchers, topics and institutions, mutes, the read watermark, and
           all of a user's follows removed with their counts (account deletion)
- follower_counts: the stored follower counts checked against the follow rows (and fixed)
- digests: the email digests' content (what arrived in each window) and their runs
           (digests_plan, digests_queue, digest_deliveries_send), planned, claimed, sent and
           finished once per user and period by notifications' digest deliveries;
           digest_emails builds the email
"""

from __future__ import annotations

from .digests import (
    DigestChunkOutcome,
    DigestPlan,
    DigestsQueued,
    digest_chunks,
    digest_deliveries_send,
    digests_plan,
    digests_queue,
)
from .follower_counts import FollowerCountDrift, follower_counts_recompute
from .follows import (
    Followable,
    feed_mark_read,
    follow_create,
    follow_delete,
    follow_mute_set,
    follows_delete_for_users,
)

__all__ = [
    "DigestChunkOutcome",
    "DigestPlan",
    "DigestsQueued",
    "FollowerCountDrift",
    "Followable",
    "digest_chunks",
    "digest_deliveries_send",
    "digests_plan",
    "digests_queue",
    "feed_mark_read",
    "follow_create",
    "follow_delete",
    "follow_mute_set",
    "follower_counts_recompute",
    "follows_delete_for_users",
]
