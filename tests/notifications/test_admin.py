"""The admin shows notifications and email choices read-only (services write them)."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.test import RequestFactory

from notifications import services
from notifications.kinds import NotificationCategory
from notifications.models import Notification, NotificationPreference

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("model", "expected"),
    [(Notification, (False, False, True)), (NotificationPreference, (False, False, False))],
)
def test_the_admin_only_reads_them(admin_user, model, expected):
    request = RequestFactory().get("/admin/")
    request.user = admin_user
    model_admin = admin.site._registry[model]
    assert (
        model_admin.has_add_permission(request),
        model_admin.has_change_permission(request),
        model_admin.has_delete_permission(request),
    ) == expected


def test_the_notification_admin_lists_them(admin_client, alice):
    services.notification_create(
        user=alice, category=NotificationCategory.CLAIMS, kind="k", subject="Seen", message="m"
    )
    response = admin_client.get("/admin/notifications/notification/")
    assert response.status_code == 200 and "Seen" in response.content.decode()
    assert admin_client.get("/admin/notifications/notificationpreference/").status_code == 200
