from __future__ import annotations

import uuid

from django.contrib.auth.models import AbstractUser
from django.contrib.postgres.functions import RandomUUID
from django.db import models

from .time_zones import validate_time_zone


class User(AbstractUser):
    """An account. Sign-in is by email (allauth); the username is kept for the admin only."""

    email = models.EmailField("email address", unique=True)
    display_name = models.CharField(max_length=200, blank=True)
    # An IANA name (bzpeer.users.time_zones; checked by users.services.user_time_zone_set): the
    # digests go out at 08:00 there. PostgreSQL reads it to select who is due.
    time_zone = models.CharField(
        max_length=64, default="UTC", db_default="UTC", validators=[validate_time_zone]
    )

    # What the links in this person's emails that work without signing in (one-click
    # unsubscribe) name them by: random, so a link says nothing about whose it is, and renewed
    # with every new password, which ends every such link sent before (set_password).
    email_link_key = models.UUIDField(
        default=uuid.uuid4, db_default=RandomUUID(), unique=True, editable=False
    )

    def set_password(self, raw_password: str | None) -> None:
        super().set_password(raw_password)
        self.email_link_key = uuid.uuid4()

    def __str__(self) -> str:
        return self.display_name or self.email or self.username


class RateLimitEntry(models.Model):
    """A rate limit's entry kept here while Redis cannot be reached (bzpeer.cache and
    bzpeer.users.rate_limit_entries): the attempts a limit counted, or the lock allauth takes
    around counting them. Rows exist only during an outage and expire with their limit's
    window; each write deletes the expired ones."""

    key = models.CharField(max_length=400, primary_key=True)
    value = models.JSONField()
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return self.key
