"""The claimant edits the parts of their profile that are theirs to say."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from bzpeer.users.models import User
from researchers.models import Researcher

from .records import require_approved_claimant, researcher_lock


@transaction.atomic
def researcher_profile_update(
    *,
    researcher: Researcher,
    user: User,
    tagline: str,
    homepage: str,
    links: Sequence[dict[str, str]],
    open_to_collaborate: bool,
) -> Researcher:
    """The approved claimant edits the parts of the profile that are theirs to say."""
    researcher = researcher_lock(researcher.pk)
    require_approved_claimant(researcher=researcher, user=user)
    researcher.tagline = tagline.strip()[:300]
    researcher.homepage = homepage.strip()
    researcher.links = [{"label": link["label"], "url": link["url"]} for link in links]
    researcher.open_to_collaborate = open_to_collaborate
    researcher.save(
        update_fields=["tagline", "homepage", "links", "open_to_collaborate", "updated_at"]
    )
    return researcher
