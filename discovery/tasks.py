"""The discovery app's Celery tasks: thin, each calls a service."""

from __future__ import annotations

from celery import shared_task

from discovery.ai_score import services as ai_score

from .services import embeddings, index, similar


# A range is RANGE_SIZE works at most: a couple of minutes on two cores; the limit keeps a stuck
# one from holding a worker. Idempotent (only stale works are embedded), so a lost one is simply
# found again by the next sweep.
@shared_task(acks_late=True, time_limit=20 * 60)
def work_embeddings_compute_range(first_id: int, last_id: int) -> int:
    embedded = embeddings.work_embeddings_compute_range(
        first_id=first_id, last_id=last_id
    ).works_embedded
    if embedded:
        index.work_index_first_build_queue()
    return embedded


# One statement over the works, then a task per range of ids holding stale works.
@shared_task(acks_late=True, time_limit=10 * 60)
def work_embeddings_sweep() -> int:
    return embeddings.work_embeddings_sweep()


# Reads every current vector and writes a new index (a minute or two at a million works); a
# no-op when the embeddings have not changed since the current index.
@shared_task(acks_late=True, time_limit=60 * 60)
def work_index_refresh() -> int:
    build = index.work_index_refresh()
    return build.works if build else 0


# Every researcher's similar researchers from scratch (minutes at a million works); each batch
# commits on its own, so a stopped run leaves complete lists, and the next run replaces them.
@shared_task(acks_late=True, time_limit=2 * 60 * 60)
def similar_researchers_compute() -> int:
    return similar.similar_researchers_compute().rows


# One run reads every work and trains two boosters: minutes at a million works; the limit keeps
# a stuck one from holding a worker. It replaces every row, so a lost run is simply run again.
@shared_task(acks_late=True, time_limit=2 * 60 * 60)
def ai_score_train() -> int:
    return ai_score.ai_score_train().version
