"""A researcher's similar researchers as the profile's panel shows them: one query."""

from __future__ import annotations

from django.db.models import QuerySet

from ..models import SimilarResearcher

SIMILAR_SHOWN = 5


def similar_researchers_for(
    researcher_id: int, *, limit: int = SIMILAR_SHOWN
) -> QuerySet[SimilarResearcher]:
    """The closest first, with the other researcher and the closest pair of works (titles
    only), leaving out a record merged away since the rows were computed."""
    return (
        SimilarResearcher.objects.filter(
            researcher_id=researcher_id, similar__merged_into__isnull=True
        )
        .select_related("similar", "researcher_work", "similar_work")
        .only(
            "rank",
            "score",
            "shared_topic_name",
            "similar__slug",
            "similar__display_name",
            "researcher_work__title",
            "similar_work__title",
        )
        .order_by("rank")[:limit]
    )
