"""Admin for researchers, institutions, affiliations and follows.

The researcher table holds hundreds of thousands of rows, so its changelist never counts the
whole table exactly (EstimatedCountPaginator), searches the trigram-indexed normalized name
instead of running ILIKE over display_name, and every foreign key is an autocomplete widget.

ResearcherAdmin is defined here but registered by claims.admin.researchers, which adds what
apps above this one own on the same page (merging duplicates, the close-collaborators count).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from bzpeer.admin import (
    URL_FIELDS_ASSUME_HTTPS,
    EstimatedCountPaginator,
    ReadOnlyAdminMixin,
    SetOrEmptyFilter,
    bare_identifier,
)

from .models import Affiliation, CVEntry, Follow, Institution, Researcher
from .names import normalize_name


def researcher_identifier_q(term: str) -> Q:
    """Researchers whose slug, OpenAlex id or ORCID iD is exactly the term (unique indexes)."""
    identifier = bare_identifier(term)
    return (
        Q(slug=term.strip().lower())
        | Q(openalex_id__in={identifier, identifier.upper()})
        | Q(orcid=identifier.upper())
    )


def researcher_search_q(term: str) -> Q:
    """Researchers matching a search term: part of the name, or an exact identifier.

    The name part runs on name_normalized, which has a trigram index, so a substring search
    stays fast on a large table (an ILIKE on display_name would scan it).
    """
    condition = researcher_identifier_q(term)
    normalized = normalize_name(term)
    if normalized:
        condition |= Q(name_normalized__contains=normalized)
    return condition


class ClaimedFilter(SetOrEmptyFilter):
    title = "claimed"
    set_label = "Claimed by a user"
    empty_label = "Not claimed"


class MergedFilter(SetOrEmptyFilter):
    title = "merged"
    set_label = "Merged into another record"
    empty_label = "Not merged"


@admin.register(Institution)
class InstitutionAdmin(admin.ModelAdmin):
    list_display = ("name", "country_code", "type", "ror", "openalex_id")
    list_filter = ("country_code", "type")
    search_fields = ("name", "ror", "=openalex_id")
    search_help_text = "Part of the name, a ROR id or an OpenAlex id."
    readonly_fields = ("content_hash", "created_at", "updated_at")
    formfield_overrides = URL_FIELDS_ASSUME_HTTPS
    paginator = EstimatedCountPaginator
    show_full_result_count = False


class AffiliationInline(admin.TabularInline):
    model = Affiliation
    fk_name = "researcher"
    extra = 0
    autocomplete_fields = ("institution",)
    fields = ("institution", "role", "start_year", "end_year", "source")

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return super().get_queryset(request).select_related("institution")


def researcher_fieldsets(*, counts_kept_elsewhere: tuple[str, ...] = ()) -> tuple:
    """The sections of a researcher's change page.

    counts_kept_elsewhere: read-only fields for cached counts that apps above keep in tables of
    their own (claims' admin adds the graph's close-collaborators count); they are listed with
    the researcher's cached figures, before the citations by year.
    """
    return (
        (
            None,
            {
                "fields": (
                    "display_name",
                    "slug",
                    "name_normalized",
                    "alternate_names",
                    "tagline",
                    "last_known_institution",
                    "homepage",
                    "open_to_collaborate",
                )
            },
        ),
        (
            "Identifiers",
            {"fields": ("openalex_id", "orcid", "dblp_id", "semantic_scholar_id", "scholar_id")},
        ),
        (
            "Claim and trust",
            {"fields": ("claimed_by", "verification_level", "trust_score", "trust_breakdown")},
        ),
        ("Merge", {"fields": ("merged_into",)}),
        (
            "Cached figures (refreshed after each import)",
            {
                "classes": ("collapse",),
                "fields": (
                    "works_count",
                    "cited_by_count",
                    "h_index",
                    "i10_index",
                    "topics_count",
                    "followers_count",
                    *counts_kept_elsewhere,
                    "citations_by_year",
                ),
            },
        ),
        (
            "Record",
            {"classes": ("collapse",), "fields": ("content_hash", "created_at", "updated_at")},
        ),
    )


class ResearcherAdmin(admin.ModelAdmin):
    """Everything about a researcher record that this app owns.

    Not registered here: the researcher admin is registered by claims' admin, which adds what
    apps above this one own on the same page (merging duplicates, the close-collaborators
    count), so the page stays one page at /admin/researchers/researcher/.
    """

    list_display = (
        "display_name",
        "slug",
        "verification_level",
        "is_claimed",
        "is_merged",
        "works_count",
        "cited_by_count",
        "h_index",
        "last_known_institution",
        "openalex_id",
        "orcid",
    )
    list_select_related = ("last_known_institution",)
    list_filter = (
        "verification_level",
        ("claimed_by", ClaimedFilter),
        ("merged_into", MergedFilter),
        "open_to_collaborate",
    )
    # get_search_results below decides how these are matched; the list also turns the box on.
    search_fields = ("display_name", "slug", "openalex_id", "orcid")
    search_help_text = "Part of a name, or a slug, OpenAlex id or ORCID iD."
    # The most cited first: an index serves it, unlike a sort by name over the whole table.
    ordering = ("-cited_by_count",)
    autocomplete_fields = ("last_known_institution", "claimed_by", "merged_into")
    prepopulated_fields = {"slug": ("display_name",)}
    readonly_fields = (
        "name_normalized",
        "trust_score",
        "trust_breakdown",
        "works_count",
        "cited_by_count",
        "h_index",
        "i10_index",
        "topics_count",
        "followers_count",
        "citations_by_year",
        "content_hash",
        "created_at",
        "updated_at",
    )
    fieldsets = researcher_fieldsets()
    inlines = (AffiliationInline,)
    formfield_overrides = URL_FIELDS_ASSUME_HTTPS
    paginator = EstimatedCountPaginator
    show_full_result_count = False

    @admin.display(boolean=True, description="claimed", ordering="claimed_by")
    def is_claimed(self, researcher: Researcher) -> bool:
        return researcher.claimed_by_id is not None

    @admin.display(boolean=True, description="merged", ordering="merged_into")
    def is_merged(self, researcher: Researcher) -> bool:
        return researcher.merged_into_id is not None

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet, search_term: str
    ) -> tuple[QuerySet, bool]:
        if not search_term.strip():
            return queryset, False
        return queryset.filter(researcher_search_q(search_term)), False

    def save_model(self, request: HttpRequest, obj: Researcher, form: Any, change: bool) -> None:
        # name_normalized is what search runs on; keep it in step with a name edited here.
        obj.name_normalized = normalize_name(obj.display_name)
        super().save_model(request, obj, form, change)


@admin.register(Affiliation)
class AffiliationAdmin(admin.ModelAdmin):
    list_display = ("researcher", "institution", "role", "start_year", "end_year", "source")
    list_select_related = ("researcher", "institution")
    list_filter = ("source",)
    search_fields = ("researcher__display_name", "institution__name")
    search_help_text = "Part of a researcher's or an institution's name, or their ids."
    autocomplete_fields = ("researcher", "institution")
    ordering = ("-id",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet, search_term: str
    ) -> tuple[QuerySet, bool]:
        if not search_term.strip():
            return queryset, False
        # Subqueries on the indexed researcher and institution searches, not ILIKE over a join.
        researchers = Researcher.objects.filter(researcher_search_q(search_term)).values("id")
        identifier = bare_identifier(search_term)
        institutions = Institution.objects.filter(
            Q(name__icontains=search_term.strip()) | Q(openalex_id=identifier) | Q(ror=identifier)
        ).values("id")
        return queryset.filter(
            Q(researcher__in=researchers) | Q(institution__in=institutions)
        ), False


@admin.register(Follow)
class FollowAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Who follows whom. Read-only: follows are the readers' own choice, made on the site."""

    list_display = ("user", "researcher", "created_at")
    list_select_related = ("user", "researcher")
    list_filter = (("created_at", admin.DateFieldListFilter),)
    search_fields = ("user__email", "researcher__display_name", "researcher__slug")
    search_help_text = "A reader's email, or a researcher's name or slug."
    raw_id_fields = ("user", "researcher")
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    # Deleting a follow stays possible for staff holding the model permission.
    deletable_by = "delete permission"
    paginator = EstimatedCountPaginator
    show_full_result_count = False


@admin.register(CVEntry)
class CVEntryAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """CV entries come from ORCID or the claimant; a moderator reads them here (the claimant
    hides and shows them on their profile edit page)."""

    list_display = (
        "researcher",
        "section",
        "organisation",
        "role",
        "start_year",
        "end_year",
        "source",
        "hidden",
    )
    list_filter = ("section", "source", "hidden")
    list_select_related = ("researcher",)
    search_fields = ("organisation", "role")
    raw_id_fields = ("researcher",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False
