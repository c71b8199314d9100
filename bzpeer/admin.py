"""Admin helpers every app's admin shares: read-only rows, large tables, pasted identifiers.

The tables behind the admin run to millions of rows, so a changelist never counts a whole table
exactly (EstimatedCountPaginator) and a change page shows at most a page of inline rows
(LimitedInlineMixin). Rows that imports or services write are shown read-only
(ReadOnlyAdminMixin).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Literal

from django.contrib import admin
from django.core.paginator import Paginator
from django.db import connections, models
from django.db.models import QuerySet
from django.forms.models import BaseInlineFormSet
from django.http import HttpRequest
from django.utils.functional import cached_property
from django.utils.translation import gettext as _

# Prefixes people paste along with an identifier; the database stores the bare id.
_IDENTIFIER_URL_PREFIXES = (
    "https://openalex.org/",
    "http://openalex.org/",
    "https://orcid.org/",
    "http://orcid.org/",
)

# A homepage typed without a scheme is taken as https (Django 6's default; 5.2 warns without it).
URL_FIELDS_ASSUME_HTTPS = {models.URLField: {"assume_scheme": "https"}}


def without_prefix(term: str, prefixes: tuple[str, ...]) -> str:
    """The term without the first of the prefixes it starts with (compared case-insensitively)."""
    for prefix in prefixes:
        if term.lower().startswith(prefix):
            return term[len(prefix) :]
    return term


def bare_identifier(term: str) -> str:
    """The identifier in a search term, without the URL prefix people often paste with it."""
    return without_prefix(term.strip(), _IDENTIFIER_URL_PREFIXES)


# Read-only rows ------------------------------------------------------------------------------

DeletableBy = Literal["nobody", "superusers", "delete permission"]


class ReadOnlyAdminMixin:
    """Rows the admin shows but never adds or edits: imports or services write them.

    For a ModelAdmin and for an inline alike. Two switches say where a model differs:
    - `deletable_by`: "nobody" (the default), "superusers" (records an operator may clear, such
      as finished import runs), or "delete permission" (Django's model permission, as usual).
    - `decided_by_actions`: keep Django's change permission, for rows whose fields are all
      read-only but which moderators decide through admin actions that require it (claims,
      disputes); the change page then still offers those actions.
    """

    deletable_by: ClassVar[DeletableBy] = "nobody"
    decided_by_actions: ClassVar[bool] = False
    # As an inline: no blank rows, and never a delete box on the parent's page.
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if self.decided_by_actions:
            return super().has_change_permission(request, obj)  # type: ignore[misc]
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if self.deletable_by == "superusers":
            return request.user.is_superuser
        if self.deletable_by == "delete permission":
            return super().has_delete_permission(request, obj)  # type: ignore[misc]
        return False


# Filters -------------------------------------------------------------------------------------


class SetOrEmptyFilter(admin.EmptyFieldListFilter):
    """Django's "is this field empty" filter, in the moderators' words.

    Subclasses name the filter and its two answers ("Claimed by a user" / "Not claimed"),
    listed in that order; the query is Django's: `<field>__isempty=0` for set, `=1` for empty.
    """

    title: str
    set_label: ClassVar[str]
    empty_label: ClassVar[str]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # FieldListFilter titles the filter after the field's verbose name; keep ours.
        self.title = type(self).title

    def choices(self, changelist: Any) -> Iterator[dict[str, Any]]:
        # Django lists All, Empty, Not empty; a facet count, when shown, follows the label.
        everything, empty, not_empty = super().choices(changelist)
        yield everything
        for choice, django_label, label in (
            (not_empty, _("Not empty"), self.set_label),
            (empty, _("Empty"), self.empty_label),
        ):
            yield {**choice, "display": label + choice["display"][len(str(django_label)) :]}


# Large tables --------------------------------------------------------------------------------


class EstimatedCountPaginator(Paginator):
    """A paginator that does not COUNT(*) an unfiltered table of millions of rows.

    Below `exact_count_below` rows (and for every filtered or searched list) the count is exact.
    Above it, an unfiltered list uses PostgreSQL's planner estimate (pg_class.reltuples, kept
    fresh by autovacuum): an exact count of a large table takes seconds and the admin only
    needs it for "N results" and the page links.
    """

    exact_count_below = 10_000

    @cached_property
    def count(self) -> int:
        queryset = self.object_list
        if isinstance(queryset, QuerySet) and not queryset.query.where:
            estimate = _planner_row_estimate(queryset)
            if estimate >= self.exact_count_below:
                return estimate
        return super().count


def _planner_row_estimate(queryset: QuerySet) -> int:
    """PostgreSQL's estimate of the rows in the queryset's table; -1 if never analyzed."""
    with connections[queryset.db].cursor() as cursor:
        cursor.execute(
            "SELECT reltuples::bigint FROM pg_class WHERE oid = to_regclass(%s)",
            [queryset.model._meta.db_table],
        )
        row = cursor.fetchone()
    return int(row[0]) if row and row[0] is not None else -1


class LimitedInlineFormSet(BaseInlineFormSet):
    """An inline formset that shows only the first `limit` rows.

    A work can have thousands of authors and a run thousands of issues; the page shows the
    first rows and links to the changelist filtered on the parent for the rest.
    """

    limit = 50

    def get_queryset(self) -> QuerySet:
        # Cached: the formset indexes into this queryset once per form.
        if not hasattr(self, "_limited_queryset"):
            self._limited_queryset = super().get_queryset()[: self.limit]
        return self._limited_queryset


class LimitedInlineMixin:
    """An inline that shows its first `rows_shown` rows (LimitedInlineFormSet)."""

    rows_shown = 50
    formset = LimitedInlineFormSet

    def get_formset(
        self, request: HttpRequest, obj: Any = None, **kwargs: Any
    ) -> type[BaseInlineFormSet]:
        formset = super().get_formset(request, obj, **kwargs)  # type: ignore[misc]
        formset.limit = self.rows_shown
        return formset
