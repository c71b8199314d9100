"""/api/v1/works/ and a researcher's works: mounted by bzpeer.api_urls."""

from __future__ import annotations

from django.urls import path

from .api import (
    ResearcherWorksView,
    WorkCitationsView,
    WorkDetailView,
    WorkListView,
    WorkReferencesView,
    WorkRelatedView,
)

urlpatterns = [
    path("researchers/<slug:slug>/works/", ResearcherWorksView.as_view(), name="researcher-works"),
    path("works/", WorkListView.as_view(), name="work-list"),
    path("works/<int:pk>/", WorkDetailView.as_view(), name="work-detail"),
    path("works/<int:pk>/references/", WorkReferencesView.as_view(), name="work-references"),
    path("works/<int:pk>/citations/", WorkCitationsView.as_view(), name="work-citations"),
    path("works/<int:pk>/related/", WorkRelatedView.as_view(), name="work-related"),
]
