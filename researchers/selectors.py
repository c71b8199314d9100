"""Reads of researcher records shared by the pages, the API and the tasks."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.db.models import F, QuerySet

from bzpeer.users.models import User

from .cv_display import CvHeading, cv_headings
from .models import CVEntry, Follow, Researcher

# The columns a CV row is shown from (cv_display.cv_item), and the order entries are listed in
# within a heading: the source's display order, then what goes on or ended last, first.
CV_ROW_COLUMNS = (
    "id",
    "section",
    "organisation",
    "role",
    "department",
    "city",
    "region",
    "country",
    "start_year",
    "start_month",
    "start_day",
    "end_year",
    "end_month",
    "end_day",
    "url",
    "amount",
    "currency",
    "source",
    "hidden",
)
CV_ORDER_SQL = "display_order DESC, end_year DESC NULLS FIRST, start_year DESC NULLS LAST, id"


def researchers_public() -> QuerySet[Researcher]:
    """Researcher records that stand on their own: a merged record lives on only as a redirect."""
    return Researcher.objects.filter(merged_into__isnull=True)


def researcher_by_slug(slug: str) -> Researcher | None:
    """The record with this slug, merged or not; merged_into comes in the same query so the
    caller can redirect without asking again."""
    return Researcher.objects.select_related("merged_into").filter(slug=slug).first()


def researcher_is_followed_by(researcher: Researcher, user: User | AnonymousUser) -> bool:
    if not isinstance(user, User):
        return False  # a visitor follows nobody
    return Follow.objects.filter(researcher=researcher, user=user).exists()


def researchers_followed_by(user: User) -> QuerySet[Researcher]:
    return (
        researchers_public()
        .filter(follows__user=user)
        .select_related("last_known_institution")
        .order_by("-follows__created_at", "id")
    )


def researchers_most_followed(*, limit: int = 8) -> QuerySet[Researcher]:
    return (
        researchers_public()
        .select_related("last_known_institution")
        .order_by("-followers_count", "-cited_by_count", "id")[:limit]
    )


def researcher_cv(researcher_id: int, *, include_hidden: bool = False) -> tuple[CvHeading, ...]:
    """The researcher's CV under its headings, in one query whatever its length. Hidden
    entries only with include_hidden (the claimant's own edit page lists them to show again)."""
    entries = CVEntry.objects.filter(researcher_id=researcher_id)
    if not include_hidden:
        entries = entries.filter(hidden=False)
    rows = entries.order_by(
        F("display_order").desc(),
        F("end_year").desc(nulls_first=True),
        F("start_year").desc(nulls_last=True),
        "id",
    ).values(*CV_ROW_COLUMNS)
    return cv_headings(rows)
