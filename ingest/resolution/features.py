"""Pairwise features of the learned resolver: what a name-only mention and one candidate
researcher have in common, as numbers the model reads (pure functions, no database).

A mention is what its byline says (MentionContext); a candidate is what bzpeer holds about an
existing researcher, work by work (CandidateProfile), so the mention's own work can be left out
of its candidate's evidence (training on identified mentions, and the re-run over L0 records,
compare a record's byline with the rest of its works).

Missing evidence is NaN, not zero (the model tells "no venue known" from "another venue").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import psycopg
from rapidfuzz import fuzz

from researchers.names import GivenNames, PersonName, names_compare, normalize_name, person_name

from .coauthor_names import CoauthorNameIndex, full_name_keys, name_keys

NAN = float("nan")
# The writer's cursor (ingest.writer.staging.Cursor), named here so this package never imports
# the writer that calls it.
Cursor = psycopg.Cursor[Any]

# The order the model was trained on: never reorder, only append (and retrain).
FEATURE_NAMES: tuple[str, ...] = (
    "given_names",  # GivenNames: 0 incompatible .. 3 the same
    "name_exact",  # the normalised full names are equal
    "name_similarity",  # rapidfuzz token-sort ratio of the two names, 0..1
    "mention_initials_only",  # the byline gives initials only
    "candidate_initials_only",
    "shared_coauthor_ids",  # resolved coauthors on the byline who wrote with the candidate
    "coauthor_name_overlap",  # byline names (family name + initial) among the candidate's coauthors
    "coauthor_name_ratio",  # the same, over the byline's other names
    "byline_others",  # how many other names the byline has
    "shared_institutions",  # institution ids in common
    "affiliation_similarity",  # best fuzzy match of the raw affiliation strings, 0..1
    "topic_jaccard",
    "shared_topics",
    "venue_works",  # the candidate's works in the mention's venue
    "year_gap",  # years between the mention and the candidate's span of activity
    "candidate_works",  # log1p of the candidate's works
    "name_candidates",  # compatible candidates the mention has (how common the name is)
    "email_domain_match",  # the mention's email domain among the candidate's institutions'
    "abstract_similarity",  # the hook for closeness in meaning (ABSTRACT_SIMILARITY)
    # byline names among the candidate's coauthors with the same spelled-out first given name
    # (coauthor_name_overlap meets by initial: 'A. Wang' is many people in a big field)
    "coauthor_full_name_overlap",
    # records in the whole database carrying the mention's (family name, first initial), the
    # unplaced L0 bylines of the same full name aside (evidence.makes_name_common): 1 is a rare
    # name, only the candidate carries it (S2AND and OpenAlex weigh a name by how common it is)
    "name_key_records",
)


@dataclass(frozen=True)
class MentionContext:
    """A name without identifier and what its byline says around it."""

    key: Hashable  # the caller's mention (NameMention, or an authorship id)
    name: PersonName
    display_name: str
    dblp_key: str | None = None
    work_id: int | None = None  # left out of every candidate's evidence
    coauthor_ids: frozenset[int] = frozenset()  # resolved researchers elsewhere on the byline
    coauthor_names: tuple[str, ...] = ()  # every other name on the byline, as written
    institution_ids: frozenset[int] = frozenset()
    affiliation_names: tuple[str, ...] = ()
    topic_keys: frozenset[str] = frozenset()  # publications_topic.external_id
    venue_id: int | None = None
    year: int | None = None
    email_domains: frozenset[str] = frozenset()
    abstract: str = ""
    # ingest.writer.identity.title_key of the mention's work: another copy of the same paper
    # (a preprint and its publisher's version, not yet known to be one) is left out of every
    # candidate's evidence with the work itself.
    title_key: str | None = None

    def coauthor_keys(self) -> list[frozenset[tuple[str, str]]]:
        return [name_keys(name) for name in self.coauthor_names]


@dataclass
class CandidateWork:
    year: int | None = None
    venue_id: int | None = None
    institution_ids: frozenset[int] = frozenset()
    affiliation_names: tuple[str, ...] = ()
    coauthor_ids: frozenset[int] = frozenset()
    coauthor_names: tuple[str, ...] = ()
    topic_keys: frozenset[str] = frozenset()
    raw_name: str = ""  # the candidate's own name as this byline wrote it
    title_key: str | None = None  # ingest.writer.identity.title_key of the work


@dataclass(frozen=True)
class WorksDigest:
    """A candidate's works taken together by the database (candidate_works.digests): the
    works no mention of the batch can leave out (features.left_out), which need no row each.
    What _summary reads of them, each value once: the works counted, the coauthors' ids and
    names, institutions, raw affiliations, topics, the first and last year, the works per
    venue and the spellings of the candidate's own name."""

    works: int = 0
    coauthor_ids: frozenset[int] = frozenset()
    coauthor_names: frozenset[str] = frozenset()
    institution_ids: frozenset[int] = frozenset()
    affiliation_names: frozenset[str] = frozenset()
    topic_keys: frozenset[str] = frozenset()
    years: tuple[int, ...] = ()  # the first and the last (year_gap reads no other)
    venues: tuple[tuple[int | None, int], ...] = ()  # (venue, works)
    spellings: frozenset[str] = frozenset()


@dataclass
class CandidateProfile:
    """What bzpeer holds about an existing researcher: work by work (works), and for the
    resolver's batches the works no mention can leave out taken together (digest)."""

    researcher_id: int
    display_name: str
    orcid: str | None = None
    openalex_id: str | None = None
    dblp_key: str | None = None
    affiliation_institution_ids: frozenset[int] = frozenset()  # researchers_affiliation
    email_domains: frozenset[str] = frozenset()  # of the candidate's institutions
    works: dict[int, CandidateWork] = field(default_factory=dict)
    # Its other works, summed up by the database (None: every work is in works).
    digest: WorksDigest | None = None
    # The batch's coauthor names by key (None: each pair gathers the coauthors' keys).
    coauthor_index: CoauthorNameIndex | None = field(default=None, compare=False, repr=False)
    # Its works summed up, per set of works left out, filled by pair_features.
    summaries: dict[frozenset[int], Any] = field(default_factory=dict, compare=False, repr=False)
    # Its works by title key, filled by left_out (not an __init__ field: dataclasses.replace
    # with other works starts it again).
    titles: dict[str, frozenset[int]] | None = field(
        default=None, init=False, compare=False, repr=False
    )

    @property
    def name(self) -> PersonName:
        return person_name(self.display_name)


# The hook for closeness in meaning (issue 26's embeddings): a function of (mention, candidate)
# returning a cosine in -1..1, or None when either side has no vector. Unset, the feature is
# missing (NaN) for every pair, as in the shipped model's training; set it, then retrain.
AbstractSimilarity = Callable[[MentionContext, CandidateProfile], float | None]
ABSTRACT_SIMILARITY: AbstractSimilarity | None = None


@lru_cache(maxsize=65536)
def _affiliation_key(text: str) -> str:
    return normalize_name(text)


def initials_only(name: PersonName) -> bool:
    return not name.given or all(len(token) == 1 for token in name.given)


def _jaccard(left: frozenset[str] | set[str], right: frozenset[str] | set[str]) -> float:
    if not left or not right:
        return NAN
    return len(left & right) / len(left | right)


@dataclass
class _Summary:
    """A candidate's works taken together (computed once per candidate, not once per pair)."""

    works: int = 0
    coauthor_ids: set[int] = field(default_factory=set)
    coauthor_names: frozenset[str] | set[str] = field(default_factory=set)
    # The batch's index of coauthor names, when it holds every one of these (_overlaps).
    index: CoauthorNameIndex | None = None
    # Filled on first use (_keys, _full_keys), only for pairs the index does not answer; and
    # most pairs share no coauthor key, while a full key shared is a key shared, so most
    # summaries never need the full keys.
    coauthor_keys: set[tuple[str, str]] | None = None
    coauthor_full_keys: set[tuple[str, str]] | None = None
    institutions: set[int] = field(default_factory=set)
    affiliations: set[str] = field(default_factory=set)
    topics: set[str] = field(default_factory=set)
    years: list[int] = field(default_factory=list)
    venues: dict[int | None, int] = field(default_factory=dict)
    spellings: set[str] = field(default_factory=set)
    name: PersonName | None = None  # the fullest spelling (spelled_name)


def spelled_name(display_name: str, spellings: set[str]) -> PersonName:
    """The fullest way the record's bylines spell its name ('Thomas Moreau' for a record shown
    as 'T. Moreau'), when every spelling is compatible with it; else the display name. A
    record first seen under initials is then compared by the given name its other works
    spell out."""
    shown = person_name(display_name)
    names = [person_name(text) for text in sorted(spellings) if text]
    fullest = max(
        names,
        key=lambda n: (not initials_only(n), sum(len(t) for t in n.given), n.given),
        default=shown,
    )
    if fullest == shown or initials_only(fullest):
        return shown
    if all(names_compare(fullest, other) != GivenNames.INCOMPATIBLE for other in [shown, *names]):
        return fullest
    return shown


def left_out(mention: MentionContext, candidate: CandidateProfile) -> frozenset[int]:
    """The candidate's works that are no evidence about this mention: its own work, and the
    other copies of the same paper (the same title key). A copy's byline is the mention's
    byline again, not a history of working together: counted, every publisher's version of a
    preprint would vouch for itself, and its name-only author would be linked to the
    preprint's author on the strength of one paper (the writer unites the copies, and their
    authors, once a record names both: tests/ingest/test_works_that_are_one.py)."""
    own = frozenset({mention.work_id}) if mention.work_id in candidate.works else frozenset()
    if not mention.title_key:
        return own
    if candidate.titles is None:
        by_title: dict[str, set[int]] = {}
        for work_id, work in candidate.works.items():
            if work.title_key:
                by_title.setdefault(work.title_key, set()).add(work_id)
        candidate.titles = {key: frozenset(ids) for key, ids in by_title.items()}
    return own | candidate.titles.get(mention.title_key, frozenset())


def _summary(candidate: CandidateProfile, excluded: frozenset[int]) -> _Summary:
    cache = candidate.summaries
    if excluded in cache:
        return cache[excluded]
    summary = _Summary(institutions=set(candidate.affiliation_institution_ids))
    # The works' fields gathered first, then each distinct value handled once: a candidate's
    # works name the same team again and again, and parsing a coauthor's name (name_keys) is
    # the costly step (most of this function's time before, per name written).
    coauthor_names: set[str] = set()
    affiliations: set[str] = set()
    digest = candidate.digest
    digest_names: frozenset[str] = frozenset()
    if digest is not None:  # never left out: the works of digest are none of excluded
        summary.works = digest.works
        summary.coauthor_ids |= digest.coauthor_ids
        digest_names = digest.coauthor_names  # most of a batch's names: not copied
        summary.institutions |= digest.institution_ids
        affiliations |= digest.affiliation_names
        summary.topics |= digest.topic_keys
        summary.years.extend(digest.years)
        summary.venues.update(digest.venues)
        summary.spellings |= digest.spellings
    for work_id, work in candidate.works.items():
        if work_id in excluded:
            continue
        summary.works += 1
        summary.coauthor_ids |= work.coauthor_ids
        coauthor_names.update(work.coauthor_names)
        summary.institutions |= work.institution_ids
        affiliations.update(work.affiliation_names)
        summary.topics |= work.topic_keys
        if work.year:
            summary.years.append(work.year)
        summary.venues[work.venue_id] = summary.venues.get(work.venue_id, 0) + 1
        summary.spellings.add(work.raw_name)
    summary.coauthor_names = digest_names | coauthor_names if coauthor_names else digest_names
    index = candidate.coauthor_index
    if index is not None and index.holds(summary.coauthor_names):
        summary.index = index
    summary.affiliations = {_affiliation_key(a) for a in affiliations}
    summary.affiliations.discard("")
    summary.name = spelled_name(candidate.display_name, summary.spellings)
    cache[excluded] = summary
    return summary


def _keys(summary: _Summary) -> set[tuple[str, str]]:
    if summary.coauthor_keys is None:
        # map() calls the cached function without a Python frame per name.
        summary.coauthor_keys = set().union(*map(name_keys, summary.coauthor_names))
    return summary.coauthor_keys


def _overlaps(mention: MentionContext, summary: _Summary) -> tuple[int, int]:
    """coauthor_name_overlap and coauthor_full_name_overlap: the byline names that share an
    initial key (a full key) with one of the candidate's coauthor names. From the batch's
    index when it knows both sides (coauthor_names.CoauthorNameIndex: the same counts), else
    from every coauthor's keys."""
    names, index = summary.coauthor_names, summary.index
    if index is not None and index.compares(mention.coauthor_names):
        name_overlap = sum(1 for name in mention.coauthor_names if index.meets(name, names))
        if not name_overlap:
            return 0, 0
        return name_overlap, sum(
            1 for name in mention.coauthor_names if index.meets_full(name, names)
        )
    coauthor_keys = _keys(summary)
    name_overlap = sum(1 for keys in mention.coauthor_keys() if keys & coauthor_keys)
    if not name_overlap:  # (family name, given name) met implies (family name, initial) met
        return 0, 0
    full_keys = _full_keys(summary)
    return name_overlap, sum(
        1 for name in mention.coauthor_names if full_name_keys(name) & full_keys
    )


def _full_keys(summary: _Summary) -> set[tuple[str, str]]:
    if summary.coauthor_full_keys is None:
        summary.coauthor_full_keys = set().union(*map(full_name_keys, summary.coauthor_names))
    return summary.coauthor_full_keys


def pair_features(
    mention: MentionContext,
    candidate: CandidateProfile,
    *,
    name_candidates: int,
    name_records: int | None = None,
) -> dict[str, float]:
    """The features of one pair (FEATURE_NAMES), the mention's own work (and its copies) left
    out. name_records: how many records carry the mention's name key (None: not counted)."""
    summary = _summary(candidate, left_out(mention, candidate))
    candidate_name = summary.name or candidate.name
    given = names_compare(mention.name, candidate_name)
    mention_full = " ".join(mention.name.given + mention.name.family)
    candidate_full = " ".join(candidate_name.given + candidate_name.family)
    coauthor_ids = summary.coauthor_ids
    institutions, affiliations = summary.institutions, summary.affiliations
    topics, years = summary.topics, summary.years
    venue_works = summary.venues.get(mention.venue_id, 0) if mention.venue_id is not None else 0
    works = summary.works
    others = len(mention.coauthor_names)
    name_overlap, full_overlap = _overlaps(mention, summary)
    mention_affiliations = {_affiliation_key(a) for a in mention.affiliation_names} - {""}
    affiliation_similarity = (
        max(
            fuzz.token_set_ratio(one, other) / 100
            for one in mention_affiliations
            for other in affiliations
        )
        if mention_affiliations and affiliations
        else NAN
    )
    if mention.year and years:
        year_gap = float(max(0, min(years) - mention.year, mention.year - max(years)))
    else:
        year_gap = NAN
    email = (
        float(bool(mention.email_domains & candidate.email_domains))
        if mention.email_domains and candidate.email_domains
        else NAN
    )
    similarity = ABSTRACT_SIMILARITY(mention, candidate) if ABSTRACT_SIMILARITY else None
    return {
        "given_names": float(given),
        "name_exact": float(mention_full == candidate_full),
        "name_similarity": fuzz.token_sort_ratio(mention_full, candidate_full) / 100,
        "mention_initials_only": float(initials_only(mention.name)),
        "candidate_initials_only": float(initials_only(candidate_name)),
        "shared_coauthor_ids": float(len(mention.coauthor_ids & coauthor_ids)),
        "coauthor_name_overlap": float(name_overlap),
        "coauthor_name_ratio": name_overlap / others if others else NAN,
        "byline_others": float(others),
        "shared_institutions": float(len(mention.institution_ids & institutions))
        if mention.institution_ids
        else NAN,
        "affiliation_similarity": affiliation_similarity,
        "topic_jaccard": _jaccard(mention.topic_keys, topics),
        "shared_topics": float(len(mention.topic_keys & topics)) if mention.topic_keys else NAN,
        "venue_works": float(venue_works) if mention.venue_id is not None else NAN,
        "year_gap": year_gap,
        "candidate_works": math.log1p(works),
        "name_candidates": float(name_candidates),
        "email_domain_match": email,
        "abstract_similarity": NAN if similarity is None else float(similarity),
        "coauthor_full_name_overlap": float(full_overlap),
        "name_key_records": NAN if name_records is None else float(name_records),
    }


# --- The signals a link needs besides the model's score (decide.py) ---------------------------

AFFILIATION_MATCH = 0.9
TOPIC_MATCH = 0.2
MAX_TEAM_SIGNALS = 3
TEAM_NAME_RATIO = 0.15
TEAM_ID_RATIO = 0.1


def independent_signals(features: dict[str, float]) -> dict[str, bool | int]:
    """The evidence besides the name, counted as independent signals: the team (resolved
    coauthors or coauthors by name, whichever is more, at most MAX_TEAM_SIGNALS), the
    institution (an id or a near-identical affiliation string), the venue, the topics."""
    # A few names met by chance on a long byline are no team (NaN: no byline at all); one
    # resolved coauthor among dozens is weak too.
    ratio = features["coauthor_name_ratio"]
    # Names count for the team when their given names are spelled out and the same: initials
    # alone meet too many people of a big field (the synthetic corpus's sibling labs).
    by_name = features["coauthor_full_name_overlap"] if ratio >= TEAM_NAME_RATIO else 0.0
    by_id = features["shared_coauthor_ids"]
    others = max(1.0, features["byline_others"])
    if by_id < 2 and by_id / others < TEAM_ID_RATIO:
        by_id = 0.0
    team = int(max(by_id, by_name))

    def at_least(name: str, floor: float) -> bool:
        value = features[name]
        return not math.isnan(value) and value >= floor

    return {
        "team": min(team, MAX_TEAM_SIGNALS),
        "institution": at_least("shared_institutions", 1)
        or at_least("affiliation_similarity", AFFILIATION_MATCH),
        "venue": at_least("venue_works", 1),
        "topics": at_least("topic_jaccard", TOPIC_MATCH),
    }


def signal_count(signals: dict[str, bool | int]) -> int:
    return int(signals["team"]) + sum(int(bool(v)) for k, v in signals.items() if k != "team")


__all__ = [
    "ABSTRACT_SIMILARITY",
    "FEATURE_NAMES",
    "CandidateProfile",
    "CandidateWork",
    "CoauthorNameIndex",
    "GivenNames",
    "MentionContext",
    "WorksDigest",
    "independent_signals",
    "pair_features",
    "signal_count",
]
