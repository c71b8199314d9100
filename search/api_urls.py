from __future__ import annotations

from django.urls import path

from . import api

# The works search API, mounted under /api/v1/.
urlpatterns = [
    path("search/works/", api.WorkSearchView.as_view(), name="search-works"),
]
