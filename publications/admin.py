"""Admin for works and their venues, topics and authorships, and for the import records.

Works and authorships run to millions of rows: their changelists never count the whole table
exactly, sort on indexed columns, search through indexes (identifiers, the full-text vector)
and show at most a page of inline rows on a change page, with a link to the full list.

Import runs, chunks and issues are written by imports only: the admin shows them read-only
(superusers may delete them), and a running import's page refreshes its counts in place.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.contrib.postgres.search import SearchQuery
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q, QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.text import Truncator
from django.views.decorators.http import require_GET

from researchers.admin import (
    URL_FIELDS_ASSUME_HTTPS,
    EstimatedCountPaginator,
    bare_identifier,
    researcher_identifier_q,
)
from researchers.models import Researcher

from .models import (
    Authorship,
    ImportChunk,
    ImportIssue,
    ImportRun,
    Source,
    Topic,
    Work,
    WorkTopic,
    WorkType,
)

_DOI_PREFIXES = (
    "https://doi.org/",
    "http://doi.org/",
    "https://dx.doi.org/",
    "http://dx.doi.org/",
    "doi:",
)
_ARXIV_PREFIXES = ("https://arxiv.org/abs/", "http://arxiv.org/abs/", "arxiv:")


def _strip_prefix(term: str, prefixes: tuple[str, ...]) -> str:
    for prefix in prefixes:
        if term.lower().startswith(prefix):
            return term[len(prefix) :]
    return term


def work_identifier_q(term: str) -> Q:
    """Works whose OpenAlex id, DOI or arXiv id is the term, pasted bare or as a URL."""
    term = term.strip()
    openalex_id = bare_identifier(term)
    doi = _strip_prefix(term, _DOI_PREFIXES)
    arxiv_id = _strip_prefix(term, _ARXIV_PREFIXES)
    return (
        Q(openalex_id__in={openalex_id, openalex_id.upper()})
        | Q(doi__in={doi, doi.lower()})
        | Q(arxiv_id__in={term, arxiv_id})
    )


def _ids(queryset: QuerySet, limit: int = 1000) -> list[int]:
    return list(queryset.values_list("id", flat=True)[:limit])


# Inlines -------------------------------------------------------------------------------------


class LimitedInlineFormSet(BaseInlineFormSet):
    """An inline formset that shows only the first `limit` rows.

    A work can have thousands of authors and a run thousands of issues; the page shows the
    first rows and links to the changelist filtered on the parent for the rest.
    """

    limit = 50

    def get_queryset(self) -> QuerySet:
        # Cached: the formset indexes into this queryset once per form.
        if not hasattr(self, "_limited_queryset"):
            self._limited_queryset = super().get_queryset()[: self.limit]
        return self._limited_queryset


class LimitedInlineMixin:
    rows_shown = 50
    formset = LimitedInlineFormSet

    def get_formset(
        self, request: HttpRequest, obj: Any = None, **kwargs: Any
    ) -> type[BaseInlineFormSet]:
        formset = super().get_formset(request, obj, **kwargs)  # type: ignore[misc]
        formset.limit = self.rows_shown
        return formset


class ReadOnlyInlineMixin:
    """Rows that only an import writes: shown, never added, changed or deleted here."""

    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


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


class LinkedResearcherFilter(admin.SimpleListFilter):
    title = "linked to a researcher"
    parameter_name = "linked"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [("yes", "Linked"), ("no", "Name only")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value() == "yes":
            return queryset.filter(researcher__isnull=False)
        if self.value() == "no":
            return queryset.filter(researcher__isnull=True)
        return queryset


@admin.register(Authorship)
class AuthorshipAdmin(admin.ModelAdmin):
    list_display = ("raw_name", "position", "work", "researcher", "is_corresponding")
    list_select_related = ("work", "researcher")
    list_filter = ("is_corresponding", LinkedResearcherFilter)
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


# Imports -------------------------------------------------------------------------------------


class ImportRecordAdmin(admin.ModelAdmin):
    """Runs, chunks and issues are written by imports only: shown read-only; superusers may
    delete them (a run's chunks and issues go with it)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return request.user.is_superuser


def _format_count(value: int) -> str:
    return f"{value:,}"


def _format_duration(duration: datetime.timedelta) -> str:
    seconds = max(int(duration.total_seconds()), 0)
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min {seconds:02d} s"
    if minutes:
        return f"{minutes} min {seconds:02d} s"
    return f"{seconds} s"


def import_run_progress(run: ImportRun, *, now: datetime.datetime) -> dict[str, Any]:
    """The figures of the live-counts block: counts, percentage, duration and rate."""
    percent = None
    if run.records_total:
        percent = min(100, run.read_count * 100 // run.records_total)
    elif run.is_finished:
        percent = 100
    duration = rate = None
    if run.started_at:
        elapsed = (run.finished_at or now) - run.started_at
        duration = _format_duration(elapsed)
        seconds = elapsed.total_seconds()
        if seconds > 0:
            per_second = run.read_count / seconds
            rate = f"{per_second:,.0f}" if per_second >= 10 else f"{per_second:.1f}"
    return {
        "run": run,
        "active": not run.is_finished,
        "percent": percent,
        "records_total": _format_count(run.records_total) if run.records_total else None,
        "counts": [
            ("Read", _format_count(run.read_count)),
            ("Created", _format_count(run.created_count)),
            ("Updated", _format_count(run.updated_count)),
            ("Unchanged", _format_count(run.unchanged_count)),
            ("Failed", _format_count(run.failed_count)),
            ("Chunks", f"{_format_count(run.chunks_done)} / {_format_count(run.chunks_total)}"),
        ],
        "duration": duration,
        "rate": rate,
    }


class ImportChunkInline(ReadOnlyInlineMixin, LimitedInlineMixin, admin.TabularInline):
    model = ImportChunk
    rows_shown = 50
    ordering = ("id",)
    fields = ("path", "entity", "start_line", "end_line", "next_line", "done")
    readonly_fields = fields
    show_change_link = True


class ImportIssueInline(ReadOnlyInlineMixin, LimitedInlineMixin, admin.TabularInline):
    model = ImportIssue
    rows_shown = 20
    ordering = ("id",)
    fields = ("severity", "entity", "external_id", "location", "short_reason")
    readonly_fields = fields
    show_change_link = True

    @admin.display(description="where")
    def location(self, issue: ImportIssue) -> str:
        return _issue_location(issue)

    @admin.display(description="reason")
    def short_reason(self, issue: ImportIssue) -> str:
        return Truncator(issue.reason).chars(200)


def _issue_location(issue: ImportIssue) -> str:
    if issue.line_number is None:
        return issue.path
    return f"{issue.path}:{issue.line_number}"


@admin.register(ImportRun)
class ImportRunAdmin(ImportRecordAdmin):
    list_display = ("id", "source", "short_description", "progress", "created_at")
    list_display_links = ("id", "short_description")
    list_filter = ("status", "source")
    search_fields = ("description",)
    fieldsets = (
        (None, {"fields": ("source", "description", "created_at")}),
        ("Progress", {"fields": ("live_counts", "issues_summary")}),
    )
    readonly_fields = ("source", "description", "created_at", "live_counts", "issues_summary")
    inlines = (ImportChunkInline, ImportIssueInline)
    live_counts_template = "admin/publications/importrun/live_counts.html"

    class Media:
        css = {"all": ("publications/admin/import_run_live.css",)}
        js = ("publications/admin/import_run_live.js",)

    def get_urls(self) -> list[URLPattern]:
        live = path(
            "<path:object_id>/live/",
            self.admin_site.admin_view(require_GET(self.live_counts_view)),
            name="publications_importrun_live",
        )
        # Before the defaults: their "<object_id>/" catch-all would take "<id>/live/" too.
        return [live, *super().get_urls()]

    def live_counts_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        """The live-counts block alone, which the page's script fetches every two seconds."""
        run = self.get_object(request, unquote(object_id))
        if run is None:
            raise Http404("No such import run.")
        if not self.has_view_permission(request, run):
            raise PermissionDenied
        return HttpResponse(self.render_live_counts(run, compact=request.GET.get("compact") == "1"))

    def render_live_counts(self, run: ImportRun, *, compact: bool) -> SafeString:
        live_url = reverse("admin:publications_importrun_live", args=[run.pk])
        context = {
            **import_run_progress(run, now=timezone.now()),
            "compact": compact,
            "live_url": f"{live_url}?compact=1" if compact else live_url,
        }
        return render_to_string(self.live_counts_template, context)

    @admin.display(description="live counts")
    def live_counts(self, run: ImportRun) -> SafeString:
        return self.render_live_counts(run, compact=False)

    @admin.display(description="progress")
    def progress(self, run: ImportRun) -> SafeString:
        return self.render_live_counts(run, compact=True)

    @admin.display(description="description", ordering="description")
    def short_description(self, run: ImportRun) -> str:
        return Truncator(run.description).chars(80)

    @admin.display(description="issues")
    def issues_summary(self, run: ImportRun) -> str:
        by_severity = dict(
            run.issues.order_by()
            .values("severity")
            .annotate(count=Count("id"))
            .values_list("severity", "count")
        )
        total = sum(by_severity.values())
        if not total:
            return "No issues."
        url = reverse("admin:publications_importissue_changelist") + f"?run__id__exact={run.pk}"
        return format_html(
            '{} rejected, {} imported with a warning. The first {} are listed below; <a href="{}">see all {} issues</a>.',
            _format_count(by_severity.get(ImportIssue.Severity.ERROR, 0)),
            _format_count(by_severity.get(ImportIssue.Severity.WARNING, 0)),
            ImportIssueInline.rows_shown,
            url,
            _format_count(total),
        )

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple[list, dict, set, list]:
        # The default lists every chunk and issue on the confirmation page, which for a large
        # run means loading them all; counts say the same thing.
        runs = list(objs)
        deleted = [str(run) for run in runs]
        model_count = {
            ImportRun._meta.verbose_name_plural: len(runs),
            ImportChunk._meta.verbose_name_plural: ImportChunk.objects.filter(run__in=runs).count(),
            ImportIssue._meta.verbose_name_plural: ImportIssue.objects.filter(run__in=runs).count(),
        }
        return deleted, model_count, set(), []


@admin.register(ImportChunk)
class ImportChunkAdmin(ImportRecordAdmin):
    list_display = ("id", "run", "path", "entity", "start_line", "end_line", "next_line", "done")
    list_select_related = ("run",)
    list_filter = ("done", "entity", "run")
    search_fields = ("path",)
    ordering = ("-id",)
    paginator = EstimatedCountPaginator
    show_full_result_count = False


@admin.register(ImportIssue)
class ImportIssueAdmin(ImportRecordAdmin):
    list_display = (
        "id",
        "run",
        "severity",
        "entity",
        "external_id",
        "location",
        "short_reason",
        "created_at",
    )
    list_select_related = ("run",)
    list_filter = ("severity", "entity", "run")
    search_fields = ("=external_id", "reason", "path")
    search_help_text = "An external id, or part of the reason or of the file path."
    ordering = ("-id",)
    fields = (
        "run",
        "severity",
        "entity",
        "external_id",
        "location",
        "reason",
        "raw_payload",
        "created_at",
    )
    readonly_fields = fields
    paginator = EstimatedCountPaginator
    show_full_result_count = False

    @admin.display(description="where", ordering="path")
    def location(self, issue: ImportIssue) -> str:
        return _issue_location(issue)

    @admin.display(description="reason")
    def short_reason(self, issue: ImportIssue) -> str:
        return Truncator(issue.reason).chars(120)

    @admin.display(description="raw payload")
    def raw_payload(self, issue: ImportIssue) -> str:
        if not issue.raw:
            return "-"
        try:
            text = json.dumps(json.loads(issue.raw), indent=2, ensure_ascii=False)
        except ValueError:
            text = issue.raw
        return format_html('<pre class="import-issue-raw">{}</pre>', text)

    class Media:
        css = {"all": ("publications/admin/import_run_live.css",)}
