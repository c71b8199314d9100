from __future__ import annotations

from django.apps import AppConfig


class PagesConfig(AppConfig):
    """The public pages composed from the apps below: home, profile, work, topic, institution,
    following, the sitemap. No models of its own."""

    name = "pages"
