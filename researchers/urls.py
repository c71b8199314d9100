from __future__ import annotations

from django.urls import path

from . import views_search

urlpatterns = [
    path("search/", views_search.search, name="search"),
    path("search/suggest/", views_search.suggest, name="search-suggest"),
]
