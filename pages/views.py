"""The public pages: home, researcher profile (with follow), following, work, topic and
institution. Each gathers what it shows from the selectors of the apps below and renders it;
the hot read pages use the Jinja2 templates of templates/jinja2/pages/ (see pages/jinja2.py).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.paginator import Page, Paginator
from django.db.models import Count, F
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe

from bzpeer.http import not_found
from bzpeer.http_caching import public_page
from discovery.ai_score import selectors as ai_score_selectors
from feed import selectors as feed_selectors
from feed import services as feed_services
from graph.selectors import CLOSE_COLLABORATORS_DEFINITION
from publications.filters import WorkListForm
from publications.models import Topic
from publications.selectors import (
    CITATION_SORTS,
    CITATIONS_PER_PAGE,
    CitedWork,
    WorkListing,
    researcher_novelty_explained,
    work_citation_pages,
    work_facets_for_researcher,
    work_novelty_explained,
    work_page,
    work_survivor_id,
)
from publications.services import novelty as novelty_service
from researchers import page_cache
from researchers import selectors as researcher_selectors
from researchers import services as researcher_services
from researchers.models import Institution

from . import selectors, validators
from .jsonld import article_jsonld, person_jsonld

WORKS_PER_PAGE = 20


@require_safe
@public_page(validators.home_etag)
def home(request: HttpRequest) -> HttpResponse:
    context = {
        "counts": selectors.site_counts(),
        "recent_works": WorkListing.recent()[:8],
        "most_followed": researcher_selectors.researchers_most_followed(),
    }
    return render(request, "pages/home.html", context, using="jinja2")


def works_page_context(
    request: HttpRequest, listing: WorkListing, *, form: WorkListForm, base_url: str
) -> dict[str, Any]:
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


@require_safe
@public_page(validators.profile_etag)
def researcher_profile(request: HttpRequest, slug: str) -> HttpResponse:
    cached = validators.cached_profile_page(request, slug)
    if cached is not None and cached.content is not None:
        return HttpResponse(cached.content)
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
        "is_following": researcher_selectors.researcher_is_followed_by(researcher, request.user),
        "close_collaborators_definition": CLOSE_COLLABORATORS_DEFINITION,
        "facets": facets,
        # The works counted now. The stored figures (works_count, citations, h-index, trust)
        # catch up shortly after an import on the workers (ingest.services.follow_up); until
        # they do, the page shows this one count everywhere and says the others are updating.
        "works_total": facets.works_total,
        "metrics_updating": facets.works_total != researcher.works_count,
        "citations": researcher.citations,
        "citation_years": _citation_years(
            researcher.citations.by_year, researcher.citations_by_year
        ),
        **works_page_context(request, listing, form=form, base_url=base_url),
    }
    if request.htmx and request.htmx.target == "works":
        return render(request, "pages/_works_list.html", context, using="jinja2")
    response = render(request, "pages/profile.html", context, using="jinja2")
    if cached is not None:
        page_cache.profile_page_store(
            researcher_id=cached.researcher_id,
            page=cached.page,
            version=cached.works_version,
            content=response.content,
            seconds=settings.PROFILE_PAGE_CACHE_SECONDS,
        )
    return response


CITATION_YEARS_SHOWN = 10


def _citation_years(held: dict[int, int], stated: dict[str, Any]) -> list[tuple[int, int, int]]:
    """(year, citations counted from the works held here, citations the sources state) for the
    latest years with either, newest first."""
    stated_by_year = {int(year): int(count) for year, count in (stated or {}).items()}
    years = sorted(set(held) | set(stated_by_year), reverse=True)[:CITATION_YEARS_SHOWN]
    return [(year, held.get(year, 0), stated_by_year.get(year, 0)) for year in years]


# The printable CV lists this many works, newest first; a longer record says how many more
# its profile holds. One statement whatever the record's size.
CV_WORKS_SHOWN = 500


@require_safe
def researcher_cv(request: HttpRequest, slug: str) -> HttpResponse:
    """The printable CV (/researchers/<slug>/cv/): identity, positions, education, awards and
    works, in three queries (the record with its CV, the works, their count)."""
    researcher = selectors.researcher_for_profile(slug)
    if researcher is None:
        return not_found(request, "researcher")
    if researcher.merged_into_id:
        return redirect(
            reverse("researcher-cv", args=[researcher.merged_into_slug]), permanent=True
        )
    listing = WorkListing.for_researcher(researcher.pk)
    works = listing[:CV_WORKS_SHOWN]
    works_total = len(works) if len(works) < CV_WORKS_SHOWN else listing.count()
    context = {"researcher": researcher, "works": works, "works_total": works_total}
    return render(request, "pages/cv.html", context, using="jinja2")


@require_POST
def researcher_follow(request: HttpRequest, slug: str) -> HttpResponse:
    researcher = get_object_or_404(researcher_selectors.researchers_public(), slug=slug)
    if not request.user.is_authenticated:
        # A visitor goes to log in and comes back to the profile they were on.
        login_url = f"{reverse('account_login')}?next={reverse('researcher-profile', args=[slug])}"
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = login_url
            return response
        return redirect(login_url)
    if request.POST.get("action") == "unfollow":
        researcher_services.follow_delete(user=request.user, researcher=researcher)
    else:
        researcher_services.follow_create(user=request.user, researcher=researcher)
    if not request.htmx:
        return redirect("researcher-profile", slug=slug)
    researcher.refresh_from_db(fields=["followers_count"])
    context = {"researcher": researcher, "is_following": request.POST.get("action") != "unfollow"}
    return render(request, "pages/_follow_button.html", context, using="jinja2")


def _follow_record(
    request: HttpRequest, target: Topic | Institution, *, record_url: str, follow_url: str
) -> HttpResponse:
    """The POST of a topic's or an institution's follow button (the researcher's is above)."""
    if not request.user.is_authenticated:
        login_url = f"{reverse('account_login')}?next={record_url}"
        if request.htmx:
            response = HttpResponse(status=204)
            response["HX-Redirect"] = login_url
            return response
        return redirect(login_url)
    following_now = request.POST.get("action") != "unfollow"
    if following_now:
        feed_services.follow_create(user=request.user, target=target)
    else:
        feed_services.follow_delete(user=request.user, target=target)
    if not request.htmx:
        return redirect(record_url)
    target.refresh_from_db(fields=["followers_count"])
    context = _follow_record_context(target, following_now, record_url, follow_url)
    return render(request, "pages/_follow_record_button.html", context, using="jinja2")


def _follow_record_context(
    target: Topic | Institution, is_following: bool, record_url: str, follow_url: str
) -> dict[str, Any]:
    return {
        "is_following": is_following,
        "followers_count": target.followers_count,
        "record_url": record_url,
        "follow_url": follow_url,
        "noun": "topic" if isinstance(target, Topic) else "institution",
    }


@require_POST
def topic_follow(request: HttpRequest, pk: int) -> HttpResponse:
    topic = get_object_or_404(Topic, pk=pk)
    return _follow_record(
        request,
        topic,
        record_url=reverse("publications:topic-detail", args=[pk]),
        follow_url=reverse("topic-follow", args=[pk]),
    )


@require_POST
def institution_follow(request: HttpRequest, pk: int) -> HttpResponse:
    institution = get_object_or_404(Institution, pk=pk)
    return _follow_record(
        request,
        institution,
        record_url=reverse("institution-detail", args=[pk]),
        follow_url=reverse("institution-follow", args=[pk]),
    )


# Topics and institutions are listed whole up to this many (researchers are paged).
FOLLOWING_RECORDS_SHOWN = 200


@login_required
@require_safe
def following(request: HttpRequest) -> HttpResponse:
    # The same join as the filter on follows, so each researcher comes with the user's mute.
    followed = researcher_selectors.researchers_followed_by(request.user).annotate(
        feed_muted=F("follows__muted")
    )
    page = Paginator(followed, 30).get_page(request.GET.get("page"))
    context = {
        "researchers_page": page,
        "topic_follows": feed_selectors.topic_follows_of(request.user)[:FOLLOWING_RECORDS_SHOWN],
        "institution_follows": feed_selectors.institution_follows_of(request.user)[
            :FOLLOWING_RECORDS_SHOWN
        ],
    }
    return render(request, "pages/following.html", context, using="jinja2")


@require_safe
@public_page(validators.work_etag)
def work_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """Three queries: the ETag's, the work with all it shows (publications.selectors.work_page),
    and one page of each citation list."""
    work = work_page(pk)
    if work is None:
        # A work found to be another one (the importer merged them) lives at the survivor's.
        survivor_id = work_survivor_id(pk)
        if survivor_id is not None:
            return redirect(reverse("publications:work-detail", args=[survivor_id]), permanent=True)
        return not_found(request, "work")
    citations = work.citations
    references_sort, references_page = _citation_list_place(
        request, "refs", citations.references_held
    )
    citing_sort, citing_page = _citation_list_place(request, "cites", citations.cited_by_held)
    references, citing = work_citation_pages(
        work.pk,
        references_sort=references_sort,
        references_offset=_page_offset(references_page),
        citing_sort=citing_sort,
        citing_offset=_page_offset(citing_page),
    )
    context = {
        "work": work,
        "article_jsonld": article_jsonld(request, work),
        "citations": citations,
        "references": _citation_list(request, "refs", references_sort, references_page, references),
        "cited_by": _citation_list(request, "cites", citing_sort, citing_page, citing),
        "related": work.related,
    }
    return render(request, "pages/work.html", context)


@require_safe
def work_novelty(request: HttpRequest, pk: int) -> HttpResponse:
    """How the work's novelty is computed (docs/novelty.md): the measure, its new pairs of
    journals with their distances, the baseline. Two queries."""
    explained = work_novelty_explained(pk)
    if explained is None:
        survivor_id = work_survivor_id(pk)
        if survivor_id is not None:
            return redirect(
                reverse("publications:work-novelty", args=[survivor_id]), permanent=True
            )
        return not_found(request, "work")
    return render(request, "pages/work_novelty.html", _novelty_context(explained=explained))


@require_safe
def researcher_novelty(request: HttpRequest, slug: str) -> HttpResponse:
    """How the researcher's Novelty is computed: the median of which works' percentiles, and
    which works were left out and why. Three queries."""
    researcher = researcher_selectors.researcher_by_slug(slug)
    if researcher is None:
        return not_found(request, "researcher")
    if researcher.merged_into_id:
        return redirect(
            reverse("researcher-novelty", args=[researcher.merged_into.slug]),  # type: ignore[union-attr]
            permanent=True,
        )
    explained = researcher_novelty_explained(researcher.pk)
    context = _novelty_context(researcher=researcher, explained=explained)
    return render(request, "pages/researcher_novelty.html", context)


@require_safe
def researcher_ai_score(request: HttpRequest, slug: str) -> HttpResponse:
    """How the researcher's AI Score is computed (docs/ai-score.md): the model's version,
    history and back-test, and for each recent work its forecast and the inputs that moved it
    most. Four queries."""
    researcher = researcher_selectors.researcher_by_slug(slug)
    if researcher is None:
        return not_found(request, "researcher")
    if researcher.merged_into_id:
        return redirect(
            reverse("researcher-ai-score", args=[researcher.merged_into.slug]),  # type: ignore[union-attr]
            permanent=True,
        )
    explained = ai_score_selectors.researcher_ai_score_explained(researcher.pk)
    context = {
        "researcher": researcher,
        "explained": explained,
        "minimum_works": settings.AI_SCORE_MIN_TRAINING_WORKS,
        "works_shown": ai_score_selectors.WORKS_SHOWN,
        "calibration_chart": ai_score_selectors.calibration_bars(explained.model),
    }
    return render(request, "pages/researcher_ai_score.html", context)


def _novelty_context(**context: Any) -> dict[str, Any]:
    """The thresholds the explanations state, from the computation itself."""
    return {
        **context,
        "min_references": novelty_service.MIN_REFERENCES,
        "min_baseline": novelty_service.MIN_BASELINE,
        "min_prior_works": novelty_service.MIN_PRIOR_WORKS,
        "window_years": novelty_service.WINDOW_YEARS,
        "pairs_kept": novelty_service.PAIRS_KEPT,
    }


def _citation_list_place(request: HttpRequest, prefix: str, count: int) -> tuple[str, Page]:
    """Which sort and page of a work's references or citing works the request asks for
    (`prefix` names its query parameters: refs_sort, refs_page), as Django's Paginator reads a
    page number (not a number: the first; out of range: the last). The page holds no works
    yet: work_citation_pages reads them."""
    sort = request.GET.get(f"{prefix}_sort", "citations")
    if sort not in CITATION_SORTS:
        sort = "citations"
    page = Paginator(range(count), CITATIONS_PER_PAGE).get_page(request.GET.get(f"{prefix}_page"))
    return sort, page


def _page_offset(page: Page) -> int:
    return (page.number - 1) * page.paginator.per_page


def _citation_list(
    request: HttpRequest, prefix: str, sort: str, place: Page, works: list[CitedWork]
) -> dict[str, Any]:
    """One page of a work's references or citing works, its sort links and pager links,
    keeping the other list's place."""
    page = Page(works, place.number, place.paginator)

    def url(**changes: Any) -> str:
        query = request.GET.copy()
        for key, value in changes.items():
            query[f"{prefix}_{key}"] = value
        if changes.keys() == {"sort"}:
            query.pop(f"{prefix}_page", None)
        return f"?{query.urlencode()}#{prefix}-heading"

    return {
        "count": page.paginator.count,
        "page": page,
        "sort": sort,
        "sort_urls": {key: url(sort=key) for key in CITATION_SORTS},
        "previous_url": url(page=page.previous_page_number()) if page.has_previous() else "",
        "next_url": url(page=page.next_page_number()) if page.has_next() else "",
    }


@require_safe
@public_page(validators.topic_etag)
def topic_detail(request: HttpRequest, pk: int) -> HttpResponse:
    topic = Topic.objects.select_related("parent__parent__parent").filter(pk=pk).first()
    if topic is None:
        return not_found(request, "topic")
    researchers = selectors.researchers_in_topic(topic)
    page = Paginator(WorkListing.for_topic(topic.pk), WORKS_PER_PAGE).get_page(
        request.GET.get("page")
    )
    ancestors = []
    node = topic.parent
    while node is not None and len(ancestors) < 3:
        ancestors.insert(0, node)
        node = node.parent
    children = topic.children.annotate(works=Count("work_topics")).order_by("-works", "name")[:30]
    context = {
        "topic": topic,
        "ancestors": ancestors,
        "children": children,
        "researchers": researchers,
        "works_page": page,
        "works_query": "",
        **_follow_record_context(
            topic,
            feed_selectors.topic_is_followed_by(topic, request.user),
            reverse("publications:topic-detail", args=[topic.pk]),
            reverse("topic-follow", args=[topic.pk]),
        ),
    }
    return render(request, "pages/topic.html", context, using="jinja2")


@require_safe
@public_page(validators.institution_etag)
def institution_detail(request: HttpRequest, pk: int) -> HttpResponse:
    institution = Institution.objects.filter(pk=pk).first()
    if institution is None:
        return not_found(request, "institution")
    researchers = (
        researcher_selectors.researchers_public()
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
        **_follow_record_context(
            institution,
            feed_selectors.institution_is_followed_by(institution, request.user),
            base_url,
            reverse("institution-follow", args=[institution.pk]),
        ),
    }
    if request.htmx and request.htmx.target == "works":
        return render(request, "pages/_works_list.html", context, using="jinja2")
    return render(request, "pages/institution.html", context, using="jinja2")
