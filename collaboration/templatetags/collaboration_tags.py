"""{% inbox_badge user %}: the header's inbox link with its unread badge (collaboration.markup)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from bzpeer.users.models import User
from collaboration import markup

register = template.Library()


@register.simple_tag
def inbox_badge(user: User) -> SafeString:
    return markup.inbox_badge(user)


@register.filter
def message_body(text: str) -> SafeString:
    """A message's plain text as markup: everything escaped, web addresses made links that
    neither pass on ranking nor get a handle on this page (rel="nofollow noopener")."""
    return markup.message_html(text)
