"""Highlighted text for search results: ts_headline's marks turned into <mark> tags.

ts_headline wraps matches in two private-use characters, which are removed from the text first
(the SQL passes it through translate()); everything else is escaped and only then do the marks
become <mark> tags. Titles and abstracts come from outside, so no markup of theirs may survive.
"""

from __future__ import annotations

import re

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

HIGHLIGHT_START = "\ue000"
HIGHLIGHT_STOP = "\ue001"


def highlighted_html(headline: str) -> SafeString:
    """Escaped text with the ts_headline marks turned into <mark>…</mark>, always balanced."""
    parts: list[str] = []
    marking = False
    for character_run in _split_marks(headline):
        if character_run == HIGHLIGHT_START:
            if not marking:
                parts.append("<mark>")
                marking = True
        elif character_run == HIGHLIGHT_STOP:
            if marking:
                parts.append("</mark>")
                marking = False
        else:
            parts.append(escape(character_run))
    if marking:
        parts.append("</mark>")
    return mark_safe("".join(parts))  # noqa: S308 - every piece of text above is escaped


# A run of text or a single mark, in order: splitting with a group keeps the marks.
_MARK_SPLIT = re.compile(f"([{HIGHLIGHT_START}{HIGHLIGHT_STOP}])")


def _split_marks(text: str) -> list[str]:
    # One regular expression rather than a loop over characters: a page holds forty headlines
    # of up to a few hundred characters each.
    return [piece for piece in _MARK_SPLIT.split(text) if piece]
