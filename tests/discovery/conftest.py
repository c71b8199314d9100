from __future__ import annotations

from pathlib import Path

import pytest

from publications.models import Work
from tests.factories import WorkFactory
from tests.support.abstracts import RealAbstract, real_abstracts

# Two records of one paper in the corpus: the Nature Machine Intelligence article and its arXiv
# preprint, under different titles and DOIs (pqa_search_title_chemcrow.json).
CHEMCROW_ARTICLE = "W4396723768"
CHEMCROW_PREPRINT = "W4365597205"


@pytest.fixture(scope="session")
def abstracts(testdata_dir: Path) -> list[RealAbstract]:
    found = real_abstracts(testdata_dir)
    assert len(found) >= 40, "the corpus should hold dozens of works with abstracts"
    return found


@pytest.fixture
def real_works(db: None, abstracts: list[RealAbstract]) -> dict[str, Work]:
    """A work per real abstract, by OpenAlex id."""
    return {
        item.openalex_id: WorkFactory(
            openalex_id=item.openalex_id, doi=None, title=item.title, abstract=item.abstract
        )
        for item in abstracts
    }


# A handful of them, for the tests that need no whole corpus (each text costs the model time).
FEW = (
    CHEMCROW_ARTICLE,
    CHEMCROW_PREPRINT,
    "W2277923667",
    "W3008827533",
    "W2250539671",
    "W1854214752",
    "W4389761608",
    "W2153579005",
)


@pytest.fixture
def few_real_works(db: None, abstracts: list[RealAbstract]) -> dict[str, Work]:
    return {
        item.openalex_id: WorkFactory(
            openalex_id=item.openalex_id, doi=None, title=item.title, abstract=item.abstract
        )
        for item in abstracts
        if item.openalex_id in FEW
    }
