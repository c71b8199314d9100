"""Who may add, change and delete the rows that imports and services write (ReadOnlyAdminMixin)."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.test import RequestFactory

from claims.models import Claim, ModerationEvent, PendingClaim, Report, SplitRequest
from ingest.models import ImportChunk, ImportIssue, ImportRun
from notifications.models import Notification
from researchers.models import Follow

pytestmark = pytest.mark.django_db

# (add, change, delete) for a superuser, and for staff holding every permission of the model.
EXPECTED = {
    # Written by imports; an operator clears old runs.
    ImportRun: {"superuser": (False, False, True), "staff": (False, False, False)},
    ImportChunk: {"superuser": (False, False, True), "staff": (False, False, False)},
    ImportIssue: {"superuser": (False, False, True), "staff": (False, False, False)},
    # Made by readers and services; the delete permission still applies.
    Follow: {"superuser": (False, False, True), "staff": (False, False, True)},
    Notification: {"superuser": (False, False, True), "staff": (False, False, True)},
    # Decided through admin actions, which need the change permission; never deleted.
    Claim: {"superuser": (False, True, False), "staff": (False, True, False)},
    PendingClaim: {"superuser": (False, True, False), "staff": (False, True, False)},
    Report: {"superuser": (False, True, False), "staff": (False, True, False)},
    SplitRequest: {"superuser": (False, True, False), "staff": (False, True, False)},
    # The audit log: nobody.
    ModerationEvent: {"superuser": (False, False, False), "staff": (False, False, False)},
}


def permissions_of(model, user) -> tuple[bool, bool, bool]:
    request = RequestFactory().get("/admin/")
    request.user = user
    model_admin = admin.site._registry[model]
    return (
        model_admin.has_add_permission(request),
        model_admin.has_change_permission(request),
        model_admin.has_delete_permission(request),
    )


@pytest.mark.parametrize("model", list(EXPECTED), ids=lambda model: model.__name__)
def test_a_superuser_may_only_do_what_the_model_allows(admin_user, model):
    assert permissions_of(model, admin_user) == EXPECTED[model]["superuser"]


@pytest.mark.parametrize("model", list(EXPECTED), ids=lambda model: model.__name__)
def test_staff_with_every_model_permission_may_only_do_what_the_model_allows(
    django_user_model, model
):
    staff = django_user_model.objects.create_user(
        username="dana", email="dana@example.org", is_staff=True
    )
    codenames = [f"{action}_{model._meta.model_name}" for action in ("add", "change", "delete")]
    staff.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label=model._meta.app_label, codename__in=codenames
        )
    )
    staff = django_user_model.objects.get(pk=staff.pk)  # a fresh permission cache
    assert permissions_of(model, staff) == EXPECTED[model]["staff"]


def test_inline_rows_written_elsewhere_show_without_blank_or_delete_boxes(admin_user):
    from claims.admin import CheckInline, VouchInline
    from ingest.admin import ImportChunkInline, ImportIssueInline

    request = RequestFactory().get("/admin/")
    request.user = admin_user
    for inline_class, parent_model in (
        (CheckInline, Claim),
        (VouchInline, Claim),
        (ImportChunkInline, ImportRun),
        (ImportIssueInline, ImportRun),
    ):
        inline = inline_class(parent_model, admin.site)
        assert inline.extra == 0
        assert not inline.has_add_permission(request, None)
        assert not inline.has_change_permission(request, None)
        assert not inline.get_formset(request).can_delete
