"""The public pages, mounted at the site root by bzpeer.urls."""

from __future__ import annotations

from django.contrib.sitemaps import views as sitemap_views
from django.urls import include, path

from . import similar_views, views
from .sitemaps import SITEMAPS

# Work and topic pages keep the URL names they have always had (publications:work-detail,
# publications:topic-detail), which templates and links across the site use.
publication_patterns = (
    [
        path("works/<int:pk>/", views.work_detail, name="work-detail"),
        path("works/<int:pk>/novelty/", views.work_novelty, name="work-novelty"),
        path("topics/<int:pk>/", views.topic_detail, name="topic-detail"),
    ],
    "publications",
)

urlpatterns = [
    path("", views.home, name="home"),
    path("following/", views.following, name="following"),
    path("researchers/<slug:slug>/", views.researcher_profile, name="researcher-profile"),
    path("researchers/<slug:slug>/cv/", views.researcher_cv, name="researcher-cv"),
    path("researchers/<slug:slug>/novelty/", views.researcher_novelty, name="researcher-novelty"),
    path(
        "researchers/<slug:slug>/ai-score/", views.researcher_ai_score, name="researcher-ai-score"
    ),
    path(
        "researchers/<slug:slug>/similar/",
        similar_views.researcher_similar_panel,
        name="researcher-similar",
    ),
    path("researchers/<slug:slug>/follow/", views.researcher_follow, name="researcher-follow"),
    path("institutions/<int:pk>/", views.institution_detail, name="institution-detail"),
    path("institutions/<int:pk>/follow/", views.institution_follow, name="institution-follow"),
    path("topics/<int:pk>/follow/", views.topic_follow, name="topic-follow"),
    path("", include(publication_patterns)),
    path("sitemap.xml", sitemap_views.index, {"sitemaps": SITEMAPS}, name="sitemap-index"),
    path(
        "sitemap-<section>.xml",
        sitemap_views.sitemap,
        {"sitemaps": SITEMAPS},
        name="django.contrib.sitemaps.views.sitemap",
    ),
]
