from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
# The shared corpus of real records lies beside the checkout; BZPEER_TESTDATA points elsewhere.
TESTDATA_DIR = Path(os.environ.get("BZPEER_TESTDATA", REPO_ROOT.parent / "shared" / "testdata"))
FIXTURES_DIR = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="session")
def testdata_dir() -> Path:
    """The shared real-record corpus. Missing is a skip locally, and a failure under CI=true."""
    if not TESTDATA_DIR.is_dir():
        message = f"shared test corpus not found at {TESTDATA_DIR} (set BZPEER_TESTDATA)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    return TESTDATA_DIR


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES_DIR


@pytest.fixture
def run_import():
    """Run import_openalex --sync on paths; returns the ImportRun it created."""
    from django.core.management import call_command

    from publications.models import ImportRun

    def run(*paths, **options) -> ImportRun:
        before = ImportRun.objects.order_by("-id").values_list("id", flat=True).first() or 0
        call_command(
            "import_openalex", *[str(p) for p in paths], sync=True, no_progress=True, **options
        )
        return ImportRun.objects.filter(id__gt=before).latest("id")

    return run


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Each test starts without the cache entries of the one before (page cache, counters).

    Only keys under the cache's own prefix go: the Celery broker shares this Redis database.
    """
    from django.core.cache import cache

    cache.delete_pattern("*")
    yield
