"""What the Jinja2 pages (pages/jinja2.py: the profile, the inbox, a conversation) use of
collaboration: the panel's selector, the header badge, the invitation form's choices and
limits, a message's text with its links and a time element."""

from __future__ import annotations

from typing import Any

from .markup import PageMarkup, inbox_badge, message_html, object_url, time_html
from .models import PURPOSE_MAX_LENGTH, PURPOSE_MIN_LENGTH, InvitationKind
from .selectors import collaboration_panel_for

JINJA_GLOBALS: dict[str, Any] = {
    "collaboration_panel_for": collaboration_panel_for,
    "inbox_badge": inbox_badge,
    "message_html": message_html,
    "object_url": object_url,
    "page_markup": PageMarkup,
    "time_html": time_html,
    "collaboration_invitation_kinds": InvitationKind.choices,
    "collaboration_purpose_limits": {"min": PURPOSE_MIN_LENGTH, "max": PURPOSE_MAX_LENGTH},
}
