"""Where the learned resolver loses recall (issue 27): `python -m bench.resolver_misses
[--database NAME]` runs bench.resolver_eval's two experiments with the learned resolver and, for
every hidden-id mention whose person has a record but was not linked to it, names the step
that dropped it:

- no candidate: the true record was never compared (names incompatible, no blocking word in
  common, or cut by the per-mention cap);
- excluded: a hard rule took the true record out (names differ, dblp keys, already on the byline);
- below the threshold: the true record was the best candidate but scored under `high`;
- held back by a rule: scored at least `high` but link_allowed refused it (which rule is said);
- a rival: another candidate scored at least `low` (or shared two resolved coauthors);
- outranked: another candidate scored higher.

The database changes are rolled back, as in the evaluation.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.resolver_eval import DEFAULT_TESTDATA, Plan, say

decisions: dict[tuple[str, str, str], Any] = {}


def _capture() -> dict[tuple[str, str, str], tuple[Any, list[Any]]]:
    """Patch the learned resolver so every mention's context and scored candidates are kept,
    keyed by (origin, origin id, name key)."""
    from ingest.resolution import resolve

    seen: dict[tuple[str, str, str], tuple[Any, list[Any]]] = {}
    original = resolve.score_candidates

    def score_candidates(
        model: Any, contexts: Sequence[Any], candidates: Any, **options: Any
    ) -> Any:
        scored = original(model, contexts, candidates, **options)
        for context, candidates in scored.items():
            mention = context.key
            if hasattr(mention, "name_key"):
                seen[(mention.origin, mention.origin_id, mention.name_key)] = (context, candidates)
        return scored

    original_decide = resolve.decide

    def decide(context: Any, scored: Any, model: Any) -> Any:
        decision = original_decide(context, scored, model)
        mention = context.key
        if hasattr(mention, "name_key"):
            decisions[(mention.origin, mention.origin_id, mention.name_key)] = decision
        return decision

    resolve.score_candidates = score_candidates  # type: ignore[assignment]
    resolve.decide = decide  # type: ignore[assignment]
    return seen


def _why(context: Any, candidates: list[Any], truth: set[int], model: Any) -> str:
    from ingest.resolution.decide import LINK_SIGNALS, identified, link_allowed
    from ingest.resolution.features import initials_only

    found = [s for s in candidates if s.candidate.researcher_id in truth]
    if not found:
        return "no candidate generated"
    true = found[0]
    if true.excluded:
        return f"excluded by a hard rule ({true.excluded})"
    if true.score < model.high:
        return f"score below {model.high} (team {true.signals['team']})"
    if not link_allowed(true, context):
        if int(true.signals["team"]) < 1:
            rule = "no team signal"
        elif true.signal_count < LINK_SIGNALS:
            rule = "fewer than two signals"
        elif initials_only(context.name) or true.features["candidate_initials_only"]:
            rule = "initials, too little else"
        else:
            rule = "given names"
        return f"score >= high, held back by a rule ({rule})"
    eligible = [s for s in candidates if not s.excluded]
    if any(s is not true and s.score >= true.score and identified(s.candidate) for s in eligible):
        return "outranked by another identified record"
    return "a rival candidate reaches low"


def breakdown(experiment: Plan, title: str) -> None:
    from django.db import transaction
    from django.db.models import Q

    from bench.resolver_eval import _evaluate_plan
    from ingest.resolution.model import load
    from ingest.writer.resolver import resolver_in_use
    from researchers.models import Researcher
    from researchers.names import normalize_name

    class Rollback(Exception):
        pass

    seen = _capture()
    reasons: Counter[str] = Counter()
    examples: dict[str, list[str]] = defaultdict(list)
    try:
        with transaction.atomic(), resolver_in_use("model"):
            outcome = _evaluate_plan(experiment, probe_limit=0)
            model = load()
            for held, position, person in experiment.stripped:
                ids = experiment.identifiers[person]
                truth = set(
                    Researcher.objects.filter(
                        Q(openalex_id__in=ids) | Q(orcid__in=ids)
                    ).values_list("pk", flat=True)
                )
                if not truth:
                    continue
                record = experiment.held_out[held]
                a = next(x for x in record.authorships if x.position == position)
                name = a.author.display_name or a.raw_name
                key = (record.origin, record.origin_key[:400], normalize_name(name)[:500])
                if key not in seen:
                    reasons["not resolved (known mention)"] += 1
                    continue
                context, candidates = seen[key]
                decided = [s.candidate.researcher_id for s in candidates]
                decision = decisions.get(key)
                if decision is not None and decision.researcher_id in truth:
                    continue
                why = _why(context, candidates, truth, model)
                if decision is not None and decision.researcher_id is not None:
                    why = "FALSE LINK"
                    say(f"FALSE LINK {name!r}: {decision.reasons}")
                reasons[why] += 1
                if len(examples[why]) < 4:
                    examples[why].append(f"{name!r} candidates {decided[:4]} truth {sorted(truth)}")
                if os.environ.get("RESOLVER_MISSES_DEBUG"):
                    say(
                        f"MISS {name!r} {why} byline {context.coauthor_names[:6]} ids {sorted(context.coauthor_ids)}"
                    )
                    for s in candidates[:3]:
                        say(
                            f"   {s.candidate.researcher_id} {s.candidate.display_name!r} {'TRUE' if s.candidate.researcher_id in truth else ''} score {s.score:.3f} {s.signals} works {len(s.candidate.works)} orcid {s.candidate.orcid} oa {s.candidate.openalex_id}"
                        )
                        say(f"      {dict((k, round(v, 2)) for k, v in s.features.items())}")
            raise Rollback
    except Rollback:
        pass
    say(f"{title}: {outcome.correct_links} linked of {outcome.findable} findable")
    for why, count in reasons.most_common():
        say(f"  {count:4}  {why}")
        for example in examples[why]:
            say(f"          e.g. {example}")


def main(argv: Sequence[str] | None = None) -> int:
    from bench.harness import django_in_process

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", default="bzpeer_bench_resolver_misses")
    parser.add_argument("--testdata", type=Path, default=DEFAULT_TESTDATA)
    args = parser.parse_args(argv)
    django_in_process(args.database)
    from bench.resolver_corpus import corpus_records
    from bench.resolver_eval import plan
    from bench.resolver_synthetic import EVAL_SEED, synthetic_plan, synthetic_records

    breakdown(plan(corpus_records(args.testdata)), "the real test corpus")
    breakdown(synthetic_plan(synthetic_records(EVAL_SEED), EVAL_SEED), "the synthetic corpus")
    return 0


if __name__ == "__main__":
    sys.exit(main())
