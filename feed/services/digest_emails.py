"""The digest email: subject, text and HTML from Jinja2 templates (templates/jinja2/feed/email/),
with notifications' List-Id and one-click unsubscribe headers (category DIGEST).

Jinja2 rather than Django's templates: a weekly run renders one email per user, 200,000 of them
on the issue's benchmark, and Django's template language costs several times more per render.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from django.core.mail import EmailMultiAlternatives
from django.template import engines
from django.urls import reverse
from markupsafe import Markup

from bzpeer.users.models import User
from feed.selectors import FeedItem, FeedWindow, feed_window_items
from notifications.kinds import NotificationCategory
from notifications.services.emails import absolute_url, optional_email_build

_TEMPLATES = ("feed/email/digest_subject.txt", "feed/email/digest.txt", "feed/email/digest.html")
# One work's lines, rendered once per chunk of users and reused in each digest that lists it.
_WORK_TEMPLATES = ("feed/email/_work.txt", "feed/email/_work.html")


@cache
def _templates() -> tuple[Any, ...]:
    engine = engines["jinja2"]
    return tuple(engine.get_template(name) for name in _TEMPLATES)


@cache
def _work_templates() -> tuple[Any, ...]:
    engine = engines["jinja2"]
    return tuple(engine.get_template(name) for name in _WORK_TEMPLATES)


def _names(names: list[str]) -> str:
    """Names joined as "A", "A and B", "A, B and C"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


@cache
def _feed_path() -> str:
    return reverse("feed:feed")


@cache
def _work_path_parts() -> tuple[str, str]:
    """The work page's path around its id, resolved once (the URLconf does not change while
    the process runs): reverse() per listed work was a tenth of a digest's Python time."""
    marker = "987654321"
    head, tail = reverse("publications:work-detail", args=[int(marker)]).split(marker)
    return head, tail


class DigestListing:
    """What the email shows of each work (its lines of text and of HTML), rendered once per
    chunk of users: a week's works recur across many digests, and rendering them was most of a
    digest's Python time. Only "because" is each user's own."""

    def __init__(self) -> None:
        self._by_work: dict[int, dict[str, Any]] = {}

    def item(self, item: FeedItem) -> dict[str, Any]:
        shown = self._by_work.get(item.pk)
        if shown is None:
            shown = self._by_work[item.pk] = _rendered(item)
        because = [name for _kind, _key, name in item.reasons]
        return {**shown, "because": _names(because) if because else ""}


def _rendered(item: FeedItem) -> dict[str, Any]:
    lines = _listed(item)
    text, html = (template.render(lines) for template in _work_templates())
    # The HTML lines come escaped from an autoescaping template: mark them safe for the digest.
    return {"url": lines["url"], "text": text.rstrip("\n"), "html": Markup(html.rstrip("\n"))}  # noqa: S704


def _listed(item: FeedItem) -> dict[str, Any]:
    authors = [author["name"] or author["raw_name"] for author in item.listed_authors]
    byline = ", ".join(name for name in authors if name)
    if item.authors_count > len(authors):
        byline = f"{byline} et al." if byline else "et al."
    published = item.publication_date or item.publication_year
    head, tail = _work_path_parts()
    return {
        "title": item.title,
        "url": absolute_url(f"{head}{item.pk}{tail}"),
        "byline": byline,
        "venue": item.source_short_name or "",
        "published": str(published) if published else "",
    }


def digest_email_build(
    *,
    user: User,
    period: str,
    window: FeedWindow,
    works: Mapping[int, tuple[Any, ...]],
    listing: DigestListing | None = None,
) -> EmailMultiAlternatives | None:
    """The user's digest of `window`, unsent; `works` are the works' columns
    (feed.selectors.feed_works_listed). None when none of its works exists any more."""
    items = feed_window_items(window, works)
    if not items:
        return None
    listing = listing or DigestListing()
    feed_url = absolute_url(_feed_path())
    context = {
        "display_name": user.display_name,
        "period": period,
        "items": [listing.item(item) for item in items],
        "total": window.total,
        "more": window.total - len(items),
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
