"""The figures of the fault drill (scripts/chaos.py): each request's answer, each fault's
times, and what the report makes of them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


@dataclass
class Sample:
    at: float
    kind: str
    status: int  # 0: no answer (connection refused or reset, a timeout)


@dataclass
class Fault:
    name: str
    dependency: str
    down_at: float = 0.0
    back_at: float = 0.0


def failing_stretches(samples: list[Sample]) -> dict[str, float]:
    """Per kind: the longest time from a failure (5xx or no answer) to the next success."""
    longest: dict[str, float] = {}
    first_failure: dict[str, float | None] = {}
    for sample in sorted(samples, key=lambda s: s.at):
        failed = sample.status == 0 or sample.status >= 500
        if failed:
            if first_failure.get(sample.kind) is None:
                first_failure[sample.kind] = sample.at
        else:
            started = first_failure.get(sample.kind)
            if started is not None:
                longest[sample.kind] = max(longest.get(sample.kind, 0.0), sample.at - started)
            first_failure[sample.kind] = None
            longest.setdefault(sample.kind, 0.0)
    for kind, started in first_failure.items():
        if started is not None:  # still failing at the end
            longest[kind] = max(longest.get(kind, 0.0), float("inf"))
    return {kind: round(seconds, 2) for kind, seconds in sorted(longest.items())}


def recovery_after(samples: list[Sample], back_at: float, until: float) -> dict[str, float]:
    """Per kind: seconds from a dependency's return to the first success after the last failure
    of that kind before `until` (the next fault, or the end); 0 when none failed after it."""
    window = [s for s in sorted(samples, key=lambda s: s.at) if back_at <= s.at < until]
    recovered: dict[str, float] = {}
    for kind in sorted({s.kind for s in window}):
        kind_samples = [s for s in window if s.kind == kind]
        failures = [s.at for s in kind_samples if s.status == 0 or s.status >= 500]
        if not failures:
            recovered[kind] = 0.0
            continue
        later = [s.at for s in kind_samples if s.at > failures[-1]]
        recovered[kind] = round(later[0] - back_at, 2) if later else float("inf")
    return recovered


def failures_during(samples: list[Sample], fault: Fault, until: float) -> dict[str, int]:
    """Answers by status from the fault to the next one (or the end), failures only."""
    counted = Counter(
        str(s.status) for s in samples if fault.down_at <= s.at < until and not 0 < s.status < 500
    )
    return dict(sorted(counted.items()))
