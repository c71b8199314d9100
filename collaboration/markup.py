"""Collaboration's markup made in Python: the header's inbox link with its unread badge (one
markup for both page shells, Django's base.html through a template tag and Jinja2's through a
global, and for the polling endpoint), a message's text with its links, and a time element.

A conversation page shows 200 messages: what is done here per message is done once in
Python with no template machinery (Django's urlize and date filter cost about half a
millisecond a message between them; these a few microseconds).

The badge is rendered for signed-in users only, on every page they see: from the cache
(selectors.inbox_badge_count), forgotten by every write that changes it; on a miss one cheap
query reads the user's participant rows through a partial index.
"""

from __future__ import annotations

import datetime
import functools
import re
from html import escape

from django.template.loader import render_to_string
from django.urls import get_script_prefix, reverse
from django.utils import timezone
from django.utils.safestring import SafeString, mark_safe

from bzpeer.users.models import User

from .selectors import inbox_badge_count

# Stand-ins reversed once per URL name: the real key is put in their place (see object_url).
_ID_STAND_IN = 987654321987654321
_SLUG_STAND_IN = "slug-stand-in-3f9c1a"


@functools.cache
def _url_around_key(name: str, script_prefix: str, *, slug: bool) -> tuple[str, str]:
    # script_prefix is part of the key because reverse() starts every URL with it.
    stand_in = _SLUG_STAND_IN if slug else str(_ID_STAND_IN)
    before, found, after = reverse(name, args=[stand_in]).partition(stand_in)
    if not found:
        raise ValueError(f"URL {name!r} does not take its key as one path segment")
    return before, after


def object_url(name: str, key: int | str, *, script_prefix: str | None = None) -> str:
    """reverse(name, args=[key]) for a URL whose one argument is an id or a slug, at the cost
    of a string join: a page of 200 messages or 100 invitations would otherwise spend more
    time in reverse() than in everything else it does. Ids are made int and slugs must be
    slugs (the URL patterns only match those), so no quoting is needed."""
    prefix = get_script_prefix() if script_prefix is None else script_prefix
    if isinstance(key, int):
        before, after = _url_around_key(name, prefix, slug=False)
        return f"{before}{int(key)}{after}"
    if not _SLUG.fullmatch(key):
        return reverse(name, args=[key])  # not a plain slug: let reverse() quote it
    before, after = _url_around_key(name, prefix, slug=True)
    return f"{before}{key}{after}"


class PageMarkup:
    """object_url and time_html for the rows of one page, with the script prefix and the
    active time zone read once: each read is a context-local lookup, and a page of 200
    messages would make hundreds. Made per render (page_markup() in the templates)."""

    def __init__(self) -> None:
        self._script_prefix = get_script_prefix()
        self._zone = timezone.get_current_timezone()

    def url(self, name: str, key: int | str) -> str:
        return object_url(name, key, script_prefix=self._script_prefix)

    def time(
        self, moment: datetime.datetime | None, *, clock: bool = True, css_class: str = "muted"
    ) -> SafeString:
        return time_html(moment, clock=clock, css_class=css_class, zone=self._zone)


_SLUG = re.compile(r"[-a-zA-Z0-9_]+")


def inbox_badge(user: User) -> SafeString:
    count = inbox_badge_count(user)
    # render_to_string escapes what it renders; the result is markup.
    return mark_safe(  # noqa: S308
        render_to_string(
            "collaboration/_inbox_badge.html", {"count": count, "shown": min(count, 99)}
        )
    )


# A web address: scheme or "www." up to whitespace, a quote or an angle bracket (none of which
# may stand unescaped in an address); trailing punctuation is trimmed by _trim_address.
_ADDRESS = re.compile(r"\b(?:https?://|www\.)[^\s<>\"'`]+", re.IGNORECASE)
_TRAILING = ".,:;!?*_~"
_CLOSING = {")": "(", "]": "["}
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _trim_address(address: str) -> str:
    """Without the punctuation that ends the sentence around it: "see https://x.org/a." or
    "(https://x.org/a)" link https://x.org/a; a bracket the address opened itself stays."""
    while address:
        last = address[-1]
        if last in _TRAILING:
            address = address[:-1]
        elif last in _CLOSING and address.count(last) > address.count(_CLOSING[last]):
            address = address[:-1]
        else:
            break
    return address


def message_html(text: str) -> SafeString:
    """Plain text (a message, an invitation's purpose) as markup: everything escaped, web
    addresses (http://, https://, www.) made links that neither pass on ranking nor get a
    handle on this page (rel="nofollow noopener"). The address is matched on the raw text
    and each piece escaped on its own, so no escaped entity can end up inside a link."""
    text = text or ""
    pieces: list[str] = []
    position = 0
    for match in _ADDRESS.finditer(text):
        address = _trim_address(match.group(0))
        if "." not in address.split("//", 1)[-1]:
            continue  # "http://" alone or "www." alone: not an address
        start = match.start()
        pieces.append(escape(text[position:start]))
        href = address if "://" in address[:8] else "https://" + address
        pieces.append(f'<a href="{escape(href)}" rel="nofollow noopener">{escape(address)}</a>')
        position = start + len(address)
    pieces.append(escape(text[position:]))
    # SafeString, not mark_safe(): the same for a str, without its lazy-argument check,
    # which cost more than the rest of this function (200 calls a page).
    return SafeString("".join(pieces))  # every piece of the text is escaped above


def time_html(
    moment: datetime.datetime | None,
    *,
    clock: bool = True,
    css_class: str = "muted",
    zone: datetime.tzinfo | None = None,
) -> SafeString:
    """<time class="muted" datetime="ISO 8601">25 Nov 2026 21:46</time> in `zone` (the active
    time zone by default), as Django's date filter with "c" and "j M Y H:i" (or "j M Y"
    without the clock) would write it."""
    if moment is None:
        return SafeString("")
    if moment.tzinfo is None:  # naive: shown as it is (USE_TZ keeps none in the database)
        local = moment
    else:
        local = moment.astimezone(zone or timezone.get_current_timezone())
    label = f"{local.day} {_MONTHS[local.month - 1]} {local.year}"
    if clock:
        label += f" {local.hour:02d}:{local.minute:02d}"
    # Digits, a month name, an ISO date and our own class (SafeString as in message_html).
    return SafeString(
        f'<time class="{escape(css_class)}" datetime="{local.isoformat()}">{label}</time>'
    )
