from __future__ import annotations

from django.apps import AppConfig


class DiscoveryConfig(AppConfig):
    name = "discovery"
    verbose_name = "Discovery"
