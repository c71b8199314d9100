"""The learned resolver's database side: the candidates of a whole batch of mentions and what
bzpeer holds about each of them, one query per kind of evidence (never one per mention).

1. candidates by name: researchers (not merged away) indexed under one of the mentions' match
   tokens (mention_tokens: their (family name, first initial) keys, and the words of names
   the index leaves to Python), at most MAX_RECORDS_PER_TOKEN per token, kept when the names
   are compatible (names_compare), at most MAX_CANDIDATES_PER_MENTION per mention (the best
   names first, then the most works: a common name's long tail is left to the moderators'
   queue and to the re-run);
2. the candidates' works, one row per (candidate, work): year, venue, institutions, raw
   affiliations, the other authors (researcher ids and names as written: the team) and topics;
3. the candidates' affiliations (researchers_affiliation) and their institutions' email domains.

The evidence is kept work by work, so a caller can leave the mention's own work out (training
on identified mentions; the re-run over L0 records). Digested (the resolver's batches), 2 and 3
are two other statements (candidate_works.py): row by row only the works some pair of the
batch may leave out and the L0 candidates' works, the identified candidates' other works
summed up per candidate with the affiliations; the features are the same.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain

from researchers.names import (
    GivenNames,
    PersonName,
    blocking_keys,
    dblp_identity_key,
    keys_meet,
    names_compare,
    person_name,
)

from .candidate_works import digests, work_rows
from .coauthor_names import CoauthorNameIndex, coauthor_name_index
from .features import (
    CandidateProfile,
    CandidateWork,
    Cursor,
    MentionContext,
    WorksDigest,
    name_keys,
)

# How many records make a name common when not all of them were read (decide.py links a rare
# name only when its key meets one record).
RARE_NAME_FLOOR = 2
MAX_CANDIDATES_PER_MENTION = 12
# Records read per match token (a key such as 'smith|j'): the candidate read stays bounded
# whatever the corpus (on the 1M-work benchmark corpus a name's key is carried by thousands
# of records). More than this and the name is common: no rare-name link, and the candidates
# are MAX_CANDIDATES_PER_MENTION of those read.
MAX_RECORDS_PER_TOKEN = 40
# Words ('~word', '=word') stand for many more names than a key (the synthetic corpus's
# syllables are often nameparser particles, so thousands of its names are read by word): a
# bound of their own, so that a 20,000-work corpus still reads all of them.
MAX_RECORDS_PER_WORD = 400


@dataclass(frozen=True)
class _Named:
    researcher_id: int
    display_name: str
    orcid: str | None
    openalex_id: str | None
    dblp_key: str | None
    works_count: int


def mention_tokens(name: PersonName, dblp_key: str | None) -> set[str]:
    """The match tokens (researchers' migration 0016: researchers_name_match_tokens) under
    which every record this mention's name may be compatible with is indexed: its keys
    'family|initial', the first and last words of records the index could not parse ('~word'),
    and, for a name without a given name or with a dblp key (it meets every name of its
    words), the words themselves ('=word')."""
    words = blocking_keys(name)
    keys = name.match_keys()
    tokens = {f"~{word}" for word in words}
    if dblp_key or any(not initial for _, initial in keys):
        return tokens | {f"={word}" for word in words}
    return tokens | {f"{family}|{initial}" for family, initial in keys}


@dataclass
class _Found:
    named: list[_Named]
    truncated: set[str]  # tokens that held more than MAX_RECORDS_PER_TOKEN records


def _bound(token: str) -> int:
    return MAX_RECORDS_PER_TOKEN if "|" in token else MAX_RECORDS_PER_WORD


def researcher_statistics_ensure(cursor: Cursor) -> None:
    """Analyse the researchers table if it holds rows but no statistics yet (a first import
    into a new database, before autovacuum's first pass, which a busy machine delays).

    Without them the planner takes `merged_into_id IS NULL` for 0.5% of the rows, so both
    partial indexes on it look nearly empty, and it read _candidates_by_name's lookup through
    the btree one (researcher_name_cited_idx) instead of the GIN index of match tokens, running
    the token function on every record for every token: a test's batch of 5,000 records'
    names ran for over ten minutes where the GIN index takes milliseconds. The writer calls it
    right before the resolver (ingest.writer.authors), after the batch has written the records
    its bylines identify: a new database's first batch starts with no researchers, and its own
    records were then matched without statistics (the real-records evaluation: 40 s for one
    lookup of 2,756 tokens in 12 pages). Statistics of another state of the table misled it
    the same way; the lookup now names no partial index's predicate (researchers' migration
    0018), so only its row estimates depend on them. One small statement a batch otherwise;
    the ANALYZE happens once per database."""
    cursor.execute(
        """
        SELECT EXISTS (SELECT FROM researchers_researcher)
           AND NOT EXISTS (
               SELECT FROM pg_stats
               WHERE schemaname = current_schema() AND tablename = 'researchers_researcher'
                 AND attname = 'merged_into_id')
        """
    )
    (missing,) = cursor.fetchone() or (False,)
    if missing:
        cursor.execute("ANALYZE researchers_researcher")


def _candidates_by_name(cursor: Cursor, tokens: set[str]) -> _Found:
    """At most MAX_RECORDS_PER_TOKEN records (not merged away) per token, from the GIN index of
    match tokens: the read is bounded by the batch's names, not by how many records share
    them. Which records of a longer list come back is the index's order (arbitrary); such a
    name is common (see candidates_for)."""
    cursor.execute(
        """
        SELECT t.token, r.id, r.display_name, r.orcid, r.openalex_id, r.dblp_id, r.works_count
        FROM unnest(%(tokens)s::text[]) AS t(token)
        CROSS JOIN LATERAL (
            SELECT id, display_name, orcid, openalex_id, dblp_id, works_count
            FROM researchers_researcher
            -- "Not merged away" in a form no partial index answers (merged_into_id IS NULL
            -- is two btrees' predicate): the GIN index of tokens is the only one to use
            -- (researchers' migration 0018).
            WHERE coalesce(merged_into_id, 0) = 0
              AND researchers_name_match_tokens(
                      name_normalized::text, display_name::text, dblp_id::text)
                  @> ARRAY[t.token]
            LIMIT CASE WHEN t.token LIKE '%%|%%' THEN %(per_key)s ELSE %(per_word)s END
        ) r
        """,
        {
            "tokens": sorted(tokens),
            "per_key": MAX_RECORDS_PER_TOKEN + 1,
            "per_word": MAX_RECORDS_PER_WORD + 1,
        },
    )
    named: dict[int, _Named] = {}
    per_token: dict[str, int] = defaultdict(int)
    for token, rid, name, orcid, openalex_id, dblp_id, works in cursor.fetchall():
        per_token[token] += 1
        if per_token[token] > _bound(token):
            continue
        if rid not in named:
            named[rid] = _Named(
                rid, name, orcid, openalex_id, dblp_identity_key(dblp_id or ""), works or 0
            )
    truncated = {t for t, count in per_token.items() if count > _bound(t)}
    return _Found(list(named.values()), truncated)


def _affiliations(
    cursor: Cursor, ids: list[int]
) -> tuple[dict[int, set[int]], dict[int, set[str]]]:
    cursor.execute(
        """
        SELECT f.researcher_id, f.institution_id, i.email_domains
        FROM researchers_affiliation f
        JOIN researchers_institution i ON i.id = f.institution_id
        WHERE f.researcher_id = ANY(%s)
        """,
        [ids],
    )
    institutions: dict[int, set[int]] = defaultdict(set)
    domains: dict[int, set[str]] = defaultdict(set)
    for rid, institution_id, email_domains in cursor.fetchall():
        institutions[rid].add(institution_id)
        domains[rid].update(d.lower() for d in email_domains or ())
    return institutions, domains


def _add_batch_bylines(
    mentions: Sequence[MentionContext],
    works: dict[int, dict[int, CandidateWork]],
    named: dict[int, str],
) -> None:
    """The batch's own bylines as evidence (the byline resolved as a whole, and its batch
    too): a work being imported is not yet among its authors' works, yet a candidate named by
    id on one of the batch's bylines has written with everyone on it. Without this, two
    papers of one team in one batch, each naming the other's hidden author, see nothing. (Two
    copies of one paper, the same title key, are no evidence for each other:
    features.left_out.)"""
    seen: set[tuple[int, int]] = set()
    for mention in mentions:
        if mention.work_id is None:
            continue
        names = (*mention.coauthor_names, mention.display_name)
        for rid in mention.coauthor_ids:
            if rid not in named or mention.work_id in works.get(rid, {}):
                continue
            if (rid, mention.work_id) in seen:
                continue
            seen.add((rid, mention.work_id))
            own = person_name(named[rid]).match_keys()
            works.setdefault(rid, {})[mention.work_id] = CandidateWork(
                year=mention.year,
                venue_id=mention.venue_id,
                coauthor_ids=mention.coauthor_ids - {rid},
                # Their own name is among the byline's: left out (by its keys).
                coauthor_names=tuple(n for n in names if not (name_keys(n) & own)),
                topic_keys=mention.topic_keys,
                title_key=mention.title_key,
            )


def compatible(mention: MentionContext, candidate_name: str, dblp_key: str | None) -> GivenNames:
    """How the names compare; a dblp homonym key decides by itself (the same key: the same
    person; two different keys: never)."""
    if mention.dblp_key and dblp_key:
        return GivenNames.SAME if mention.dblp_key == dblp_key else GivenNames.INCOMPATIBLE
    other = person_name(candidate_name)
    if not keys_meet(mention.name, other):
        return GivenNames.INCOMPATIBLE
    return names_compare(mention.name, other)


class _NameIndex:
    """The batch's candidates by name key, so a mention meets only the names it may be
    compatible with (researchers.names.keys_meet) by dictionary lookups instead of comparing
    every name that shares a word with it: (family name, initial) of every reading, and apart
    the names with a reading without a given name (they meet any name of their words)."""

    def __init__(self, named: list[_Named]) -> None:
        self.by_word: dict[str, list[_Named]] = defaultdict(list)
        self.by_key: dict[tuple[str, str], list[_Named]] = defaultdict(list)
        self.bare_by_word: dict[str, list[_Named]] = defaultdict(list)
        for candidate in named:
            name = person_name(candidate.display_name)
            keys = name.match_keys()
            bare = any(not initial for _, initial in keys)
            for word in blocking_keys(name):
                self.by_word[word].append(candidate)
                if bare or candidate.dblp_key:
                    self.bare_by_word[word].append(candidate)
            for key in keys:
                self.by_key[key].append(candidate)

    def pool(self, mention: MentionContext) -> list[_Named]:
        keys = mention.name.match_keys()
        words = blocking_keys(mention.name)
        if mention.dblp_key or any(not initial for _, initial in keys):
            return [c for word in words for c in self.by_word.get(word, ())]
        return [c for key in keys for c in self.by_key.get(key, ())] + [
            c for word in words for c in self.bare_by_word.get(word, ())
        ]


def _full_name(name: PersonName) -> str:
    return " ".join(name.given + name.family)


def makes_name_common(mention: MentionContext, candidate: _Named, given: GivenNames) -> bool:
    """Whether a record counts in how common the mention's name is (name_key_records): a
    record of a compatible name ('C. Boettiger', 'Carl S. Boettiger'), or of the same family
    name and first initial as the mention is written ('Carla Boettiger'), but not one met only
    through another reading ('David Wang' read family name first meets 'David Wiljer'). An L0
    record of exactly the mention's full name is no namesake: it is an unplaced byline of the
    name, most often the person's own (the real corpus's Carl Boettiger: eight beside his
    ORCID record); counted, every rare name would turn common after its first name-only
    import."""
    unplaced = not (candidate.orcid or candidate.openalex_id or candidate.dblp_key)
    name = person_name(candidate.display_name)
    if unplaced and _full_name(name) == _full_name(mention.name):
        return False
    if given != GivenNames.INCOMPATIBLE:
        return True
    written = mention.name
    return bool(written.given) and (written.family_key, written.given[0][0]) in name.match_keys()


@dataclass(frozen=True)
class _Compared:
    candidate: _Named
    level: GivenNames
    common: bool  # counts in how common the mention's name is (makes_name_common)


def _compare_pool(mention: MentionContext, pool: list[_Named]) -> list[_Compared]:
    """Each record of the pool once, compared with the mention's name."""
    found: dict[int, _Compared] = {}
    for candidate in pool:
        if candidate.researcher_id in found:
            continue
        level = compatible(mention, candidate.display_name, candidate.dblp_key)
        found[candidate.researcher_id] = _Compared(
            candidate, level, makes_name_common(mention, candidate, level)
        )
    return list(found.values())


def _coauthor_index(
    mentions: Sequence[MentionContext],
    works: dict[int, dict[int, CandidateWork]],
    summed: dict[int, WorksDigest],
) -> CoauthorNameIndex:
    """The batch's coauthor names by key (coauthor_names.CoauthorNameIndex). The bylines
    compared are the mentions' and those of every work read row by row (the L0 candidates'
    works, which clusters.py compares as bylines, among them); the candidates' coauthors are
    those of the digests and of the same rows."""
    rows = [work.coauthor_names for by_work in works.values() for work in by_work.values()]
    return coauthor_name_index(
        chain(chain.from_iterable(m.coauthor_names for m in mentions), *rows),
        chain(chain.from_iterable(d.coauthor_names for d in summed.values()), *rows),
    )


@dataclass
class Candidates:
    """Every mention's candidates with their evidence, and how common its name is."""

    profiles: dict[MentionContext, list[CandidateProfile]]
    name_records: dict[MentionContext, int]


def candidates_for(
    cursor: Cursor,
    mentions: Sequence[MentionContext],
    *,
    exclude: dict[MentionContext, frozenset[int]] | None = None,
    digested: bool = False,
) -> Candidates:
    """Every mention's candidates with their evidence (see the module docstring), and the
    records carrying its name key (makes_name_common). Three statements whatever the batch
    size (four digested). exclude: researchers a mention can never be (its own record, in the
    re-run). digested: the identified candidates' works that no pair of these mentions leaves
    out come as one WorksDigest each (candidate_works.py; the same features, fewer rows),
    else every work as a CandidateWork (training thins candidates down to single works)."""
    found: dict[MentionContext, list[CandidateProfile]] = {m: [] for m in mentions}
    name_records: dict[MentionContext, int] = {}
    if not mentions:
        return Candidates(found, name_records)
    tokens = {m: mention_tokens(m.name, m.dblp_key) for m in mentions}
    found_by_name = _candidates_by_name(cursor, set().union(*tokens.values()))
    index = _NameIndex(found_by_name.named)
    # The pool and the comparisons depend on the name alone: mentions of one name (a batch's
    # bylines of one person, a common name) share them, each leaving out its own exclusions.
    compared: dict[tuple[PersonName, str | None], list[_Compared]] = {}
    picked: dict[tuple[PersonName, str | None], tuple[int, list[_Named]]] = {}
    chosen: dict[MentionContext, list[_Named]] = {}
    for mention in mentions:
        key = (mention.name, mention.dblp_key)
        excluded = (exclude or {}).get(mention, frozenset())
        if not excluded and key in picked:
            name_records[mention], chosen[mention] = picked[key]
            continue
        if key not in compared:
            compared[key] = _compare_pool(mention, index.pool(mention))
        kept = [c for c in compared[key] if c.candidate.researcher_id not in excluded]
        # How common the name is, counted over the same pool: the records of the whole
        # database its keys meet (the one candidate statement), so it costs no query.
        name_records[mention] = sum(c.common for c in kept)
        if tokens[mention] & found_by_name.truncated:
            # Not all of its records were read: the name is common (never a rare-name link).
            name_records[mention] = max(name_records[mention], RARE_NAME_FLOOR)
        ranked = sorted(
            (c for c in kept if c.level != GivenNames.INCOMPATIBLE),
            key=lambda c: (-c.level, -c.candidate.works_count, c.candidate.researcher_id),
        )
        chosen[mention] = [c.candidate for c in ranked[:MAX_CANDIDATES_PER_MENTION]]
        if not excluded:
            picked[key] = (name_records[mention], chosen[mention])
    ids = sorted({c.researcher_id for cs in chosen.values() for c in cs})
    summed: dict[int, WorksDigest] = {}
    institutions: dict[int, set[int]]
    domains: dict[int, set[str]]
    if digested:
        unplaced = sorted(
            {
                c.researcher_id
                for cs in chosen.values()
                for c in cs
                if not (c.orcid or c.openalex_id or c.dblp_key)  # decide.identified
            }
        )
        works = work_rows(cursor, ids, unplaced=unplaced, mentions=mentions)
        digested_works = digests(cursor, ids, unplaced, mentions)
        summed = digested_works.digests
        institutions, domains = digested_works.institutions, digested_works.domains
    else:
        works = work_rows(cursor, ids)
        institutions, domains = _affiliations(cursor, ids)
    _add_batch_bylines(
        mentions, works, {c.researcher_id: c.display_name for cs in chosen.values() for c in cs}
    )
    name_index = _coauthor_index(mentions, works, summed) if digested else None
    # One profile per researcher, shared by the mentions that have it as a candidate: its
    # works are summed up once (features._summary caches on the profile).
    profiles = {
        c.researcher_id: CandidateProfile(
            researcher_id=c.researcher_id,
            display_name=c.display_name,
            orcid=c.orcid,
            openalex_id=c.openalex_id,
            dblp_key=c.dblp_key,
            affiliation_institution_ids=frozenset(institutions.get(c.researcher_id, ())),
            email_domains=frozenset(domains.get(c.researcher_id, ())),
            works=works.get(c.researcher_id, {}),
            digest=summed.get(c.researcher_id),
            coauthor_index=name_index,
        )
        for cs in chosen.values()
        for c in cs
    }
    for mention, candidates in chosen.items():
        found[mention] = [profiles[c.researcher_id] for c in candidates]
    return Candidates(found, name_records)
