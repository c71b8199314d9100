"""A message's text as markup (collaboration.markup.message_html): everything escaped, web
addresses linked with rel="nofollow noopener", sentence punctuation left outside the link;
the time element the conversation and the inbox show; object_url, reverse() without its cost."""

from __future__ import annotations

import datetime
import zoneinfo

import pytest
from django.urls import reverse, set_script_prefix
from django.utils import timezone

from collaboration.markup import PageMarkup, message_html, object_url, time_html


def _link(href: str, text: str | None = None) -> str:
    return f'<a href="{href}" rel="nofollow noopener">{text or href}</a>'


def test_plain_text_is_escaped():
    assert message_html("<b>bold</b> & 'quoted' \"too\"") == (
        "&lt;b&gt;bold&lt;/b&gt; &amp; &#x27;quoted&#x27; &quot;too&quot;"
    )


def test_an_address_becomes_a_link_with_its_ampersands_escaped():
    assert message_html("see https://example.org/p?x=1&y=2 now") == (
        "see " + _link("https://example.org/p?x=1&amp;y=2") + " now"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("end https://example.org/a.", "end " + _link("https://example.org/a") + "."),
        ("(https://example.org/a)", "(" + _link("https://example.org/a") + ")"),
        (
            "https://en.wikipedia.org/wiki/Set_(mathematics)!",
            _link("https://en.wikipedia.org/wiki/Set_(mathematics)") + "!",
        ),
        ("www.example.org, then", _link("https://www.example.org", "www.example.org") + ", then"),
        ("HTTP://EXAMPLE.ORG", _link("HTTP://EXAMPLE.ORG")),
    ],
)
def test_sentence_punctuation_stays_outside_the_link(text, expected):
    assert message_html(text) == expected


def test_a_quote_or_bracket_ends_an_address_so_no_attribute_can_be_injected():
    html = message_html('https://example.org/"onmouseover="alert(1)<script>')

    assert html == (
        _link("https://example.org/") + "&quot;onmouseover=&quot;alert(1)&lt;script&gt;"
    )


def test_other_schemes_and_bare_prefixes_are_not_linked():
    assert message_html("javascript:alert(1) http:// www. ftp://x.org") == (
        "javascript:alert(1) http:// www. ftp://x.org"
    )


def test_empty_text_is_empty_markup():
    assert message_html("") == "" and message_html(None) == ""  # type: ignore[arg-type]


def test_the_time_element_is_in_the_active_time_zone():
    moment = datetime.datetime(2026, 3, 4, 23, 30, tzinfo=datetime.UTC)

    with timezone.override(zoneinfo.ZoneInfo("Europe/Paris")):
        html = time_html(moment)

    assert (
        html == '<time class="muted" datetime="2026-03-05T00:30:00+01:00">5 Mar 2026 00:30</time>'
    )
    with timezone.override(datetime.UTC):
        assert time_html(moment, clock=False).endswith(">4 Mar 2026</time>")
    assert time_html(None) == ""


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("collaboration:message-delete", 7),
        ("collaboration:conversation", 123456),
        ("researcher-profile", "ada-lovelace-1"),
    ],
)
def test_object_url_is_what_reverse_says(name, key):
    assert object_url(name, key) == reverse(name, args=[key])


def test_object_url_follows_the_script_prefix():
    try:
        set_script_prefix("/mounted/")
        assert object_url("collaboration:conversation", 5) == "/mounted/inbox/conversations/5/"
    finally:
        set_script_prefix("/")
    assert object_url("collaboration:conversation", 5) == "/inbox/conversations/5/"


def test_page_markup_reads_the_prefix_and_zone_once_and_agrees_with_the_helpers():
    moment = datetime.datetime(2026, 3, 4, 23, 30, tzinfo=datetime.UTC)
    with timezone.override(zoneinfo.ZoneInfo("Asia/Tokyo")):
        page = PageMarkup()
        expected = time_html(moment, clock=False)
    # Made under Tokyo time, it keeps writing Tokyo time.
    assert page.time(moment, clock=False) == expected
    assert ">5 Mar 2026</time>" in expected
    assert page.url("collaboration:conversation", 9) == reverse(
        "collaboration:conversation", args=[9]
    )
