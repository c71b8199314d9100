"""The search benchmark's queries and timing (bench/search_bench.py): misspelt names drawn from
the corpus, names typed part way, full-text queries of the synthetic vocabulary (words,
combinations, phrases, exclusions, words that match nothing), and their percentiles.
"""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# The vocabulary of tests/support/synthetic.py: every one of these is a common word there.
COMMON_WORDS = (
    "graph learning optical network memory sparse attention training distributed inference "
    "latency energy protein quantum compiler cache"
).split()
NO_MATCH_QUERIES = ("zebra", "mitochondria", "grpah lerning", "byzantine consensus")


# --- queries ----------------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def misspell_once(word: str, rng: random.Random) -> str:
    """One edit: a letter dropped, doubled, replaced, or two neighbours swapped. Never the first
    letter, as people rarely get that one wrong."""
    if len(word) < 3:
        return word
    position = rng.randrange(1, len(word) - 1)
    edit = rng.choice(("drop", "double", "replace", "swap"))
    if edit == "drop":
        return word[:position] + word[position + 1 :]
    if edit == "double":
        return word[:position] + word[position] + word[position:]
    if edit == "replace":
        return word[:position] + rng.choice(_LETTERS) + word[position + 1 :]
    return word[:position] + word[position + 1] + word[position] + word[position + 2 :]


@dataclass(frozen=True)
class NameQuery:
    kind: str
    text: str
    researcher_id: int
    name_normalized: str


def name_queries(count: int, rng: random.Random) -> list[NameQuery]:
    from researchers.models import Researcher

    ids = list(
        Researcher.objects.filter(merged_into__isnull=True)
        .order_by("id")
        .values_list("id", flat=True)
    )
    chosen = Researcher.objects.in_bulk(rng.sample(ids, min(count, len(ids))))
    queries = []
    kinds = (
        "one typo",
        "a typo in each word",
        "words swapped, one typo",
        "capitals, no typo",
        "two typos in one word",
    )
    for researcher in chosen.values():
        words = researcher.display_name.split()
        kind = rng.choice(kinds)
        if kind == "one typo":
            index = rng.randrange(len(words))
            words[index] = misspell_once(words[index], rng)
        elif kind == "a typo in each word":
            words = [misspell_once(word, rng) for word in words]
        elif kind == "words swapped, one typo":
            words = list(reversed(words))
            words[0] = misspell_once(words[0], rng)
        elif kind == "two typos in one word":
            index = max(range(len(words)), key=lambda i: len(words[i]))
            words[index] = misspell_once(misspell_once(words[index], rng), rng)
        else:
            words = [word.upper() for word in words]
        queries.append(NameQuery(kind, " ".join(words), researcher.id, researcher.name_normalized))
    return queries


def suggestion_queries(count: int, rng: random.Random) -> list[str]:
    """Names typed part way, as the header box sends them (two letters and up)."""
    from researchers.models import Researcher

    names = list(Researcher.objects.order_by("?").values_list("display_name", flat=True)[:count])
    return [name[: rng.randint(2, len(name))] for name in names]


def work_queries(rng: random.Random, repeat: int) -> list[tuple[str, str]]:
    queries: list[tuple[str, str]] = []
    for _ in range(repeat):
        queries += [("one common word", word) for word in COMMON_WORDS]
        queries += [("two words", " ".join(rng.sample(COMMON_WORDS, 2))) for _ in range(8)]
        queries += [("four words", " ".join(rng.sample(COMMON_WORDS, 4))) for _ in range(4)]
        queries += [("phrase", f'"{" ".join(rng.sample(COMMON_WORDS, 2))}"') for _ in range(4)]
        queries += [("exclusion", "{} -{}".format(*rng.sample(COMMON_WORDS, 2))) for _ in range(4)]
        queries += [("no match", query) for query in NO_MATCH_QUERIES]
    rng.shuffle(queries)
    return queries


# --- timing -----------------------------------------------------------------------------------


@dataclass
class Timing:
    label: str
    queries: int
    p50_ms: float
    p99_ms: float
    max_ms: float
    raw_p99_ms: float
    target_p99_ms: float | None = None

    @property
    def verdict(self) -> str:
        if self.target_p99_ms is None:
            return ""
        word = "meets" if self.p99_ms < self.target_p99_ms else "MISSES"
        return f"{word} p99 < {self.target_p99_ms:.0f} ms"


def percentile(sorted_values: Sequence[float], fraction: float) -> float:
    """Nearest-rank percentile: the smallest value with `fraction` of the values at or below."""
    rank = max(1, math.ceil(fraction * len(sorted_values)))
    return sorted_values[rank - 1]


def timing(
    label: str, samples_per_query: Sequence[Sequence[float]], target: float | None = None
) -> Timing:
    """p50/p99/max over the queries, each counted once at its median run (the machine is shared
    and a run can stall on someone else's work); raw_p99 is over every single run."""
    per_query = sorted(statistics.median(samples) * 1000 for samples in samples_per_query)
    every_run = sorted(sample * 1000 for samples in samples_per_query for sample in samples)
    return Timing(
        label=label,
        queries=len(per_query),
        p50_ms=round(statistics.median(per_query), 1),
        p99_ms=round(percentile(per_query, 0.99), 1),
        max_ms=round(per_query[-1], 1),
        raw_p99_ms=round(percentile(every_run, 0.99), 1),
        target_p99_ms=target,
    )


def timed(function: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    result = function()
    return time.perf_counter() - started, result
