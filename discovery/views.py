"""Discovery's pages: collaborator suggestions (the page, and the panel the profile and the inbox
load with htmx after they render). Private to the signed-in user: never cached by anyone."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from discovery.selectors.suggestions import PANEL_LIMIT, suggestions_for
from discovery.suggestion_ranking import SUGGESTIONS_LIMIT


def _private(response: HttpResponse) -> HttpResponse:
    # Whose suggestions these are depends on the session: no cache, shared or not, keeps them.
    response["Cache-Control"] = "private, no-store"
    return response


@login_required
@require_safe
def suggestions(request: HttpRequest) -> HttpResponse:
    """`/suggestions/`: up to 20 people to invite, each with why; without an approved claim, a
    page that says why there are none and how to claim."""
    found = suggestions_for(request.user, limit=SUGGESTIONS_LIMIT)
    return _private(render(request, "discovery/suggestions.html", {"found": found}))


@login_required
@require_safe
def suggestions_panel(request: HttpRequest) -> HttpResponse:
    """The top few, as a fragment for the owner's profile and the inbox (htmx, after render)."""
    found = suggestions_for(request.user, limit=PANEL_LIMIT)
    return _private(render(request, "discovery/_suggestions_panel.html", {"found": found}))
