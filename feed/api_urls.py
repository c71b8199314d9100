"""API routes of the feed and of follows, mounted under /api/v1/ (namespace "api")."""

from __future__ import annotations

from django.urls import path

from .api import FeedView, InstitutionFollowView, ResearcherFollowView, TopicFollowView

urlpatterns = [
    path("feed/", FeedView.as_view(), name="feed"),
    path(
        "follows/researchers/<slug:key>/",
        ResearcherFollowView.as_view(),
        name="follow-researcher",
    ),
    path("follows/topics/<int:key>/", TopicFollowView.as_view(), name="follow-topic"),
    path(
        "follows/institutions/<int:key>/",
        InstitutionFollowView.as_view(),
        name="follow-institution",
    ),
]
