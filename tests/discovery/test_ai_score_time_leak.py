"""Nothing from after a work's publication enters its features: every later fact is changed
(later counts_by_year entries of every work, cited_by_count, later works by the same authors, in
the same venues and topics, citing it, with their own novelty and early counts) and the features
of the works of the cut-off year stay the same to the bit, while later works' features move."""

from __future__ import annotations

import numpy as np
import pytest

from discovery.ai_score import features
from discovery.models import WorkEmbedding
from discovery.vectors import vector_to_bytes
from publications.models import (
    Authorship,
    Citation,
    UnresolvedReference,
    Work,
    WorkNovelty,
    WorkTopic,
)

from .ai_score_corpus import EMBEDDING_DIMENSIONS, LAST_YEAR, build

pytestmark = pytest.mark.django_db

CUT_OFF = 2018


def _features(projection):
    corpus = features.corpus_load()
    matrix = features.feature_matrix(corpus, projection)
    return {int(work_id): matrix[i] for i, work_id in enumerate(corpus.work_ids)}, corpus


def _known_at_publication(planted, rng):
    """References (held and waiting) and novelty rows: known when each work appears."""
    works = sorted(planted.works, key=lambda work: (work.publication_year, work.pk))
    citations, waiting, novelties = [], [], []
    for i, work in enumerate(works):
        earlier = [w for w in works[:i] if w.publication_year < work.publication_year][-30:]
        for cited in (
            rng.choice(len(earlier), size=min(3, len(earlier)), replace=False) if earlier else []
        ):
            citations.append(Citation(citing=work, cited=earlier[int(cited)]))
        waiting.append(UnresolvedReference(citing=work, identifier=f"doi:10.9/{work.pk}"))
        if i % 3 == 0:
            novelties.append(
                WorkNovelty(
                    work=work,
                    publication_year=work.publication_year,
                    percentile=float(rng.uniform(0, 100)),
                    computed_at="2025-01-01T00:00Z",
                )
            )
    Citation.objects.bulk_create(citations)
    UnresolvedReference.objects.bulk_create(waiting)
    WorkNovelty.objects.bulk_create(novelties)


@pytest.fixture
def planted():
    rng = np.random.default_rng(5)
    planted = build(works=400, seed=5, prefix="leak")
    _known_at_publication(planted, rng)
    return planted


def test_later_facts_leave_the_features_of_the_cut_off_years_works_unchanged(planted):
    rng = np.random.default_rng(6)
    corpus = features.corpus_load()
    # The projection is the model's (fitted once, stored with it): held fixed here.
    projection = features.projection_fit(corpus, np.arange(corpus.work_ids.size))
    before, _ = _features(projection)
    targets = [w.pk for w in planted.works if w.publication_year == CUT_OFF]
    assert len(targets) > 10

    # 1. Every count of the cut-off year and later, every cited_by_count.
    changed = []
    for work in Work.objects.all():
        counts = {}
        for key, value in work.counts_by_year.items():
            later = int(key) >= CUT_OFF or work.publication_year > CUT_OFF
            counts[key] = int(rng.integers(0, 500)) if later else value
        for extra in range(CUT_OFF, LAST_YEAR + 1):
            counts.setdefault(str(extra), int(rng.integers(0, 50)))
        if work.publication_year > CUT_OFF:
            counts[str(CUT_OFF - 3)] = 99  # a later work cited before its year (a preprint)
        work.counts_by_year = counts
        work.cited_by_count = int(rng.integers(0, 10_000))
        changed.append(work)
    Work.objects.bulk_update(changed, ["counts_by_year", "cited_by_count"])

    # 2. Later works (of the cut-off year itself and after) by the targets' authors, in their
    # venues and topics, citing them, with novelty, embeddings and counts of their own.
    target_works = Work.objects.filter(pk__in=targets).select_related("source")
    new_works = []
    for i, target in enumerate(target_works):
        for year in (CUT_OFF, CUT_OFF + 1, CUT_OFF + 3):
            new_works.append(
                Work(
                    openalex_id=f"later-{i}-{year}",
                    title=f"A later study {i} {year}",
                    publication_year=year,
                    source=target.source,
                    authors_count=3,
                    counts_by_year={str(CUT_OFF - 1): 40, str(year): 300},
                    cited_by_count=340,
                )
            )
    new_works = Work.objects.bulk_create(new_works)
    by_target = dict(zip(range(len(new_works)), new_works, strict=True))
    authorships, topics, citations, novelty, vectors = [], [], [], [], []
    for i, target in enumerate(target_works):
        target_authors = list(
            Authorship.objects.filter(work=target).values_list("researcher_id", flat=True)
        )
        topic_id = WorkTopic.objects.filter(work=target).values_list("topic_id", flat=True).first()
        for k in range(3):
            work = by_target[3 * i + k]
            for position, researcher_id in enumerate(target_authors, start=1):
                authorships.append(
                    Authorship(
                        work=work,
                        researcher_id=researcher_id,
                        position=position,
                        raw_name="x",
                        work_created_at=work.created_at,
                    )
                )
            topics.append(
                WorkTopic(work=work, topic_id=topic_id, score=0.99, work_created_at=work.created_at)
            )
            citations.append(Citation(citing=work, cited=target))
            novelty.append(
                WorkNovelty(
                    work=work,
                    publication_year=work.publication_year,
                    percentile=99.0,
                    computed_at="2025-01-01T00:00Z",
                )
            )
            vectors.append(
                WorkEmbedding(
                    work=work,
                    model_name="synthetic",
                    text_hash=1,
                    dimensions=EMBEDDING_DIMENSIONS,
                    vector=vector_to_bytes(rng.normal(size=EMBEDDING_DIMENSIONS)),
                )
            )
    Authorship.objects.bulk_create(authorships)
    WorkTopic.objects.bulk_create(topics)
    Citation.objects.bulk_create(citations)
    WorkNovelty.objects.bulk_create(novelty)
    WorkEmbedding.objects.bulk_create(vectors)

    after, _ = _features(projection)
    for work_id in targets:
        assert before[work_id].tobytes() == after[work_id].tobytes(), work_id

    # The test can fail: later works' features do move with what happened before them.
    later = [w.pk for w in planted.works if w.publication_year >= CUT_OFF + 2]
    moved = sum(before[w].tobytes() != after[w].tobytes() for w in later)
    assert moved > 0.5 * len(later)
