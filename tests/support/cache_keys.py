"""Cache keys of the test settings: each test writes under a namespace of its own.

The namespace is a number in the environment, moved on by an autouse fixture before each test
(tests/conftest.py), so a test never reads what the one before it cached (pages, rate limits,
graph slices, pending edge refreshes) and nothing has to be deleted between tests. Processes a
test starts (a Celery worker, gunicorn) inherit the environment and so share the test's
namespace. The keys of a run are deleted once, when its process ends.
"""

from __future__ import annotations

import os

NAMESPACE_VARIABLE = "BZPEER_TEST_CACHE_NAMESPACE"


def namespace_next() -> str:
    namespace = str(int(os.environ.get(NAMESPACE_VARIABLE, "0")) + 1)
    os.environ[NAMESPACE_VARIABLE] = namespace
    return namespace


def make_key(key: str, key_prefix: str, version: int) -> str:
    """Django's default key (prefix:version:key) with the test's namespace after the prefix."""
    return f"{key_prefix}:{os.environ.get(NAMESPACE_VARIABLE, '0')}:{version}:{key}"
