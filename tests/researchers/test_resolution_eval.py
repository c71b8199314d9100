"""The resolver on real records (issue 15, item 7; the experiment: bench.resolver_eval):
identifiers hidden and recovered with a precision of at least 0.99, and no namesake (same
family name and initial, another identifier) ever linked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.db import transaction

from bench.resolver_eval import evaluate, evaluate_synthetic
from bench.resolver_scores import Outcome, clustering_scores
from tests.support.cache_keys import namespace_next

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def real_records_outcome(
    django_db_setup: None, django_db_blocker: Any, testdata_dir: Path
) -> Outcome:
    """The learned resolver's experiment on the real records, run once for the tests that
    assert on it (about 10 s each time), in an empty database and a cache namespace of its own
    as a test's, its rows rolled back."""
    namespace_next()
    with django_db_blocker.unblock(), transaction.atomic():
        outcome = evaluate(testdata_dir, resolver="model")
        transaction.set_rollback(True)
    return outcome


def test_clustering_scores_on_a_small_known_case() -> None:
    # Truth: a a a b b; predicted: x x y z z (one of a split off, b kept whole).
    scores = clustering_scores([("x", "a"), ("x", "a"), ("y", "a"), ("z", "b"), ("z", "b")])
    assert scores["pairwise_precision"] == 1.0
    assert scores["pairwise_recall"] == pytest.approx(2 / 4)
    assert scores["b3_precision"] == 1.0
    assert scores["b3_recall"] == pytest.approx((2 / 3 + 2 / 3 + 1 / 3 + 1 + 1) / 5)


def test_hidden_identifiers_are_recovered_precisely_and_namesakes_never_linked(
    real_records_outcome: Outcome,
) -> None:
    outcome = real_records_outcome
    print("\n" + "\n".join(outcome.lines()))  # noqa: T201 - the figures for the closing note
    assert outcome.mentions >= 30
    assert outcome.namesake_mentions >= 1 and outcome.namesake_probes >= 20
    assert outcome.namesake_false_links == 0
    assert outcome.namesake_probe_false_links == []
    assert outcome.false_links == []
    assert outcome.links > 0
    assert outcome.link_precision >= 0.99
    assert outcome.pairwise_precision >= 0.99


# --- The learned resolver (issue 27) ------------------------------------------------------------

# Issue 27 targets a link recall of 0.8 on both sets; measured (docs/importing.md): 0.88 on the
# real records (22 of the 25 findable: a rare full name links without a team when one signal of
# another kind backs it) and 0.887 on the synthetic one at its evaluation seed (0.86 and 0.93
# at seeds 3027 and 4027, never tuned on). The floors below are what the resolver reaches, so
# a regression fails.
REAL_RECALL_FLOOR = 0.88
REAL_B3_F1_FLOOR = 0.96
SYNTHETIC_RECALL_FLOOR = 0.88


def test_the_learned_resolver_links_hidden_identifiers_of_the_real_records_without_a_false_link(
    real_records_outcome: Outcome,
) -> None:
    outcome = real_records_outcome
    print("\n" + "\n".join(outcome.lines()))  # noqa: T201 - the figures for the closing note
    assert outcome.mentions >= 30
    assert outcome.false_links == []
    assert outcome.namesake_false_links == 0
    assert outcome.namesake_probe_false_links == []
    assert outcome.link_recall >= REAL_RECALL_FLOOR
    assert outcome.b3_f1 >= REAL_B3_F1_FLOOR


def test_the_learned_resolver_links_most_of_the_synthetic_corpus_and_keeps_namesakes_apart() -> (
    None
):
    outcome = evaluate_synthetic(resolver="model", probe_limit=40)
    print("\n" + "\n".join(outcome.lines()))  # noqa: T201 - the figures for the closing note
    assert outcome.mentions >= 100 and outcome.namesake_mentions >= 20
    assert outcome.false_links == []
    assert outcome.namesake_false_links == 0
    assert outcome.namesake_probe_false_links == []
    assert outcome.link_recall >= SYNTHETIC_RECALL_FLOOR
    assert outcome.b3_f1 >= 0.9
