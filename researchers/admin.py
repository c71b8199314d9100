"""Admin for researchers, institutions and affiliations.

The researcher table holds hundreds of thousands of rows, so its changelist never counts the
whole table exactly (EstimatedCountPaginator), searches the trigram-indexed normalized name
instead of running ILIKE over display_name, and every foreign key is an autocomplete widget.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.paginator import Paginator
from django.db import connections, models
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.utils.functional import cached_property

from claims.admin_actions import merge_researchers
from graph.models import CloseCollaboratorsCount

from .models import Affiliation, Follow, Institution, Researcher
from .names import normalize_name

# Prefixes people paste along with an identifier; the database stores the bare id.
_IDENTIFIER_URL_PREFIXES = (
    "https://openalex.org/",
    "http://openalex.org/",
    "https://orcid.org/",
    "http://orcid.org/",
)


def bare_identifier(term: str) -> str:
    """The identifier in a search term, without the URL prefix people often paste with it."""
    term = term.strip()
    for prefix in _IDENTIFIER_URL_PREFIXES:
        if term.lower().startswith(prefix):
            return term[len(prefix) :]
    return term


# A homepage typed without a scheme is taken as https (Django 6's default; 5.2 warns without it).
URL_FIELDS_ASSUME_HTTPS = {models.URLField: {"assume_scheme": "https"}}


class EstimatedCountPaginator(Paginator):
    """A paginator that does not COUNT(*) an unfiltered table of millions of rows.

    Below `exact_count_below` rows (and for every filtered or searched list) the count is exact.
    Above it, an unfiltered list uses PostgreSQL's planner estimate (pg_class.reltuples, kept
    fresh by autovacuum): an exact count of a large table takes seconds and the admin only
    needs it for "N results" and the page links.
    """

    exact_count_below = 10_000

    @cached_property
    def count(self) -> int:
        queryset = self.object_list
        if isinstance(queryset, QuerySet) and not queryset.query.where:
            estimate = _planner_row_estimate(queryset)
            if estimate >= self.exact_count_below:
                return estimate
        return super().count


def _planner_row_estimate(queryset: QuerySet) -> int:
    """PostgreSQL's estimate of the rows in the queryset's table; -1 if never analyzed."""
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(
            "SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass(%s)",
            [queryset.model._meta.db_table],
        )
        row = cursor.fetchone()
    return int(row[0]) if row and row[0] is not None else -1


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


class ClaimedFilter(admin.SimpleListFilter):
    title = "claimed"
    parameter_name = "claimed"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", "Claimed by a user"), ("no", "Not claimed")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "yes":
            return queryset.filter(claimed_by__isnull=False)
        if self.value() == "no":
            return queryset.filter(claimed_by__isnull=True)
        return queryset


class MergedFilter(admin.SimpleListFilter):
    title = "merged"
    parameter_name = "merged"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", "Merged into another record"), ("no", "Not merged")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "yes":
            return queryset.filter(merged_into__isnull=False)
        if self.value() == "no":
            return queryset.filter(merged_into__isnull=True)
        return queryset


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


@admin.register(Researcher)
class ResearcherAdmin(admin.ModelAdmin):
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
    list_filter = ("verification_level", ClaimedFilter, MergedFilter, "open_to_collaborate")
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
        "close_collaborators_count",
        "citations_by_year",
        "content_hash",
        "created_at",
        "updated_at",
    )
    fieldsets = (
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
                    "close_collaborators_count",
                    "citations_by_year",
                ),
            },
        ),
        (
            "Record",
            {"classes": ("collapse",), "fields": ("content_hash", "created_at", "updated_at")},
        ),
    )
    inlines = (AffiliationInline,)
    # Moderation: merging duplicates (claims.admin_actions; the claims app owns the rule).
    actions = (merge_researchers,)
    formfield_overrides = URL_FIELDS_ASSUME_HTTPS
    paginator = EstimatedCountPaginator
    show_full_result_count = False

    @admin.display(boolean=True, description="claimed", ordering="claimed_by")
    def is_claimed(self, researcher: Researcher) -> bool:
        return researcher.claimed_by_id is not None

    @admin.display(description="close collaborators count")
    def close_collaborators_count(self, researcher: Researcher) -> int:
        # Kept by the graph app in a table of its own (graph.models.CloseCollaboratorsCount).
        if researcher.pk is None:
            return 0
        stored = CloseCollaboratorsCount.objects.filter(researcher_id=researcher.pk)
        return next(iter(stored.values_list("close_collaborators_count", flat=True)), 0)

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
class FollowAdmin(admin.ModelAdmin):
    """Who follows whom. Read-only: follows are the readers' own choice, made on the site."""

    list_display = ("user", "researcher", "created_at")
    list_select_related = ("user", "researcher")
    list_filter = (("created_at", admin.DateFieldListFilter),)
    search_fields = ("user__email", "researcher__display_name", "researcher__slug")
    search_help_text = "A reader's email, or a researcher's name or slug."
    raw_id_fields = ("user", "researcher")
    date_hierarchy = "created_at"
    ordering = ("-created_at",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Follow | None = None) -> bool:
        return False
