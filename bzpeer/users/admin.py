from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin
from django.db.models import QuerySet
from django.http import HttpRequest

from .models import User
from .services import users_delete


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("email", "username", "display_name", "is_staff", "date_joined")
    search_fields = ("email", "username", "display_name")
    list_filter = ("is_staff", "is_superuser", "is_active")
    fieldsets = (*BaseUserAdmin.fieldsets, ("Profile", {"fields": ("display_name", "time_zone")}))

    # Through the service, not the bare cascade: it first takes back what the apps above keep
    # beside the user's rows (the follower counts of what they followed, issue 24).
    def delete_model(self, request: HttpRequest, obj: User) -> None:
        users_delete(user_ids=[obj.pk])

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        users_delete(user_ids=list(queryset.values_list("pk", flat=True)))
