"""The name resolver's benchmark (issue 15): its rate on 100,000 name-only authorships against
whatever corpus a bench database holds. `python -m bench.resolver_bench --database NAME
[--mentions N]`; the documented run is on the import benchmark's 1M-work corpus
(`make bench BENCH_WORKS=1000000` leaves it in bzpeer_bench, the default).

The mentions are synthetic, drawn from the corpus's own researchers and bylines (seeded), in
the mix the resolver meets:
- a researcher's name with two of their real coauthors on the byline (a link);
- the same with the given name cut to an initial (a close call: never linked automatically);
- a researcher's name with one real coauthor (one signal: a close call);
- a researcher's name alone (the name is never enough: a new record);
- a name nobody has (a new record).

A yardstick first: linking by the name alone (never done: a name is never enough), one indexed
lookup of each batch's normalised names. Then two phases, batch by batch (IMPORT_BATCH_SIZE
mentions, as the writer calls it):
1. resolve: the candidate lookup and the decision alone, issue 15's rules
   (writer/resolver.py: name_resolution_by_rules) then the learned resolver (name_resolution:
   ingest.resolution's evidence, features and model);
2. write: the whole hook as the writer runs it (writer/authors.py: researchers_for_mentions):
   resolution, new L0 records, NameOnlyAuthor rows, the links' reasons and the close calls
   recorded in claims' tables. Rolled back at the end: the corpus is left as it was.
Figures: mentions per second, statements per batch, outcomes, peak memory (flat: the process's
high-water mark and its RSS after each batch).
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import smoke
from bench.harness import django_in_process, say

REPO_ROOT = Path(__file__).resolve().parents[1]


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


def sample_people(cursor: Any, count: int, seed: int) -> list[tuple[int, str, list[int]]]:
    """Researchers with coauthors: (id, display name, up to 6 coauthor ids)."""
    cursor.execute(
        """
        WITH picked AS (
            SELECT id, display_name FROM researchers_researcher
            WHERE merged_into_id IS NULL
            ORDER BY md5(id::text || %(seed)s) LIMIT %(count)s
        )
        SELECT p.id, p.display_name, coalesce(
            (SELECT array_agg(c.researcher_id) FROM (
                SELECT DISTINCT a2.researcher_id
                FROM publications_authorship a1
                JOIN publications_authorship a2 ON a2.work_id = a1.work_id
                WHERE a1.researcher_id = p.id AND a2.researcher_id IS NOT NULL
                  AND a2.researcher_id <> p.id
                LIMIT 6) c), '{}')
        FROM picked p
        """,
        {"seed": str(seed), "count": count},
    )
    return [(rid, name, list(coauthors)) for rid, name, coauthors in cursor.fetchall()]


def synthetic_mentions(
    people: Sequence[tuple[int, str, list[int]]],
    total: int,
    seed: int,
    names_of: dict[int, str] | None = None,
) -> list[Any]:
    from ingest.writer.authors import NameMention
    from researchers.names import normalize_name

    rng = random.Random(seed)
    with_two = [p for p in people if len(p[2]) >= 2] or list(people)
    mentions = []
    for index in range(total):
        kind = index % 10
        _, name, coauthors = rng.choice(with_two)
        if kind < 3:  # a link
            shown, byline = name, rng.sample(coauthors, min(2, len(coauthors)))
        elif kind < 5:  # an initial: a close call
            words = name.split()
            shown = f"{words[0][0]}. {' '.join(words[1:])}" if len(words) > 1 else name
            byline = rng.sample(coauthors, min(2, len(coauthors)))
        elif kind < 7:  # one signal: a close call
            shown, byline = name, coauthors[:1]
        elif kind < 9:  # the name alone
            shown, byline = name, []
        else:  # nobody's name
            shown, byline = f"Nobody Nameless{index}", []
        mentions.append(
            NameMention(
                "bench",
                f"bench:{index // 5}",
                normalize_name(shown)[:500] + f" {index % 5}",
                shown,
                coauthor_ids=frozenset(byline),
                # The byline as written: the learned resolver's team by name.
                coauthor_names=tuple((names_of or {}).get(c, "") for c in byline),
            )
        )
    return mentions


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="bzpeer_bench")
    parser.add_argument("--mentions", type=int, default=100_000)
    parser.add_argument("--batch", type=int, default=0, help="default: IMPORT_BATCH_SIZE")
    parser.add_argument("--seed", type=int, default=15)
    smoke.add_argument(parser)
    args = parser.parse_args(argv)
    if args.smoke:  # its own tiny corpus instead of the import benchmark's
        smoke.apply(
            parser, args, database=smoke.default_database("resolver"), mentions=200, batch=100
        )
        smoke.begin(args.database)
        smoke.tiny_corpus(args.database)
    return args


@dataclass
class Corpus:
    researchers: int
    authorships: int
    batches: list[list[Any]]

    @property
    def mentions(self) -> int:
        return sum(len(batch) for batch in self.batches)


def _corpus(args: argparse.Namespace) -> Corpus | None:
    """The synthetic name-only mentions of sampled researchers, in import batches; None when
    the database holds no researchers."""
    from django.conf import settings
    from django.db import connection

    batch_size = args.batch or settings.IMPORT_BATCH_SIZE
    with connection.cursor() as wrapper:
        cursor = wrapper.cursor
        cursor.execute("SELECT count(*) FROM researchers_researcher")
        researchers = cursor.fetchone()[0]
        cursor.execute("SELECT count(*) FROM publications_authorship")
        authorships = cursor.fetchone()[0]
        if researchers == 0:
            return None
        say(f"corpus: {researchers:,} researchers, {authorships:,} authorships")
        people = sample_people(cursor, min(researchers, max(1000, args.mentions // 2)), args.seed)
        cursor.execute(
            "SELECT id, display_name FROM researchers_researcher WHERE id = ANY(%s)",
            [sorted({c for _, _, coauthors in people for c in coauthors})],
        )
        names_of = dict(cursor.fetchall())
    mentions = synthetic_mentions(people, args.mentions, args.seed, names_of)
    batches = [mentions[i : i + batch_size] for i in range(0, len(mentions), batch_size)]
    say(f"{len(mentions):,} name-only mentions in {len(batches)} batches of {batch_size}")
    return Corpus(researchers=researchers, authorships=authorships, batches=batches)


@dataclass
class Phases:
    timings: dict[str, float] = field(default_factory=dict)
    outcomes: Counter[str] = field(default_factory=Counter)
    rss_after: list[float] = field(default_factory=list)
    exact_name_matches: int = 0


class _Rollback(Exception):
    pass


def _phases_timed(batches: list[list[Any]]) -> Phases:
    """Each phase over every batch, in one transaction that is rolled back: the exact-name
    yardstick, issue 15's rules, the learned resolver, the writer."""
    from django.db import connection, transaction

    from ingest.resolution.model import load
    from ingest.writer.authors import researchers_for_mentions
    from ingest.writer.resolver import (
        name_resolution,
        name_resolution_by_rules,
        resolver_in_use,
    )
    from researchers.names import normalize_name

    phases = Phases()
    # The model (and LightGBM with it, about 10 s to import on this machine) loaded before the
    # clock starts: a worker loads it once, and it is no part of any batch's rate.
    load()
    try:
        # The learned resolver explicitly (the writer's default), whatever RESOLVER says.
        with transaction.atomic(), connection.cursor() as wrapper, resolver_in_use("model"):
            cursor = wrapper.cursor
            # The yardstick: what linking by the name alone would cost, one indexed lookup of
            # the batch's normalised names (researcher_name_cited_idx). bzpeer never does it:
            # a name is never enough.
            started = time.perf_counter()
            for batch in batches:
                cursor.execute(
                    "SELECT id FROM researchers_researcher"
                    " WHERE name_normalized = ANY(%s) AND merged_into_id IS NULL",
                    [sorted({normalize_name(m.display_name)[:500] for m in batch})],
                )
                phases.exact_name_matches += len(cursor.fetchall())
            phases.timings["exact-name lookup (yardstick)"] = time.perf_counter() - started
            started = time.perf_counter()
            for batch in batches:
                name_resolution_by_rules(cursor, batch)
            phases.timings["resolve: issue 15's rules (before)"] = time.perf_counter() - started
            started = time.perf_counter()
            for batch in batches:
                resolution = name_resolution(cursor, batch)
                phases.outcomes.update(d.outcome for d in resolution.decisions.values())
                phases.rss_after.append(rss_mb())
            phases.timings["resolve: learned (after)"] = time.perf_counter() - started
            started = time.perf_counter()
            for batch in batches:
                researchers_for_mentions(cursor, batch)
                phases.rss_after.append(rss_mb())
            phases.timings["write"] = time.perf_counter() - started
            raise _Rollback
    except _Rollback:
        pass
    return phases


def _report(corpus: Corpus, phases: Phases) -> None:
    from researchers.resolution import Outcome

    say(
        f"Name resolver benchmark ({corpus.researchers:,} researchers,"
        f" {corpus.authorships:,} authorships)"
    )
    for phase, seconds in phases.timings.items():
        say(f"  {phase:36} {corpus.mentions / seconds:10,.0f} mentions/s ({seconds:.1f} s)")
    say(f"  exact-name lookup: {phases.exact_name_matches:,} researchers share a mention's name")
    say(
        "  outcomes: "
        + ", ".join(
            f"{k} {phases.outcomes[k]:,}" for k in (Outcome.LINKED, Outcome.CLOSE_CALL, Outcome.NEW)
        )
    )
    say(
        f"  memory: peak {peak_mb():.0f} MB; RSS after the first batch {phases.rss_after[0]:.0f}"
        f" MB, after the last {phases.rss_after[-1]:.0f} MB"
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    django_in_process(args.database, announce=True)
    corpus = _corpus(args)
    if corpus is None:
        say(f"{args.database} holds no researchers: run the import benchmark first")
        return 2
    _report(corpus, _phases_timed(corpus.batches))
    return 0


if __name__ == "__main__":
    sys.exit(main())
