"""Structured logs (issue 16): every log line of a request names its request id (from the
proxy's X-Request-ID, or made here), a task's names its task id, and LOG_FORMAT=json writes one
JSON object per line."""

from __future__ import annotations

import json
import logging

import pytest

from bzpeer.request_context import (
    ContextFilter,
    JsonFormatter,
    request_id,
    task_finished,
    task_started,
)

pytestmark = pytest.mark.django_db


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.addFilter(ContextFilter())
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def request_log():
    handler = _Records()
    logger = logging.getLogger("django.request")
    logger.addHandler(handler)
    try:
        yield handler.records
    finally:
        logger.removeHandler(handler)


def test_a_request_gets_an_id_and_its_log_lines_carry_it(client, request_log):
    response = client.get("/no-such-page-here/")

    assert response.status_code == 404
    made = response["X-Request-ID"]
    assert len(made) == 32
    assert [record.request_id for record in request_log] == [made]


def test_the_proxys_request_id_is_kept(client, request_log):
    response = client.get("/no-such-page-here/", headers={"x-request-id": "edge-42.abc"})

    assert response["X-Request-ID"] == "edge-42.abc"
    assert request_log[0].request_id == "edge-42.abc"


def test_a_request_id_that_could_forge_log_lines_is_replaced(client):
    response = client.get("/healthz", headers={"x-request-id": "a\nFAKE ERROR line"})
    assert "\n" not in response["X-Request-ID"] and "FAKE" not in response["X-Request-ID"]


def test_the_request_id_is_gone_after_the_request(client):
    client.get("/healthz")
    assert request_id.get() is None


def test_a_tasks_log_lines_carry_its_id():
    task_started(task_id="3f2c-task", task=None, args=(), kwargs={})
    try:
        record = logging.LogRecord(
            "ingest.tasks", logging.INFO, __file__, 1, "chunk %s", (7,), None
        )
        ContextFilter().filter(record)
    finally:
        task_finished(task_id="3f2c-task")
    assert record.task_id == "3f2c-task"  # type: ignore[attr-defined]
    assert record.ids == "[task=3f2c-task] "  # type: ignore[attr-defined]


def test_the_json_format_is_one_object_per_line_with_the_ids():
    token = request_id.set("req-1")
    try:
        record = logging.LogRecord(
            "pages", logging.WARNING, __file__, 1, "slow %s", ("page",), None
        )
        ContextFilter().filter(record)
    finally:
        request_id.reset(token)
    line = JsonFormatter().format(record)

    entry = json.loads(line)
    assert "\n" not in line
    assert entry["message"] == "slow page" and entry["level"] == "WARNING"
    assert entry["request_id"] == "req-1" and "task_id" not in entry


def test_log_format_json_selects_the_json_formatter(monkeypatch):
    import importlib

    import bzpeer.settings.base as base

    monkeypatch.setenv("LOG_FORMAT", "json")
    try:
        reloaded = importlib.reload(base)
        assert reloaded.LOGGING["handlers"]["console"]["formatter"] == "json"
        monkeypatch.setenv("LOG_FORMAT", "xml")
        with pytest.raises(Exception, match="LOG_FORMAT"):
            importlib.reload(base)
    finally:
        monkeypatch.delenv("LOG_FORMAT")
        importlib.reload(base)
