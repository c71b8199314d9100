"""Discovery's pages, mounted at the site root by bzpeer.urls (each path carries its prefix)."""

from __future__ import annotations

from django.urls import path

from . import views

app_name = "discovery"

urlpatterns = [
    path("suggestions/", views.suggestions, name="suggestions"),
    path("suggestions/panel/", views.suggestions_panel, name="suggestions-panel"),
]
