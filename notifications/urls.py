"""Notifications pages, mounted at the site root by bzpeer.urls (each path has its prefix)."""

from __future__ import annotations

from django.urls import path

from . import views

app_name = "notifications"

urlpatterns = [
    path("notifications/", views.notification_list, name="list"),
    path("notifications/read/", views.notifications_read, name="read"),
    path("notifications/unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("account/notifications/", views.preferences, name="preferences"),
]
