"""Queues per workload (issue 16): imports, graph, mail, discovery and default each on their own
queue, so import workers can be added on other machines without mail waiting behind them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from celery import Celery
from django.db import connection

from bzpeer.celery import app as celery_app
from bzpeer.settings import base

CELERY = Path(sys.executable).with_name("celery")


def _production_router() -> Celery:
    """A Celery app with the routes and queues of base.py (the test settings keep one queue)."""
    app = Celery("routes-under-test", set_as_current=False)
    app.conf.task_routes = base.CELERY_TASK_ROUTES
    app.conf.task_queues = base.CELERY_TASK_QUEUES
    app.conf.task_default_queue = base.CELERY_TASK_DEFAULT_QUEUE
    return app


@pytest.mark.parametrize(
    ("task", "workload"),
    [
        ("ingest.tasks.import_chunk", "imports"),
        ("ingest.tasks.import_query", "imports"),
        ("ingest.tasks.import_runs_resume_stalled", "imports"),
        ("graph.tasks.coauthor_edges_drain", "graph"),
        ("publications.tasks.related_works_compute_range", "graph"),
        ("publications.tasks.related_works_drain", "graph"),
        ("notifications.tasks.notification_email_send", "mail"),
        ("notifications.tasks.notification_digest_send", "mail"),
        ("collaboration.tasks.message_email_send", "mail"),
        ("notifications.tasks.notification_digests_queue", "default"),
        ("claims.tasks.claim_checks_run", "default"),
        ("collaboration.tasks.invitations_expire", "default"),
        ("discovery.tasks.work_embeddings_sweep", "discovery"),
        ("discovery.tasks.work_index_refresh", "discovery"),
        ("discovery.tasks.ai_score_train", "discovery"),
    ],
)
def test_each_task_goes_to_its_workloads_queue(task, workload):
    route = _production_router().amqp.router.route({}, task)
    assert route["queue"].name == base.CELERY_QUEUES_BY_WORKLOAD[workload]


def test_every_routed_task_name_is_a_real_task():
    """A route naming a task that does not exist (a typo, a rename) would route nothing."""
    celery_app.loader.import_default_modules()
    registered = set(celery_app.tasks)
    for pattern in base.CELERY_TASK_ROUTES:
        if pattern.endswith("*"):
            assert any(name.startswith(pattern[:-1]) for name in registered), pattern
        else:
            assert pattern in registered, pattern


def test_the_queue_names_derive_from_the_default_queue():
    default = base.CELERY_TASK_DEFAULT_QUEUE
    assert base.CELERY_QUEUES_BY_WORKLOAD == {
        "default": default,
        "imports": f"{default}-imports",
        "graph": f"{default}-graph",
        "mail": f"{default}-mail",
        "discovery": f"{default}-discovery",
    }
    # A worker started without -Q (make run's, the Procfile's) consumes all five.
    assert [queue.name for queue in base.CELERY_TASK_QUEUES] == list(
        base.CELERY_QUEUES_BY_WORKLOAD.values()
    )


def test_the_procfile_worker_listens_on_every_queue():
    procfile = (Path(__file__).resolve().parents[2] / "Procfile").read_text()
    worker = next(line for line in procfile.splitlines() if line.startswith("worker:"))
    assert " -Q" not in worker and "--queues" not in worker


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_worker_without_queues_named_takes_each_workloads_tasks(tmp_path):
    """A worker with the production routes (local settings) and no -Q, as `make run` starts
    it: a task sent to each workload's queue is run, and its log lines carry the task id."""
    prefix = f"bzpeer-test-queues-{uuid.uuid4().hex[:8]}"
    database = connection.settings_dict
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "bzpeer.settings.local",
        "DEBUG": "false",
        "DATABASE_URL": (
            f"postgres://{database['USER']}@{database['HOST']}:{database['PORT']}"
            f"/{database['NAME']}"
        ),
        "REDIS_URL": celery_app.conf.broker_url,
        "CELERY_DEFAULT_QUEUE": prefix,
        "CELERY_GRAPH_QUEUE": f"{prefix}-graph",
    }
    log = tmp_path / "worker.log"
    worker = subprocess.Popen(
        [str(CELERY), "-A", "bzpeer", "worker", "--concurrency", "1", "--without-gossip"]
        + ["--without-mingle", "--without-heartbeat", "--loglevel", "info", "-n", f"{prefix}@%h"],
        env=environment,
        stdout=log.open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    sent = {
        "mail": celery_app.send_task(
            "notifications.tasks.notification_email_send", args=[0], queue=f"{prefix}-mail"
        ),
        "imports": celery_app.send_task(
            "ingest.tasks.import_runs_resume_stalled", queue=f"{prefix}-imports"
        ),
        "default": celery_app.send_task("collaboration.tasks.invitations_expire", queue=prefix),
    }
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            text = log.read_text(errors="replace")
            if all(f"[{result.id}] succeeded" in text for result in sent.values()):
                break
            time.sleep(0.2)
        else:
            pytest.fail(f"the worker did not run every workload's task:\n{text[-4000:]}")
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)
        with celery_app.connection_for_write() as broker:
            for suffix in ("", "-imports", "-graph", "-mail"):
                broker.default_channel.queue_purge(prefix + suffix)
    # The mail task's own log line names its task.
    assert f"task={sent['mail'].id}] notification 0: no email" in text
