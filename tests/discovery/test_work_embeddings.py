"""The embedding of every work and researcher, with the real model on real abstracts."""

from __future__ import annotations

import numpy as np
import pytest

from discovery import embedder
from discovery.models import ResearcherEmbedding, WorkEmbedding
from discovery.services.embeddings import (
    work_embeddings_compute_all,
    work_embeddings_compute_range,
    work_embeddings_stale_ranges,
)
from discovery.vectors import vector_from_bytes
from tests.factories import AuthorshipFactory, ResearcherFactory
from tests.support.discovery import (
    CHEMCROW_ARTICLE,
    CHEMCROW_PREPRINT,
    REAL_MODEL_GROUP,
    embed_remembered,
)

pytestmark = [pytest.mark.django_db, REAL_MODEL_GROUP]


def _vectors() -> dict[int, np.ndarray]:
    return {row.work_id: vector_from_bytes(row.vector) for row in WorkEmbedding.objects.all()}


def _nearest(vectors: dict[int, np.ndarray], work_id: int) -> int:
    others = [other for other in vectors if other != work_id]
    scores = [float(vectors[work_id] @ vectors[other]) for other in others]
    return others[int(np.argmax(scores))]


def test_every_work_is_embedded_once_and_a_paper_is_nearest_its_preprint(real_works):
    # The real model's vectors, each text embedded once per process (the fast-path test and the
    # search tests embed the same texts); the default embedding is the changed-abstract test's.
    result = work_embeddings_compute_all(embed=embed_remembered)

    assert result.works_embedded == len(real_works)
    rows = WorkEmbedding.objects.all()
    assert {row.work_id for row in rows} == {work.id for work in real_works.values()}
    assert {row.model_name for row in rows} == {embedder.model_name()}
    assert {row.dimensions for row in rows} == {embedder.DIMENSIONS}
    norms = [float(np.linalg.norm(vector)) for vector in _vectors().values()]
    assert min(norms) == pytest.approx(1, abs=1e-4) and max(norms) == pytest.approx(1, abs=1e-4)
    assert work_embeddings_compute_all().works_embedded == 0
    assert work_embeddings_stale_ranges() == []

    # Two records of one paper (the article and its preprint, other title, other DOI) are each
    # other's nearest neighbour among all the corpus's works.
    vectors = _vectors()
    article, preprint = real_works[CHEMCROW_ARTICLE].id, real_works[CHEMCROW_PREPRINT].id

    assert _nearest(vectors, article) == preprint
    assert _nearest(vectors, preprint) == article


def test_a_changed_abstract_is_embedded_again_and_an_unchanged_one_is_not(few_real_works):
    work_embeddings_compute_all()
    before = {
        row.work_id: (row.embedded_at, bytes(row.vector)) for row in WorkEmbedding.objects.all()
    }
    changed = few_real_works[CHEMCROW_PREPRINT]
    changed.abstract = "We measure the tensile strength of copper films with oxide layers."
    changed.save(update_fields=["abstract"])

    stale = work_embeddings_stale_ranges()
    result = work_embeddings_compute_range(first_id=stale[0][0], last_id=stale[0][1])

    assert [count for _first, _last, count in stale] == [1]
    assert result.works_embedded == 1
    after = {
        row.work_id: (row.embedded_at, bytes(row.vector)) for row in WorkEmbedding.objects.all()
    }
    assert after[changed.id][1] != before[changed.id][1]
    unchanged = [work_id for work_id in before if work_id != changed.id]
    assert all(after[work_id] == before[work_id] for work_id in unchanged)
    # The new text is now closest to the copper paper, no longer to the ChemCrow article.
    assert _nearest(_vectors(), changed.id) == few_real_works["W2277923667"].id


def test_a_vector_of_another_model_is_embedded_again(few_real_works):
    work_embeddings_compute_all()
    WorkEmbedding.objects.filter(work_id=few_real_works[CHEMCROW_ARTICLE].id).update(
        model_name="an-older-model@512"
    )

    result = work_embeddings_compute_all()

    assert result.works_embedded == 1
    assert set(WorkEmbedding.objects.values_list("model_name", flat=True)) == {
        embedder.model_name()
    }


def test_a_researcher_is_the_normalised_mean_of_their_works(few_real_works):
    researcher, loner = ResearcherFactory(), ResearcherFactory()
    for openalex_id in (CHEMCROW_ARTICLE, "W2277923667"):
        AuthorshipFactory(work=few_real_works[openalex_id], researcher=researcher)
    AuthorshipFactory(work=few_real_works["W3008827533"], researcher=loner)

    result = work_embeddings_compute_all()

    assert result.researchers_embedded == 2
    row = ResearcherEmbedding.objects.get(researcher=researcher)
    works = _vectors()
    mean = works[few_real_works[CHEMCROW_ARTICLE].id] + works[few_real_works["W2277923667"].id]
    mean /= np.linalg.norm(mean)
    assert row.works_count == 2
    assert row.model_name == embedder.model_name()
    np.testing.assert_allclose(vector_from_bytes(row.vector), mean, atol=1e-5)
    assert ResearcherEmbedding.objects.get(researcher=loner).works_count == 1


def test_the_stale_works_come_in_ranges_of_ids(few_real_works):
    ids = sorted(work.id for work in few_real_works.values())

    ranges = work_embeddings_stale_ranges(range_size=10)

    assert sum(count for _first, _last, count in ranges) == len(ids)
    for first, last, count in ranges:
        assert count == sum(1 for work_id in ids if first <= work_id <= last)
        assert last - first == 9


def test_the_fast_path_gives_the_full_precision_models_vectors_nearly_exactly(abstracts):
    """The int8 ONNX model (production's) against sentence-transformers in full precision, on
    the real abstracts: each text's two vectors nearly coincide (measured: mean cosine 0.994 on
    1,000 texts), and each text's nearest other text is mostly the same one."""
    texts = [f"{item.title}\n{item.abstract}" for item in abstracts]
    # Batches of 16 rather than the full path's 64: less padding, half the time on these texts
    # (5.7 s against 11.7 s on one core), the same vectors to 1e-7.
    full = embedder.embed_texts(texts, fast=False, batch_size=16)
    # The fast path's vectors of these texts, as the works' embedding (the same text: title, a
    # line break, the abstract) and the search tests make them once per process.
    assert embedder.FAST_PATH
    fast = embed_remembered(texts)

    cosines = np.sum(full * fast, axis=1)
    assert float(cosines.mean()) > 0.98 and float(cosines.min()) > 0.9
    np.fill_diagonal(full_similarity := full @ full.T, -1)
    np.fill_diagonal(fast_similarity := fast @ fast.T, -1)
    same_nearest = np.mean(full_similarity.argmax(axis=1) == fast_similarity.argmax(axis=1))
    assert same_nearest >= 0.8
    assert embedder.model_name(fast=True) != embedder.model_name(fast=False)
