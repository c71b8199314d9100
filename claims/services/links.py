"""The pages claims' notifications point to."""

from __future__ import annotations

from django.urls import reverse

from researchers.models import Researcher


def profile_url(researcher: Researcher) -> str:
    """The link a notification about this record points to."""
    return reverse("researcher-profile", args=[researcher.slug])


def account_url() -> str:
    """The link of notifications whose next step is on the account page."""
    return reverse("claims:account")
