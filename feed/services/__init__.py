"""Writes of the feed app.

- follows: follows of researchers, topics and institutions, mutes, the read watermark
- digests: the email digests, planned and sent exactly once (digests_plan,
           digest_deliveries_send); digest_emails builds the email
"""

from __future__ import annotations

from .digests import (
    DigestChunkOutcome,
    DigestPlan,
    digest_chunks,
    digest_deliveries_send,
    digests_plan,
)
from .follows import Followable, feed_mark_read, follow_create, follow_delete, follow_mute_set

__all__ = [
    "DigestChunkOutcome",
    "DigestPlan",
    "Followable",
    "digest_chunks",
    "digest_deliveries_send",
    "digests_plan",
    "feed_mark_read",
    "follow_create",
    "follow_delete",
    "follow_mute_set",
]
