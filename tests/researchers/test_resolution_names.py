"""Names as the resolver compares them (researchers.names): pure functions."""

from __future__ import annotations

import pytest

from researchers.names import (
    GivenNames,
    blocking_keys,
    clean_name,
    dblp_identity_key,
    keys_meet,
    names_compare,
    normalize_name,
    person_name,
    split_homonym_number,
)


def compare(left: str, right: str) -> GivenNames:
    return names_compare(person_name(left), person_name(right))


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Zhong Zhizhen", "Zhizhen Zhong"),  # family name first
        ("Wei Wang", "WANG Wei"),
        (r"Hagen H{\"{o}}pfner", "Hagen Höpfner"),  # LaTeX
        ("Hagen Ho\u0308pfner", "Hagen Höpfner"),  # combining diaeresis (NFKC)
        ("Jean\u2010Pierre Dupont", "Jean-Pierre Dupont"),  # Unicode hyphen
        ("Jean-Pierre Dupont", "Jean Pierre Dupont"),
        ("Smith, John", "John Smith"),  # BibTeX order
        ("Dirk Wübben", "dirk wubben"),  # case and accents
        ("ＪＯＨＮ　ＳＭＩＴＨ", "John Smith"),  # full-width forms (NFKC)
    ],
)
def test_it_reads_the_same_name_written_differently_as_the_same(left: str, right: str) -> None:
    assert compare(left, right) == GivenNames.SAME


def test_an_initial_is_compatible_but_only_through_initials() -> None:
    assert compare("J. Smith", "John Smith") == GivenNames.INITIALS
    assert compare("J.-P. Dupont", "Jean-Pierre Dupont") == GivenNames.INITIALS


def test_a_middle_initial_beside_a_spelled_out_first_name_is_compatible() -> None:
    assert compare("Smith, John R.", "John Robert Smith") == GivenNames.COMPATIBLE


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("John Smith", "Jane Smith"),
        ("J. Smith", "K. Smith"),
        ("John Smith", "John Smyth"),
        ("Wei Wang", "Wei Zhang"),
        ("John R. Smith", "John T. Smith"),
    ],
)
def test_it_tells_different_names_apart(left: str, right: str) -> None:
    assert compare(left, right) == GivenNames.INCOMPATIBLE


def test_a_double_family_name_matches_however_it_is_split() -> None:
    assert compare("García-López, M.", "Maria Garcia Lopez") == GivenNames.INITIALS
    assert compare("María García López", "Maria Garcia-Lopez") == GivenNames.SAME


def test_dblp_homonym_numbers_are_identity_keys() -> None:
    assert split_homonym_number("Wei Wang 0001") == ("Wei Wang", "0001")
    assert split_homonym_number("Michael Ley") == ("Michael Ley", None)
    assert dblp_identity_key("Wei  Wang 0001") == "wei wang 0001"
    assert dblp_identity_key("Michael Ley") is None
    assert compare("Wei Wang 0001", "Wei Wang 0002") == GivenNames.INCOMPATIBLE
    assert compare("Wei Wang 0001", "Wei Wang 0001") == GivenNames.SAME


def test_clean_name_keeps_case_and_accents_but_not_markup() -> None:
    assert clean_name(r"Ren{\'e}  Desca\-rtes") == "René Descartes"
    assert clean_name("Anne\u00adMarie") == "AnneMarie"
    assert normalize_name(clean_name("Wübben")) == "wubben"


def test_blocking_words_cover_both_orders_and_both_ends() -> None:
    assert blocking_keys(person_name("Zhong Zhizhen")) >= {"zhong", "zhizhen"}
    assert blocking_keys(person_name("García-López, M.")) >= {"garcia", "lopez"}


def test_the_cheap_key_test_never_rules_out_a_compatible_pair() -> None:
    names = [
        "Zhong Zhizhen",
        "J. Smith",
        "John Smith",
        "Jane Smith",
        "Smith",
        "García-López, M.",
        "Maria Garcia Lopez",
        "Wei Wang",
        "Wang Wei",
        "Wei Wang 0001",
        "L. Ru",
        "Ru Li",
        "Anna Maria Lopez",
        "Jean-Pierre Dupont",
        "J.-P. Dupont",
        "Jeanpierre Dupont",
    ]
    for left in names:
        for right in names:
            a, b = person_name(left), person_name(right)
            if names_compare(a, b) != GivenNames.INCOMPATIBLE:
                assert keys_meet(a, b), (left, right)
    assert not keys_meet(person_name("John Smith"), person_name("Kate Smith"))
