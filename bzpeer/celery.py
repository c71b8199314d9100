from __future__ import annotations

import logging.config
import os
from typing import Any

from celery import Celery, signals

from .request_context import task_finished, task_started

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


# Every log line of a task names it (bzpeer.request_context).
signals.task_prerun.connect(task_started, weak=False)
signals.task_postrun.connect(task_finished, weak=False)
