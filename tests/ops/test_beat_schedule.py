"""Every periodic job beat sends names a task the workers know: a typo would be sent forever and
never run."""

from __future__ import annotations

from django.conf import settings

from bzpeer.celery import app


def test_every_beat_entry_names_a_registered_task():
    app.loader.import_default_modules()
    registered = set(app.tasks)

    unknown = {
        name: entry["task"]
        for name, entry in settings.CELERY_BEAT_SCHEDULE.items()
        if entry["task"] not in registered
    }

    assert not unknown
    assert "ingest.tasks.researchers_follow_up_drain_if_due" in {
        entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()
    }
