from __future__ import annotations

from tests.support.discovery import (  # noqa: F401 - fixtures
    abstracts,
    embedded_corpus,
    few_real_works,
    index_dir,
    real_works,
)
