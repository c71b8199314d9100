"""How many threads each process embeds on: a worker's pool shares the cores out
(bzpeer.celery.embedder_threads_share), so its processes never oversubscribe them."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest

from bzpeer.celery import embedder_threads_share
from discovery import embedder


@pytest.fixture
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    # Set, then removed: monkeypatch restores the variables as they were before the test,
    # whatever the handler under test writes.
    for name in ("EMBEDDER_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    monkeypatch.setattr(os, "cpu_count", lambda: 4)
    return monkeypatch


# "auto" is still a string when the signal is sent: Celery resolves it to a process per core.
@pytest.mark.parametrize(
    ("concurrency", "threads"), [(1, 4), (2, 2), (3, 1), (8, 1), ("auto", 1), ("2", 2)]
)
def test_each_process_of_a_worker_pool_embeds_on_its_share_of_the_cores(
    clean_environment: pytest.MonkeyPatch, concurrency: int | str, threads: int
) -> None:
    embedder_threads_share(sender=SimpleNamespace(concurrency=concurrency))
    assert embedder._threads() == threads


def test_a_thread_count_given_to_the_worker_wins(clean_environment: pytest.MonkeyPatch) -> None:
    clean_environment.setenv("EMBEDDER_THREADS", "3")
    embedder_threads_share(sender=SimpleNamespace(concurrency=2))
    assert embedder._threads() == 3


def test_outside_a_worker_the_process_takes_a_thread_per_core(
    clean_environment: pytest.MonkeyPatch,
) -> None:
    assert embedder._threads() == 4
    clean_environment.setenv("OMP_NUM_THREADS", "2")
    assert embedder._threads() == 2
