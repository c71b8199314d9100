"""The index of match tokens (researchers' migration 0016) holds every (family name, first
initial) key the resolver computes in Python, or leaves the name to be read by its words: a
record the learned resolver may compare with a mention is never out of its candidate read."""

from __future__ import annotations

import pytest
from django.db import connection

from researchers.names import dblp_identity_key, normalize_name, person_name

NAMES = [
    "John Smith",
    "John R. Smith",
    "Maria Garcia Lopez",
    "María García-López",
    "Zhong Zhizhen",
    "J. Smith",
    "Smith, John",
    "Ludwig van Beethoven",
    "Dr. Jane Doe",
    "John Smith Jr.",
    "Wei Wang 0001",
    "Smith",
    'H{\\"o}pfner Kurt',
    "Jean-Pierre Serre",
    "Ja Vi",
    "Carl S. Boettiger",
    "Yang Wang",
    "O'Brien Patrick",
    "A B C D",
]


def _tokens(display_name: str, dblp_id: str | None) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT researchers_name_match_tokens(%s, %s, %s)",
            [normalize_name(display_name), display_name, dblp_id],
        )
        return set(cursor.fetchone()[0])


@pytest.mark.django_db
@pytest.mark.parametrize("display_name", NAMES)
def test_every_key_of_a_name_is_indexed_or_the_name_is_read_by_its_words(
    display_name: str,
) -> None:
    dblp_id = display_name if dblp_identity_key(display_name) else None
    tokens = _tokens(display_name, dblp_id)
    words = normalize_name(display_name).split()
    assert {f"={words[0]}", f"={words[-1]}"} <= tokens
    if {f"~{words[0]}", f"~{words[-1]}"} <= tokens:
        return  # read by its words, as before the index, and parsed in Python
    keys = {f"{family}|{initial}" for family, initial in person_name(display_name).match_keys()}
    assert keys == {t for t in tokens if "|" in t}


@pytest.mark.django_db
def test_names_the_simple_split_does_not_parse_are_read_by_their_words() -> None:
    for display_name in ("Smith, John", "Dr. Jane Doe", "Smith", "Wei Wang 0001", "A B C D"):
        words = normalize_name(display_name).split()
        assert f"~{words[0]}" in _tokens(display_name, None), display_name
