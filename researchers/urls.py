from __future__ import annotations

from django.urls import path

from . import views, views_search

urlpatterns = [
    path("", views.home, name="home"),
    path("search/", views_search.search, name="search"),
    path("search/suggest/", views_search.suggest, name="search-suggest"),
    path("following/", views.following, name="following"),
    path("researchers/<slug:slug>/", views.researcher_profile, name="researcher-profile"),
    path("researchers/<slug:slug>/follow/", views.researcher_follow, name="researcher-follow"),
    path("institutions/<int:pk>/", views.institution_detail, name="institution-detail"),
]
