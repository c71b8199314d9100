"""Tasks that recompute trust scores (claims.trust holds the computation)."""

from __future__ import annotations

from celery import shared_task

from claims import trust
from researchers.models import Researcher


# One set-based statement per call; large id lists come from imports and merges.
@shared_task(name="claims.tasks.researchers_trust_refresh", time_limit=10 * 60)
def researchers_trust_refresh(researcher_ids: list[int], include_coauthors: bool = False) -> int:
    if include_coauthors:
        return trust.researchers_trust_refresh_with_coauthors(researcher_ids=researcher_ids)
    return trust.researchers_trust_refresh(researcher_ids=researcher_ids)


@shared_task(name="claims.tasks.researchers_trust_refresh_claimed", time_limit=30 * 60)
def researchers_trust_refresh_claimed() -> int:
    """Periodic (beat, daily): account age is a trust input, so claimed records are rescored
    each day even when nothing else changed."""
    ids = list(Researcher.objects.filter(claimed_by__isnull=False).values_list("id", flat=True))
    return trust.researchers_trust_refresh(researcher_ids=ids)
