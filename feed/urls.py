"""The feed pages and the Atom feeds, mounted at the site root by bzpeer.urls."""

from __future__ import annotations

from django.urls import path

from . import atom, views

app_name = "feed"

urlpatterns = [
    path("feed/", views.feed, name="feed"),
    path("feed/read/", views.feed_mark_read, name="mark-read"),
    path("feed/new-badge/", views.feed_new_badge, name="new-badge"),
    path("feed/mute/<str:kind>/<str:key>/", views.follow_mute, name="mute"),
    path("researchers/<slug:slug>/feed.atom", atom.researcher_atom, name="researcher-atom"),
    path("topics/<int:pk>/feed.atom", atom.topic_atom, name="topic-atom"),
]
