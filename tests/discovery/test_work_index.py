"""The index of works by meaning: built when the vectors change, exact or HNSW, reopened by a
reading process when a new one is written."""

from __future__ import annotations

import pytest

from discovery.models import WorkEmbedding
from discovery.selectors.index import IndexMissing, works_nearest_vector
from discovery.services.embeddings import work_embeddings_compute_all
from discovery.services.index import manifest_read, work_index_build, work_index_refresh
from discovery.vectors import vector_from_bytes
from tests.factories import WorkFactory
from tests.support.discovery import (
    CHEMCROW_ARTICLE,
    CHEMCROW_PREPRINT,
    REAL_MODEL_GROUP,
    embed_remembered,
)

pytestmark = [pytest.mark.django_db, REAL_MODEL_GROUP]


def _vector_of(work):
    return vector_from_bytes(WorkEmbedding.objects.get(work=work).vector)


def test_no_index_yet_is_said_plainly(index_dir):
    with pytest.raises(IndexMissing):
        works_nearest_vector(b"\0" * 4, limit=3)


def test_the_index_is_rebuilt_only_when_the_vectors_change(few_real_works, index_dir):
    work_embeddings_compute_all(embed=embed_remembered)

    first = work_index_refresh()
    unchanged = work_index_refresh()
    changed_work = few_real_works[CHEMCROW_PREPRINT]
    changed_work.abstract = few_real_works["W2277923667"].abstract
    changed_work.save(update_fields=["abstract"])
    work_embeddings_compute_all(embed=embed_remembered)
    second = work_index_refresh()

    assert first is not None and first.kind == "exact" and first.works == len(few_real_works)
    assert unchanged is None
    assert second is not None
    assert len(list(index_dir.glob("*.npy"))) == 4  # this version's and the previous one's


@pytest.mark.parametrize("exact_below", [50_000, 0])
def test_both_kinds_find_the_preprint_next_to_its_article(few_real_works, index_dir, exact_below):
    work_embeddings_compute_all(embed=embed_remembered)
    build = work_index_build(exact_below=exact_below)
    article = few_real_works[CHEMCROW_ARTICLE]

    found = works_nearest_vector(_vector_of(article), limit=3)

    assert build.kind == ("exact" if exact_below else "hnsw-i8")
    assert [n.work_id for n in found[:2]] == [article.id, few_real_works[CHEMCROW_PREPRINT].id]
    assert found[0].score == pytest.approx(1, abs=0.02)
    assert found[0].score >= found[1].score >= found[2].score


def test_a_reader_sees_the_new_index_once_it_is_written(few_real_works, index_dir):
    work_embeddings_compute_all(embed=embed_remembered)
    work_index_build()
    article = few_real_works[CHEMCROW_ARTICLE]
    before = {n.work_id for n in works_nearest_vector(_vector_of(article), limit=50)}
    copy = WorkFactory(title=article.title, abstract=article.abstract, doi=None)
    work_embeddings_compute_all(embed=embed_remembered)
    work_index_build()

    after = {n.work_id for n in works_nearest_vector(_vector_of(article), limit=50)}

    assert copy.id not in before and copy.id in after
    assert manifest_read()["works"] == len(few_real_works) + 1


def test_the_first_embeddings_queue_the_first_index_build_once(
    few_real_works, index_dir, monkeypatch, django_capture_on_commit_callbacks
):
    """A new site (make run's demo) gets its index as soon as works are embedded, not at beat's
    next refresh; once an index exists, the refresh is beat's alone."""
    from bzpeer.queueing import registered_task
    from discovery import tasks
    from discovery.services.embeddings import work_embeddings_stale_ranges
    from discovery.services.index import REFRESH_TASK

    monkeypatch.setattr("discovery.services.embeddings._texts_embedded", embed_remembered)
    queued: list[str] = []
    monkeypatch.setattr(
        registered_task(REFRESH_TASK), "apply_async", lambda *a, **k: queued.append(REFRESH_TASK)
    )
    ((first_id, last_id, _count),) = work_embeddings_stale_ranges()

    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.work_embeddings_compute_range(first_id, last_id) == len(few_real_works)
    assert queued == [REFRESH_TASK]

    # Queued once, however many ranges finish meanwhile.
    WorkFactory(title="Another work", abstract="Words about something else entirely.")
    with django_capture_on_commit_callbacks(execute=True):
        tasks.work_embeddings_compute_range(first_id, last_id + 10_000)
    assert queued == [REFRESH_TASK]

    # With an index, nothing more is queued: beat's refresh keeps it current.
    work_index_build()
    from django.core.cache import cache

    from discovery.services.index import FIRST_BUILD_LOCK_KEY

    cache.delete(FIRST_BUILD_LOCK_KEY)
    WorkFactory(title="A third work", abstract="Yet other words, for another embedding.")
    with django_capture_on_commit_callbacks(execute=True):
        tasks.work_embeddings_compute_range(first_id, last_id + 20_000)
    assert queued == [REFRESH_TASK] and manifest_read() is not None
