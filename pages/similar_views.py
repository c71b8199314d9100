"""The profile's "Similar researchers" panel, an htmx fragment loaded after the page renders,
so the profile's own response runs none of its queries."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from bzpeer.http import not_found
from discovery.selectors.similar import similar_researchers_for
from researchers import selectors as researcher_selectors


@require_safe
def researcher_similar_panel(request: HttpRequest, slug: str) -> HttpResponse:
    """The researchers closest in meaning, each with why. Two queries."""
    researcher = researcher_selectors.researcher_by_slug(slug)
    if researcher is None:
        return not_found(request, "researcher")
    if researcher.merged_into_id:
        survivor = researcher.merged_into.slug  # type: ignore[union-attr]
        return redirect(reverse("researcher-similar", args=[survivor]), permanent=True)
    return render(
        request,
        "pages/_similar_researchers.html",
        {"researcher": researcher, "similar": list(similar_researchers_for(researcher.pk))},
    )
