"""Search pages: /search/ with a tab per kind of record, and the header's name suggestions (htmx).

The selectors live in search/selectors/; this module reads and validates the query string
(search/forms.py), picks the tab and renders.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import urlencode
from django.views.decorators.http import require_safe

from researchers.names import normalize_name

from .forms import FILTER_FORMS, TAB_LABELS, SearchForm
from .selectors.counts import SEARCH_KINDS, search_counts_but_works
from .selectors.meaning import work_search_by_meaning
from .selectors.researchers import researcher_institution_facets, researcher_search
from .selectors.results import MAX_QUERY_LENGTH, TabCount
from .selectors.suggestions import SUGGESTION_MIN_LENGTH, researcher_suggestions
from .selectors.topics_institutions import (
    institution_country_facets,
    institution_search,
    topic_search,
)
from .selectors.works import (
    WorkCandidates,
    WorkFilters,
    work_candidates,
    work_search,
    work_topic_facets,
    work_type_facets,
)
from .selectors.works_tab import WorksTab, works_tab


def _valid_data(form: forms.Form) -> forms.Form:
    """Validate, keeping the fields that are valid: one bad filter must not void the others."""
    form.is_valid()
    return form


def _tab_results(
    tab: str,
    query: str,
    filter_form: Any,
    page: int,
    *,
    by_meaning: bool = False,
    works_found: WorkCandidates | None = None,
    works_read: WorksTab | None = None,
) -> dict[str, Any]:
    if works_read is not None:
        # The works tab without filters, read whole with the count (_works_count).
        return {
            "results": works_read.page,
            "meaning_available": True,
            "topic_facets": works_read.topic_facets,
            "type_facets": works_read.type_facets,
        }
    filters = filter_form.to_filters()
    if tab == "researchers":
        return {
            "results": researcher_search(query=query, filters=filters, page=page),
            "institution_facets": researcher_institution_facets(query=query, filters=filters),
        }
    if tab == "works":
        if by_meaning:
            found = work_search_by_meaning(query=query, filters=filters, page=page)
            works_page: Any = found.page
            meaning_available = found.meaning_available
        else:
            works_page, meaning_available = (
                work_search(query=query, filters=filters, page=page, found=works_found),
                True,
            )
        return {
            "results": works_page,
            "meaning_available": meaning_available,
            "topic_facets": work_topic_facets(query=query, filters=filters, found=works_found),
            "type_facets": work_type_facets(query=query, filters=filters, found=works_found),
        }
    if tab == "topics":
        return {"results": topic_search(query=query, filters=filters, page=page)}
    return {
        "results": institution_search(query=query, filters=filters, page=page),
        "country_facets": institution_country_facets(query=query, filters=filters),
    }


def _query_string(params: dict[str, Any]) -> str:
    return "?" + urlencode({key: value for key, value in params.items() if value not in (None, "")})


def _page_url(request: HttpRequest, page: int) -> str:
    params = request.GET.copy()
    params["page"] = str(page)
    return f"?{params.urlencode()}"


def _works_count(
    request: HttpRequest, form: forms.Form, query: str, mode: str, counts: dict[str, TabCount]
) -> tuple[TabCount, WorksTab | None, WorkCandidates | None]:
    """The works tab's count, with what it was read with: the whole works tab (works_tab, one
    query) when that tab is the one shown without filters (asked for, or chosen because no
    researcher matched); else the works' first matches (work_candidates), which the works tab
    with filters or by meaning still uses for its facets."""
    if not normalize_name(query):
        # Nothing can match a query without a letter or digit: nothing is read.
        return TabCount(0), None, None
    requested_tab = form.cleaned_data.get("tab") or None
    works_shown = requested_tab == "works" or (
        requested_tab is None and not counts["researchers"].count
    )
    if mode == "words" and works_shown:
        filter_form = _valid_data(FILTER_FORMS["works"](request.GET))
        if filter_form.to_filters() == WorkFilters():
            read = works_tab(query=query, page=form.cleaned_data.get("page") or 1)
            return read.count, read, None
    found = work_candidates(query)
    return found.count, None, found


@require_safe
def search(request: HttpRequest) -> HttpResponse:
    form = _valid_data(SearchForm(request.GET))
    query = form.cleaned_data.get("q", "") if "q" not in form.errors else ""
    mode = form.cleaned_data.get("mode") or "words"
    context: dict[str, Any] = {
        "form": form,
        "search_query": request.GET.get("q", "")[:MAX_QUERY_LENGTH],
        "query": query,
        "tab_labels": TAB_LABELS,
        "mode": mode,
        "by_meaning": mode == "meaning",
    }
    if "mode" in form.errors:
        # A mode the page does not know: say so rather than guess which results were meant.
        return render(request, "search/search.html", {**context, "query": ""}, status=400)
    if not query:
        return render(request, "search/search.html", context)

    # The works' first matches are read once: their count is the tab's, and the works tab
    # ranks them and counts its facets over them (in the same statement without filters).
    counts = search_counts_but_works(query)
    works_count, works_read, works_found = _works_count(request, form, query, mode, counts)
    counts["works"] = works_count
    # By meaning is a mode of the works tab: the words' counts may say nothing of its results.
    tab = form.cleaned_data.get("tab") or (
        "works"
        if mode == "meaning"
        else next((kind for kind in SEARCH_KINDS if counts[kind].count), "researchers")
    )
    filter_form = _valid_data(FILTER_FORMS[tab](request.GET))
    page = form.cleaned_data.get("page") or 1
    results = _tab_results(
        tab,
        query,
        filter_form,
        page,
        by_meaning=mode == "meaning",
        works_found=works_found,
        works_read=works_read if tab == "works" else None,
    )
    current_page = results["results"]
    if tab == "works" and mode == "meaning":
        # The works tab counts what it lists: the matches by words and by meaning together
        # (the words alone may be none of them).
        counts = {**counts, "works": TabCount(current_page.total, current_page.total_capped)}
    tabs = [
        {
            "kind": kind,
            "label": label,
            "count": counts[kind],
            "url": _query_string(
                {"q": query, "tab": kind, "mode": mode if mode != "words" else ""}
            ),
            "current": kind == tab,
        }
        for kind, label in TAB_LABELS.items()
    ]
    context.update(
        tab=tab,
        tab_label=TAB_LABELS[tab],
        counts=counts,
        tabs=tabs,
        other_tabs=[t for t in tabs if not t["current"] and t["count"].count],
        filter_form=filter_form,
        filtered=any(filter_form.cleaned_data.get(name) for name in filter_form.fields),
        clear_filters_url=_query_string(
            {"q": query, "tab": tab, "mode": mode if mode != "words" else ""}
        ),
        first_page_url=_page_url(request, 1),
        previous_page_url=_page_url(request, current_page.number - 1),
        next_page_url=_page_url(request, current_page.number + 1),
        **results,
    )
    return render(request, "search/search.html", context)


@require_safe
def suggest(request: HttpRequest) -> HttpResponse:
    """The header box's suggestions: a short list of researchers linking to their profiles.

    Fewer than two letters or digits gets an empty response, which empties the list."""
    query = request.GET.get("q", "")[:MAX_QUERY_LENGTH]
    if len(normalize_name(query)) < SUGGESTION_MIN_LENGTH:
        return HttpResponse("")
    researchers = researcher_suggestions(query)
    return render(
        request, "search/_suggestions.html", {"researchers": researchers, "query": query.strip()}
    )
