from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from publications.models import Work

from .models import Researcher


def home(request: HttpRequest) -> HttpResponse:
    context = {
        "researchers_count": Researcher.objects.filter(merged_into__isnull=True).count(),
        "works_count": Work.objects.count(),
        "top_researchers": Researcher.objects.filter(merged_into__isnull=True).order_by(
            "-cited_by_count", "display_name"
        )[:10],
    }
    return render(request, "researchers/home.html", context)
