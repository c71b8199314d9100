"""The name resolver's moderation queue in the admin: "possibly the same person", the two
records side by side with the resolver's evidence, merged or kept apart through actions
(claims.services.same_person); and the reasons of the links it made by itself, read-only."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from bzpeer.admin import ReadOnlyAdminMixin
from claims import services
from claims.models import NameLink, SamePersonCandidate, SamePersonStatus
from claims.selectors_same_person import RecordSide, researcher_names, same_person_sides

from .decisions import reason_step, report_outcome


def _list(values: list[str]) -> SafeString:
    if not values:
        return format_html("<em>{}</em>", "none known")
    return format_html("<ul>{}</ul>", format_html_join("", "<li>{}</li>", ((v,) for v in values)))


def _identifiers(side: RecordSide) -> str:
    r = side.researcher
    found = [
        f"{label} {value}"
        for label, value in (("ORCID", r.orcid), ("OpenAlex", r.openalex_id), ("dblp", r.dblp_id))
        if value
    ]
    return ", ".join(found) or "none"


@admin.register(SamePersonCandidate)
class SamePersonCandidateAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Open pairs first, strongest evidence first. Merge: the new record goes into the existing
    one (researcher_merge); keep apart: never proposed again."""

    list_display = ("mention_name", "record", "candidate", "score", "status", "created_at")
    list_select_related = ("record", "candidate")
    list_filter = ("status",)
    search_fields = ("mention_name", "record__display_name", "candidate__display_name")
    ordering = ("status", "-score", "created_at")
    actions = ("merge", "keep_apart")
    decided_by_actions = True
    fields = (
        "side_by_side",
        "mention_origin",
        "mention_origin_id",
        "score",
        "status",
        "decided_by",
        "decided_at",
        "note",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="the two records")
    def side_by_side(self, candidate: SamePersonCandidate) -> SafeString:
        if candidate.pk is None:
            return format_html("")
        new, existing = same_person_sides(candidate)
        evidence: dict[str, Any] = candidate.evidence or {}
        coauthors = researcher_names([int(i) for i in evidence.get("shared_coauthors", [])])
        rows = [
            ("Name", new.researcher.display_name, existing.researcher.display_name),
            ("Record", new.researcher.slug, existing.researcher.slug),
            ("Identifiers", _identifiers(new), _identifiers(existing)),
            ("Works", str(new.works_count), str(existing.works_count)),
            ("Institutions", _list(new.institutions), _list(existing.institutions)),
            ("Affiliations", _list(new.affiliation_names), _list(existing.affiliation_names)),
            ("Recent works", _list(new.recent_works), _list(existing.recent_works)),
        ]
        table = format_html_join(
            "", "<tr><th>{}</th><td>{}</td><td>{}</td></tr>", ((a, b, c) for a, b, c in rows)
        )
        summary = [
            f"given names: {evidence.get('given_names', '?')}",
            f"shared coauthors: {', '.join(coauthors.values()) or 'none'}",
            f"same institution: {'yes' if evidence.get('same_institution') else 'no'}",
            f"not linked because: {evidence.get('why_not_linked', '?')}",
        ]
        return format_html(
            '<table class="same-person"><thead><tr><th></th><th>{}</th><th>{}</th></tr></thead>'
            "<tbody>{}</tbody></table><p>Evidence: {}</p>",
            "New record (from the name)",
            "Existing record",
            table,
            "; ".join(summary),
        )

    def _decide(
        self, request: HttpRequest, queryset: QuerySet, *, merge: bool
    ) -> HttpResponse | None:
        note, page = reason_step(
            self,
            request,
            queryset,
            title="Merge: one person" if merge else "Keep apart: two people",
            action="merge" if merge else "keep_apart",
            button="Merge" if merge else "Keep apart",
            help_text="Why (kept in the audit log).",
        )
        if page is not None:
            return page
        done, refused = 0, []
        decide = services.same_person_merge if merge else services.same_person_keep_apart
        for candidate in queryset.filter(status=SamePersonStatus.OPEN).order_by("pk"):
            try:
                decide(candidate=candidate, moderator=request.user, note=note or "")
                done += 1
            except services.ClaimError as error:
                refused.append(f"Pair #{candidate.pk}: {error}")
        report_outcome(
            self, request, done, refused, "pair(s) " + ("merged" if merge else "kept apart")
        )
        return None

    @admin.action(description="Merge: they are the same person", permissions=["change"])
    def merge(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._decide(request, queryset, merge=True)

    @admin.action(description="Keep apart: they are two people", permissions=["change"])
    def keep_apart(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        return self._decide(request, queryset, merge=False)


@admin.register(NameLink)
class NameLinkAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Names the resolver linked by itself, with its reasons (a wrong one: split the work off)."""

    list_display = ("display_name", "researcher", "origin", "origin_id", "score", "created_at")
    list_select_related = ("researcher",)
    search_fields = ("display_name", "origin_id")
    fields = (
        "display_name",
        "researcher",
        "origin",
        "origin_id",
        "score",
        "evidence",
        "created_at",
    )
    readonly_fields = fields
