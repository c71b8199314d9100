"""What each source said about a work, a work's versions, name-only authors, works merged into
others and works an ORCID record lists: read-only (the import writer keeps them), searchable by
the identifiers a moderator has at hand."""

from __future__ import annotations

from django.contrib import admin

from bzpeer.admin import EstimatedCountPaginator, ReadOnlyAdminMixin
from publications.models import (
    FormerOpenAlexWorkId,
    MergedWork,
    NameOnlyAuthor,
    WorkListedBy,
    WorkSource,
    WorkVersion,
)


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


@admin.register(MergedWork)
class MergedWorkAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("id", "survivor", "merged_at")
    list_select_related = ("survivor",)
    search_fields = ("=id",)
    raw_id_fields = ("survivor",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False


@admin.register(FormerOpenAlexWorkId)
class FormerOpenAlexWorkIdAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("openalex_id", "work")
    list_select_related = ("work",)
    search_fields = ("=openalex_id",)
    raw_id_fields = ("work",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False


@admin.register(WorkListedBy)
class WorkListedByAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("work", "researcher", "origin", "origin_id", "position")
    list_filter = ("origin",)
    list_select_related = ("work", "researcher")
    search_fields = ("=origin_id",)
    raw_id_fields = ("work", "researcher")
    paginator = EstimatedCountPaginator
    show_full_result_count = False
