"""Bylines already in the database as mention contexts: the training set (identified mentions
with their identifiers hidden) and the re-run over L0 records (rerun.py).

A mention context built from an authorship leaves its own work out of every candidate's
evidence (MentionContext.work_id), so the person's record is compared with the rest of their
works, as a new byline would be.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from researchers.names import dblp_identity_key, person_name

from .decide import identified, link_allowed, score_candidates
from .features import FEATURE_NAMES, CandidateProfile, Cursor, MentionContext
from .resolve import scored_contexts

MAX_AUTHORS_FOR_EVIDENCE = 100
CHUNK = 500

_CONTEXTS_SQL = """
SELECT a.id, a.work_id, a.researcher_id, a.raw_name, a.institution_ids, a.affiliation_names,
       w.source_id, w.publication_year, r.dblp_id,
       coalesce(r.orcid, r.openalex_id, r.id::text),
       ARRAY(SELECT b.raw_name FROM publications_authorship b
             WHERE b.work_id = a.work_id AND b.position <> a.position ORDER BY b.position),
       ARRAY(SELECT b.researcher_id FROM publications_authorship b
             JOIN researchers_researcher rb ON rb.id = b.researcher_id
             WHERE b.work_id = a.work_id AND b.position <> a.position
               AND (NOT %(identified_only)s OR rb.openalex_id IS NOT NULL OR rb.orcid IS NOT NULL)),
       ARRAY(SELECT t.external_id FROM publications_worktopic wt
             JOIN publications_topic t ON t.id = wt.topic_id WHERE wt.work_id = a.work_id),
       w.title_key
FROM publications_authorship a
JOIN researchers_researcher r ON r.id = a.researcher_id
JOIN publications_work w ON w.id = a.work_id
WHERE a.id = ANY(%(ids)s) AND w.authors_count <= %(max_authors)s
ORDER BY a.id
"""


def authorship_contexts(
    cursor: Cursor, authorship_ids: Sequence[int], *, identified_coauthors_only: bool
) -> list[tuple[MentionContext, int, str]]:
    """(context, the researcher the byline names, their identifier) per authorship: one
    statement. With
    identified_coauthors_only the byline's resolved coauthors are its identified ones (as a new
    byline would have them); otherwise every record on it (the re-run)."""
    cursor.execute(
        _CONTEXTS_SQL,
        {
            "ids": list(authorship_ids),
            "identified_only": identified_coauthors_only,
            "max_authors": MAX_AUTHORS_FOR_EVIDENCE,
        },
    )
    found = []
    for (
        authorship_id,
        work_id,
        researcher_id,
        raw_name,
        institutions,
        affiliations,
        venue,
        year,
        dblp_id,
        identity,
        names,
        coauthors,
        topics,
        title_key,
    ) in cursor.fetchall():
        context = MentionContext(
            key=authorship_id,
            name=person_name(raw_name),
            display_name=raw_name,
            dblp_key=dblp_identity_key(dblp_id or ""),
            work_id=work_id,
            coauthor_ids=frozenset(coauthors or ()) - {researcher_id},
            coauthor_names=tuple(names or ()),
            institution_ids=frozenset(institutions or ()),
            affiliation_names=tuple(affiliations or ()),
            topic_keys=frozenset(topics or ()),
            venue_id=venue,
            year=year,
            title_key=title_key,
        )
        found.append((context, researcher_id, identity))
    return found


def identified_authorships(cursor: Cursor, *, limit: int, seed: int) -> list[int]:
    """A seeded sample of authorships of identified researchers (OpenAlex id or ORCID iD)."""
    cursor.execute(
        """
        SELECT a.id FROM publications_authorship a
        JOIN researchers_researcher r ON r.id = a.researcher_id
        JOIN publications_work w ON w.id = a.work_id
        WHERE r.merged_into_id IS NULL AND (r.openalex_id IS NOT NULL OR r.orcid IS NOT NULL)
        ORDER BY md5(coalesce(w.doi, w.arxiv_id, w.title) || ':' || a.position || ':' || %s)
        LIMIT %s
        """,
        [str(seed), limit],
    )
    return [row[0] for row in cursor.fetchall()]


@dataclass
class Pairs:
    rows: list[dict[str, float]]
    labels: list[int]
    groups: list[str]  # the true researcher: folds hold whole people out
    eligible: list[bool]  # the rules would let this pair link (natural mentions only)


def labelled_pairs(cursor: Cursor, authorship_ids: Sequence[int]) -> Pairs:
    """Every (hidden mention, candidate) pair with its features and whether it is the same
    person. Candidates without any other work are left out (nothing to learn from)."""
    pairs = Pairs([], [], [], [])
    identity: dict[int, str] = {}  # folds by the person's identifier: stable across databases
    for start in range(0, len(authorship_ids), CHUNK):
        chunk = authorship_contexts(
            cursor, authorship_ids[start : start + CHUNK], identified_coauthors_only=True
        )
        truth = {context: rid for context, rid, _ in chunk}
        identity.update({rid: key for _, rid, key in chunk})
        contexts = [context for context, _, _ in chunk]
        scored = scored_contexts(cursor, contexts, model=None)
        _add(pairs, scored, truth, identity, natural=True)
        renamed = _namesake_probes(scored, truth)
        probes = scored_contexts(cursor, list(renamed), model=None)
        _add(pairs, probes, renamed, identity, natural=False)
        _add(pairs, _thinned(scored), truth, identity, natural=False)
    return pairs


def _add(
    pairs: Pairs,
    scored: dict[MentionContext, list[Any]],
    truth: dict[Any, int],
    identity: dict[int, str],
    *,
    natural: bool,
) -> None:
    """natural False (the renamed probes): trained on, but not used to choose the threshold,
    which is set on mentions as bylines really write them."""
    for context, candidates in scored.items():
        for s in candidates:
            if s.excluded or not any(w != context.work_id for w in s.candidate.works):
                continue
            if s.candidate.researcher_id != truth[context] and not identified(s.candidate):
                # An L0 record of the same name has no known truth: it is often the person's own
                # unplaced byline (their perfect team, one work). Labelled a negative, it taught
                # the model that a full team on a record of one work means another person.
                continue
            pairs.rows.append({name: s.features[name] for name in FEATURE_NAMES})
            pairs.labels.append(int(s.candidate.researcher_id == truth[context]))
            pairs.groups.append(identity.get(truth[context], str(truth[context])))
            pairs.eligible.append(natural and link_allowed(s, context))


def _thinned(scored: dict[MentionContext, list[Any]]) -> dict[MentionContext, list[Any]]:
    """The same pairs with every candidate reduced to one other work (chosen by a hash, so
    the set is deterministic): the real records' people mostly have one or two works besides
    the byline, the synthetic ones five or more, and a namesake and the person must look
    alike in how much is known of them, or the model learns that a thin record is the person."""
    contexts = list(scored)
    thin: dict[MentionContext, list[CandidateProfile]] = {}
    for context in contexts:
        thin[context] = []
        for s in scored[context]:
            others = sorted(w for w in s.candidate.works if w != context.work_id)
            if not others:
                continue
            kept = min(others, key=lambda w: _digest(f"{s.candidate.researcher_id}:{w}"))
            thin[context].append(
                dataclasses.replace(
                    s.candidate, works={kept: s.candidate.works[kept]}, summaries={}
                )
            )
    # How common each name is does not change with how much is known of its candidates.
    records = {
        context: int(value)
        for context in contexts
        for value in [next((s.features["name_key_records"] for s in scored[context]), None)]
        if value is not None and value == value  # NaN: not counted
    }
    return score_candidates(None, contexts, thin, name_records=records)


def _digest(text: str) -> str:
    return hashlib.md5(text.encode(), usedforsecurity=False).hexdigest()


def _namesake_probes(
    scored: dict[MentionContext, list[Any]], truth: dict[MentionContext, int]
) -> dict[MentionContext, int]:
    """Hard negatives (S2AND's lesson: the traps teach most): each mention again, under the
    name of up to two people of the same chunk who share a topic with it but not its team, so
    the model sees one person's field, venue and institution under another's name. The truth
    stays the mention's own person: every other candidate is a false link."""
    profiles = {
        s.candidate.researcher_id: s.candidate
        for context, candidates in scored.items()
        for s in candidates
        if s.candidate.researcher_id == truth[context]
    }
    by_coauthor: dict[int, set[int]] = defaultdict(set)
    by_topic: dict[str, set[int]] = defaultdict(set)
    for rid, profile in profiles.items():
        for work in profile.works.values():
            for coauthor in work.coauthor_ids:
                by_coauthor[coauthor].add(rid)
            for topic in work.topic_keys:
                by_topic[topic].add(rid)
    renamed: dict[MentionContext, int] = {}
    for context in scored:
        own = truth[context]
        # People of the same field who never wrote with the byline's team: a team shared
        # with the mention would make the probe the same person in all but name.
        team = {r for c in context.coauthor_ids for r in by_coauthor.get(c, ())}
        near = sorted({r for t in context.topic_keys for r in by_topic.get(t, ())} - team - {own})
        near.sort(key=lambda r: (profiles[r].display_name, profiles[r].orcid or ""))
        for other in near[:2]:
            name = profiles[other].display_name
            probe = dataclasses.replace(
                context, key=(context.key, other), name=person_name(name), display_name=name
            )
            renamed[probe] = own
    return renamed
