"""The digest email: subject, text and HTML from Jinja2 templates (templates/jinja2/feed/email/),
with notifications' List-Id and one-click unsubscribe headers (category DIGEST).

Jinja2 rather than Django's templates: a weekly run renders one email per user, 200,000 of them
on the issue's benchmark, and Django's template language costs several times more per render.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.core.mail import EmailMultiAlternatives
from django.template import engines
from django.urls import reverse

from bzpeer.users.models import User
from feed.selectors import FeedItem, FeedWindow
from notifications.kinds import NotificationCategory
from notifications.services.emails import absolute_url, optional_email_build

_TEMPLATES = ("feed/email/digest_subject.txt", "feed/email/digest.txt", "feed/email/digest.html")


@cache
def _templates() -> tuple[Any, ...]:
    engine = engines["jinja2"]
    return tuple(engine.get_template(name) for name in _TEMPLATES)


def _names(names: list[str]) -> str:
    """Names joined as "A", "A and B", "A, B and C"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _listed(item: FeedItem) -> dict[str, Any]:
    authors = [author["name"] or author["raw_name"] for author in item.listed_authors]
    byline = ", ".join(name for name in authors if name)
    if item.authors_count > len(authors):
        byline = f"{byline} et al." if byline else "et al."
    published = item.publication_date or item.publication_year
    return {
        "title": item.title,
        "url": absolute_url(reverse("publications:work-detail", args=[item.pk])),
        "byline": byline,
        "venue": item.source_short_name or "",
        "published": str(published) if published else "",
        "because": _names([name for _kind, _key, name in item.reasons]) if item.reasons else "",
    }


def digest_email_build(*, user: User, period: str, window: FeedWindow) -> EmailMultiAlternatives:
    """The user's digest of `window` (not empty), unsent."""
    feed_url = absolute_url(reverse("feed:feed"))
    context = {
        "display_name": user.display_name,
        "period": period,
        "items": [_listed(item) for item in window.items],
        "total": window.total,
        "more": window.total - len(window.items),
        "feed_url": feed_url,
    }
    subject, text, html = (template.render(context) for template in _templates())
    return optional_email_build(
        user=user,
        category=NotificationCategory.DIGEST,
        subject=subject,
        text_body=text,
        html_body=html,
    )
