"""Admin for works and their venues, topics and authorships.

Works and authorships run to millions of rows: their changelists never count the whole table
exactly, sort on indexed columns, search through indexes (identifiers, the full-text vector)
and show at most a page of inline rows on a change page, with a link to the full list.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.postgres.search import SearchQuery
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.text import Truncator

from bzpeer.admin import (
    URL_FIELDS_ASSUME_HTTPS,
    EstimatedCountPaginator,
    LimitedInlineMixin,
    SetOrEmptyFilter,
    bare_identifier,
    without_prefix,
)
from publications.models import Authorship, Source, Topic, Work, WorkTopic, WorkType
from researchers.admin import researcher_identifier_q
from researchers.models import Researcher

_DOI_PREFIXES = (
    "https://doi.org/",
    "http://doi.org/",
    "https://dx.doi.org/",
    "http://dx.doi.org/",
    "doi:",
)
_ARXIV_PREFIXES = ("https://arxiv.org/abs/", "http://arxiv.org/abs/", "arxiv:")


def work_identifier_q(term: str) -> Q:
    """Works whose OpenAlex id, DOI or arXiv id is the term, pasted bare or as a URL."""
    term = term.strip()
    openalex_id = bare_identifier(term)
    doi = without_prefix(term, _DOI_PREFIXES)
    arxiv_id = without_prefix(term, _ARXIV_PREFIXES)
    return (
        Q(openalex_id__in={openalex_id, openalex_id.upper()})
        | Q(doi__in={doi, doi.lower()})
        | Q(arxiv_id__in={term, arxiv_id})
    )


def _ids(queryset: QuerySet, limit: int = 1000) -> list[int]:
    return list(queryset.values_list("id", flat=True)[:limit])


# Inlines -------------------------------------------------------------------------------------


class AuthorshipInline(LimitedInlineMixin, admin.TabularInline):
    model = Authorship
    extra = 0
    rows_shown = 50
    ordering = ("position",)
    fields = ("position", "raw_name", "researcher", "is_corresponding", "institution_ids")
    autocomplete_fields = ("researcher",)


class WorkTopicInline(LimitedInlineMixin, admin.TabularInline):
    model = WorkTopic
    extra = 0
    rows_shown = 50
    ordering = ("-score",)
    fields = ("topic", "score")
    autocomplete_fields = ("topic",)


# Venues, topics, works -----------------------------------------------------------------------


@admin.register(Source)
class SourceAdmin(admin.ModelAdmin):
    list_display = ("name", "abbreviated_name", "type", "issn_l", "openalex_id")
    list_filter = ("type",)
    search_fields = ("name", "abbreviated_name", "=issn_l", "=openalex_id")
    search_help_text = "Part of the name, or an ISSN-L or OpenAlex id."
    readonly_fields = ("content_hash", "created_at", "updated_at")
    formfield_overrides = URL_FIELDS_ASSUME_HTTPS
    paginator = EstimatedCountPaginator
    show_full_result_count = False


@admin.register(Topic)
class TopicAdmin(admin.ModelAdmin):
    list_display = ("name", "code", "level", "parent", "external_id")
    list_select_related = ("parent",)
    list_filter = ("level",)
    search_fields = ("name", "=code", "=external_id")
    search_help_text = "Part of the name, or a category code (cs.CV) or external id."
    autocomplete_fields = ("parent",)
    readonly_fields = ("content_hash",)


class WorkTypeFilter(admin.SimpleListFilter):
    # Work.type is free text (sources add types); listing the known ones avoids a
    # SELECT DISTINCT over every work.
    title = "type"
    parameter_name = "type"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return list(WorkType.choices)

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value():
            return queryset.filter(type=self.value())
        return queryset


class PublicationYearFilter(admin.SimpleListFilter):
    """The last ten years one by one, then decades: computed, not a SELECT DISTINCT over works."""

    title = "publication year"
    parameter_name = "year"
    recent_years = 10
    oldest_decade = 1970

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        this_year = timezone.now().year
        first_single_year = this_year - self.recent_years + 1
        choices = [(str(year), str(year)) for year in range(this_year, first_single_year - 1, -1)]
        decade = (first_single_year - 1) // 10 * 10
        while decade >= self.oldest_decade:
            last = min(decade + 9, first_single_year - 1)
            choices.append(
                (f"{decade}-{last}", f"{decade}s" if last == decade + 9 else f"{decade}-{last}")
            )
            decade -= 10
        choices.append((f"-{self.oldest_decade - 1}", f"Before {self.oldest_decade}"))
        choices.append(("unknown", "Unknown"))
        return choices

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        if not value:
            return queryset
        if value == "unknown":
            return queryset.filter(publication_year__isnull=True)
        # "2021" is one year, "1990-1999" a range, "-1969" everything up to a year.
        first, dash, last = value.partition("-")
        try:
            if not dash:
                return queryset.filter(publication_year=int(first))
            bounds = Q(publication_year__lte=int(last))
            if first:
                bounds &= Q(publication_year__gte=int(first))
        except ValueError:
            return queryset.none()
        return queryset.filter(bounds)


@admin.register(Work)
class WorkAdmin(admin.ModelAdmin):
    list_display = (
        "short_title",
        "publication_year",
        "type",
        "source",
        "cited_by_count",
        "authors_count",
        "openalex_id",
        "doi",
    )
    list_select_related = ("source",)
    list_filter = (WorkTypeFilter, PublicationYearFilter)
    # get_search_results below decides how these are matched; the list also turns the box on.
    search_fields = ("title", "doi", "openalex_id", "arxiv_id")
    search_help_text = "Words of the title or abstract, or an OpenAlex id, DOI or arXiv id."
    # The newest imports first: the primary key serves it; there is no index on publication_date.
    ordering = ("-id",)
    autocomplete_fields = ("source",)
    readonly_fields = ("authorships_link", "content_hash", "created_at", "updated_at")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "title",
                    "abstract",
                    "type",
                    "publication_date",
                    "publication_year",
                    "source",
                    "language",
                )
            },
        ),
        ("Identifiers", {"fields": ("openalex_id", "doi", "arxiv_id")}),
        ("Links", {"fields": ("open_access_url", "code_url")}),
        ("Citations", {"fields": ("cited_by_count", "counts_by_year")}),
        ("Authors", {"fields": ("authors_count", "authorships_link")}),
        (
            "Record",
            {"classes": ("collapse",), "fields": ("content_hash", "created_at", "updated_at")},
        ),
    )
    inlines = (AuthorshipInline, WorkTopicInline)
    formfield_overrides = URL_FIELDS_ASSUME_HTTPS
    paginator = EstimatedCountPaginator
    show_full_result_count = False

    @admin.display(description="title", ordering="title")
    def short_title(self, work: Work) -> str:
        return Truncator(work.title).chars(120)

    @admin.display(description="all authorships")
    def authorships_link(self, work: Work) -> str:
        url = reverse("admin:publications_authorship_changelist") + f"?work__id__exact={work.pk}"
        return format_html(
            'The first {} authors are listed below; <a href="{}">see all {} authorships</a>.',
            AuthorshipInline.rows_shown,
            url,
            work.authors_count,
        )

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet, search_term: str
    ) -> tuple[QuerySet, bool]:
        term = search_term.strip()
        if not term:
            return queryset, False
        # Identifiers hit unique indexes and words hit the GIN index on search_vector; an
        # ILIKE on title would scan every work.
        words = Q(search_vector=SearchQuery(term, config="english", search_type="websearch"))
        return queryset.filter(work_identifier_q(term) | words), False


class LinkedResearcherFilter(SetOrEmptyFilter):
    title = "linked to a researcher"
    set_label = "Linked"
    empty_label = "Name only"


@admin.register(Authorship)
class AuthorshipAdmin(admin.ModelAdmin):
    list_display = ("raw_name", "position", "work", "researcher", "is_corresponding")
    list_select_related = ("work", "researcher")
    list_filter = ("is_corresponding", ("researcher", LinkedResearcherFilter))
    # get_search_results below decides how these are matched; the list also turns the box on.
    search_fields = (
        "work__openalex_id",
        "work__doi",
        "researcher__openalex_id",
        "researcher__orcid",
    )
    search_help_text = (
        "A work's OpenAlex id, DOI or arXiv id, or a researcher's OpenAlex id, ORCID iD or slug."
    )
    autocomplete_fields = ("work", "researcher")
    # "work" alone would sort by the work's own ordering through a join; work_id uses the
    # (work, position) unique index.
    ordering = ("work_id", "position")
    paginator = EstimatedCountPaginator
    show_full_result_count = False

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet, search_term: str
    ) -> tuple[QuerySet, bool]:
        if not search_term.strip():
            return queryset, False
        # Resolved first, so the authorship table is read through its work and researcher
        # indexes instead of being joined whole.
        work_ids = _ids(Work.objects.filter(work_identifier_q(search_term)))
        researcher_ids = _ids(Researcher.objects.filter(researcher_identifier_q(search_term)))
        return queryset.filter(Q(work_id__in=work_ids) | Q(researcher_id__in=researcher_ids)), False


@admin.register(WorkTopic)
class WorkTopicAdmin(admin.ModelAdmin):
    list_display = ("work", "topic", "score")
    list_select_related = ("work", "topic")
    list_filter = ("topic__level",)
    search_fields = ("work__openalex_id", "work__doi", "topic__external_id", "topic__code")
    search_help_text = "A work's OpenAlex id, DOI or arXiv id, or a topic's external id or code."
    autocomplete_fields = ("work", "topic")
    ordering = ("work_id", "-score")
    paginator = EstimatedCountPaginator
    show_full_result_count = False

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet, search_term: str
    ) -> tuple[QuerySet, bool]:
        term = search_term.strip()
        if not term:
            return queryset, False
        work_ids = _ids(Work.objects.filter(work_identifier_q(term)))
        topic_ids = _ids(Topic.objects.filter(Q(external_id=term) | Q(code=term)))
        return queryset.filter(Q(work_id__in=work_ids) | Q(topic_id__in=topic_ids)), False
