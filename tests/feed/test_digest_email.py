"""The digest's message (feed.services.digest_emails): the same email as notifications'
optional_email_build would make of the same bodies, and the same MIME as Django's own message()
would write, though it is serialized without the email package's generator."""

from __future__ import annotations

import email
import email.policy

import pytest
from django.core.mail import EmailMultiAlternatives

from feed.services.digest_emails import DigestEmail, DigestFooters
from notifications.kinds import NotificationCategory
from notifications.services.emails import list_id, optional_email_build, unsubscribe_url

from .digest_support import SITE, member

pytestmark = pytest.mark.django_db

TEXT = "Hello Gödel,\n\n* On formally undecidable propositions\n  Kurt Gödel - 1931\n"
HTML = (
    "<!doctype html>\n<html><body><p>Hello Gödel,</p>\n"
    "<ul><li>On formally &lt;undecidable&gt; propositions</li></ul>\n</body>\n</html>\n"
)


@pytest.fixture(autouse=True)
def https_site(settings):
    settings.SITE_URL = SITE


def _both(subject: str, text: str, html: str, to: str, **headers: str):
    """The same email as a DigestEmail and as Django's EmailMultiAlternatives."""
    made = []
    for kind in (DigestEmail, EmailMultiAlternatives):
        message = kind(subject=subject, body=text, to=[to], headers=dict(headers))
        message.attach_alternative(html, "text/html")
        made.append(message)
    return made


def _parsed(message, linesep: str = "\n"):
    return email.message_from_bytes(
        message.message().as_bytes(linesep=linesep), policy=email.policy.default
    )


def _shape(parsed) -> dict:
    """What a mail client reads of a message: its headers (but the ones made per send) and
    each part's type, encoding and decoded content."""
    varying = {"date", "message-id", "content-type"}
    return {
        "headers": [
            (name, str(value)) for name, value in parsed.items() if name.lower() not in varying
        ],
        "type": parsed.get_content_type(),
        "parts": [
            (
                part.get_content_type(),
                part.get_content_charset(),
                part["Content-Transfer-Encoding"],
                part.get_content(),
            )
            for part in parsed.iter_parts()
        ],
    }


@pytest.mark.parametrize(
    ("subject", "to"),
    [
        ("[bzpeer] 50 new works from what you follow", "alice@example.org"),
        (
            "[bzpeer] Neue Arbeiten von Gödel und Noether, die Sie verfolgen, diese Woche",
            "alice@example.org",
        ),
        ("[bzpeer] 3 new works", "Ålice <alice@exämple.org>"),
        ("[bzpeer] 3 new works", "Alice.Liddell+digest@Example.ORG"),
    ],
)
def test_it_writes_the_mime_that_djangos_message_writes(subject, to):
    ours, djangos = _both(subject, TEXT, HTML, to, **{"List-Id": list_id("digest")})
    assert _shape(_parsed(ours)) == _shape(_parsed(djangos))
    assert _parsed(ours)["Date"] and _parsed(ours)["Message-ID"]


def test_a_line_too_long_for_8bit_goes_through_djangos_message():
    long_title = "Gödel " * 300
    ours, djangos = _both("[bzpeer] 1 new work", f"{TEXT}* {long_title}\n", HTML, "a@example.org")
    parsed = _parsed(ours)
    assert [part["Content-Transfer-Encoding"] for part in parsed.iter_parts()][0] == (
        "quoted-printable"
    )
    assert _shape(parsed) == _shape(_parsed(djangos))


def test_line_endings_are_the_backends_and_carriage_returns_in_a_body_end_lines():
    ours, djangos = _both("[bzpeer] 1 new work", "one\r\ntwo\rthree\n", HTML, "a@example.org")
    raw = ours.message().as_bytes(linesep="\r\n")
    assert b"\n" not in raw.replace(b"\r\n", b"")
    assert _shape(_parsed(ours, "\r\n")) == _shape(_parsed(djangos, "\r\n"))
    serialized = ours.message()
    assert serialized.as_string() == serialized.as_bytes().decode()


def test_it_is_the_email_optional_email_build_makes_of_the_same_bodies():
    user = member("alice", display_name="Alice Liddell")
    footers = DigestFooters()
    url = unsubscribe_url(user=user, category=NotificationCategory.DIGEST)
    text, html = footers.bodies(text_body=TEXT, html_body=HTML, url=url)
    theirs = optional_email_build(
        user=user,
        category=NotificationCategory.DIGEST,
        subject="[bzpeer] 1 new work",
        text_body=TEXT,
        html_body=HTML,
    )
    assert text == theirs.body
    assert html == theirs.alternatives[0][0]


@pytest.mark.parametrize("offset", [0, 1, 498, 499, 500, 997, 998, 1500])
@pytest.mark.parametrize(("character", "octets"), [("a", 998), ("a", 999), ("ö", 998), ("ö", 1000)])
def test_a_line_at_the_limit_of_8bit_is_encoded_as_djangos_message_encodes_it(
    offset, character, octets
):
    # Lines of 998 octets and of one more (UTF-8: "ö" is two), wherever they start, with short
    # lines around them: the long-line test searches the bytes in aligned blocks.
    before = "x\n" * (offset // 2) + "y" * (offset % 2) + "\n"
    line = character * (octets // len(character.encode()))
    ours, djangos = _both("[bzpeer] 1 new work", f"{before}{line}\nend\n", HTML, "a@example.org")
    parsed = _parsed(ours)
    encoding = [part["Content-Transfer-Encoding"] for part in parsed.iter_parts()][0]
    too_long = len(line.encode()) > 998
    assert encoding == ("quoted-printable" if too_long else "8bit" if line[0] == "ö" else "7bit")
    assert _shape(parsed) == _shape(_parsed(djangos))


def test_its_bytes_are_its_text_encoded_with_either_line_ending():
    ours, _djangos = _both("[bzpeer] 1 new work", TEXT, HTML, "a@example.org")
    serialized = ours.message()
    for linesep in ("\n", "\r\n"):
        assert (
            serialized.as_bytes(linesep=linesep) == serialized.as_string(linesep=linesep).encode()
        )


@pytest.mark.parametrize(
    "html",
    [
        HTML,
        "<html><BODY><p>Hi</p></BODY></html>",
        "<html><body><p>Hi</p></body><p>after</p></Body></html>",
        "<html><body><p>Hi</p></BODY><p>after</p></body></html>",
        "<p>no document</p>",
    ],
)
def test_the_footer_goes_before_the_last_closing_body_tag_in_any_case(html):
    user = member("alice")
    theirs = optional_email_build(
        user=user,
        category=NotificationCategory.DIGEST,
        subject="[bzpeer] 1 new work",
        text_body=TEXT,
        html_body=html,
    )
    # Its own unsubscribe URL (the token is signed with the second it was made in).
    url = theirs.extra_headers["List-Unsubscribe"].strip("<>")
    _text, ours = DigestFooters().bodies(text_body=TEXT, html_body=html, url=url)
    assert ours == theirs.alternatives[0][0]
