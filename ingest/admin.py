"""Admin for the import records: runs, their chunks and the issues they met.

Runs, chunks and issues are written by imports only: the admin shows them read-only
(superusers may delete them), and a running import's page refreshes its counts in place
(live_counts_view, fetched by ingest/admin/import_run_live.js).
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.text import Truncator
from django.views.decorators.http import require_safe

from bzpeer.admin import EstimatedCountPaginator, LimitedInlineMixin, ReadOnlyAdminMixin
from ingest.models import ImportChunk, ImportIssue, ImportRun


class ImportRecordAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Runs, chunks and issues are written by imports only: shown read-only; superusers may
    delete them (a run's chunks and issues go with it)."""

    deletable_by = "superusers"


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


class ImportChunkInline(ReadOnlyAdminMixin, LimitedInlineMixin, admin.TabularInline):
    model = ImportChunk
    rows_shown = 50
    ordering = ("id",)
    fields = ("path", "entity", "start_line", "end_line", "next_line", "done")
    readonly_fields = fields
    show_change_link = True


class ImportIssueInline(ReadOnlyAdminMixin, LimitedInlineMixin, admin.TabularInline):
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
    live_counts_template = "admin/ingest/importrun/live_counts.html"

    class Media:
        css = {"all": ("ingest/admin/import_run_live.css",)}
        js = ("ingest/admin/import_run_live.js",)

    def get_urls(self) -> list[URLPattern]:
        live = path(
            "<path:object_id>/live/",
            self.admin_site.admin_view(require_safe(self.live_counts_view)),
            name="ingest_importrun_live",
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
        live_url = reverse("admin:ingest_importrun_live", args=[run.pk])
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
        url = reverse("admin:ingest_importissue_changelist") + f"?run__id__exact={run.pk}"
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
        css = {"all": ("ingest/admin/import_run_live.css",)}
