"""How graph answers (collaboration paths, conflicts of interest) name a researcher."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from researchers.models import Researcher


def researcher_ref(researcher: Researcher) -> dict[str, Any]:
    """The researcher's graph id ("r:12"), slug, name and profile URL."""
    return {
        "id": f"r:{researcher.id}",
        "slug": researcher.slug,
        "name": researcher.display_name,
        "url": reverse("researcher-profile", args=[researcher.slug]),
    }
