"""Search pages: /search/ with a tab per kind of record, and the header's name suggestions (htmx).

The selectors live in researchers/search.py; this module reads and validates the query string,
picks the tab and renders.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from publications.models import TopicLevel

from . import search as search_selectors
from .names import normalize_name

TAB_LABELS = {
    "researchers": "Researchers",
    "works": "Works",
    "topics": "Topics",
    "institutions": "Institutions",
}
# Far past any real result; only keeps the OFFSET a sane number.
MAX_PAGE = search_selectors.WORK_CANDIDATE_LIMIT // search_selectors.SEARCH_PAGE_SIZE + 1_000


class SearchForm(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=search_selectors.MAX_QUERY_LENGTH,
        strip=True,
        error_messages={
            "max_length": f"Keep the search under {search_selectors.MAX_QUERY_LENGTH} characters."
        },
    )
    tab = forms.ChoiceField(required=False, choices=[(kind, kind) for kind in TAB_LABELS])
    page = forms.IntegerField(required=False, min_value=1, max_value=MAX_PAGE)


class ResearcherFilterForm(forms.Form):
    institution = forms.IntegerField(required=False, min_value=1, label="Institution")
    orcid = forms.BooleanField(required=False, label="Has an ORCID iD")
    claimed = forms.BooleanField(required=False, label="Claimed by the researcher")

    def to_filters(self) -> search_selectors.ResearcherFilters:
        data = self.cleaned_data
        return search_selectors.ResearcherFilters(
            institution_id=data.get("institution"),
            has_orcid=bool(data.get("orcid")),
            claimed=bool(data.get("claimed")),
        )


class WorkFilterForm(forms.Form):
    year_from = forms.IntegerField(required=False, min_value=1000, max_value=2999, label="From")
    year_to = forms.IntegerField(required=False, min_value=1000, max_value=2999, label="To")
    type = forms.CharField(required=False, max_length=40, label="Type")
    topic = forms.IntegerField(required=False, min_value=1, label="Topic")

    def to_filters(self) -> search_selectors.WorkFilters:
        data = self.cleaned_data
        return search_selectors.WorkFilters(
            year_from=data.get("year_from"),
            year_to=data.get("year_to"),
            type=data.get("type") or "",
            topic_id=data.get("topic"),
        )


class TopicFilterForm(forms.Form):
    level = forms.ChoiceField(
        required=False, choices=[("", "Any level"), *TopicLevel.choices], label="Level"
    )

    def to_filters(self) -> search_selectors.TopicFilters:
        return search_selectors.TopicFilters(level=self.cleaned_data.get("level") or "")


class InstitutionFilterForm(forms.Form):
    country = forms.RegexField(
        required=False,
        regex=r"^[A-Za-z]{2}$",
        label="Country",
        error_messages={"invalid": "Use a two-letter country code such as FR."},
    )

    def to_filters(self) -> search_selectors.InstitutionFilters:
        return search_selectors.InstitutionFilters(
            country_code=(self.cleaned_data.get("country") or "")
        )


FILTER_FORMS: dict[str, type[forms.Form]] = {
    "researchers": ResearcherFilterForm,
    "works": WorkFilterForm,
    "topics": TopicFilterForm,
    "institutions": InstitutionFilterForm,
}


def _valid_data(form: forms.Form) -> forms.Form:
    """Validate, keeping the fields that are valid: one bad filter must not void the others."""
    form.is_valid()
    return form


def _tab_results(tab: str, query: str, filter_form: Any, page: int) -> dict[str, Any]:
    filters = filter_form.to_filters()
    if tab == "researchers":
        return {
            "results": search_selectors.researcher_search(query=query, filters=filters, page=page),
            "institution_facets": search_selectors.researcher_institution_facets(
                query=query, filters=filters
            ),
        }
    if tab == "works":
        return {
            "results": search_selectors.work_search(query=query, filters=filters, page=page),
            "topic_facets": search_selectors.work_topic_facets(query=query, filters=filters),
            "type_facets": search_selectors.work_type_facets(query=query, filters=filters),
        }
    if tab == "topics":
        return {"results": search_selectors.topic_search(query=query, filters=filters, page=page)}
    return {
        "results": search_selectors.institution_search(query=query, filters=filters, page=page),
        "country_facets": search_selectors.institution_country_facets(query=query, filters=filters),
    }


def _query_string(params: dict[str, Any]) -> str:
    return "?" + urlencode({key: value for key, value in params.items() if value not in (None, "")})


def _page_url(request: HttpRequest, page: int) -> str:
    params = request.GET.copy()
    params["page"] = str(page)
    return f"?{params.urlencode()}"


@require_GET
def search(request: HttpRequest) -> HttpResponse:
    form = _valid_data(SearchForm(request.GET))
    query = form.cleaned_data.get("q", "") if "q" not in form.errors else ""
    context: dict[str, Any] = {
        "form": form,
        "search_query": request.GET.get("q", "")[: search_selectors.MAX_QUERY_LENGTH],
        "query": query,
        "tab_labels": TAB_LABELS,
    }
    if not query:
        return render(request, "search/search.html", context)

    counts = search_selectors.search_counts(query)
    tab = form.cleaned_data.get("tab") or next(
        (kind for kind in search_selectors.SEARCH_KINDS if counts[kind].count), "researchers"
    )
    filter_form = _valid_data(FILTER_FORMS[tab](request.GET))
    page = form.cleaned_data.get("page") or 1
    tabs = [
        {
            "kind": kind,
            "label": label,
            "count": counts[kind],
            "url": _query_string({"q": query, "tab": kind}),
            "current": kind == tab,
        }
        for kind, label in TAB_LABELS.items()
    ]
    results = _tab_results(tab, query, filter_form, page)
    current_page = results["results"]
    context.update(
        tab=tab,
        tab_label=TAB_LABELS[tab],
        counts=counts,
        tabs=tabs,
        other_tabs=[t for t in tabs if not t["current"] and t["count"].count],
        filter_form=filter_form,
        filtered=any(filter_form.cleaned_data.get(name) for name in filter_form.fields),
        clear_filters_url=_query_string({"q": query, "tab": tab}),
        first_page_url=_page_url(request, 1),
        previous_page_url=_page_url(request, current_page.number - 1),
        next_page_url=_page_url(request, current_page.number + 1),
        **results,
    )
    return render(request, "search/search.html", context)


@require_GET
def suggest(request: HttpRequest) -> HttpResponse:
    """The header box's suggestions: a short list of researchers linking to their profiles.

    Fewer than two letters or digits gets an empty response, which empties the list."""
    query = request.GET.get("q", "")[: search_selectors.MAX_QUERY_LENGTH]
    if len(normalize_name(query)) < search_selectors.SUGGESTION_MIN_LENGTH:
        return HttpResponse("")
    researchers = search_selectors.researcher_suggestions(query)
    return render(
        request, "search/_suggestions.html", {"researchers": researchers, "query": query.strip()}
    )
