from __future__ import annotations

import logging.config
import os
from typing import Any

from celery import Celery, signals

from .request_context import task_finished, task_started
from .task_connections import connections_after_task, connections_before_task

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bzpeer.settings.local")

app = Celery("bzpeer")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@signals.setup_logging.connect
def _logging_from_django_settings(**_: Any) -> None:
    """Workers log as the site does (settings.LOGGING: request and task ids, LOG_FORMAT=json)
    instead of Celery's own format; connecting this signal tells Celery not to set up its own."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


@signals.worker_init.connect
def embedder_threads_share(sender: Any = None, **_: Any) -> None:
    """Each process of a worker's pool embeds on its share of the cores (EMBEDDER_THREADS, read
    by discovery.embedder), not on a thread per core each: with `--concurrency 2` on 2 cores
    that made four busy threads on two cores whenever both processes embedded at once, the rule
    when the embedding is fanned out by id range (bench/embedding_bench.py times both shapes;
    docs/discovery.md). Sent in the parent before the pool forks, so every process inherits it;
    an EMBEDDER_THREADS already in the environment wins."""
    try:
        concurrency = int(getattr(sender, "concurrency", 0) or 1)
    except (TypeError, ValueError):  # "auto", resolved after this signal: a process per core
        concurrency = os.cpu_count() or 1
    share = max(1, (os.cpu_count() or 1) // concurrency)
    os.environ.setdefault("EMBEDDER_THREADS", str(share))


# Every log line of a task names it (bzpeer.request_context).
signals.task_prerun.connect(task_started, weak=False)
signals.task_postrun.connect(task_finished, weak=False)
# Which tasks keep their database connection (settings.CELERY_DB_REUSE_MAX: not Celery's fixup).
signals.task_prerun.connect(connections_before_task, weak=False)
signals.task_postrun.connect(connections_after_task, weak=False)
