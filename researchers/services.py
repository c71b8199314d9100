"""Writes for researchers: follows (and, later, profile changes)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import F

from .models import Follow, Researcher


@transaction.atomic
def follow_create(*, user, researcher: Researcher) -> bool:  # noqa: ANN001 - the custom User
    """Follow a researcher. Returns False when the user already followed them.

    The unique constraint decides between two concurrent clicks; the count moves only for the
    click whose row was inserted, so it stays exact.
    """
    _, created = Follow.objects.get_or_create(user=user, researcher=researcher)
    if created:
        Researcher.objects.filter(pk=researcher.pk).update(followers_count=F("followers_count") + 1)
    return created


@transaction.atomic
def follow_delete(*, user, researcher: Researcher) -> bool:  # noqa: ANN001
    """Stop following. Returns False when there was nothing to remove."""
    deleted, _ = Follow.objects.filter(user=user, researcher=researcher).delete()
    if deleted:
        Researcher.objects.filter(pk=researcher.pk, followers_count__gt=0).update(
            followers_count=F("followers_count") - 1
        )
    return bool(deleted)
