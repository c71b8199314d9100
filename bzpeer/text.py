"""Text people type, as others will see it: one rule for forms and the API.

Browsers send a textarea's line breaks as CRLF; a person counts one. Bidirectional controls
(U+202E RIGHT-TO-LEFT OVERRIDE and its kin) reorder what others see, so a name or a link can
read backwards: they are removed. Zero-width and other format characters (U+200B, U+2060,
U+FEFF...) show nothing, so they never count towards a minimum: a text made only of them is
empty to the eye and is treated as empty.
"""

from __future__ import annotations

import re
import unicodedata

_LINE_BREAKS = re.compile(r"\r\n?")
# Embeddings, overrides and isolates, and the marks that steer them.
_BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def typed_text(value: str) -> str:
    """The text as stored: line breaks as LF, bidirectional controls removed, and what is
    blank to the eye at either end (spaces, zero-width characters) stripped."""
    value = _BIDI_CONTROLS.sub("", _LINE_BREAKS.sub("\n", value))
    start, end = 0, len(value)
    while start < end and _blank(value[start]):
        start += 1
    while end > start and _blank(value[end - 1]):
        end -= 1
    return value[start:end]


def visible_length(value: str) -> int:
    """The characters a person sees: not spaces, not format characters (zero-width ones)."""
    return sum(1 for character in value if not _blank(character))


def _blank(character: str) -> bool:
    return character.isspace() or unicodedata.category(character) == "Cf"
