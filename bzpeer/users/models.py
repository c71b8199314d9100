from __future__ import annotations

from django.contrib.auth.models import AbstractUser
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

    def __str__(self) -> str:
        return self.display_name or self.email or self.username
