from __future__ import annotations

from django.apps import AppConfig


class UsersConfig(AppConfig):
    name = "bzpeer.users"
    label = "users"
    verbose_name = "Users"
