from __future__ import annotations

from django.urls import path

from . import views

urlpatterns = [
    path("search/", views.search, name="search"),
    path("search/suggest/", views.suggest, name="search-suggest"),
]
