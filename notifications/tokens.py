"""Signed unsubscribe tokens: the user's email link key and a category (or the daily digest's
scope).

The token needs no login and no expiry: a one-click unsubscribe must work from any mail client
months later (RFC 8058). It names the person by User.email_link_key, a random value, so it
reveals nothing about whose it is (no user id, no address); a new password renews the key and
so ends every link sent before. Its own salt keeps a token signed for anything else from
passing here.
"""

from __future__ import annotations

import uuid
from functools import cache

from django.conf import settings
from django.core import signing
from django.urls import reverse

from bzpeer.errors import InvalidRequest
from bzpeer.users.models import User

from .errors import RecipientGone
from .kinds import DAILY_DIGEST_SCOPE, NotificationCategory

_SALT = "notifications.unsubscribe"

# What a token may name: a category, or every daily category at once.
UNSUBSCRIBE_SCOPES = frozenset([*NotificationCategory.values, DAILY_DIGEST_SCOPE])

_DAMAGED = (
    "This unsubscribe link is damaged or incomplete. Open it exactly as it appears in the "
    "email, or change your choices on your account's notification settings."
)


def unsubscribe_token(*, user: User, category: str) -> str:
    if category not in UNSUBSCRIBE_SCOPES:
        raise ValueError(f"not an unsubscribe scope: {category!r}")
    return signing.dumps([user.email_link_key.hex, category], salt=_SALT)


@cache
def _unsubscribe_path_parts() -> tuple[str, str]:
    """The unsubscribe path around its token, resolved once per process: the feed's digest
    builds one link per user, and reverse() cost more than the signing."""
    marker = "TOKEN"
    head, tail = reverse("notifications:unsubscribe", args=[marker]).split(marker)
    return head, tail


def unsubscribe_url(*, user: User, category: str) -> str:
    """Absolute (settings.SITE_URL), so it works from a mail client. Signed tokens are
    URL-safe (base64url and ':'), so the token goes into the path as it is."""
    token = unsubscribe_token(user=user, category=category)
    head, tail = _unsubscribe_path_parts()
    return f"{settings.SITE_URL.rstrip('/')}{head}{token}{tail}"


def unsubscribe_token_read(token: str) -> tuple[int, str]:
    """(user id, category) from a token; InvalidRequest (400) if it was altered or is not one,
    RecipientGone (404) if no account has its key (deleted, or its links renewed since)."""
    try:
        payload = signing.loads(token, salt=_SALT)
    except (signing.BadSignature, ValueError) as error:
        raise InvalidRequest(_DAMAGED) from error
    if (
        not isinstance(payload, list)
        or len(payload) != 2
        or not isinstance(payload[0], str)
        or not isinstance(payload[1], str)
        or payload[1] not in UNSUBSCRIBE_SCOPES
    ):
        raise InvalidRequest(_DAMAGED)
    try:
        key = uuid.UUID(hex=payload[0])
    except ValueError as error:
        raise InvalidRequest(_DAMAGED) from error
    user_id = User.objects.filter(email_link_key=key).values_list("pk", flat=True).first()
    if user_id is None:
        raise RecipientGone(
            "This link belongs to an account that no longer exists, or whose links were "
            "renewed with a new password. Change your choices on your account's notification "
            "settings."
        )
    return user_id, payload[1]
