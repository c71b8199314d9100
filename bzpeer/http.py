"""HTML answers every app's views share."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def not_found(request: HttpRequest, what: str) -> HttpResponse:
    """The friendly 404 page, naming what was not found ("researcher", "work", ...)."""
    return render(request, "404.html", {"what": what}, status=404)
