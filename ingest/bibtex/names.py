"""BibTeX name lists -> persons and organisations. Pure functions.

A list is split on "and" outside braces first (parse.split_names), on the raw LaTeX, so that
"{Council on Cardiopulmonary, Critical Care, Perioperative and Resuscitation}" stays one name;
each name is then read in BibTeX's three forms ("First von Last", "von Last, First",
"von Last, Jr, First") and only then decoded by pylatexenc, so a comma or a space produced by
a macro never splits a name. "others" (BibTeX's "et al.") is never an author, and a name
braced as a whole is an organisation: one name, no person behind it.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from ingest.dblp.names import split_homonym

from .parse import latex_to_text, split_names

# BibTeX writes a truncated list as "A and B and others"; "et al." is the same written out.
_NOT_AUTHORS = {"others", "et al", "et al.", "{others}"}
_WORD_BREAK = re.compile(r"[\s~]+")


@dataclass(frozen=True, slots=True)
class BibName:
    """One name of a list. corporate: braced as a whole (an organisation, a committee)."""

    raw_name: str  # decoded, as written ("Höpfner, Hagen")
    display_name: str  # given first ("Hagen Höpfner")
    given_name: str = ""
    family_name: str = ""
    corporate: bool = False
    # dblp's name with its homonym number ("Wei Wang 0001"): an identity key (dblp.names).
    dblp_name: str | None = None


def _split_outside_braces(value: str, separators: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in value:
        if char == "{":
            depth += 1
        elif char == "}":
            depth = max(depth - 1, 0)
        if depth == 0 and char in separators:
            parts.append("".join(current))
            current = []
            continue
        current.append(char)
    parts.append("".join(current))
    return [part.strip() for part in parts]


def _braced_as_a_whole(name: str) -> bool:
    """'{American Heart Association}' yes; '{\\"O}zt{\\"u}rk' and '{Bellet-Amalric}, E.' no."""
    if not (name.startswith("{") and name.endswith("}")) or name.startswith("{\\"):
        return False
    depth = 0
    for index, char in enumerate(name):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0 and index != len(name) - 1:
                return False
    return True


def _starts_lower_case(word: str) -> bool:
    """BibTeX's 'von' test: the first letter at brace depth 0 is lower case. A word starting
    with a plain brace group ('{Bellet-Amalric}') is protected, so never a 'von' word; a special
    character ('{\\'e}', '\\"O') counts as its letter."""
    if word.startswith("{") and not word.startswith("{\\"):
        return False
    for char in latex_to_text(word):
        if char.isalpha():
            return char.islower()
    return False


def _words(part: str) -> list[str]:
    return [word for word in _split_outside_braces(_WORD_BREAK.sub(" ", part), " ") if word]


def _first_von_last(words: list[str]) -> tuple[list[str], list[str]]:
    """'Ludwig van Beethoven' -> (['Ludwig'], ['van', 'Beethoven']): the family part starts
    at the first lower-case word (not the last word), else it is the last word alone."""
    for index, word in enumerate(words[:-1]):
        if index > 0 and _starts_lower_case(word):
            return words[:index], words[index:]
    return words[:-1], words[-1:]


def parse_name(raw: str) -> BibName | None:
    """One name of a list; None for 'others'."""
    raw = " ".join(raw.split())
    if not raw or raw.lower() in _NOT_AUTHORS:
        return None
    if _braced_as_a_whole(raw):
        text = latex_to_text(raw)
        return BibName(raw_name=text, display_name=text, family_name=text, corporate=True)
    parts = _split_outside_braces(raw, ",")
    suffix = ""
    if len(parts) == 1:
        given_words, family_words = _first_von_last(_words(parts[0]))
        given, family = " ".join(given_words), " ".join(family_words)
    else:
        # "von Last, First" or "von Last, Jr, First" (more commas: the rest is the given part).
        family = parts[0]
        if len(parts) >= 3:
            suffix, given = parts[1], ", ".join(parts[2:])
        else:
            given = parts[1]
    given_text, family_text = latex_to_text(given), latex_to_text(family)
    suffix_text = latex_to_text(suffix)
    display = " ".join(part for part in (given_text, family_text, suffix_text) if part)
    if not display:
        return None
    return BibName(
        raw_name=latex_to_text(raw),
        display_name=display,
        given_name=given_text,
        family_name=family_text or display,
    )


def parse_names(value: str, *, dblp: bool = False) -> list[BibName]:
    """A BibTeX author or editor field (raw LaTeX) -> its names in order, 'others' left out.
    dblp: the list comes from dblp, whose homonym numbers end a name ("Wei Wang 0001"); the
    number is taken off before the name is read and kept as the name's dblp identity key."""
    names = []
    for raw in split_names(value):
        dblp_name = None
        if dblp:
            raw, dblp_name = split_homonym(raw)
        name = parse_name(raw)
        if name is not None:
            if dblp_name:
                name = dataclasses.replace(name, dblp_name=latex_to_text(dblp_name))
            names.append(name)
    return names
