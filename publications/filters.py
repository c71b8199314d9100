"""The works list filters of profile, topic and institution pages."""

from __future__ import annotations

from typing import Any

from django import forms

SORTS = ("newest", "cited")


class WorkListForm(forms.Form):
    """Year, type and topic filters plus the sort order, read from the query string. A value
    that does not validate is left out of cleaned_data, so it is ignored (and the form's error
    shown), never a server error."""

    sort = forms.ChoiceField(
        choices=[("newest", "Newest first"), ("cited", "Most cited")], required=False
    )
    year = forms.IntegerField(min_value=1000, max_value=3000, required=False)
    type = forms.CharField(max_length=40, required=False)
    topic = forms.IntegerField(min_value=1, required=False)

    def works_filters(self) -> dict[str, Any]:
        """The valid filters, for publications.selectors.WorkListing."""
        self.is_valid()
        data = self.cleaned_data
        return {
            "sort": data.get("sort") or "newest",
            "year": data.get("year"),
            "type": data.get("type") or None,
            "topic_id": data.get("topic"),
        }

    @property
    def narrows(self) -> bool:
        """Whether a valid filter leaves out some of the works (sorting leaves out none)."""
        self.is_valid()
        return any(self.cleaned_data.get(name) for name in ("year", "type", "topic"))
