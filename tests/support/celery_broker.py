"""This process's Celery app pointed at another broker for one test, and put back exactly.

Celery resolves `conf.broker_write_url` (and `broker_read_url`) to `broker_url` only while
neither is set. Saving `conf.broker_write_url` and assigning it back afterwards therefore *sets*
it, to the machine's Redis: every later test that points `broker_url` at a Redis of its own then
still publishes to the machine's (tests/ops/test_broker_flush.py's worker never got its chunk
messages after tests/bzpeer/test_queueing.py had run in the same process). So what is saved here
is the app's own overrides (`conf.changes`), and they are put back or removed as they were. The
pools made for the other broker are closed and also taken out of kombu's process-wide pool groups
(keyed by URL): a later Redis that gets the same free port would otherwise be handed the closed
pool ("Acquire on closed pool"). The app's own pools are kept untouched.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from kombu import pools
from kombu.utils.collections import eqhash

from bzpeer.celery import app as celery_app

_KEYS = ("broker_url", "broker_read_url", "broker_write_url", "task_default_queue")
_ABSENT = object()


@contextmanager
def celery_broker_pointed_at(url: str, *, queue: str | None = None) -> Iterator[None]:
    """Within the block this process sends its Celery messages to `url` (on `queue`, when
    given), through pools of its own."""
    conf, amqp = celery_app.conf, celery_app.amqp
    changes = conf.changes
    saved = {key: changes.get(key, _ABSENT) for key in _KEYS}
    own_pools = (celery_app._pool, amqp._producer_pool)
    celery_app._pool, amqp._producer_pool = None, None
    conf.broker_url, conf.broker_read_url, conf.broker_write_url = url, None, None
    if queue is not None:
        conf.task_default_queue = queue
    try:
        with celery_app.connection_for_write() as connection:
            # CELERY_BROKER_URL in the environment would win over conf: fail here, not by a
            # worker that waits for messages sent elsewhere.
            assert connection.as_uri() == celery_app.connection_for_write(url).as_uri(), (
                f"the Celery app still writes to {connection.as_uri()}, not {url}"
            )
        yield
    finally:
        if amqp._producer_pool is not None:
            amqp._producer_pool.force_close_all()
        if celery_app._pool is not None:
            celery_app._pool.force_close_all()
        other = eqhash(celery_app.connection_for_write(url))
        for group in (pools.producers, pools.connections):
            group.pop(other, None)  # the groups are keyed by eqhash (kombu.utils.collections)
        for key, value in saved.items():
            if value is _ABSENT:
                changes.pop(key, None)
            else:
                changes[key] = value
        celery_app._pool, amqp._producer_pool = own_pools
