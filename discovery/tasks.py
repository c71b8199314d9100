"""The discovery app's Celery tasks: thin, each calls a service."""

from __future__ import annotations

from celery import shared_task

from discovery.ai_score import services as ai_score


# One run reads every work and trains two boosters: minutes at a million works; the limit keeps
# a stuck one from holding a worker. It replaces every row, so a lost run is simply run again.
@shared_task(acks_late=True, time_limit=2 * 60 * 60)
def ai_score_train() -> int:
    return ai_score.ai_score_train().version
