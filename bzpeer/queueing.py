"""The one way a service queues work: a Celery task named by its registered name, sent once the
current transaction commits.

Services never import tasks modules (their own app's or another's): a task wraps a service, so
the two would import each other, and an app below could not queue the work of an app above
(claims asking ingest to import an ORCID record). A task is found in Celery's registry by its
name ("<app>.tasks.<function>", as Celery names it); the name is checked when the work is
queued, not when it is sent, so a misspelt or renamed task fails in the test that queues it.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Task, current_app
from django.db import transaction
from kombu.exceptions import OperationalError as BrokerUnavailable
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

# A broker that cannot be reached: kombu's error once its publish retries are spent
# (CELERY_TASK_PUBLISH_RETRY_POLICY), or redis-py's own on the way there.
BROKER_ERRORS = (BrokerUnavailable, RedisConnectionError, RedisTimeoutError)


class UnknownTask(LookupError):
    """No Celery task is registered under the name a service asked for."""


def registered_task(task_name: str) -> Task:
    """The task registered as task_name. Outside a worker, the apps' tasks modules are imported
    only when something imports them; the first lookup loads them all, as a worker does when
    it starts (Celery's autodiscovery)."""
    app = current_app
    if task_name not in app.tasks:
        app.loader.import_default_modules()
    try:
        return app.tasks[task_name]
    except KeyError:
        raise UnknownTask(f"no Celery task is registered as {task_name!r}") from None


def task_enqueue_on_commit(
    task_name: str,
    /,
    *args: Any,
    robust: bool = True,
    options: dict[str, Any] | None = None,
    **kwargs: Any,
) -> None:
    """Send task_name(*args, **kwargs) after the current transaction commits (at once when
    there is none). Nothing is sent when it rolls back.

    A broker that cannot be reached never fails the request that already committed, robust or
    not: the error is logged with the task and its arguments, and work that must not be lost is
    recorded in the database by the caller and sent again by a periodic sweep (the table in
    docs/operating.md, "When a dependency fails"). robust: any other error in sending is
    logged by Django too, instead of raising. options are Celery's apply_async options (queue,
    countdown); the task's route applies otherwise.
    """
    task = registered_task(task_name)
    send_options = dict(options or {})

    def send() -> None:
        try:
            task.apply_async(args=args, kwargs=kwargs, **send_options)
        except BROKER_ERRORS as error:
            logger.warning(
                "broker unavailable, %s%r%r not queued (its sweep sends it again): %s",
                task_name,
                args,
                kwargs,
                error,
            )

    transaction.on_commit(send, robust=robust)
