"""The name resolver's database side. name_resolution is the learned resolver of issue 27
(ingest.resolution: the byline resolved as a whole, a pairwise model, two thresholds);
name_resolution_by_rules, described below, is issue 15's conservative resolver, kept as the
evaluation's baseline (bench.resolver_eval prints both in one run).

The rules-based resolver: candidates and their evidence for a whole batch of
name-only mentions, in one query per kind (never one per mention), then the rules of
researchers.resolution decide each mention.

1. candidates, found through the evidence: researchers (not merged away) who have written
   with one of the mentions' resolved coauthors (authorships joined on the work) and whose
   stored name starts or ends with one of the mentions' blocking words
   (researchers.names.blocking_keys); a candidate without a shared coauthor could never be
   linked or queued, so a name alone costs nothing;
2. researchers holding one of the mentions' dblp keys (an identity key);
3. institution evidence: the candidates' institutions (affiliations, and the institutions and
   free-text affiliations of their bylines).

The caller (writer/authors.py) makes new L0 records for what is not linked, then hands the
decisions, with the record each mention now names, to Resolution.record.
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from claims.services.same_person import name_resolutions_record
from researchers.names import (
    GivenNames,
    blocking_keys,
    dblp_identity_key,
    keys_meet,
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
)

from ..resolution.features import MentionContext
from .staging import Cursor

# Bylines longer than this are no evidence of who works with whom (as graph's coauthor edges).
MAX_AUTHORS_FOR_EVIDENCE = 100


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
    @property
    def work_id(self) -> int | None: ...
    @property
    def coauthor_names(self) -> tuple[str, ...]: ...
    @property
    def topic_keys(self) -> frozenset[str]: ...


M = TypeVar("M", bound=Mention)


@dataclass
class Resolution(Generic[M]):
    links: dict[M, int] = field(default_factory=dict)
    decisions: dict[M, Decision] = field(default_factory=dict)

    def record(self, researcher_ids: dict[M, int]) -> None:
        """Store the reasons of links and the close calls (claims' moderation queue), now that
        every mention names a record."""
        worth_keeping = [
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
        if worth_keeping:
            name_resolutions_record(worth_keeping)


@dataclass(frozen=True)
class _Candidate:
    researcher_id: int
    display_name: str
    orcid: str | None
    dblp_key: str | None


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


def _candidates_by_coauthor(
    cursor: Cursor, pairs: set[tuple[int, str]]
) -> list[tuple[int, _Candidate]]:
    """(coauthor, candidate) for every researcher who has written with a coauthor and whose
    stored name starts or ends with a blocking word of a mention sharing that coauthor
    (pairs: (coauthor id, word)). Works of more than MAX_AUTHORS_FOR_EVIDENCE authors are no
    evidence (a consortium paper says little about who knows whom, and costs much)."""
    if not pairs:
        return []
    # One row per coauthor with its words (space-separated), so each coauthor's bylines are
    # read once.
    words_of: dict[int, set[str]] = defaultdict(set)
    for coauthor_id, word in pairs:
        words_of[coauthor_id].add(word)
    ordered = sorted(words_of)
    # Every coauthor's words become an array once (OFFSET 0 keeps the subquery apart), not once
    # per byline row the join reads; the last word is cut without a regular expression. The
    # join filter runs on every coauthor's coauthor (about 800,000 rows for a batch of 2,000
    # mentions on the 1M-work corpus); this saved 15-20% of the statement's time.
    cursor.execute(
        r"""
        SELECT DISTINCT a1.researcher_id, r.id, r.display_name, r.orcid, r.dblp_id
        FROM (SELECT coauthor_id, string_to_array(words, ' ') AS words
              FROM unnest(%(coauthors)s::int8[], %(words)s::text[]) AS k(coauthor_id, words)
              OFFSET 0) k
        JOIN publications_authorship a1 ON a1.researcher_id = k.coauthor_id
        JOIN publications_work w
          ON w.id = a1.work_id AND w.authors_count <= %(max_authors)s
        JOIN publications_authorship a2
          ON a2.work_id = a1.work_id AND a2.researcher_id <> a1.researcher_id
        JOIN researchers_researcher r ON r.id = a2.researcher_id
        WHERE r.merged_into_id IS NULL
          AND (split_part(r.name_normalized, ' ', 1) = ANY(k.words)
               OR reverse(split_part(reverse(r.name_normalized), ' ', 1)) = ANY(k.words))
        """,
        {
            "coauthors": ordered,
            "words": [" ".join(sorted(words_of[coauthor])) for coauthor in ordered],
            "max_authors": MAX_AUTHORS_FOR_EVIDENCE,
        },
    )
    return [
        (coauthor_id, _Candidate(rid, name, orcid, dblp_identity_key(dblp_id or "")))
        for coauthor_id, rid, name, orcid, dblp_id in cursor.fetchall()
    ]


def _candidates_by_dblp(cursor: Cursor, dblp_names: set[str]) -> list[_Candidate]:
    if not dblp_names:
        return []
    cursor.execute(
        "SELECT id, display_name, orcid, dblp_id FROM researchers_researcher"
        " WHERE merged_into_id IS NULL AND dblp_id = ANY(%s)",
        [sorted(dblp_names)],
    )
    return [
        _Candidate(rid, name, orcid, dblp_identity_key(dblp_id or ""))
        for rid, name, orcid, dblp_id in cursor.fetchall()
    ]


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


def name_resolution_by_rules(cursor: Cursor, mentions: Sequence[M]) -> Resolution[M]:
    """The conservative resolver of issue 15 (kept as the evaluation's baseline): decide every
    mention of the batch (see the module docstring). At most four queries.

    Only candidates with evidence can be linked or queued, so they are found through the
    evidence: researchers who have written with the mentions' coauthors and whose names share
    a blocking word. A name alone costs no query (its outcome is a new record)."""
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
    pairs = {
        (coauthor_id, word)
        for m, f in facts.items()
        for word in blocking_keys(f.name)
        for coauthor_id in m.coauthor_ids
    }
    by_coauthor: dict[int, dict[int, _Candidate]] = defaultdict(dict)
    for coauthor_id, candidate in _candidates_by_coauthor(cursor, pairs):
        by_coauthor[coauthor_id][candidate.researcher_id] = candidate
    by_dblp: dict[str, list[_Candidate]] = defaultdict(list)
    for candidate in _candidates_by_dblp(cursor, {m.dblp for m in mentions if m.dblp}):
        if candidate.dblp_key:
            by_dblp[candidate.dblp_key].append(candidate)

    # Per mention: the candidates its coauthors lead to, with the coauthors they share.
    found: dict[M, dict[int, tuple[_Candidate, set[int]]]] = {}
    for mention, fact in facts.items():
        candidates: dict[int, tuple[_Candidate, set[int]]] = {}
        for coauthor_id in mention.coauthor_ids:
            for rid, candidate in by_coauthor.get(coauthor_id, {}).items():
                candidates.setdefault(rid, (candidate, set()))[1].add(coauthor_id)
        for candidate in by_dblp.get(fact.dblp_key or "", ()):
            candidates.setdefault(candidate.researcher_id, (candidate, set()))
        found[mention] = {
            rid: (candidate, shared)
            for rid, (candidate, shared) in candidates.items()
            if (fact.dblp_key and candidate.dblp_key == fact.dblp_key)
            or (
                keys_meet(fact.name, person_name(candidate.display_name))
                and names_compare(fact.name, person_name(candidate.display_name))
                != GivenNames.INCOMPATIBLE
            )
        }
    # Institutions only matter with a shared coauthor (one coauthor + the same institution).
    institutions, affiliation_names = _institutions(
        cursor,
        {rid for candidates in found.values() for rid, (_, shared) in candidates.items() if shared},
    )

    for mention, fact in facts.items():
        decision = decide(
            fact,
            [
                CandidateFacts(
                    researcher_id=rid,
                    name=person_name(candidate.display_name),
                    orcid=candidate.orcid,
                    dblp_key=candidate.dblp_key,
                    shared_coauthor_ids=frozenset(shared),
                    institution_ids=frozenset(institutions.get(rid, ())),
                    affiliation_keys=frozenset(affiliation_names.get(rid, ())),
                )
                for rid, (candidate, shared) in found[mention].items()
            ],
        )
        resolution.decisions[mention] = decision
        if decision.outcome == Outcome.LINKED and decision.researcher_id is not None:
            resolution.links[mention] = decision.researcher_id
    return resolution


# --- The learned resolver (issue 27) ------------------------------------------------------------

# Which resolver the writer calls: "model" (the learned one, issue 27) or "rules" (issue 15's
# baseline, kept for the evaluation and the benchmarks, which switch it with resolver_in_use
# to measure both in one run). Imports use the learned one: on the evaluation's real and
# synthetic records it links two and five times as many hidden mentions as the rules, without
# a false link (docs/importing.md), at about three quarters of their rate (bench/README.md).
# Issue 15's writer tests hold for it: a name given by initials is linked only when a signal
# of another kind than the team backs it (ingest.resolution.decide.link_allowed), and another
# copy of the mention's own paper is no evidence (ingest.resolution.features.left_out).
RESOLVER = "model"


@contextlib.contextmanager
def resolver_in_use(kind: str) -> Iterator[None]:
    global RESOLVER  # noqa: PLW0603 - the evaluation's switch, restored on exit
    before, RESOLVER = RESOLVER, kind
    try:
        yield
    finally:
        RESOLVER = before


def name_resolution(cursor: Cursor, mentions: Sequence[M]) -> Resolution[M]:
    """Decide every mention of the batch: the learned resolver (ingest.resolution), unless
    the evaluation asked for the baseline. Five statements whatever the batch size."""
    if RESOLVER == "rules":
        return name_resolution_by_rules(cursor, mentions)
    from ingest.resolution.resolve import resolve_contexts

    resolution: Resolution[M] = Resolution()
    if not mentions:
        return resolution
    contexts = mention_contexts(cursor, mentions)
    decisions = resolve_contexts(cursor, list(contexts.values()))
    for mention, context in contexts.items():
        decision = decisions[context]
        resolution.decisions[mention] = decision
        if decision.outcome == Outcome.LINKED and decision.researcher_id is not None:
            resolution.links[mention] = decision.researcher_id
    return resolution


def mention_contexts(cursor: Cursor, mentions: Sequence[M]) -> dict[M, MentionContext]:
    """What each byline says around its name-only mention: two statements (the institutions'
    ids, the works' venue, year and title key)."""
    openalex_institutions = sorted({i for m in mentions for i in m.institution_openalex_ids})
    cursor.execute(
        "SELECT openalex_id, id FROM researchers_institution WHERE openalex_id = ANY(%s)",
        [openalex_institutions],
    )
    institution_ids: dict[str, int] = dict(cursor.fetchall())
    work_ids = sorted({m.work_id for m in mentions if m.work_id is not None})
    cursor.execute(
        "SELECT id, source_id, publication_year, title_key FROM publications_work"
        " WHERE id = ANY(%s)",
        [work_ids],
    )
    work_facts = {wid: (venue, year, key) for wid, venue, year, key in cursor.fetchall()}
    contexts: dict[M, MentionContext] = {}
    for mention in mentions:
        venue, year, title_key = work_facts.get(mention.work_id or 0, (None, None, None))
        contexts[mention] = MentionContext(
            key=mention,
            name=person_name(
                mention.dblp or mention.display_name,
                given=mention.given_name,
                family=mention.family_name,
            ),
            display_name=mention.display_name,
            dblp_key=dblp_identity_key(mention.dblp or mention.display_name),
            work_id=mention.work_id,
            coauthor_ids=mention.coauthor_ids,
            coauthor_names=mention.coauthor_names,
            institution_ids=frozenset(
                institution_ids[i] for i in mention.institution_openalex_ids if i in institution_ids
            ),
            affiliation_names=mention.affiliation_names,
            topic_keys=mention.topic_keys,
            venue_id=venue,
            year=year,
            title_key=title_key,
        )
    return contexts
