"""The digest email: subject, text and HTML from Jinja2 templates (templates/jinja2/feed/email/),
with notifications' List-Id and one-click unsubscribe headers and footers (category DIGEST).

A digest run builds one email per user, 200,000 of them on the issue's benchmark, from a few
thousand works: what the email shows of each work (its lines of text and of HTML) is rendered
once per process and content (kept across the chunks it sends), and so is each distinct
"because you follow ..."; a user's email joins those lines (DigestListing) inside the digest
templates. Jinja2 rather than Django's
templates: Django's template language costs several times more per render.

The message is notifications.services.emails.optional_email_build's (the same headers, footers
and parts; tests/feed/test_digest_email.py holds the two side by side), assembled with its
footers rendered once per chunk, and it serializes itself without the email package's generator
(DigestEmail.message): for a digest that generator, folding headers and writing the bodies line
by line, cost more than everything else the email needs.
"""

from __future__ import annotations

import email.message
import re
import secrets
from collections.abc import Mapping
from email.header import Header
from email.utils import formatdate, make_msgid
from functools import cache, lru_cache
from typing import Any

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.core.mail.message import RFC5322_EMAIL_LINE_LENGTH_LIMIT, sanitize_address
from django.core.mail.utils import DNS_NAME
from django.template import engines
from django.template.loader import render_to_string
from django.urls import reverse
from markupsafe import Markup, escape

from bzpeer.users.models import User
from feed.selectors import DigestEntry, DigestWindows, DigestWork
from notifications.kinds import NotificationCategory, category_label
from notifications.services.emails import absolute_url, list_id, unsubscribe_url

_TEMPLATES = ("feed/email/digest_subject.txt", "feed/email/digest.txt", "feed/email/digest.html")
# One work's item, rendered once per chunk of users around a marker where each user's "because"
# line goes, and the "because" lines, rendered once per distinct set of names in the chunk.
_ITEM_TEMPLATES = ("feed/email/_item.txt", "feed/email/_item.html")
_BECAUSE_TEMPLATES = ("feed/email/_because.txt", "feed/email/_because.html")
_BECAUSE_MARKER = "\x00because\x00"


class _DigestTemplate:
    """A digest template rendered straight by Jinja2 with a context that is not merged with the
    environment's globals (Template.new_context(shared=True)): the digest templates use filters
    and no globals (url, static, ...), and a run renders two per user, so the copy of every
    global into each render's context was a tenth of a digest's Python time."""

    def __init__(self, name: str) -> None:
        self._template = engines["jinja2"].get_template(name).template  # type: ignore[attr-defined]

    def render(self, context: dict[str, Any]) -> str:
        template = self._template
        return str(
            template.environment.concat(
                template.root_render_func(template.new_context(context, shared=True))
            )
        )


@cache
def _templates() -> tuple[_DigestTemplate, ...]:
    return tuple(_DigestTemplate(name) for name in _TEMPLATES)


@cache
def _item_templates() -> tuple[_DigestTemplate, ...]:
    return tuple(_DigestTemplate(name) for name in _ITEM_TEMPLATES)


@cache
def _because_templates() -> tuple[_DigestTemplate, ...]:
    return tuple(_DigestTemplate(name) for name in _BECAUSE_TEMPLATES)


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
    """The items of the emails of one chunk of users. Each work's item (text and HTML) is
    rendered once, in two halves around where the "because" line goes, and each distinct
    "because" line once: a week's works recur across many digests, and so do the few
    researchers most people follow. A user's items are these pieces joined."""

    def __init__(self, *, windows: DigestWindows, works: Mapping[int, DigestWork]) -> None:
        self._windows = windows
        self._works = works
        # work id -> (text head, text tail, HTML head, HTML tail); None: the work is gone.
        self._items: dict[int, tuple[str, str, str, str] | None] = {}
        self._because: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[str, str]] = {}
        self._subjects: dict[tuple[str, int], str] = {}
        # id(entry) -> (the entry, its text and HTML item; None: the work is gone). By identity:
        # digest_windows makes each distinct entry once and shares it, and hashing its nested
        # tuples for every item of every email was a fifth of the email's build. The entry is
        # kept with its item, so its id cannot be reused by another while the listing lives.
        self._pieces: dict[int, tuple[DigestEntry, tuple[str, str] | None]] = {}

    def subject(self, *, period: str, total: int) -> str:
        """The subject, which names only the count (and may name the period): once per count."""
        subject = self._subjects.get((period, total))
        if subject is None:
            subject_template = _templates()[0]
            rendered = subject_template.render({"period": period, "total": total})
            # A header cannot hold a line break.
            subject = self._subjects[period, total] = " ".join(rendered.split())
        return subject

    def items(self, entries: list[DigestEntry]) -> tuple[int, str, Markup]:
        """How many of the entries are listed (a work deleted since the window was read is
        left out), and their items as text and as HTML, in order."""
        listed: list[tuple[str, str]] = []
        pieces = self._pieces
        for entry in entries:
            known = pieces.get(id(entry))
            if known is None or known[0] is not entry:
                known = pieces[id(entry)] = (entry, self._piece(entry))
            if known[1] is not None:
                listed.append(known[1])
        text = "".join([piece[0] for piece in listed])
        # The pieces come from autoescaping templates (the HTML ones escaped there).
        return len(listed), text, Markup("".join([piece[1] for piece in listed]))  # noqa: S704

    def _piece(self, entry: DigestEntry) -> tuple[str, str] | None:
        """An entry's item, text and HTML, with its "because" line; None if the work is gone.
        Once per distinct entry of the chunk (a work and what brought it)."""
        if entry.work_id not in self._items:
            work = self._works.get(entry.work_id)
            self._items[entry.work_id] = _item_halves(work) if work else None
        item = self._items[entry.work_id]
        if item is None:
            return None
        because_text, because_html = self._because_lines(entry)
        text_head, text_tail, html_head, html_tail = item
        return (
            f"{text_head}{because_text}{text_tail}",
            f"{html_head}{because_html}{html_tail}",
        )

    def _because_lines(self, entry: DigestEntry) -> tuple[str, str]:
        key = (entry.because_researcher_ids, entry.because_topic_ids)
        lines = self._because.get(key)
        if lines is None:
            # Researchers first, each kind by name then id, as on the feed page.
            # A set: the ids come once per authorship (a researcher twice on a byline twice).
            researchers = sorted(
                (self._windows.researchers[pk][1], pk)
                for pk in set(entry.because_researcher_ids)
                if pk in self._windows.researchers
            )
            topics = sorted(
                (self._windows.topics[pk], pk)
                for pk in set(entry.because_topic_ids)
                if pk in self._windows.topics
            )
            names = [name for name, _pk in researchers] + [name for name, _pk in topics]
            lines = self._because[key] = _because_lines_of(_names(names)) if names else ("", "")
        return lines


# Across the chunks a process sends (most are the same few thousand works and the same few
# researchers every chunk), keyed by what they show: a work whose title changed is another key.
_ACROSS_CHUNKS = 20_000


@lru_cache(maxsize=_ACROSS_CHUNKS)
def _because_lines_of(because: str) -> tuple[str, str]:
    """The "because" line of these names, as text and as HTML."""
    text_head, text_tail, html_head, html_tail = _because_halves()
    return f"{text_head}{because}{text_tail}", f"{html_head}{escape(because)}{html_tail}"


@cache
def _because_halves() -> tuple[str, str, str, str]:
    """The "because" line's templates, rendered once around where the names go (escaped for
    the HTML one, as its autoescaping would)."""
    context = {"because": Markup(_BECAUSE_MARKER)}  # noqa: S704
    text, html = (template.render(context) for template in _because_templates())
    text_head, text_tail = text.split(_BECAUSE_MARKER)
    html_head, html_tail = html.split(_BECAUSE_MARKER)
    return text_head, text_tail, html_head, html_tail


def _item_halves(work: DigestWork) -> tuple[str, str, str, str]:
    return _item_halves_at(settings.SITE_URL, work)


@lru_cache(maxsize=_ACROSS_CHUNKS)
def _item_halves_at(site_url: str, work: DigestWork) -> tuple[str, str, str, str]:
    """A work's item (text, HTML) around its "because" line, for links to `site_url`."""
    head, tail = _work_path_parts()
    context = {
        "title": work.title,
        "url": f"{site_url.rstrip('/')}{head}{work.pk}{tail}",
        "byline": work.byline,
        "venue": work.venue,
        "published": work.published,
        "because_line": Markup(_BECAUSE_MARKER),  # noqa: S704
    }
    text, html = (template.render(context) for template in _item_templates())
    text_head, text_tail = text.split(_BECAUSE_MARKER)
    html_head, html_tail = html.split(_BECAUSE_MARKER)
    return text_head, text_tail, html_head, html_tail


# Stands for the user's unsubscribe URL in the footers rendered once per chunk (it survives HTML
# escaping unchanged).
_UNSUBSCRIBE_PLACEHOLDER = "bzpeer-unsubscribe-url-of-the-recipient"
_CATEGORY = NotificationCategory.DIGEST
_BODY_CLOSE = re.compile("</body>", re.IGNORECASE)
# Header(...).encode() folds nothing shorter than its 76-character lines less the name.
_SHORT_HEADER = 60
_PLAIN_ADDRESS = re.compile(r"[A-Za-z0-9._%+-]+@[a-z0-9-]+(\.[a-z0-9-]+)*")


class DigestFooters:
    """notifications' unsubscribe footers (templates/notifications/email/_unsubscribe.*) of the
    digest, rendered once; each email puts its own unsubscribe URL in."""

    def __init__(self) -> None:
        context = {
            "unsubscribe_url": _UNSUBSCRIBE_PLACEHOLDER,
            "category_label": category_label(_CATEGORY),
            "preferences_url": absolute_url(reverse("notifications:preferences")),
        }
        self.text = render_to_string("notifications/email/_unsubscribe.txt", context)
        self.html = render_to_string("notifications/email/_unsubscribe.html", context)

    def bodies(self, *, text_body: str, html_body: str, url: str) -> tuple[str, str]:
        """The bodies with the footers, as optional_email_build assembles them."""
        text_footer = self.text.replace(_UNSUBSCRIBE_PLACEHOLDER, url)
        html_footer = self.html.replace(_UNSUBSCRIBE_PLACEHOLDER, str(escape(url)))
        text = f"{text_body.rstrip()}\n\n{text_footer}"
        # The last </body>, in any case (as html_body.lower().rfind would find it, without
        # lowering a whole digest): the last in lower case, unless another case follows it
        # (one cannot overlap it, "<" being in it once), searched for only after it.
        closing = html_body.rfind("</body>")
        start = closing + len("</body>") if closing != -1 else 0
        for match in _BODY_CLOSE.finditer(html_body, start):
            closing = match.start()
        if closing == -1:
            return text, f"{html_body}{html_footer}"
        return text, f"{html_body[:closing]}{html_footer}{html_body[closing:]}"


class _SerializedMessage(email.message.Message):
    """A MIME message whose bytes are already written: what mail backends ask of a message
    (as_bytes, as_string, the headers) without the email package's generator."""

    def __init__(self, headers: list[tuple[str, str]], parts: list[str], encoded: bytes) -> None:
        super().__init__()
        for name, value in headers:
            self[name] = value
        # The message's text in pieces and its bytes, both with "\n" line endings: a backend
        # asks for the bytes (SMTP with "\r\n"), the text is joined only when asked for.
        self._parts = parts
        self._encoded = encoded

    def as_string(self, unixfrom: bool = False, maxheaderlen: int = 0, policy: Any = None,
                  linesep: str = "\n") -> str:  # fmt: skip
        serialized = "".join(self._parts)
        return serialized if linesep == "\n" else serialized.replace("\n", linesep)

    def as_bytes(self, unixfrom: bool = False, policy: Any = None, linesep: str = "\n") -> bytes:
        # As the text's encoding (UTF-8, surrogateescape): no other character encodes to "\n".
        if linesep == "\n":
            return self._encoded
        return self._encoded.replace(b"\n", linesep.encode("utf-8", errors="surrogateescape"))

    def __str__(self) -> str:
        return self.as_string()

    def __bytes__(self) -> bytes:
        return self.as_bytes()


class DigestEmail(EmailMultiAlternatives):
    """A digest: a text body and one HTML alternative, ASCII header names and values but the
    subject's and recipient's (encoded as Django encodes them). message() writes what Django's
    message() and the email package's generator would: multipart/alternative, both parts in
    UTF-8, 7bit or 8bit. A body with a line too long for 8bit (RFC 5322's 998 octets), or any other
    shape, goes through Django's own message()."""

    def message(self) -> email.message.Message:
        if self.attachments or self.cc or self.reply_to or len(self.alternatives) != 1:
            return super().message()
        html, mimetype = self.alternatives[0]
        body, subject = self.body, self.subject
        if (
            mimetype != "text/html"
            or not isinstance(html, str)
            or not isinstance(body, str)
            or not isinstance(subject, str)
        ):
            return super().message()
        # Each body's lines as written, encoded once: for the test of long lines and the bytes.
        text_lines, html_lines = _lines(body), _lines(html)
        text_bytes = text_lines.encode(errors="surrogateescape")
        html_bytes = html_lines.encode(errors="surrogateescape")
        if _has_long_lines(body, text_bytes) or _has_long_lines(html, html_bytes):
            return super().message()
        headers = [
            ("Subject", _subject_header(subject)),
            ("From", self.extra_headers.get("From", self.from_email)),
            ("To", ", ".join(_address_header(address) for address in self.to)),
            ("Date", formatdate(localtime=settings.EMAIL_USE_LOCALTIME)),
            ("Message-ID", make_msgid(domain=DNS_NAME)),
            *(
                (name, value)
                for name, value in self.extra_headers.items()
                if name.lower() not in {"from", "to", "cc", "reply-to", "date", "message-id"}
            ),
        ]
        if any(not value.isascii() or "\n" in value or "\r" in value for _, value in headers):
            return super().message()
        # As the generator's boundaries, but random enough never to occur in a body.
        boundary = f"==============={secrets.token_hex(12)}=="
        head = "".join(
            [
                f'Content-Type: multipart/alternative;\n boundary="{boundary}"\n',
                "MIME-Version: 1.0\n",
                *(f"{name}: {value}\n" for name, value in headers),
                f"\n--{boundary}\n",
                _part_head("plain", body),
            ]
        )
        between = f"\n--{boundary}\n{_part_head('html', html)}"
        end = f"\n--{boundary}--\n"
        return _SerializedMessage(
            [
                ("Content-Type", f'multipart/alternative; boundary="{boundary}"'),
                ("MIME-Version", "1.0"),
                *headers,
            ],
            [head, text_lines, between, html_lines, end],
            # The headers and boundaries are ASCII (checked above).
            b"".join([head.encode(), text_bytes, between.encode(), html_bytes, end.encode()]),
        )


def _subject_header(subject: str) -> str:
    """The Subject as Django writes it (Header(...).encode(), which leaves a short ASCII
    subject as it is)."""
    if subject.isascii() and len(subject) <= _SHORT_HEADER:
        return subject
    return Header(subject, None if subject.isascii() else "utf-8").encode()


def _address_header(address: str) -> str:
    """An address as Django writes it (sanitize_address, which leaves a plain ASCII address
    as it is)."""
    if _PLAIN_ADDRESS.fullmatch(address):
        return address
    return sanitize_address(address, "utf-8")


def _part_head(subtype: str, body: str) -> str:
    """A text part's headers in UTF-8 as the email package writes them: 7bit when the body is
    ASCII. The body's lines (_lines) follow."""
    encoding = "7bit" if body.isascii() else "8bit"
    return (
        f'Content-Type: text/{subtype}; charset="utf-8"\nMIME-Version: 1.0\n'
        f"Content-Transfer-Encoding: {encoding}\n\n"
    )


def _lines(body: str) -> str:
    """A body's lines as the generator writes them (only CR, LF and CRLF end a line), each
    with one line ending, the last too."""
    if "\r" in body:
        body = body.replace("\r\n", "\n").replace("\r", "\n")
    return body if not body or body.endswith("\n") else f"{body}\n"


# A line longer than the limit holds a whole block of this many bytes aligned on a multiple of
# it (a run of LIMIT + 1 bytes starting at a holds the block starting at the first multiple of
# the size at or after a, which ends before a + LIMIT + 1).
_LINE_BLOCK = (RFC5322_EMAIL_LINE_LENGTH_LIMIT + 1) // 2


def _has_long_lines(body: str, encoded_lines: bytes) -> bool:
    """Django's test for quoted-printable: a line (str.splitlines) longer than RFC 5322's limit
    in UTF-8. `encoded_lines`: the body's lines as written (_lines), encoded; their own lines
    (ended by CR or LF only, the same as the body's) are never shorter than Django's, so when
    none of them is too long, neither is any of Django's: when each aligned block holds a line
    ending (a few dozen searches of a digest's bytes, where splitting them into lines cost
    more than the rest of its message). Otherwise Django's own test."""
    for start in range(0, len(encoded_lines) - _LINE_BLOCK + 1, _LINE_BLOCK):
        end = start + _LINE_BLOCK
        if encoded_lines.find(b"\n", start, end) == -1 and (
            encoded_lines.find(b"\r", start, end) == -1
        ):
            break
    else:
        return False
    return any(
        len(line.encode(errors="surrogateescape")) > RFC5322_EMAIL_LINE_LENGTH_LIMIT
        for line in body.splitlines()
    )


def digest_email_build(
    *,
    user: User,
    period: str,
    entries: list[DigestEntry],
    total: int,
    listing: DigestListing,
    footers: DigestFooters,
) -> DigestEmail | None:
    """The user's digest of these entries (the newest of a window of `total` works), unsent.
    None when none of its works exists any more."""
    listed, items_text, items_html = listing.items(entries)
    if not listed:
        return None
    feed_url = absolute_url(_feed_path())
    shared = {
        "display_name": user.display_name,
        "period": period,
        "total": total,
        "more": total - listed,
        "feed_url": feed_url,
    }
    _, text_template, html_template = _templates()
    text_body = text_template.render({**shared, "items": items_text})
    html_body = html_template.render({**shared, "items": items_html})
    url = unsubscribe_url(user=user, category=_CATEGORY)
    text, html = footers.bodies(text_body=text_body, html_body=html_body, url=url)
    message = DigestEmail(
        subject=listing.subject(period=period, total=total),
        body=text,
        to=[user.email],
        headers={
            "List-Id": list_id(_CATEGORY),
            "List-Unsubscribe": f"<{url}>",
            "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
        },
    )
    message.attach_alternative(html, "text/html")
    return message
