from __future__ import annotations

from django.urls import path

from . import api

# API routes of the collaborator graph, mounted under /api/v1/ (graph slice, path, COI check).
urlpatterns = [
    path(
        "researchers/<slug:slug>/graph/", api.ResearcherGraphView.as_view(), name="researcher-graph"
    ),
    path("graph/path/", api.CollaborationPathView.as_view(), name="graph-path"),
    path("coi/", api.ConflictOfInterestView.as_view(), name="coi"),
]
