from __future__ import annotations

from django.apps import AppConfig


class PublicationsConfig(AppConfig):
    name = "publications"
