from __future__ import annotations

from django.apps import AppConfig


class FeedConfig(AppConfig):
    name = "feed"
