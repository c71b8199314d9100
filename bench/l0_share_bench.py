"""The sources benchmark's L0 share (issue 27): `python -m bench.l0_share_bench [--records N]`.

Of the name-only mentions of a person who already has an identified record, the share that
ends up on an L0 record (a new one, or another name-only one) instead of on theirs, for issue
15's rules and the learned resolver in the same run.

The world is the sources benchmark's (bench/sources_world.py: the same people, names, ORCID
iDs and bylines, built by its own functions): its Crossref records of their own (the 70% that
are not OpenAlex works) are imported first: a person numbered p with p % 5 == 0 carries an ORCID iD on every Crossref
byline, so those people have an identified record. Then its arXiv entries of their own and
without a DOI (arXiv never gives an ORCID iD) are imported through the same writer, once per
resolver, rolled back each time: every arXiv byline name of a person with an ORCID record is a
name-only mention whose truth is known. Each is counted as linked to their record, linked to
someone else's identified record (a false link), or left on an L0 record.

The sources benchmark's bylines are drawn at random from a shared pool (a few prolific
people, the rest rare: bench.sources_world._coauthors); no team writes together twice unless
by chance, so this measures what the issue's sources benchmark figure measures, not what the
resolver can do with real teams (bench.resolver_eval). In a database of its own (--database,
default bzpeer_bench_l0_share), emptied by the rollback. Figures, not a test.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from bench import smoke
from bench.harness import django_in_process, say
from bench.sources_world import (
    _FEED_HEAD,
    _coauthors,
    _title,
    _word,
    arxiv_entry,
    crossref_item,
    orcid_id,
    overlaps,
    person,
)

BATCH = 500


def crossref_people(index: int, records: int) -> list[int]:
    """The person numbers of Crossref record `index` (a record of its own), in byline order:
    the draws of sources_world.crossref_item (title, year, month, journal, byline), made
    again."""
    rng = random.Random(f"crossref:{index}")
    _title(rng, index, "crossref")
    rng.randint(1995, 2025), rng.randint(1, 12)
    _word(rng, 2)
    return _coauthors(rng, records)


def arxiv_people(index: int, records: int) -> list[int]:
    """The person numbers of arXiv entry `index` (of its own, no DOI), in byline order."""
    rng = random.Random(f"arxiv:{index}")
    _title(rng, index, "arxiv")
    rng.randint(1995, 2025)
    return _coauthors(rng, records)


def arxiv_wanted(index: int) -> bool:
    # Entries k % 10 < 4 carry a DOI (OpenAlex's or Crossref's work): they would join a work.
    return index % 10 >= 4


def records_prepare(records: int) -> tuple[list[Any], list[Any], dict[str, dict[int, int]]]:
    """(Crossref work records, arXiv work records, per arXiv entry id: position -> person)."""
    from ingest.arxiv.atom import parse_feed
    from ingest.arxiv.mapper import map_entry
    from ingest.crossref.mapper import map_work
    from ingest.records import WorkRecord

    crossref: list[WorkRecord] = []
    for index in range(records):
        if overlaps(index):
            continue
        item = crossref_item(index, records, {})
        assert [a.get("family") for a in item["author"] if "family" in a] == [
            person(p)[1] for p in crossref_people(index, records)
        ], "sources_world.crossref_item draws changed: crossref_people is out of step"
        crossref.append(map_work(item))
    wanted = [i for i in range(records) if not overlaps(i) and arxiv_wanted(i)]
    feed = _FEED_HEAD.format(number=0, start=0, page=len(wanted), total=len(wanted))
    feed += "".join(arxiv_entry(i, records, {}) for i in wanted) + "</feed>\n"
    arxiv = [map_entry(entry) for entry in parse_feed(feed.encode()).entries]
    truth: dict[str, dict[int, int]] = {}
    for index, record in zip(wanted, arxiv, strict=True):
        people = arxiv_people(index, records)
        names = [" ".join(person(p)) for p in people]
        assert [a.raw_name for a in record.authorships] == names, "arxiv_people out of step"
        truth[record.arxiv_id or ""] = {
            a.position: p for a, p in zip(record.authorships, people, strict=True)
        }
    return crossref, arxiv, truth


def _write(records: Sequence[Any], description: str) -> float:
    from django.db import transaction

    from ingest.models import ImportRun
    from ingest.parsing import ParsedBatch
    from ingest.services.batches import batch_write
    from ingest.writer import prepare_works

    run = ImportRun.objects.create(source="bench", description=description)
    started = time.perf_counter()
    for start in range(0, len(records), BATCH):
        chunk = list(records[start : start + BATCH])
        batch = ParsedBatch(read=len(chunk), records={"works": chunk})
        batch.prepared["works"] = prepare_works(chunk)
        with transaction.atomic():
            batch_write(batch, run_id=run.id, path=description)
    return time.perf_counter() - started


def measure(arxiv: Sequence[Any], truth: dict[str, dict[int, int]], resolver: str) -> Counter:
    """Import the arXiv records under `resolver`, count where the mentions of people with an
    ORCID record went, then roll the import back."""
    from django.db import transaction

    from ingest.writer.resolver import resolver_in_use
    from publications.models import Authorship
    from researchers.models import Researcher

    class Rollback(Exception):
        pass

    counts: Counter = Counter()
    try:
        with transaction.atomic(), resolver_in_use(resolver):
            counts["seconds"] = round(_write(arxiv, f"l0 share: arXiv, {resolver}"), 1)
            orcid_records = dict(
                Researcher.objects.filter(orcid__isnull=False).values_list("orcid", "pk")
            )
            rows = Authorship.objects.filter(
                work__arxiv_id__in=list(truth), researcher__isnull=False
            ).values_list("work__arxiv_id", "position", "researcher_id", "researcher__orcid")
            for arxiv_id, position, researcher_id, orcid in rows:
                number = truth[arxiv_id].get(position)
                if number is None or number % 5 or orcid_id(number) not in orcid_records:
                    continue  # not a person with an identified record
                counts["mentions"] += 1
                if researcher_id == orcid_records[orcid_id(number)]:
                    counts["linked to their record"] += 1
                elif orcid:
                    counts["linked to another identified record (false)"] += 1
                else:
                    counts["left on an L0 record"] += 1
            raise Rollback
    except Rollback:
        pass
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="bzpeer_bench_l0_share")
    parser.add_argument("--records", type=int, default=10_000, help="records per source")
    smoke.add_argument(parser)
    args = parser.parse_args(argv)
    if args.smoke:
        smoke.apply(parser, args, database=smoke.default_database("l0_share"), records=300)
        smoke.begin(args.database)
    django_in_process(args.database)
    from django.db import transaction

    crossref, arxiv, truth = records_prepare(args.records)
    say(
        f"sources world of {args.records:,} records a source: {len(crossref):,} Crossref works"
        f" imported first, then {len(arxiv):,} arXiv entries, once per resolver"
    )

    class Rollback(Exception):
        pass

    results: dict[str, Counter] = {}
    try:
        with transaction.atomic():
            seconds = _write(crossref, "l0 share: Crossref")
            say(f"Crossref imported in {seconds:.1f} s")
            for resolver in ("rules", "model"):
                results[resolver] = measure(arxiv, truth, resolver)
            raise Rollback
    except Rollback:
        pass
    labels = {"rules": "issue 15's rules (before)", "model": "learned (after)"}
    for resolver, counts in results.items():
        mentions = counts["mentions"] or 1
        say(f"{labels[resolver]}: {counts['mentions']:,} name-only mentions of identified people")
        for key in (
            "left on an L0 record",
            "linked to their record",
            "linked to another identified record (false)",
        ):
            say(f"  {key:46} {counts[key]:7,}  {counts[key] / mentions:.4f}")
        say(f"  arXiv import {counts['seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
