"""API routes of notifications, mounted under /api/v1/ (namespace "api")."""

from __future__ import annotations

from django.urls import path

from .api import NotificationPreferencesView

urlpatterns = [
    path(
        "account/notifications/",
        NotificationPreferencesView.as_view(),
        name="notification-preferences",
    ),
]
