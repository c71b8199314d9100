"""The name resolver's database side: candidates and their evidence for a whole batch of
name-only mentions, in one query per kind (never one per mention), then the rules of
researchers.resolution decide each mention.

1. candidates: researchers (not merged away) whose stored name starts or ends with one of the
   mentions' blocking words (researchers.names.blocking_keys; both expressions are indexed,
   researchers migration 0015), or whose dblp key is one of the mentions' dblp keys;
2. coauthor evidence: which of the mentions' resolved coauthors have written with which of the
   name-compatible candidates (authorships joined on the work);
3. institution evidence: the candidates' institutions (affiliations, and the institutions and
   free-text affiliations of their bylines).

The caller (writer/authors.py) makes new L0 records for what is not linked, then hands the
decisions, with the record each mention now names, to Resolution.record.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from researchers.names import (
    GivenNames,
    blocking_keys,
    dblp_identity_key,
    names_compare,
    normalize_name,
    person_name,
)
from researchers.resolution import (
    CandidateFacts,
    Decision,
    MentionFacts,
    Outcome,
    RecordedDecision,
    decide,
    decisions_record,
)

from .staging import Cursor


class Mention(Hashable, Protocol):
    """writer/authors.py's NameMention (named by shape: that module imports this one)."""

    @property
    def origin(self) -> str: ...
    @property
    def origin_id(self) -> str: ...
    @property
    def name_key(self) -> str: ...
    @property
    def display_name(self) -> str: ...
    @property
    def given_name(self) -> str: ...
    @property
    def family_name(self) -> str: ...
    @property
    def dblp(self) -> str | None: ...
    @property
    def coauthor_ids(self) -> frozenset[int]: ...
    @property
    def institution_openalex_ids(self) -> frozenset[str]: ...
    @property
    def affiliation_names(self) -> tuple[str, ...]: ...


M = TypeVar("M", bound=Mention)


@dataclass
class Resolution(Generic[M]):
    links: dict[M, int] = field(default_factory=dict)
    decisions: dict[M, Decision] = field(default_factory=dict)

    def record(self, researcher_ids: dict[M, int]) -> None:
        """Store the reasons of links and the close calls (researchers.resolution's recorder),
        now that every mention names a record."""
        decisions_record(
            [
                RecordedDecision(
                    origin=mention.origin,
                    origin_id=mention.origin_id,
                    name_key=mention.name_key,
                    display_name=mention.display_name,
                    researcher_id=researcher_ids[mention],
                    decision=decision,
                )
                for mention, decision in self.decisions.items()
                if decision.outcome != Outcome.NEW and mention in researcher_ids
            ]
        )


@dataclass
class _Candidate:
    researcher_id: int
    display_name: str
    orcid: str | None
    dblp_key: str | None
    words: tuple[str, str]  # first and last word of name_normalized


def mention_facts(mention: Mention, institution_ids: dict[str, int]) -> MentionFacts:
    return MentionFacts(
        name=person_name(
            mention.dblp or mention.display_name,
            given=mention.given_name,
            family=mention.family_name,
        ),
        dblp_key=dblp_identity_key(mention.dblp or mention.display_name),
        coauthor_ids=mention.coauthor_ids,
        institution_ids=frozenset(
            institution_ids[i] for i in mention.institution_openalex_ids if i in institution_ids
        ),
        affiliation_keys=frozenset(
            key for key in (normalize_name(n) for n in mention.affiliation_names) if key
        ),
    )


def _candidates(cursor: Cursor, words: set[str], dblp_keys: set[str]) -> list[_Candidate]:
    cursor.execute(
        r"""
        SELECT id, display_name, orcid, dblp_id,
               split_part(name_normalized, ' ', 1), regexp_replace(name_normalized, '^.* ', '')
        FROM researchers_researcher
        WHERE merged_into_id IS NULL
          AND (split_part(name_normalized, ' ', 1) = ANY(%(words)s)
               OR regexp_replace(name_normalized, '^.* ', '') = ANY(%(words)s)
               OR dblp_id = ANY(%(dblp)s))
        """,
        {"words": sorted(words), "dblp": sorted(dblp_keys)},
    )
    return [
        _Candidate(rid, name, orcid, dblp_identity_key(dblp_id or ""), (first, last))
        for rid, name, orcid, dblp_id, first, last in cursor.fetchall()
    ]


def _shared_coauthors(
    cursor: Cursor, candidate_ids: set[int], coauthor_ids: set[int]
) -> dict[int, set[int]]:
    if not candidate_ids or not coauthor_ids:
        return {}
    cursor.execute(
        """
        SELECT DISTINCT a1.researcher_id, a2.researcher_id
        FROM publications_authorship a1
        JOIN publications_authorship a2
          ON a2.work_id = a1.work_id AND a2.researcher_id = ANY(%(coauthors)s)
        WHERE a1.researcher_id = ANY(%(candidates)s) AND a2.researcher_id <> a1.researcher_id
        """,
        {"candidates": sorted(candidate_ids), "coauthors": sorted(coauthor_ids)},
    )
    shared: dict[int, set[int]] = defaultdict(set)
    for candidate_id, coauthor_id in cursor.fetchall():
        shared[candidate_id].add(coauthor_id)
    return shared


def _institutions(
    cursor: Cursor, candidate_ids: set[int]
) -> tuple[dict[int, set[int]], dict[int, set[str]]]:
    institutions: dict[int, set[int]] = defaultdict(set)
    names: dict[int, set[str]] = defaultdict(set)
    if not candidate_ids:
        return institutions, names
    cursor.execute(
        """
        SELECT researcher_id, institution_id, NULL FROM researchers_affiliation
        WHERE researcher_id = ANY(%(ids)s)
        UNION
        SELECT a.researcher_id, i, NULL
        FROM publications_authorship a, unnest(a.institution_ids) AS i
        WHERE a.researcher_id = ANY(%(ids)s)
        UNION
        SELECT a.researcher_id, NULL, n
        FROM publications_authorship a, unnest(a.affiliation_names) AS n
        WHERE a.researcher_id = ANY(%(ids)s)
        """,
        {"ids": sorted(candidate_ids)},
    )
    for researcher_id, institution_id, name in cursor.fetchall():
        if institution_id is not None:
            institutions[researcher_id].add(institution_id)
        elif key := normalize_name(name or ""):
            names[researcher_id].add(key)
    return institutions, names


def name_resolution(cursor: Cursor, mentions: Sequence[M]) -> Resolution[M]:
    """Decide every mention of the batch (see the module docstring). At most five queries."""
    resolution: Resolution[M] = Resolution()
    if not mentions:
        return resolution
    openalex_institutions = {i for m in mentions for i in m.institution_openalex_ids}
    institution_ids: dict[str, int] = {}
    if openalex_institutions:
        cursor.execute(
            "SELECT openalex_id, id FROM researchers_institution WHERE openalex_id = ANY(%s)",
            [sorted(openalex_institutions)],
        )
        institution_ids = dict(cursor.fetchall())
    facts = {m: mention_facts(m, institution_ids) for m in mentions}
    words = {word for f in facts.values() for word in blocking_keys(f.name)}
    dblp_names = {m.dblp for m in mentions if m.dblp}
    if not words and not dblp_names:
        return resolution
    by_word: dict[str, list[_Candidate]] = defaultdict(list)
    by_dblp: dict[str, list[_Candidate]] = defaultdict(list)
    for candidate in _candidates(cursor, words, dblp_names):
        for word in set(candidate.words):
            by_word[word].append(candidate)
        if candidate.dblp_key:
            by_dblp[candidate.dblp_key].append(candidate)

    # Name-compatible candidates per mention (Python: the rules are not SQL).
    compatible: dict[M, list[_Candidate]] = {}
    for mention, fact in facts.items():
        seen: dict[int, _Candidate] = {}
        for word in blocking_keys(fact.name):
            for candidate in by_word.get(word, ()):
                seen.setdefault(candidate.researcher_id, candidate)
        for candidate in by_dblp.get(fact.dblp_key or "", ()):
            seen.setdefault(candidate.researcher_id, candidate)
        compatible[mention] = [
            c
            for c in seen.values()
            if (fact.dblp_key and c.dblp_key == fact.dblp_key)
            or names_compare(fact.name, person_name(c.display_name)) != GivenNames.INCOMPATIBLE
        ]
    candidate_ids = {c.researcher_id for found in compatible.values() for c in found}
    with_coauthors = {
        c.researcher_id for m, found in compatible.items() if m.coauthor_ids for c in found
    }
    shared = _shared_coauthors(
        cursor, with_coauthors, {i for m in mentions for i in m.coauthor_ids}
    )
    # Institutions only matter with a shared coauthor (one coauthor + the same institution).
    institutions, affiliation_names = _institutions(cursor, set(shared) & candidate_ids)

    for mention, fact in facts.items():
        decision = decide(
            fact,
            [
                CandidateFacts(
                    researcher_id=c.researcher_id,
                    name=person_name(c.display_name),
                    orcid=c.orcid,
                    dblp_key=c.dblp_key,
                    shared_coauthor_ids=frozenset(shared.get(c.researcher_id, ())),
                    institution_ids=frozenset(institutions.get(c.researcher_id, ())),
                    affiliation_keys=frozenset(affiliation_names.get(c.researcher_id, ())),
                )
                for c in compatible[mention]
            ],
        )
        resolution.decisions[mention] = decision
        if decision.outcome == Outcome.LINKED and decision.researcher_id is not None:
            resolution.links[mention] = decision.researcher_id
    return resolution
