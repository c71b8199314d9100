"""The figures of the soak (scripts/soak.py): each request's answer, the run's measurements,
and the report made of them (JSON and text)."""

from __future__ import annotations

import os
import statistics
from dataclasses import dataclass
from pathlib import Path


def say(text: str = "") -> None:
    print(text, flush=True)


@dataclass
class Sample:
    at: float
    kind: str
    status: int
    seconds: float


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def figures(samples: list[Sample]) -> dict[str, float]:
    millis = [sample.seconds * 1000 for sample in samples]
    return {
        "requests": len(samples),
        "errors": sum(1 for s in samples if not 200 <= s.status < 400),
        "server_errors": sum(1 for s in samples if s.status >= 500),
        "p50_ms": round(percentile(millis, 0.50), 1),
        "p99_ms": round(percentile(millis, 0.99), 1),
        "mean_ms": round(statistics.fmean(millis), 1) if millis else 0.0,
    }


@dataclass
class SoakRun:
    """What the load measured, kept for the report once the servers are stopped."""

    samples: list[Sample]
    failures: dict[str, int]
    started: float
    memory_start: dict[str, float | None]
    memory_end: dict[str, float | None]
    memory_by_minute: dict[int, dict[str, float | None]]
    server_alive: bool
    celery_alive: bool


def soak_report(run: SoakRun, *, seconds: int, clients: int, workers: int) -> dict:
    """The figures of bench-data/soak-report.json: overall, per kind, per minute, memory."""
    samples = run.samples
    overall = figures(samples)
    overall["requests_per_second"] = round(len(samples) / seconds, 1)
    by_kind = {
        kind: figures([s for s in samples if s.kind == kind])
        for kind in sorted({s.kind for s in samples})
    }
    by_minute = {
        minute: figures([s for s in samples if int((s.at - run.started) // 60) == minute])
        for minute in sorted({int((s.at - run.started) // 60) for s in samples})
    }
    return {
        "seconds": seconds,
        "clients": clients,
        "gunicorn_workers": workers,
        "cpus": os.cpu_count(),
        "load_average_at_end": os.getloadavg(),
        "overall": overall,
        "by_kind": by_kind,
        "by_minute": by_minute,
        "memory_mb_start": run.memory_start,
        "memory_mb_end": run.memory_end,
        "memory_mb_by_minute": run.memory_by_minute,
        "servers_alive_at_end": {"gunicorn": run.server_alive, "celery": run.celery_alive},
        "failures": dict(run.failures),
    }


def report_print(report: dict, run: SoakRun, *, report_path: Path, work_dir: Path) -> None:
    """The report as text: totals, a table per kind and per minute, memory, failures."""
    overall, seconds = report["overall"], report["seconds"]
    memory_start, memory_end = run.memory_start, run.memory_end
    server_alive, celery_alive = run.server_alive, run.celery_alive
    say()
    say(
        f"{overall['requests']} requests in {seconds}s ({overall['requests_per_second']}/s); "
        f"errors (not 2xx/3xx): {overall['errors']}, of which 5xx: {overall['server_errors']}; "
        f"p50 {overall['p50_ms']} ms, p99 {overall['p99_ms']} ms"
    )
    say(f"{'kind':<12} {'requests':>9} {'errors':>7} {'p50 ms':>8} {'p99 ms':>8}")
    for kind, row in report["by_kind"].items():
        say(
            f"{kind:<12} {row['requests']:>9} {row['errors']:>7} {row['p50_ms']:>8} {row['p99_ms']:>8}"
        )
    say(f"{'minute':<12} {'requests':>9} {'errors':>7} {'p50 ms':>8} {'p99 ms':>8}")
    for minute, row in report["by_minute"].items():
        say(
            f"{minute:<12} {row['requests']:>9} {row['errors']:>7} {row['p50_ms']:>8} {row['p99_ms']:>8}"
        )
    say("resident memory (MB), start -> end, and each minute between:")
    for name in sorted(set(memory_start) | set(memory_end)):
        minutes = " ".join(str(readings.get(name)) for readings in run.memory_by_minute.values())
        say(f"  {name:<28} {memory_start.get(name)} -> {memory_end.get(name)}   [{minutes}]")
    if not (server_alive and celery_alive):
        say(f"a server stopped during the soak: gunicorn {server_alive}, celery {celery_alive}")
    for failure, count in sorted(run.failures.items(), key=lambda item: -item[1])[:20]:
        say(f"  failed {count}x: {failure}")
    say(f"figures in {report_path}; server logs in {work_dir}")
