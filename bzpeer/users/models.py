from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    """An account. Sign-in is by email (allauth); the username is kept for the admin only."""

    email = models.EmailField("email address", unique=True)
    display_name = models.CharField(max_length=200, blank=True)

    def __str__(self) -> str:
        return self.display_name or self.email or self.username
