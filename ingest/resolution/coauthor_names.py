"""Coauthors met by name: a byline name and a candidate's coauthor names compared by their
keys (features.pair_features: coauthor_name_overlap and coauthor_full_name_overlap).

A name's keys are a pure function of its string (name_keys, full_name_keys). A batch's
candidates name many coauthors (about a million on the 200,000-work corpus, most of them the
same hundred thousand names again), and only the keys that one of the batch's byline names
also has can change a feature. CoauthorNameIndex reads each distinct name once a batch and
keeps, for each key of the batch's byline names, the candidates' coauthor names that have it:
a pair then asks, per byline name, whether one of those names is among the candidate's (a set
test in C) instead of gathering the keys of every coauthor of every candidate in Python.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from functools import lru_cache

from researchers.names import person_name

Key = tuple[str, str]
_NONE: frozenset[str] = frozenset()


@lru_cache(maxsize=262144)
def name_keys(name: str) -> frozenset[Key]:
    """(family name, first initial) of every reading of a byline name."""
    return person_name(name).match_keys()


@lru_cache(maxsize=262144)
def full_name_keys(name: str) -> frozenset[Key]:
    """(family name, first given name) of every reading whose first given name is spelled
    out: empty for 'T. Li'. Each is also an initial key of the name (name_keys: the same
    reading, its given name's first letter)."""
    return frozenset(
        (reading.family_key, reading.given[0])
        for reading in person_name(name).readings()
        if reading.family_key and reading.given and len(reading.given[0]) > 1
    )


@dataclass(frozen=True)
class CoauthorNameIndex:
    """For the byline names a batch compares (`compared`) and its candidates' coauthor names
    (`universe`): under each key of a compared name, the names of the universe that have it.

    Exact where it answers: for a byline name of `compared` and a candidate whose coauthor
    names are all in `universe`, `meets` is "some coauthor name shares an initial key with it"
    and `meets_full` the same for full keys, as gathering every coauthor's keys would say. A
    universe name none of whose keys is a compared name's is indexed under no key: it can meet
    none of them. Callers check `compares` and `holds` first (any other pair is compared the long way)."""

    compared: frozenset[str]
    universe: frozenset[str]
    by_key: dict[Key, frozenset[str]]
    by_full_key: dict[Key, frozenset[str]]

    def compares(self, byline: Iterable[str]) -> bool:
        return self.compared.issuperset(byline)

    def holds(self, coauthors: Iterable[str]) -> bool:
        return self.universe.issuperset(coauthors)

    def meets(self, name: str, coauthors: Collection[str]) -> bool:
        by_key = self.by_key
        return any(not by_key.get(key, _NONE).isdisjoint(coauthors) for key in name_keys(name))

    def meets_full(self, name: str, coauthors: Collection[str]) -> bool:
        by_key = self.by_full_key
        return any(not by_key.get(key, _NONE).isdisjoint(coauthors) for key in full_name_keys(name))


def coauthor_name_index(compared: Iterable[str], universe: Iterable[str]) -> CoauthorNameIndex:
    """The index of a batch: compared, the byline names its pairs compare (its mentions' and
    its L0 bylines'); universe, its candidates' coauthor names. Each distinct name is parsed
    once (name_keys, cached), a full key only for a name that shares an initial key."""
    compared_names = frozenset(compared)
    universe_names = frozenset(universe)
    keys = frozenset().union(*map(name_keys, compared_names))
    full_keys = frozenset().union(*map(full_name_keys, compared_names))
    by_key: dict[Key, set[str]] = defaultdict(set)
    by_full_key: dict[Key, set[str]] = defaultdict(set)
    for name in universe_names:
        shared = keys.intersection(name_keys(name))
        if not shared:
            continue
        for key in shared:
            by_key[key].add(name)
        # A full key shared is an initial key shared: only these names can meet one.
        for key in full_keys.intersection(full_name_keys(name)):
            by_full_key[key].add(name)
    return CoauthorNameIndex(
        compared_names,
        universe_names,
        {key: frozenset(names) for key, names in by_key.items()},
        {key: frozenset(names) for key, names in by_full_key.items()},
    )
