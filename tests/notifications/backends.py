"""Email backends for the tests: the mail server, not our code or database, is what they fake."""

from __future__ import annotations

import smtplib
import time

from django.core.mail.backends.locmem import EmailBackend


class FailingBackend(EmailBackend):
    """A mail server that refuses every message."""

    def send_messages(self, email_messages):
        raise smtplib.SMTPServerDisconnected("the mail server went away")


class SlowBackend(EmailBackend):
    """A mail server that takes its time, so a second run can start while the first sends."""

    def send_messages(self, email_messages):
        time.sleep(0.3)
        return super().send_messages(email_messages)
