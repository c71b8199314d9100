from __future__ import annotations

from django.apps import AppConfig


class CollaborationConfig(AppConfig):
    name = "collaboration"
