"""The search page's query string: the query, the tab and page, and each tab's filters.

Each filter form turns its valid fields into the filters dataclass its tab's selector takes."""

from __future__ import annotations

from django import forms

from publications.models import TopicLevel

from .selectors.researchers import ResearcherFilters
from .selectors.results import MAX_QUERY_LENGTH, SEARCH_PAGE_SIZE
from .selectors.topics_institutions import InstitutionFilters, TopicFilters
from .selectors.works import WORK_CANDIDATE_LIMIT, WorkFilters

TAB_LABELS = {
    "researchers": "Researchers",
    "works": "Works",
    "topics": "Topics",
    "institutions": "Institutions",
}
# Far past any real result; only keeps the OFFSET a sane number.
MAX_PAGE = WORK_CANDIDATE_LIMIT // SEARCH_PAGE_SIZE + 1_000


# The works tab's modes: full-text only, or fused with the nearest works by meaning.
SEARCH_MODES = {"words": "Words", "meaning": "By meaning"}


class SearchForm(forms.Form):
    q = forms.CharField(
        required=False,
        max_length=MAX_QUERY_LENGTH,
        strip=True,
        error_messages={"max_length": f"Keep the search under {MAX_QUERY_LENGTH} characters."},
    )
    tab = forms.ChoiceField(required=False, choices=[(kind, kind) for kind in TAB_LABELS])
    page = forms.IntegerField(required=False, min_value=1, max_value=MAX_PAGE)
    mode = forms.ChoiceField(
        required=False,
        choices=list(SEARCH_MODES.items()),
        error_messages={"invalid_choice": "Search mode must be “words” or “meaning”."},
    )


class ResearcherFilterForm(forms.Form):
    institution = forms.IntegerField(required=False, min_value=1, label="Institution")
    orcid = forms.BooleanField(required=False, label="Has an ORCID iD")
    claimed = forms.BooleanField(required=False, label="Claimed by the researcher")

    def to_filters(self) -> ResearcherFilters:
        data = self.cleaned_data
        return ResearcherFilters(
            institution_id=data.get("institution"),
            has_orcid=bool(data.get("orcid")),
            claimed=bool(data.get("claimed")),
        )


class WorkFilterForm(forms.Form):
    year_from = forms.IntegerField(required=False, min_value=1000, max_value=2999, label="From")
    year_to = forms.IntegerField(required=False, min_value=1000, max_value=2999, label="To")
    type = forms.CharField(required=False, max_length=40, label="Type")
    topic = forms.IntegerField(required=False, min_value=1, label="Topic")

    def to_filters(self) -> WorkFilters:
        data = self.cleaned_data
        return WorkFilters(
            year_from=data.get("year_from"),
            year_to=data.get("year_to"),
            type=data.get("type") or "",
            topic_id=data.get("topic"),
        )


class TopicFilterForm(forms.Form):
    level = forms.ChoiceField(
        required=False, choices=[("", "Any level"), *TopicLevel.choices], label="Level"
    )

    def to_filters(self) -> TopicFilters:
        return TopicFilters(level=self.cleaned_data.get("level") or "")


class InstitutionFilterForm(forms.Form):
    country = forms.RegexField(
        required=False,
        regex=r"^[A-Za-z]{2}$",
        label="Country",
        error_messages={"invalid": "Use a two-letter country code such as FR."},
    )

    def to_filters(self) -> InstitutionFilters:
        return InstitutionFilters(country_code=(self.cleaned_data.get("country") or ""))


FILTER_FORMS: dict[str, type[forms.Form]] = {
    "researchers": ResearcherFilterForm,
    "works": WorkFilterForm,
    "topics": TopicFilterForm,
    "institutions": InstitutionFilterForm,
}
