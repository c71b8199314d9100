"""Optional emails: every one carries a text and an HTML part, a List-Id and RFC 8058 one-click
unsubscribe headers, and the HTML part shows the unsubscribe link too.

"Optional" means the user can turn it off: notifications, invitations, messages, digests.
Account emails (address confirmation, password reset) are allauth's and are not sent here.
"""

from __future__ import annotations

import logging
from functools import cache

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse

from bzpeer.users.models import User
from notifications import tokens
from notifications.kinds import Delivery, category_label
from notifications.selectors import delivery_for

logger = logging.getLogger(__name__)

# List-Id needs a stable, unique identifier per list, not a real domain; ".invalid" (RFC 2606)
# can never collide with a real list.
LIST_ID_DOMAIN = "bzpeer.invalid"


def list_id(category: str) -> str:
    """The List-Id header of one category's emails (RFC 2919): `bzpeer claims <claims.bzpeer.invalid>`."""
    return f"bzpeer {category} <{category}.{LIST_ID_DOMAIN}>"


def unsubscribe_url(*, user: User, category: str) -> str:
    """The absolute one-click unsubscribe URL (settings.SITE_URL) with a signed token."""
    return tokens.unsubscribe_url(user=user, category=category)


def unsubscribe_token_read(token: str) -> tuple[int, str]:
    """(user id, category) of a token; raises InvalidRequest (400) on a tampered token."""
    return tokens.unsubscribe_token_read(token)


def absolute_url(path: str) -> str:
    """A site path as a link that works from a mail client."""
    return f"{settings.SITE_URL.rstrip('/')}{path}" if path else ""


def can_email(user: User) -> bool:
    """Whether optional email may go to this user at all (site switch, address, account)."""
    return bool(settings.NOTIFICATIONS_EMAIL_ENABLED and user.email and user.is_active)


def _with_footer(html_body: str, footer: str) -> str:
    """The footer goes inside <body> when the caller sent a whole document."""
    closing = html_body.lower().rfind("</body>")
    if closing == -1:
        return f"{html_body}{footer}"
    return f"{html_body[:closing]}{footer}{html_body[closing:]}"


@cache
def _preferences_path() -> str:
    return reverse("notifications:preferences")


def optional_email_build(
    *, user: User, category: str, subject: str, text_body: str, html_body: str
) -> EmailMultiAlternatives:
    """The message with its list headers and unsubscribe footers, not sent. `category` is a
    category or kinds.DAILY_DIGEST_SCOPE. The bodies are the caller's rendered templates (the
    HTML one already escaped)."""
    url = unsubscribe_url(user=user, category=category)
    context = {
        "unsubscribe_url": url,
        "category_label": category_label(category),
        "preferences_url": absolute_url(_preferences_path()),
    }
    text = f"{text_body.rstrip()}\n\n{render_to_string('notifications/email/_unsubscribe.txt', context)}"
    html = _with_footer(
        html_body, render_to_string("notifications/email/_unsubscribe.html", context)
    )
    message = EmailMultiAlternatives(
        # A header cannot hold a line break; names in subjects come from imported records.
        subject=" ".join(subject.split()),
        body=text,
        to=[user.email],
        headers={
            "List-Id": list_id(category),
            "List-Unsubscribe": f"<{url}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(html, "text/html")
    return message


def optional_email_send(
    *, user: User, category: str, subject: str, text_body: str, html_body: str
) -> bool:
    """Send now (call it from a task) an optional email of `category` if the user's delivery
    for it is IMMEDIATELY; False when it was not sent (delivery, no address, email disabled)."""
    if not can_email(user):
        return False
    if delivery_for(user=user, category=category) != Delivery.IMMEDIATELY:
        return False
    optional_email_build(
        user=user, category=category, subject=subject, text_body=text_body, html_body=html_body
    ).send()
    logger.info("optional email of %s sent to user %s", category, user.pk)
    return True
