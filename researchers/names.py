"""Name normalisation shared by the importers (which store it) and search (which queries it)."""

from __future__ import annotations

import enum
import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from unidecode import unidecode

_NOT_WORD = re.compile(r"[^a-z0-9]+")


def normalize_name(name: str) -> str:
    """Lower-case ASCII form of a name: accents folded, punctuation and extra spaces gone.

    "Zhízhen  ZHONG" and "zhizhen zhong" both become "zhizhen zhong", which is what the
    trigram index is built on.
    """
    return _NOT_WORD.sub(" ", unidecode(name or "").lower()).strip()


# --- Names compared by the name resolver (researchers.resolution) ---------------------------

# Hyphens and dashes in every Unicode variant, and the soft hyphen (which vanishes).
_HYPHENS = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d]")
_HOMONYM_NUMBER = re.compile(r"^(?P<name>.*\S)\s+(?P<number>\d{4})$")
_LATEX_HINT = re.compile(r"[\\{}$]")
_LATEX: Any = None


def _latex_to_text(text: str) -> str:
    """LaTeX markup as Unicode ("H{\\"o}pfner" -> "Höpfner"); text without markup untouched."""
    global _LATEX  # noqa: PLW0603 - built once, on first use (pylatexenc's tables are big)
    if not _LATEX_HINT.search(text):
        return text
    if _LATEX is None:
        from pylatexenc.latex2text import LatexNodes2Text

        _LATEX = LatexNodes2Text(math_mode="text", strict_latex_spaces=False)
    try:
        return str(_LATEX.latex_to_text(text))
    except Exception:  # noqa: BLE001 - pylatexenc on hostile input; the raw text still compares
        return text


def clean_name(name: str) -> str:
    """A name as written, in one canonical Unicode form: LaTeX resolved, NFKC, hyphen variants
    as '-', soft hyphens dropped, spaces collapsed. Case and accents are kept (for display)."""
    text = unicodedata.normalize("NFKC", _latex_to_text(name or ""))
    text = _HYPHENS.sub("-", text.replace("\u00ad", ""))
    return " ".join(text.split())


def split_homonym_number(name: str) -> tuple[str, str | None]:
    """dblp's homonym number: 'Wei Wang 0001' -> ('Wei Wang', '0001'); none -> (name, None)."""
    name = " ".join((name or "").split())
    match = _HOMONYM_NUMBER.match(name)
    if match is None:
        return name, None
    return match.group("name"), match.group("number")


def dblp_identity_key(name: str) -> str | None:
    """The identity key of a dblp name with a homonym number ('wei wang 0001'), else None.

    dblp numbers only names it knows are shared, so a name without a number is no identity."""
    bare, number = split_homonym_number(clean_name(name))
    if number is None:
        return None
    return f"{normalize_name(bare)} {number}"


def _tokens(text: str) -> tuple[str, ...]:
    return tuple(normalize_name(text).split())


@dataclass(frozen=True)
class PersonName:
    """A person's name in the normalised form the resolver compares: ASCII lower case, accents
    and LaTeX resolved, hyphenated parts as separate tokens ('Jean-Pierre' -> jean, pierre)."""

    given: tuple[str, ...]
    family: tuple[str, ...]
    homonym: str | None = None  # dblp's number, '0001'

    @cached_property
    def family_key(self) -> str:
        # 'García-López', 'Garcia Lopez' and 'garcialopez' compare equal. Cached: the
        # resolver reads it for every pair of readings it compares (cached_property writes the
        # instance's __dict__, which a frozen dataclass allows; equality and hash use the
        # fields alone).
        return "".join(self.family)

    def match_keys(self) -> frozenset[tuple[str, str]]:
        """(family name, first initial) of every reading: two names whose keys do not meet
        can never be compatible (names_compare), so callers compare only those that do. A
        reading without a given name has the initial ''."""
        return _match_keys(self)

    def readings(self) -> tuple[PersonName, ...]:
        """The ways to read the name: as parsed; with a family name of up to three of the last
        words ('Maria Garcia Lopez' as Garcia Lopez, Maria); and for a two-word name, family
        name first ('Zhong Zhizhen' as given Zhizhen, family Zhong)."""
        return _readings(self)


@lru_cache(maxsize=65536)
def _readings(name: PersonName) -> tuple[PersonName, ...]:
    # Cached: the resolver compares each stored name with every mention its keys meet.
    found = [name]
    words = name.given + name.family
    for size in range(1, min(3, len(words) - 1) + 1):
        reading = PersonName(words[:-size], words[-size:], name.homonym)
        if reading not in found:
            found.append(reading)
    if len(words) == 2 and len(words[0]) > 1 and len(words[1]) > 1:
        found.append(PersonName(words[1:], words[:1], name.homonym))
    return tuple(found)


@lru_cache(maxsize=65536)
def _match_keys(name: PersonName) -> frozenset[tuple[str, str]]:
    return frozenset(
        (reading.family_key, reading.given[0][0] if reading.given else "")
        for reading in name.readings()
        if reading.family_key
    )


def keys_meet(left: PersonName, right: PersonName) -> bool:
    """True when names_compare may find the two compatible (a cheap test first)."""
    left_keys, right_keys = left.match_keys(), right.match_keys()
    if left_keys & right_keys:
        return True
    # A reading without a given name is compatible (through initials) with any given name.
    families = {family for family, initial in right_keys if not initial}
    families |= {family for family, initial in left_keys if not initial}
    return any(family in families for family, _ in left_keys | right_keys)


@lru_cache(maxsize=1)
def special_words() -> frozenset[str]:
    """The words nameparser reads as titles, suffixes, particles or conjunctions, lower-cased:
    a name holding one is parsed by nameparser, not split simply (and researchers' migration
    0016 leaves it to Python). Read once."""
    from nameparser.config import CONSTANTS

    return frozenset(
        word.lower()
        for group in (
            CONSTANTS.titles,
            CONSTANTS.suffix_acronyms,
            CONSTANTS.suffix_not_acronyms,
            CONSTANTS.prefixes,
            CONSTANTS.conjunctions,
        )
        for word in group
    )


def _simple_split(name: str) -> tuple[str, str] | None:
    """'John R. Smith' -> ('John R.', 'Smith') without nameparser (a hundred times faster) when
    nothing in the name needs it: no comma, two or three words, none a title, suffix, particle
    or conjunction nameparser knows. None otherwise."""
    words = name.split()
    if "," in name or not 2 <= len(words) <= 3:
        return None
    special = special_words()
    if any(word.lower().strip(".") in special for word in words):
        return None
    return " ".join(words[:-1]), words[-1]


@lru_cache(maxsize=65536)
def person_name(display_name: str, *, given: str = "", family: str = "") -> PersonName:
    """Parse a name (the source's given/family split when it gave one; else nameparser, which
    reads 'Smith, John', 'John Smith' and particles such as 'van der')."""
    from nameparser import HumanName

    bare, number = split_homonym_number(clean_name(display_name))
    given_text, family_text = clean_name(given), clean_name(family)
    if family_text:
        family_text = split_homonym_number(family_text)[0]
    if not family_text and (simple := _simple_split(bare)) is not None:
        given_text, family_text = simple
    if not family_text:
        parsed = HumanName(bare)
        given_text = " ".join(part for part in (parsed.first, parsed.middle) if part)
        family_text = parsed.last
        if not family_text:  # a single word: a family name alone
            given_text, family_text = "", bare
    return PersonName(given=_tokens(given_text), family=_tokens(family_text), homonym=number)


class GivenNames(enum.IntEnum):
    """How two given names compare, from incompatible to the same."""

    INCOMPATIBLE = 0
    INITIALS = 1  # at least one side has initials only: 'J.' vs 'John' ('J. Smith' vs 'John Smith')
    COMPATIBLE = 2  # first names equal, the rest compatible ('John' vs 'John R.')
    SAME = 3  # every given name spelled out and equal


def _token_match(left: str, right: str) -> int:
    if left == right:
        return 2 if len(left) > 1 else 1
    if len(left) == 1 or len(right) == 1:
        return 1 if left[0] == right[0] else 0
    return 0


def given_names_compare(left: PersonName, right: PersonName) -> GivenNames:
    """Position by position ('John R.' vs 'John Robert'); missing middle names are no
    conflict, a missing given name on either side counts as initials only."""
    if not left.given or not right.given:
        return GivenNames.INITIALS
    if (left.given[0] != right.given[0]) and len(left.given[0]) > 1 and len(right.given[0]) > 1:
        # 'Jean-Pierre' written 'Jeanpierre'.
        if "".join(left.given) == "".join(right.given):
            return GivenNames.SAME
        return GivenNames.INCOMPATIBLE
    matches = [_token_match(a, b) for a, b in zip(left.given, right.given, strict=False)]
    if 0 in matches:
        return GivenNames.INCOMPATIBLE
    if matches[0] == 1:
        return GivenNames.INITIALS
    if all(m == 2 for m in matches) and len(left.given) == len(right.given):
        return GivenNames.SAME
    return GivenNames.COMPATIBLE


def names_compare(left: PersonName, right: PersonName) -> GivenNames:
    """The best reading of two names (PersonName.readings) with the same family name, then how
    the given names compare. Different homonym numbers never match."""
    return _names_compare(left, right)


@lru_cache(maxsize=262144)
def _names_compare(left: PersonName, right: PersonName) -> GivenNames:
    # Cached: a batch compares the same stored names with many mentions of one name, and the
    # bench's and a real import's batches meet the same common names again and again.
    if left.homonym and right.homonym and left.homonym != right.homonym:
        return GivenNames.INCOMPATIBLE
    best = GivenNames.INCOMPATIBLE
    right_readings = right.readings()
    for one in left.readings():
        for other in right_readings:
            if one.family_key and one.family_key == other.family_key:
                best = max(best, given_names_compare(one, other))
    return best


def blocking_keys(name: PersonName) -> set[str]:
    """Words a candidate's stored name (name_normalized, in the order the source wrote it) must
    start or end with to be compared at all: the first and last words of the family name and,
    for a two-word name, of the other reading (the writer's resolver filters its candidates,
    found through shared coauthors, with them)."""
    keys: set[str] = set()
    for reading in name.readings():
        if reading.family:
            keys.update((reading.family[0], reading.family[-1]))
    return keys
