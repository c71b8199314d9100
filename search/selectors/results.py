"""What every kind of search returns: a page of results, a tab count, a facet.

Shared by the selectors of each kind (researchers, works, topics, institutions) and the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db.models import QuerySet

from researchers.name_search import MAX_QUERY_LENGTH

__all__ = [
    "COUNT_CAP",
    "FACET_LIMIT",
    "MAX_QUERY_LENGTH",
    "SEARCH_PAGE_SIZE",
    "Facet",
    "SearchPage",
    "TabCount",
    "capped_count",
    "page_offset",
]

SEARCH_PAGE_SIZE = 20
# Tab counts stop here and show "1,000+": an exact count of a common word costs a full scan.
COUNT_CAP = 1000
FACET_LIMIT = 12

ResultT = TypeVar("ResultT")


@dataclass(frozen=True)
class TabCount:
    """How many records of one kind match, counted up to COUNT_CAP."""

    count: int
    capped: bool = False

    def __str__(self) -> str:
        return f"{self.count:,}+" if self.capped else f"{self.count:,}"


@dataclass(frozen=True)
class SearchPage(Generic[ResultT]):
    """One page of results. `total` counts every match, except for works, where it stops at
    WORK_CANDIDATE_LIMIT and `total_capped` says so."""

    items: Sequence[ResultT]
    number: int
    page_size: int
    total: int
    total_capped: bool = False

    @property
    def num_pages(self) -> int:
        return max(1, -(-self.total // self.page_size))

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def previous_page_number(self) -> int:
        return self.number - 1

    @property
    def next_page_number(self) -> int:
        return self.number + 1

    @property
    def start_index(self) -> int:
        return (self.number - 1) * self.page_size + 1 if self.items else 0

    @property
    def end_index(self) -> int:
        return (self.number - 1) * self.page_size + len(self.items)

    @property
    def past_the_end(self) -> bool:
        """A page number beyond the results (an old link, a hand-edited URL)."""
        return not self.items and self.number > 1


@dataclass(frozen=True)
class Facet:
    """One choice of a filter, with how many of the current matches it keeps."""

    value: str
    label: str
    count: int


def page_offset(page: int) -> int:
    return (max(page, 1) - 1) * SEARCH_PAGE_SIZE


def capped_count(queryset: QuerySet[Any]) -> TabCount:
    # The order is dropped: counting needs none, and a sort would read every match.
    count = queryset.order_by()[: COUNT_CAP + 1].count()
    return TabCount(count=min(count, COUNT_CAP), capped=count > COUNT_CAP)
