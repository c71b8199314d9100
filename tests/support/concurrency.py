"""Calls started at the same instant, for the tests of races (two claims, two invitations, two
digest runs): each call runs in a thread of its own, with a database connection of its own,
released behind a barrier so that they meet in PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connection


def run_together(*calls: Callable[[], Any]) -> list[Any]:
    """Each call's result, or the exception it raised (the outcome under test), in order."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)

    def worker(index: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait()
            results[index] = call()
        except Exception as error:  # the outcome under test
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results
