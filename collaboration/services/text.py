"""The rules for what people write here (messages, invitation purposes, report reasons), as
others will see it (bzpeer.text): the services apply them, and the forms call the same
functions, so a text the form refuses the API refuses too, with the same words."""

from __future__ import annotations

from bzpeer.errors import InvalidRequest
from bzpeer.text import typed_text, visible_length
from collaboration.models import MESSAGE_MAX_LENGTH, PURPOSE_MAX_LENGTH, PURPOSE_MIN_LENGTH

REASON_MAX_LENGTH = 2_000


def message_body_clean(body: str) -> str:
    body = typed_text(body)
    if not visible_length(body):
        raise InvalidRequest("Write a message first.")
    if len(body) > MESSAGE_MAX_LENGTH:
        raise InvalidRequest(
            f"A message can be at most {MESSAGE_MAX_LENGTH:,} characters (this one has "
            f"{len(body):,})."
        )
    return body


def purpose_clean(purpose: str) -> str:
    """At least PURPOSE_MIN_LENGTH characters one can see, at most PURPOSE_MAX_LENGTH."""
    purpose = typed_text(purpose)
    seen = visible_length(purpose)
    if seen < PURPOSE_MIN_LENGTH or len(purpose) > PURPOSE_MAX_LENGTH:
        raise InvalidRequest(
            f"Say what you would like to do together in {PURPOSE_MIN_LENGTH} to "
            f"{PURPOSE_MAX_LENGTH:,} characters: at least {PURPOSE_MIN_LENGTH} characters one "
            f"can see (you wrote {seen:,}), at most {PURPOSE_MAX_LENGTH:,} in all."
        )
    return purpose


def reason_clean(reason: str, *, empty: str = "Say what is wrong with it.") -> str:
    reason = typed_text(reason)
    if not visible_length(reason):
        raise InvalidRequest(empty)
    if len(reason) > REASON_MAX_LENGTH:
        raise InvalidRequest(f"Keep the reason under {REASON_MAX_LENGTH:,} characters.")
    return reason
