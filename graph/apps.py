from __future__ import annotations

from django.apps import AppConfig


class GraphConfig(AppConfig):
    name = "graph"
    verbose_name = "Collaborator graph"
