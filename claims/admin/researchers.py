"""The researcher admin page, with what claims and graph add to researchers' own admin.

researchers.admin.ResearcherAdmin has everything the researchers app owns; moderators also
merge duplicate records there (a claims rule: claims.services.researcher_merge) and see the
close-collaborators count (kept by graph). Registering the page here, above both apps, keeps
it one page at /admin/researchers/researcher/ without researchers importing either.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from claims import services
from claims.forms import MergeForm
from graph.models import CloseCollaboratorsCount
from researchers.admin import ResearcherAdmin, researcher_fieldsets
from researchers.models import Researcher


@admin.action(description="Merge the two selected records…", permissions=["change"])
def merge_researchers(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet
) -> HttpResponse | None:
    """Pick two records, then the survivor and a reason on an intermediate page."""
    researchers = list(queryset.order_by("id")[:3])
    if len(researchers) != 2:
        modeladmin.message_user(request, "Select exactly two records to merge.", messages.ERROR)
        return None
    form = MergeForm(request.POST if "apply" in request.POST else None, researchers=researchers)
    if "apply" in request.POST and form.is_valid():
        survivor = next(r for r in researchers if r.pk == form.cleaned_data["survivor"])
        source = next(r for r in researchers if r.pk != survivor.pk)
        try:
            services.researcher_merge(
                source=source,
                survivor=survivor,
                moderator=request.user,
                reason=form.cleaned_data["reason"],
            )
        except services.ClaimError as error:
            modeladmin.message_user(request, f"Not merged: {error}", messages.ERROR)
        else:
            modeladmin.message_user(
                request,
                f"{source.display_name} ({source.slug}) is merged into "
                f"{survivor.display_name} ({survivor.slug}).",
                messages.SUCCESS,
            )
        return None
    context = {
        **modeladmin.admin_site.each_context(request),
        "title": "Merge two researcher records",
        "researchers": researchers,
        "form": form,
        "opts": Researcher._meta,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
    }
    return TemplateResponse(request, "claims/admin/merge_form.html", context)


@admin.register(Researcher)
class ModeratedResearcherAdmin(ResearcherAdmin):
    """The researcher page moderators use: researchers' admin, plus merging and graph counts."""

    readonly_fields = (*ResearcherAdmin.readonly_fields, "close_collaborators_count")
    fieldsets = researcher_fieldsets(counts_kept_elsewhere=("close_collaborators_count",))
    actions = (merge_researchers,)

    @admin.display(description="close collaborators count")
    def close_collaborators_count(self, researcher: Researcher) -> int:
        # Kept by the graph app in a table of its own (graph.models.CloseCollaboratorsCount).
        if researcher.pk is None:
            return 0
        stored = CloseCollaboratorsCount.objects.filter(researcher_id=researcher.pk)
        return next(iter(stored.values_list("close_collaborators_count", flat=True)), 0)
