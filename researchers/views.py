from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_POST

from publications.models import Work

from .models import Researcher


def home(request: HttpRequest) -> HttpResponse:
    context = {
        "researchers_count": Researcher.objects.filter(merged_into__isnull=True).count(),
        "works_count": Work.objects.count(),
    }
    return render(request, "researchers/home.html", context)


def researcher_profile(request: HttpRequest, slug: str) -> HttpResponse:
    raise Http404


@require_POST
def researcher_follow(request: HttpRequest, slug: str) -> HttpResponse:
    raise Http404


@login_required
def following(request: HttpRequest) -> HttpResponse:
    raise Http404


def institution_detail(request: HttpRequest, pk: int) -> HttpResponse:
    raise Http404
