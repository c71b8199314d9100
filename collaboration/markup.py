"""Collaboration's markup made in Python: the header's inbox link with its unread badge (one
markup for both page shells, Django's base.html through a template tag and Jinja2's through a
global, and for the polling endpoint), and a message's text with its links.

The badge is rendered for signed-in users only, on every page they see: one cheap query
(selectors.unread_badge_count reads the user's participant rows through a partial index).
"""

from __future__ import annotations

from django.template.loader import render_to_string
from django.utils.html import urlize
from django.utils.safestring import SafeString, mark_safe

from bzpeer.users.models import User

from .selectors import unread_badge_count


def inbox_badge(user: User) -> SafeString:
    count = unread_badge_count(user)
    # render_to_string escapes what it renders; the result is markup.
    return mark_safe(  # noqa: S308
        render_to_string(
            "collaboration/_inbox_badge.html", {"count": count, "shown": min(count, 99)}
        )
    )


def message_html(text: str) -> SafeString:
    """Plain text (a message, an invitation's purpose) as markup: Django's urlize escapes the
    text and links the addresses in it. Its rel="nofollow" gains noopener; the replacement
    cannot touch the author's own text, where every quote is escaped by then."""
    linked = urlize(text or "", nofollow=True, autoescape=True)
    return mark_safe(linked.replace('rel="nofollow"', 'rel="nofollow noopener"'))  # noqa: S308
