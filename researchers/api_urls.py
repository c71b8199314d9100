"""/api/v1/researchers/: mounted by bzpeer.api_urls."""

from __future__ import annotations

from django.urls import path

from .api import ResearcherDetailView, ResearcherListView

urlpatterns = [
    path("researchers/", ResearcherListView.as_view(), name="researcher-list"),
    path("researchers/<slug:slug>/", ResearcherDetailView.as_view(), name="researcher-detail"),
]
