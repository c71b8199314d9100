"""The works list filters of profile, topic and institution pages (django-filter)."""

from __future__ import annotations

import django_filters
from django.db.models import Exists, F, OuterRef, QuerySet

from .models import Work, WorkTopic

SORTS = {
    "newest": (F("publication_date").desc(nulls_last=True), "-id"),
    "cited": ("-cited_by_count", F("publication_date").desc(nulls_last=True), "-id"),
}


class WorkListFilter(django_filters.FilterSet):
    """Year, type and topic filters plus the sort order. Invalid values are ignored with the
    form's error shown, never a server error."""

    year = django_filters.NumberFilter(
        field_name="publication_year", min_value=1000, max_value=3000
    )
    type = django_filters.CharFilter(field_name="type", max_length=40)
    topic = django_filters.NumberFilter(method="filter_topic", min_value=1)
    sort = django_filters.ChoiceFilter(
        choices=[("newest", "Newest first"), ("cited", "Most cited")],
        method="filter_sort",
        empty_label=None,
    )

    class Meta:
        model = Work
        fields: list[str] = []

    def filter_topic(self, queryset: QuerySet[Work], name: str, value: int) -> QuerySet[Work]:
        return queryset.filter(
            Exists(WorkTopic.objects.filter(work=OuterRef("pk"), topic_id=value))
        )

    def filter_sort(self, queryset: QuerySet[Work], name: str, value: str) -> QuerySet[Work]:
        return queryset.order_by(*SORTS.get(value, SORTS["newest"]))

    @property
    def qs(self) -> QuerySet[Work]:
        queryset = super().qs
        if not self.form.cleaned_data.get("sort"):
            queryset = queryset.order_by(*SORTS["newest"])
        return queryset
