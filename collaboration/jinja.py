"""What the Jinja2 pages (pages/jinja2.py, the profile) use of collaboration: the panel's
selector, the header badge and the invitation form's choices and limits."""

from __future__ import annotations

from typing import Any

from .markup import inbox_badge
from .models import PURPOSE_MAX_LENGTH, PURPOSE_MIN_LENGTH, InvitationKind
from .selectors import collaboration_panel_for

JINJA_GLOBALS: dict[str, Any] = {
    "collaboration_panel_for": collaboration_panel_for,
    "inbox_badge": inbox_badge,
    "collaboration_invitation_kinds": InvitationKind.choices,
    "collaboration_purpose_limits": {"min": PURPOSE_MIN_LENGTH, "max": PURPOSE_MAX_LENGTH},
}
