"""Request and task ids on every log line, and the JSON log format (LOG_FORMAT=json).

A request's id comes from the X-Request-ID header that the proxy in front sets (so the proxy's
access log and ours name the same request), or is made here; it is sent back in the response's
X-Request-ID. A Celery task's id is set when the task starts (task_prerun). Both live in
context variables, which a logging filter copies onto each record, so no call site passes them.
"""

from __future__ import annotations

import json
import logging
import re
import uuid
from collections.abc import Callable
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from django.core.signals import request_finished
from django.http import HttpRequest, HttpResponse

request_id: ContextVar[str | None] = ContextVar("bzpeer_request_id", default=None)
task_id: ContextVar[str | None] = ContextVar("bzpeer_task_id", default=None)

# What a proxy's id may look like; anything else (too long, spaces, control characters that
# could forge log lines) is replaced by an id of our own.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


class RequestIdMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        given = request.headers.get("X-Request-ID", "")
        current = given if _REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        # Not reset on the way out: Django logs a 4xx/5xx ("Not Found: ...") after the last
        # middleware returns. request_finished (the response closed) clears it instead.
        request_id.set(current)
        response = self.get_response(request)
        response["X-Request-ID"] = current
        return response


def _request_finished(**_: object) -> None:
    request_id.set(None)


request_finished.connect(_request_finished, dispatch_uid="bzpeer.request_context")


class ContextFilter(logging.Filter):
    """Puts request_id, task_id and `ids` (both, as the plain format prints them) on a record."""

    def filter(self, record: logging.LogRecord) -> bool:
        current_request, current_task = request_id.get(), task_id.get()
        parts = []
        if current_request:
            parts.append(f"request={current_request}")
        if current_task:
            parts.append(f"task={current_task}")
        # setattr: LogRecord takes extra attributes, which its type does not declare.
        setattr(record, "request_id", current_request)  # noqa: B010
        setattr(record, "task_id", current_task)  # noqa: B010
        setattr(record, "ids", f"[{' '.join(parts)}] " if parts else "")  # noqa: B010
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line, for a log collector (Loki, Elasticsearch, CloudWatch...)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, tz=UTC).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in ("request_id", "task_id"):
            value = getattr(record, name, None)
            if value:
                entry[name] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def task_started(**signal: Any) -> None:
    """Celery's task_prerun (connected in bzpeer.celery); it sends the id as task_id."""
    task_id.set(signal.get("task_id"))


def task_finished(**_: object) -> None:
    """Celery's task_postrun: a pool process's next log lines belong to no task."""
    task_id.set(None)
