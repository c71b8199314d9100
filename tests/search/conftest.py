from __future__ import annotations

import pytest

from tests.conftest import REPO_ROOT
from tests.support.discovery import (  # noqa: F401 - fixtures of the by-meaning tests
    abstracts,
    embedded_corpus,
    index_dir,
    real_works,
)


@pytest.fixture
def demo_data(run_import):
    """The demo snapshot (four seed researchers and their co-authors) through the real import."""
    return run_import(REPO_ROOT / "demo" / "openalex")


@pytest.fixture
def state_of_oa(run_import, testdata_dir):
    """A real OpenAlex work, "The state of OA", with nine authors (Larivière, Alperín, ...)."""
    return run_import(testdata_dir / "openalex" / "api" / "works" / "bv_W2741809807.json")
