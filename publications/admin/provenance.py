"""What each source said about a work, a work's versions, and name-only authors: read-only
(the import writer keeps them), searchable by the identifiers a moderator has at hand."""

from __future__ import annotations

from django.contrib import admin

from bzpeer.admin import EstimatedCountPaginator, ReadOnlyAdminMixin
from publications.models import NameOnlyAuthor, WorkSource, WorkVersion


@admin.register(WorkSource)
class WorkSourceAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("work", "origin", "origin_id", "updated_at")
    list_filter = ("origin",)
    list_select_related = ("work",)
    search_fields = ("=origin_id",)
    raw_id_fields = ("work",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False


@admin.register(WorkVersion)
class WorkVersionAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("work", "kind", "identifier", "first_label", "latest_label")
    list_filter = ("kind",)
    list_select_related = ("work",)
    search_fields = ("=identifier",)
    raw_id_fields = ("work",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False


@admin.register(NameOnlyAuthor)
class NameOnlyAuthorAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("name_key", "origin", "origin_id", "researcher")
    list_filter = ("origin",)
    list_select_related = ("researcher",)
    search_fields = ("name_key", "=origin_id")
    raw_id_fields = ("researcher",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False
