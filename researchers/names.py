"""Name normalisation shared by the importers (which store it) and search (which queries it)."""

from __future__ import annotations

import re

from unidecode import unidecode

_NOT_WORD = re.compile(r"[^a-z0-9]+")


def normalize_name(name: str) -> str:
    """Lower-case ASCII form of a name: accents folded, punctuation and extra spaces gone.

    "Zhízhen  ZHONG" and "zhizhen zhong" both become "zhizhen zhong", which is what the
    trigram index is built on.
    """
    return _NOT_WORD.sub(" ", unidecode(name or "").lower()).strip()
