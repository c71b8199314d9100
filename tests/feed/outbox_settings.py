"""The test settings, with every email written to a folder (tests.feed.outbox), for the digest
runs a test starts in other processes."""

from __future__ import annotations

from bzpeer.settings.test import *  # noqa: F403

EMAIL_BACKEND = "tests.feed.outbox.FolderBackend"
