"""Real works embedded with the real model, and their index: fixtures of the discovery and
search tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from discovery import embedder
from discovery.selectors.index import index_forget
from discovery.services.embeddings import work_embeddings_compute_all
from discovery.services.index import work_index_build
from publications.models import Work
from tests.factories import WorkFactory
from tests.support.abstracts import RealAbstract, real_abstracts

# Two records of one paper in the corpus: the Nature Machine Intelligence article and its arXiv
# preprint, under different titles and DOIs (pqa_search_title_chemcrow.json).
CHEMCROW_ARTICLE = "W4396723768"
CHEMCROW_PREPRINT = "W4365597205"

# The test files that embed the corpus's real works with the real model run in one process of a
# pytest-xdist run (--dist loadgroup): the model is loaded and the works embedded once
# (embed_remembered), not once in every process that happens to get one of them (about 3 s each).
REAL_MODEL_GROUP = pytest.mark.xdist_group("real-embedding-model")


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


_embedded: dict[str, np.ndarray] = {}


def embed_remembered(texts: list[str]) -> np.ndarray:
    """The real model's vectors, each text embedded once per test session: the tests that only
    need the corpus embedded (search, similar researchers) do not pay for it again."""
    missing = [text for text in dict.fromkeys(texts) if text not in _embedded]
    if missing:
        for text, vector in zip(missing, embedder.embed_texts(missing), strict=True):
            _embedded[text] = vector
    return np.stack([_embedded[text] for text in texts])


@pytest.fixture
def index_dir(settings, tmp_path: Path) -> Path:
    """The index files of this test, in a folder of its own."""
    settings.DISCOVERY_INDEX_DIR = tmp_path / "index"
    index_forget()
    yield settings.DISCOVERY_INDEX_DIR
    index_forget()


@pytest.fixture
def embedded_corpus(real_works, index_dir) -> dict[str, Work]:
    """The corpus's works embedded and indexed (exact search: it is small)."""
    work_embeddings_compute_all(embed=embed_remembered)
    work_index_build()
    return real_works
