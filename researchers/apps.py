from __future__ import annotations

from django.apps import AppConfig


class ResearchersConfig(AppConfig):
    name = "researchers"
