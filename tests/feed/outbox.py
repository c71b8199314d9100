"""A mail server for tests that run the digests in other processes (a subprocess of
`send_digests`, a Celery worker), whose locmem outboxes the test cannot see: each message is
written to a file of its own in the folder named by BZPEER_TEST_OUTBOX, after waiting
BZPEER_TEST_SEND_DELAY seconds (a slow mail server, so a test can kill a run part way). Each
file's name begins with the id of the process that sent it (senders)."""

from __future__ import annotations

import email
import os
import time
import uuid
from collections import Counter
from pathlib import Path

from django.core.mail.backends.base import BaseEmailBackend


class FolderBackend(BaseEmailBackend):
    def send_messages(self, email_messages):
        folder = Path(os.environ["BZPEER_TEST_OUTBOX"])
        delay = float(os.environ.get("BZPEER_TEST_SEND_DELAY", "0"))
        for message in email_messages:
            time.sleep(delay)
            name = f"{os.getpid()}-{uuid.uuid4().hex}"
            # Written whole, then renamed: a reader never sees half a message.
            partial = folder / f"{name}.partial"
            partial.write_bytes(message.message().as_bytes())
            partial.rename(folder / f"{name}.eml")
        return len(email_messages)


def recipients(folder: Path) -> list[str]:
    """The To of every message in the folder, one entry per message."""
    return sorted(
        email.message_from_bytes(path.read_bytes())["To"] for path in folder.glob("*.eml")
    )


def senders(folder: Path) -> Counter[int]:
    """How many messages of the folder each process sent, by process id."""
    return Counter(int(path.name.split("-", 1)[0]) for path in folder.glob("*.eml"))
