"""Pages of the collaborator graph: the profile's slice panel, the explorer, the COI check."""

from __future__ import annotations

import re

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_safe

from researchers.models import Researcher
from researchers.selectors import researcher_by_slug

from . import selectors

COI_MAX_LINES = selectors.COI_MAX_RESEARCHERS


def _researcher_or_404(slug: str) -> Researcher:
    researcher = researcher_by_slug(slug)
    if researcher is None:
        raise Http404("No researcher has this address.")
    return researcher


@require_safe
def slice_panel(request: HttpRequest, slug: str) -> HttpResponse:
    """The profile's research-graph panel, loaded by htmx after the page: a small interactive
    graph of the slice, with the same nodes as lists beside it for screen readers."""
    researcher = _researcher_or_404(slug)
    if researcher.merged_into is not None:
        return redirect("graph:slice-panel", researcher.merged_into.slug)
    graph_slice = selectors.graph_slice_for(researcher)
    by_type: dict[str, list[dict]] = {"researcher": [], "work": [], "topic": [], "institution": []}
    for node in graph_slice["nodes"]:
        if not node.get("center"):
            by_type[node["type"]].append(node)
    return render(
        request,
        "graph/_slice_panel.html",
        {
            "researcher": researcher,
            "slice": graph_slice,
            "slice_id": f"graph-slice-data-{researcher.pk}",
            "collaborators": by_type["researcher"],
            "works": by_type["work"],
            "topics": by_type["topic"],
            "institutions": by_type["institution"],
            "close_collaborators_definition": selectors.CLOSE_COLLABORATORS_DEFINITION,
        },
    )


@require_safe
def explorer(request: HttpRequest) -> HttpResponse:
    """The full explorer: starts from ?researcher=<slug> (or from a search), expands node by
    node, filters, finds paths and exports. The graph itself is drawn by explorer.js."""
    researcher = None
    if slug := request.GET.get("researcher", "").strip():
        researcher = _researcher_or_404(slug)
        if researcher.merged_into is not None:
            return redirect(f"{request.path}?researcher={researcher.merged_into.slug}")
    target = researcher_by_slug(request.GET.get("to", "").strip()) if "to" in request.GET else None
    return render(
        request,
        "graph/explorer.html",
        {
            "researcher": researcher,
            "target": target,
            "close_collaborators_definition": selectors.CLOSE_COLLABORATORS_DEFINITION,
            "max_path_hops": selectors.MAX_PATH_HOPS,
        },
    )


@require_safe
def coi_check(request: HttpRequest) -> HttpResponse:
    """Paste names, ORCID iDs, OpenAlex ids or profile addresses, one per line (or separated by
    commas or semicolons); see every pair that coauthored recently or shares an institution."""
    text = request.GET.get("q", "")
    errors: list[str] = []
    try:
        years = int(request.GET.get("years", selectors.COI_DEFAULT_YEARS))
    except ValueError:
        years = -1
    if not 0 <= years <= 50:
        errors.append("Years must be a whole number from 0 to 50.")
        years = selectors.COI_DEFAULT_YEARS
    lines = [part.strip() for line in text.splitlines() for part in re.split(r"[,;]", line)]
    lines = [line for line in lines if line]
    if len(lines) > COI_MAX_LINES:
        errors.append(
            f"At most {COI_MAX_LINES} people at a time: the first {COI_MAX_LINES} were checked."
        )
        lines = lines[:COI_MAX_LINES]
    resolved = selectors.researchers_resolve(lines) if lines else []
    people = list({r.researcher.id: r.researcher for r in resolved if r.researcher}.values())
    result = None
    if len(people) >= 2:
        result = selectors.conflicts_of_interest(people, years=years)
    elif lines:
        errors.append("Give at least two people that bzpeer knows.")
    return render(
        request,
        "graph/coi.html",
        {
            "text": text,
            "years": years,
            "resolved": resolved,
            "result": result,
            "errors": errors,
        },
    )
