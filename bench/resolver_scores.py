"""How the resolver evaluation scores an outcome (bench/resolver_eval.py): links made and
false, recall of the findable mentions, and pairwise and B3 precision, recall and F1.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Outcome:
    mentions: int = 0
    findable: int = 0  # mentions whose person has a record (from their other works)
    links: int = 0
    correct_links: int = 0
    false_links: list[str] = field(default_factory=list)
    namesake_mentions: int = 0  # stripped mentions with a namesake's record present
    namesake_false_links: int = 0
    # Namesake probes: B's real byline, B's identifier stripped (under B's own name, and under
    # A's name exactly), imported after everything else, for every ordered namesake pair.
    namesake_probes: int = 0
    namesake_probe_false_links: list[str] = field(default_factory=list)
    close_calls: int = 0
    pairwise_precision: float = 0.0
    pairwise_recall: float = 0.0
    b3_precision: float = 0.0
    b3_recall: float = 0.0
    b3_f1: float = 0.0

    @property
    def link_precision(self) -> float:
        return self.correct_links / self.links if self.links else 1.0

    @property
    def link_recall(self) -> float:
        """Correct links over the mentions whose person has a record to find (a mention of
        someone with no record can only be a new one: it counts for precision)."""
        return self.correct_links / self.findable if self.findable else 1.0

    def lines(self) -> list[str]:
        return [
            f"hidden-id mentions:            {self.mentions}",
            f"links made:                    {self.links} ({self.correct_links} correct, "
            f"{len(self.false_links)} false)",
            f"precision of links:            {self.link_precision:.4f}",
            f"recall of links:               {self.correct_links / max(1, self.mentions):.4f}"
            f" (over the {self.findable} with a record to find: {self.link_recall:.4f})",
            f"namesake mentions:             {self.namesake_mentions} "
            f"(false links to a namesake: {self.namesake_false_links})",
            f"namesake probes:               {self.namesake_probes} "
            f"(false links: {len(self.namesake_probe_false_links)})",
            f"close calls queued:            {self.close_calls}",
            f"pairwise precision / recall:   {self.pairwise_precision:.4f} / {self.pairwise_recall:.4f}",
            f"B3 precision / recall / F1:    {self.b3_precision:.4f} / {self.b3_recall:.4f} / {self.b3_f1:.4f}",
        ]


def clustering_scores(items: Sequence[tuple[Any, Any]]) -> dict[str, float]:
    """Pairwise and B3 scores of (predicted cluster, true cluster) per mention."""
    predicted: dict[Any, list[int]] = defaultdict(list)
    truth: dict[Any, list[int]] = defaultdict(list)
    for index, (p, t) in enumerate(items):
        predicted[p].append(index)
        truth[t].append(index)
    both = defaultdict(int)
    for p, t in items:
        both[(p, t)] += 1

    def pairs(n: int) -> int:
        return n * (n - 1) // 2

    same_both = sum(pairs(n) for n in both.values())
    same_predicted = sum(pairs(len(v)) for v in predicted.values())
    same_truth = sum(pairs(len(v)) for v in truth.values())
    b3_p = sum(both[(p, t)] / len(predicted[p]) for p, t in items) / max(1, len(items))
    b3_r = sum(both[(p, t)] / len(truth[t]) for p, t in items) / max(1, len(items))
    return {
        "pairwise_precision": same_both / same_predicted if same_predicted else 1.0,
        "pairwise_recall": same_both / same_truth if same_truth else 1.0,
        "b3_precision": b3_p,
        "b3_recall": b3_r,
        "b3_f1": 2 * b3_p * b3_r / (b3_p + b3_r) if b3_p + b3_r else 0.0,
    }
