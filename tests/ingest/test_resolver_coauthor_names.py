"""The learned resolver's index of coauthor names (ingest.resolution.coauthor_names): for every
byline name it compares and every candidate's coauthors, it answers as gathering every
coauthor's keys does, on the real records' names and on hostile ones. Pure functions."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ingest.resolution.coauthor_names import coauthor_name_index, full_name_keys, name_keys

HOSTILE = [
    "",
    " ",
    ",",
    "Smith, John",
    "John Smith",
    "SMITH John",
    "J. Smith",
    "J.-P. Dupont",
    "Jean-Pierre Dupont",
    "Jean\u2010Pierre Dupont",  # a Unicode hyphen
    "Jean\u00adPierre Dupont",  # a soft hyphen, which vanishes
    "Jeanpierre Dupont",
    r"Hagen H{\"{o}}pfner",  # LaTeX
    "Hagen Ho\u0308pfner",  # a combining diaeresis
    "Hagen Höpfner",
    r"{\relax Th}omas M\"uller",
    "$\\alpha$ Beta",
    "{{{",
    "Ludwig van Beethoven",
    "van Beethoven, Ludwig",
    "Beethoven, Ludwig van",
    "L. van Beethoven",
    "Maria Garcia Lopez",
    "Garcia-Lopez, Maria",
    "María José García-López de la Torre",
    "Juan de la Cruz",
    "de la Cruz, Juan",
    "Dr. John Smith Jr.",
    "John Smith III",
    "Smith, Jr., John",
    "John (Jack) Smith",
    'John "Jack" Smith',
    "Zhong Zhizhen",
    "Zhizhen Zhong",
    "WANG Wei",
    "Wei Wang 0001",
    "Wei Wang 0002",
    "Li",
    "T. Li",
    "Mac Donald",
    "MacDonald",
    "Bin Laden",
    "Abu Bakr al-Baghdadi",
    "ＪＯＨＮ　ＳＭＩＴＨ",  # full-width forms
    "Øystein Ørsted",
    "Đorđe Đoković",
    "李小龙",
    "Дмитрий Иванов",
    "St. John Smith",
    "Della Rosa",
    "Van",
    "Van Der",
    "and Smith",
    "John and Jane Smith",
    "e. e. cummings",
    "J R R Tolkien",
    "Tolkien, J.R.R.",
    "A B C D E F G",
    "x" * 300,
]


def _json_names(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key in ("raw_author_name", "display_name", "name", "literal"):
            if isinstance(value.get(key), str):
                yield value[key]
        given, family = value.get("given"), value.get("family")
        if isinstance(family, str):
            yield f"{given} {family}" if isinstance(given, str) else family
            if isinstance(given, str):
                yield f"{family}, {given}"
        for item in value.values():
            yield from _json_names(item)
    elif isinstance(value, list):
        for item in value:
            yield from _json_names(item)


_BIB_AUTHORS = re.compile(r"\b(?:author|editor)\s*=\s*[{\"](.*?)[}\"]\s*,?\s*$", re.I | re.M)
_XML_NAMES = re.compile(r"<(?:name|author)[^>]*>([^<]+)</(?:name|author)>")


def real_names(testdata_dir: Path) -> list[str]:
    """The names the real records write (OpenAlex, Crossref, ORCID, BibTeX, dblp, arXiv), as
    written, once each: people's, and through display_name some others' (topics,
    institutions), which are hostile input too."""
    found: set[str] = set()
    for path in sorted(p for p in testdata_dir.rglob("*") if p.is_file()):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if path.suffix == ".json" or path.name.startswith("part_"):
            documents = []
            try:
                documents = [json.loads(text)]
            except json.JSONDecodeError:
                for line in text.splitlines():
                    try:
                        documents.append(json.loads(line))
                    except json.JSONDecodeError:
                        continue
            for document in documents:
                found.update(n for n in _json_names(document) if len(n) < 200)
        elif path.suffix == ".bib":
            for authors in _BIB_AUTHORS.findall(text):
                found.update(a.strip() for a in re.split(r"\s+and\s+", authors))
        elif path.suffix == ".xml":
            found.update(n.strip() for n in _XML_NAMES.findall(text))
    return sorted(found)


def _long_way(byline: list[str], coauthors: set[str]) -> tuple[int, int]:
    """features.pair_features's counts from every coauthor's keys."""
    keys = set().union(*map(name_keys, coauthors))
    overlap = sum(1 for name in byline if name_keys(name) & keys)
    full = set().union(*map(full_name_keys, coauthors))
    return overlap, sum(1 for name in byline if full_name_keys(name) & full)


def _by_index(byline: list[str], coauthors: set[str], index: Any) -> tuple[int, int]:
    return (
        sum(1 for name in byline if index.meets(name, coauthors)),
        sum(1 for name in byline if index.meets_full(name, coauthors)),
    )


@pytest.fixture(scope="module")
def names(testdata_dir: Path) -> list[str]:
    found = real_names(testdata_dir)
    assert len(found) > 500  # the real records were read
    # Each name also written initial first, family name first and in lower case: the
    # spellings one person's bylines mix.
    variants = {
        variant
        for name in found[:400] + HOSTILE
        for variant in (
            name,
            name.lower(),
            name.upper(),
            " ".join(reversed(name.split())),
            re.sub(r"^(\w)\w+", r"\1.", name),
        )
    }
    return sorted(set(found) | variants | set(HOSTILE))


def test_the_index_counts_the_coauthors_met_by_name_as_every_coauthor_s_keys_do(
    names: list[str],
) -> None:
    rng = random.Random(27)
    for _ in range(40):
        compared = rng.sample(names, 60)
        candidates = [set(rng.sample(names, rng.randint(0, 300))) for _ in range(20)]
        # Some candidates write with the byline's own people, under the same or other spellings.
        for coauthors in candidates[:10]:
            coauthors.update(rng.sample(compared, 5))
        index = coauthor_name_index(compared, [n for c in candidates for n in c])
        for coauthors in candidates:
            assert index.holds(coauthors)
            for _ in range(5):
                byline = rng.sample(compared, rng.randint(0, 6))
                assert index.compares(byline)
                assert _by_index(byline, coauthors, index) == _long_way(byline, coauthors)


def test_every_pair_of_names_that_share_a_key_is_met_through_the_index(names: list[str]) -> None:
    """Name by name: each compared name meets exactly the universe's names it shares an
    initial key (a full key) with."""
    rng = random.Random(15)
    compared = rng.sample(names, 300) + HOSTILE
    index = coauthor_name_index(compared, names)
    for name in compared:
        for other in rng.sample(names, 200) + HOSTILE:
            assert index.meets(name, {other}) == bool(name_keys(name) & name_keys(other))
            assert index.meets_full(name, {other}) == bool(
                full_name_keys(name) & full_name_keys(other)
            )


def test_names_outside_the_index_are_told_apart() -> None:
    index = coauthor_name_index(["John Smith"], ["J. Smith", "Jane Doe"])
    assert index.compares(["John Smith"]) and not index.compares(["John Smith", "Jane Doe"])
    assert index.holds({"Jane Doe"}) and not index.holds({"Jane Doe", "John Smith"})
    assert index.meets("John Smith", {"J. Smith"})
    assert not index.meets_full("John Smith", {"J. Smith"})  # an initial is no full key
    assert not index.meets("John Smith", {"Jane Doe"})
