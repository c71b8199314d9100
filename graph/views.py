"""Pages of the collaborator graph."""

from __future__ import annotations

from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from publications.models import Topic
from researchers.models import Researcher


def slice_panel(request: HttpRequest, slug: str) -> HttpResponse:
    """The profile's research-graph panel, loaded by htmx after the page. Until the graph slice
    exists it lists the coauthors and topics from the database."""
    researcher = get_object_or_404(Researcher, slug=slug)
    coauthors = (
        Researcher.objects.filter(authorships__work__authorships__researcher=researcher)
        .exclude(id=researcher.id)
        .annotate(joint_works=Count("authorships__work", distinct=True))
        .order_by("-joint_works", "display_name")[:12]
    )
    topics = (
        Topic.objects.filter(work_topics__work__authorships__researcher=researcher)
        .annotate(works=Count("work_topics__work", distinct=True))
        .order_by("-works", "name")[:12]
    )
    return render(
        request,
        "graph/_slice_panel.html",
        {"researcher": researcher, "coauthors": coauthors, "topics": topics},
    )
