"""The REST API, mounted at /api/v1/ by bzpeer.urls; each app keeps its routes in api_urls.py.

The apps are named by string, as in INSTALLED_APPS: the shared core never imports the apps
built on it.
"""

from __future__ import annotations

from django.urls import include, path, re_path

from .api import api_not_found

app_name = "api"

urlpatterns = [
    path("", include("researchers.api_urls")),
    path("", include("publications.api_urls")),
    path("", include("graph.api_urls")),
    path("", include("notifications.api_urls")),
    path("", include("claims.api_urls")),
    path("", include("collaboration.api_urls")),
    path("", include("feed.api_urls")),
    path("", include("search.api_urls")),
    # Last: anything above did not match. [\s\S], not ".": a path may hold a newline (%0A).
    re_path(r"^(?P<unmatched_path>[\s\S]*/)$", api_not_found),
]
