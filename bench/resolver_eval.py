"""The name resolver's evaluation on real records (issue 15, item 7): hidden identifiers
recovered, and namesakes never linked. `python -m bench.resolver_eval` prints the figures;
tests/researchers/test_resolution_eval.py asserts them on the same experiment.

The experiment, on every work record of the shared test corpus (../shared/testdata: OpenAlex,
Crossref, ORCID, arXiv, BibTeX, dblp), mapped by the real mappers and deduplicated by DOI, arXiv
id and title key:

1. The people: byline authors with an identifier (OpenAlex author id, checksum-valid ORCID iD).
   Held out, one work each: (a) every person with two works or more (the other works keep
   their identifier, so the person has a record the resolver may find), and (b) every member
   of a namesake group: people with the same family name and initial but different
   identifiers (who may have no other work: then any link is a false one).
2. Everything but the held-out works is imported through the real batch writer, identifiers
   kept; name-only authors of those works go through the resolver as in production.
3. The held-out works are imported with the held-out person's identifiers stripped (name kept,
   OpenAlex records re-expressed as Crossref ones, since OpenAlex bylines name no one without
   an id); everyone else on those bylines keeps their identifier.
4. Each stripped mention's researcher (linked, or a new L0 record) is compared with the truth:
   the record of its identifier from step 2, or none.

Figures: links made, correct and false; precision of links; pairwise precision and recall and
B3 precision, recall and F1 over all mentions of the held-out people (their identified mentions
included, clustered by the record the byline names).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import os
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.resolver_corpus import KNOWN_SAME_PERSON, People, _person_key, corpus_records
from bench.resolver_scores import Outcome, clustering_scores

REPO_ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TESTDATA = Path(os.environ.get("BZPEER_TESTDATA", REPO_ROOT.parent / "shared" / "testdata"))
BATCH = 400
SMOKE_PROBES = 10

# --- The experiment ---------------------------------------------------------------------------


@dataclass
class Plan:
    imported: list[Any]
    held_out: list[Any]  # records, stripped
    stripped: list[tuple[int, int, str]] = field(default_factory=list)  # (held, position, person)
    namesakes: dict[str, set[str]] = field(default_factory=dict)  # person -> namesakes
    identifiers: dict[str, set[str]] = field(default_factory=dict)  # person -> their ids
    works_of: dict[str, list[Any]] = field(default_factory=dict)  # person -> their records


def plan(records: Sequence[Any]) -> Plan:
    from ingest.records import CROSSREF, OPENALEX
    from researchers.names import person_name

    people = People(records)
    works_of: dict[str, list[int]] = defaultdict(list)
    names: dict[str, str] = {}
    identifiers: dict[str, set[str]] = defaultdict(set)
    for index, record in enumerate(records):
        for a in record.authorships:
            if (key := people.of(a)) is not None:
                identifiers[key].add(_person_key(a) or key)
                if a.author.orcid:
                    identifiers[key].add(a.author.orcid)
                if index not in works_of[key]:
                    works_of[key].append(index)
                names.setdefault(key, a.author.display_name or a.raw_name)
    groups: dict[tuple[str, str], set[str]] = defaultdict(set)
    for key, name in names.items():
        parsed = person_name(name)
        if parsed.family and parsed.given:
            groups[(parsed.family_key, parsed.given[0][0])].add(key)
    namesakes = {
        key: members - {key} for members in groups.values() if len(members) > 1 for key in members
    }
    # One member of each namesake group is held out (the one with the fewest works); the
    # others keep their identifiers, so their records are there to be wrongly linked to.
    namesake_held = {
        min(members, key=lambda k: (len(works_of[k]), k))
        for members in groups.values()
        if len(members) > 1
    }
    wanted = sorted(
        (
            k
            for k in works_of
            if k in namesake_held or (len(works_of[k]) >= 2 and k not in namesakes)
        ),
        key=lambda k: (len(works_of[k]), k),
    )
    strip: dict[int, set[str]] = defaultdict(set)
    remaining = {k: list(v) for k, v in works_of.items()}
    held_count: dict[str, int] = defaultdict(int)
    progress = True
    while progress:  # round robin: each person's works held out one at a time, one kept
        progress = False
        for key in wanted:
            if held_count[key] >= max(1, len(works_of[key]) - 1):
                continue
            options = [
                i
                for i in remaining[key]
                if (len(works_of[key]) == 1 or len(remaining[key]) > 1)
                # Never a work that would hide a namesake's only identified mention.
                and not any(
                    (k := people.of(a)) in namesakes and k not in namesake_held
                    for a in records[i].authorships
                )
            ]
            options.sort(key=lambda i: (len(strip.get(i, ())), i))
            if not options:
                continue
            chosen = options[0]
            strip[chosen].add(key)
            held_count[key] += 1
            progress = True
            for other in {k for a in records[chosen].authorships if (k := people.of(a))}:
                if other in remaining and chosen in remaining[other] and len(remaining[other]) > 1:
                    remaining[other].remove(chosen)
    imported = [r for i, r in enumerate(records) if i not in strip]
    held_out = []
    stripped = []
    for index in sorted(strip):
        record = records[index]
        authorships = []
        for a in record.authorships:
            if people.of(a) in strip[index]:
                stripped.append((len(held_out), a.position, people.of(a) or ""))
                a = dataclasses.replace(
                    a, author=dataclasses.replace(a.author, openalex_id=None, orcid=None)
                )
            authorships.append(a)
        changes: dict[str, Any] = {"authorships": tuple(authorships)}
        if record.origin == OPENALEX:
            changes.update(
                origin=CROSSREF,
                origin_id=record.doi or f"heldout:{record.openalex_id}",
                openalex_id=None,
            )
        held_out.append(dataclasses.replace(record, **changes))
    return Plan(
        imported,
        held_out,
        stripped,
        namesakes,
        dict(identifiers),
        {k: [records[i] for i in v] for k, v in works_of.items()},
    )


def _write(records: Sequence[Any]) -> None:
    from django.db import transaction

    from ingest.models import ImportRun
    from ingest.parsing import ParsedBatch
    from ingest.services.batches import batch_write
    from ingest.writer import prepare_works

    run = ImportRun.objects.create(source="test", description="resolver evaluation")
    for start in range(0, len(records), BATCH):
        chunk = list(records[start : start + BATCH])
        batch = ParsedBatch(read=len(chunk), records={"works": chunk})
        batch.prepared["works"] = prepare_works(chunk)
        with transaction.atomic():
            batch_write(batch, run_id=run.id, path="resolver evaluation")


def evaluate(testdata: Path, *, resolver: str = "model") -> Outcome:
    """Run the experiment on the real corpus in the current database (the caller provides an
    empty one), with the learned resolver ("model") or issue 15's ("rules")."""
    return evaluate_plan(plan(corpus_records(testdata)), resolver=resolver)


def evaluate_synthetic(
    seed: int | None = None, *, resolver: str = "model", probe_limit: int | None = 60, **sizes: int
) -> Outcome:
    """The same experiment on the synthetic corpus with namesake traps (bench.resolver_synthetic)."""
    from bench.resolver_synthetic import EVAL_SEED, synthetic_plan, synthetic_records

    seed = EVAL_SEED if seed is None else seed
    experiment = synthetic_plan(synthetic_records(seed, **sizes), seed)
    return evaluate_plan(experiment, resolver=resolver, probe_limit=probe_limit)


def evaluate_plan(
    experiment: Plan, *, resolver: str = "model", probe_limit: int | None = None
) -> Outcome:
    from ingest.writer.resolver import resolver_in_use

    with resolver_in_use(resolver):
        return _evaluate_plan(experiment, probe_limit)


def _evaluate_plan(experiment: Plan, probe_limit: int | None) -> Outcome:
    from django.db.models import Q
    from django.db.models.functions import Coalesce

    from claims.models import SamePersonCandidate
    from publications.models import Authorship
    from researchers.models import Researcher

    _write(experiment.imported)
    people = {person for _, _, person in experiment.stripped}
    people |= {k for person in people for k in experiment.namesakes.get(person, ())}
    person_of_id = {i: person for person in people for i in experiment.identifiers[person]}
    records_of: dict[str, set[int]] = defaultdict(set)
    for openalex_id, orcid, rid in Researcher.objects.filter(
        Q(openalex_id__in=person_of_id) | Q(orcid__in=person_of_id)
    ).values_list("openalex_id", "orcid", Coalesce("merged_into_id", "id")):
        for key in (openalex_id, orcid):
            if key in person_of_id:
                records_of[person_of_id[key]].add(rid)
    before = SamePersonCandidate.objects.count()
    _write(experiment.held_out)
    outcome = Outcome(close_calls=SamePersonCandidate.objects.count() - before)
    existing = {rid for found in records_of.values() for rid in found}
    held_works = {(r.origin, r.origin_key): i for i, r in enumerate(experiment.held_out)}
    byline = {
        (held_works[(origin, origin_id)], position): rid
        for origin, origin_id, position, rid in Authorship.objects.filter(
            work__sources__origin__in={o for o, _ in held_works},
            work__sources__origin_id__in={k for _, k in held_works},
        ).values_list(
            "work__sources__origin", "work__sources__origin_id", "position", "researcher_id"
        )
        if (origin, origin_id) in held_works
    }
    items: list[tuple[Any, Any]] = []
    for held, position, person in experiment.stripped:
        outcome.mentions += 1
        got = byline.get((held, position))
        truth = records_of.get(person, set())
        outcome.findable += int(bool(truth))
        if got in existing:
            outcome.links += 1
            if got in truth:
                outcome.correct_links += 1
            else:
                outcome.false_links.append(f"{person} -> researcher {got} (truth {truth})")
        namesake_records = {
            rid for k in experiment.namesakes.get(person, ()) for rid in records_of.get(k, ())
        } - truth
        if namesake_records:
            outcome.namesake_mentions += 1
            outcome.namesake_false_links += int(got in namesake_records)
        items.append((got, person))
        if os.environ.get("RESOLVER_EVAL_DEBUG") and got not in truth:
            from claims.models import SamePersonCandidate as Pair

            pairs = list(Pair.objects.filter(record_id=got).values_list("candidate_id", "evidence"))
            say(f"DEBUG miss {person} got {got} truth {truth}: {pairs}")
            from claims.models import NameLink

            for link in NameLink.objects.filter(researcher_id=got).order_by("-id")[:1]:
                say(f"DEBUG link {person} -> {got}: {link.evidence}")
    _namesake_probes(experiment, outcome, probe_limit)
    # The held-out people's identified mentions, clustered by the record their byline names.
    person_of_record = {
        rid: person for _, _, person in experiment.stripped for rid in records_of.get(person, ())
    }
    for rid in Authorship.objects.filter(researcher_id__in=person_of_record).values_list(
        "researcher_id", flat=True
    ):
        items.append((rid, person_of_record[rid]))
    for name, value in clustering_scores(items).items():
        setattr(outcome, name, value)
    return outcome


def _namesake_probes(experiment: Plan, outcome: Outcome, limit: int | None = None) -> None:
    """For every ordered pair (A, B) of namesakes: a copy of one of B's works as a new work,
    B's identifiers stripped, once under B's name and once under A's name exactly; B must
    never be linked to A's record. Each probe is rolled back (a savepoint). limit: at most
    this many probes (the synthetic corpus has hundreds of pairs), the first in sorted order."""
    from django.db import transaction
    from django.db.models import Q

    from ingest.records import BIBTEX
    from publications.models import Authorship
    from researchers.models import Researcher

    class Rollback(Exception):
        pass

    people = People([r for records in experiment.works_of.values() for r in records])
    serial = 0
    for a_person, namesakes in sorted(experiment.namesakes.items()):
        ids = experiment.identifiers[a_person]
        a_records = set(
            Researcher.objects.filter(Q(openalex_id__in=ids) | Q(orcid__in=ids)).values_list(
                "pk", flat=True
            )
        )
        if not a_records:
            continue
        a_name = next(
            a.author.display_name
            for r in experiment.works_of[a_person]
            for a in r.authorships
            if people.of(a) == a_person
        )
        for b_person in sorted(namesakes):
            work = experiment.works_of[b_person][0]
            for name in (None, a_name):
                if limit is not None and serial >= limit:
                    return
                serial += 1
                authorships = tuple(
                    dataclasses.replace(
                        a,
                        raw_name=name or a.raw_name,
                        author=dataclasses.replace(
                            a.author,
                            openalex_id=None,
                            orcid=None,
                            display_name=name or a.author.display_name,
                        ),
                    )
                    if people.of(a) == b_person
                    else a
                    for a in work.authorships
                )
                probe = dataclasses.replace(
                    work,
                    origin=BIBTEX,
                    origin_id=f"namesake-probe:{serial}",
                    openalex_id=None,
                    doi=None,
                    arxiv_id=None,
                    title=f"{work.title} (namesake probe {serial})",
                    authorships=authorships,
                )
                position = next(a.position for a in work.authorships if people.of(a) == b_person)
                try:
                    with transaction.atomic():
                        _write([probe])
                        got = Authorship.objects.filter(
                            work__sources__origin=BIBTEX,
                            work__sources__origin_id=probe.origin_id,
                            position=position,
                        ).values_list("researcher_id", flat=True)[0]
                        if os.environ.get("RESOLVER_EVAL_DEBUG"):
                            from claims.models import NameLink

                            for link in NameLink.objects.filter(origin_id=probe.origin_id):
                                say(f"DEBUG probe {b_person} as {name}: {link.evidence}")
                        raise Rollback(got)
                except Rollback as result:
                    got = result.args[0]
                outcome.namesake_probes += 1
                if got in a_records:
                    outcome.namesake_probe_false_links.append(
                        f"{b_person} as {name or 'themself'} -> {a_person}'s record {got}"
                    )


def _rolled_back(run: Any, resolver: str) -> Outcome:
    """One experiment, its database changes undone (the scratch database stays empty)."""
    from django.db import transaction

    class Rollback(Exception):
        pass

    outcome = Outcome()
    try:
        with transaction.atomic():
            outcome = run(resolver)
            raise Rollback
    except Rollback:
        pass
    return outcome


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


# --- The script -------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the experiment in a scratch database of its own, then print the figures."""
    from bench.harness import django_in_process

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="bzpeer_bench_resolver_eval")
    parser.add_argument("--testdata", type=Path, default=DEFAULT_TESTDATA)
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="the experiment on the real corpus (the shared test corpus, already small) with "
        f"{SMOKE_PROBES} namesake probes, in a database of its own (--database), with its own "
        "cache prefix: the suite's check",
    )
    parser.add_argument("--seed", type=int, default=None, help="the synthetic corpus's seed")
    args = parser.parse_args(argv)
    if args.smoke:
        from bench import smoke

        smoke.apply(parser, args, database=smoke.default_database("resolver_eval"))
        smoke.begin(args.database)
    if not args.testdata.is_dir():
        sys.stderr.write(f"no test corpus at {args.testdata} (set BZPEER_TESTDATA)\n")
        return 2
    django_in_process(args.database)
    # The corpus is read and mapped once for both resolvers (a third of a smoke run's time
    # was reading it twice); a smoke run makes a few namesake probes, not all of them.
    records = functools.cache(lambda: corpus_records(args.testdata))
    probes = SMOKE_PROBES if args.smoke else None
    corpora = [
        (
            "the real test corpus",
            lambda resolver: evaluate_plan(plan(records()), resolver=resolver, probe_limit=probes),
        ),
        (
            f"the synthetic corpus with namesake traps (seed {args.seed})",
            lambda resolver: evaluate_synthetic(args.seed, resolver=resolver),
        ),
    ]
    # The smoke run checks that the script still runs; the synthetic corpus (most of a full run's
    # minutes) is evaluated by tests/researchers/test_resolution_eval.py.
    for title, run in corpora[:1] if args.smoke else corpora:
        for resolver, label in (
            ("rules", "issue 15's rules (before)"),
            ("model", "learned (after)"),
        ):
            outcome = _rolled_back(run, resolver)
            say(f"Name resolver on {title}, hidden identifiers then recovered: {label}")
            for line in outcome.lines():
                say("  " + line)
            for false_link in outcome.false_links + outcome.namesake_probe_false_links:
                say("  FALSE LINK " + false_link)
    for pair, why in KNOWN_SAME_PERSON.items():
        say(f"(one person with two ids in the real corpus, {', '.join(sorted(pair))}: {why})")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = [
    "Outcome",
    "clustering_scores",
    "corpus_records",
    "evaluate",
    "evaluate_plan",
    "evaluate_synthetic",
    "main",
    "plan",
]
