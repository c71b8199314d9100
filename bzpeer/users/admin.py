from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from .models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    list_display = ("email", "username", "display_name", "is_staff", "date_joined")
    search_fields = ("email", "username", "display_name")
    list_filter = ("is_staff", "is_superuser", "is_active")
    fieldsets = (*BaseUserAdmin.fieldsets, ("Profile", {"fields": ("display_name", "time_zone")}))
