from __future__ import annotations

import hashlib

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from graph.selectors import CLOSE_COLLABORATORS_DEFINITION
from publications.filters import WorkListForm
from publications.models import Topic, Work
from publications.selectors import WorkListing, work_facets_for_researcher

from . import page_cache, selectors, services
from .models import Institution, Researcher

WORKS_PER_PAGE = 20
SITE_COUNTS_SECONDS = 300


def not_found(request: HttpRequest, what: str) -> HttpResponse:
    return render(request, "404.html", {"what": what}, status=404)


def _site_counts() -> dict[str, int]:
    """Counts for the home page, cached: a COUNT(*) over a million works is not free."""
    counts = cache.get("site-counts")
    if counts is None:
        counts = {
            "researchers": selectors.researchers_public().count(),
            "works": Work.objects.count(),
            "topics": Topic.objects.count(),
            "institutions": Institution.objects.count(),
        }
        cache.set("site-counts", counts, SITE_COUNTS_SECONDS)
    return counts


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    context = {
        "counts": _site_counts(),
        "recent_works": WorkListing.recent()[:8],
        "most_followed": selectors.researchers_most_followed(),
    }
    return render(request, "researchers/home.html", context, using="jinja2")


def works_page_context(
    request: HttpRequest, listing: WorkListing, *, form: WorkListForm, base_url: str
) -> dict:
    """The page of `listing` the request asks for, with what _works_list.html and
    _works_filters.html need: the form (its valid filters already applied by the caller), the
    page, and the query string the page links keep."""
    page = Paginator(listing, WORKS_PER_PAGE).get_page(request.GET.get("page"))
    query: QueryDict = request.GET.copy()
    query.pop("page", None)
    return {
        "works_form": form,
        "works_page": page,
        "works_query": query.urlencode(),
        "works_base_url": base_url,
    }


def person_jsonld(request: HttpRequest, researcher: Researcher) -> dict:
    """schema.org Person for search engines; identifiers as their canonical URLs."""
    same_as = [f"https://openalex.org/{researcher.openalex_id}"] if researcher.openalex_id else []
    if researcher.orcid:
        same_as.append(f"https://orcid.org/{researcher.orcid}")
    data = {
        "@context": "https://schema.org",
        "@type": "Person",
        "name": researcher.display_name,
        "url": request.build_absolute_uri(reverse("researcher-profile", args=[researcher.slug])),
        "sameAs": same_as,
    }
    if researcher.alternate_names:
        data["alternateName"] = researcher.alternate_names
    if researcher.last_known_institution:
        data["affiliation"] = {
            "@type": "Organization",
            "name": researcher.last_known_institution.name,
        }
    if researcher.tagline:
        data["description"] = researcher.tagline
    return data


def _anonymous_page(request: HttpRequest, slug: str) -> tuple[int, str] | None:
    """Which cached page the request is: (researcher id, page name), or None when the page must
    not be cached or the record is not a page of its own (unknown, merged).

    The name is a digest of every field of the record the page shows that can change without
    the row's updated_at moving (selectors.ProfilePageState) and of the query string; the
    works the page lists are covered by the works version researchers.page_cache keeps. A
    changed record therefore never meets its old page, and a hit costs one small query and
    one Redis round trip.
    """
    if settings.PROFILE_PAGE_CACHE_SECONDS <= 0 or request.user.is_authenticated or request.htmx:
        return None
    state = selectors.researcher_profile_page_state(slug)
    if state is None or state.merged_into_id:
        return None
    fingerprint = repr((state.fields, request.get_full_path()))
    return state.researcher_id, hashlib.md5(fingerprint.encode(), usedforsecurity=False).hexdigest()


@require_GET
def researcher_profile(request: HttpRequest, slug: str) -> HttpResponse:
    cached_as = _anonymous_page(request, slug)
    if cached_as:
        researcher_id, page_name = cached_as
        content, works_version = page_cache.cached_profile_page(
            researcher_id=researcher_id, page=page_name
        )
        if content is not None:
            return HttpResponse(content)
    researcher = selectors.researcher_for_profile(slug)
    if researcher is None:
        return not_found(request, "researcher")
    if researcher.merged_into_id:
        return redirect(
            reverse("researcher-profile", args=[researcher.merged_into_slug]), permanent=True
        )
    form = WorkListForm(request.GET)
    facets = work_facets_for_researcher(researcher.pk)
    listing = WorkListing.for_researcher(
        researcher.pk,
        **form.works_filters(),
        # The facets counted the works already; only a filter makes the list shorter.
        total=None if form.narrows else facets.works_total,
    )
    base_url = reverse("researcher-profile", args=[researcher.slug])
    context = {
        "researcher": researcher,
        "person_jsonld": person_jsonld(request, researcher),
        "is_following": selectors.researcher_is_followed_by(researcher, request.user),
        "close_collaborators_definition": CLOSE_COLLABORATORS_DEFINITION,
        "facets": facets,
        **works_page_context(request, listing, form=form, base_url=base_url),
    }
    if request.htmx and request.htmx.target == "works":
        return render(request, "publications/_works_list.html", context, using="jinja2")
    response = render(request, "researchers/profile.html", context, using="jinja2")
    if cached_as:
        page_cache.profile_page_store(
            researcher_id=researcher_id,
            page=page_name,
            version=works_version,
            content=response.content,
            seconds=settings.PROFILE_PAGE_CACHE_SECONDS,
        )
    return response


@require_POST
def researcher_follow(request: HttpRequest, slug: str) -> HttpResponse:
    researcher = get_object_or_404(selectors.researchers_public(), slug=slug)
    if not request.user.is_authenticated:
        # A visitor goes to log in and comes back to the profile they were on.
        login_url = f"{reverse('account_login')}?next={reverse('researcher-profile', args=[slug])}"
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = login_url
            return response
        return redirect(login_url)
    if request.POST.get("action") == "unfollow":
        services.follow_delete(user=request.user, researcher=researcher)
    else:
        services.follow_create(user=request.user, researcher=researcher)
    if not request.htmx:
        return redirect("researcher-profile", slug=slug)
    researcher.refresh_from_db(fields=["followers_count"])
    context = {"researcher": researcher, "is_following": request.POST.get("action") != "unfollow"}
    return render(request, "researchers/_follow_button.html", context, using="jinja2")


@login_required
@require_GET
def following(request: HttpRequest) -> HttpResponse:
    page = Paginator(selectors.researchers_followed_by(request.user), 30).get_page(
        request.GET.get("page")
    )
    return render(request, "researchers/following.html", {"researchers_page": page}, using="jinja2")


@require_GET
def institution_detail(request: HttpRequest, pk: int) -> HttpResponse:
    institution = Institution.objects.filter(pk=pk).first()
    if institution is None:
        return not_found(request, "institution")
    researchers = (
        selectors.researchers_public()
        .filter(last_known_institution=institution)
        .order_by("-cited_by_count", "id")[:30]
    )
    form = WorkListForm(request.GET)
    listing = WorkListing.for_institution(institution.pk, **form.works_filters())
    base_url = reverse("institution-detail", args=[institution.pk])
    context = {
        "institution": institution,
        "researchers": researchers,
        **works_page_context(request, listing, form=form, base_url=base_url),
    }
    if request.htmx and request.htmx.target == "works":
        return render(request, "publications/_works_list.html", context, using="jinja2")
    return render(request, "researchers/institution.html", context, using="jinja2")
