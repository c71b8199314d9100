"""Atom feeds of a researcher's and a topic's newest arrivals, through Django's syndication
framework (django.contrib.syndication, Atom1Feed).

The framework writes XML with an escaping generator, so titles with markup or TeX from imports
come out as text, and every element is marked as text (the summary too: TextSummaryAtomFeed); characters XML 1.0 cannot carry at all (C0 controls that imports sometimes
hold) are dropped here, or the feed would not parse.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django.contrib.syndication.views import Feed
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.feedgenerator import Atom1Feed
from django.views.decorators.http import require_safe

from bzpeer.http import not_found
from publications.models import Topic, Work
from researchers import selectors as researcher_selectors
from researchers.models import Researcher

from . import selectors

_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_AUTHORS_NAMED = 5
_SUMMARY_CHARS = 1000


def xml_text(value: str) -> str:
    return _NOT_XML.sub("", value)


class TextSummaryAtomFeed(Atom1Feed):
    """Atom with the summary marked as text. Django marks it `type="html"`, so a reader would
    run an abstract's markup (imported, or a claimant's BibTeX upload) as HTML; the abstracts
    here are plain text. Every other element Django writes is text already."""

    def add_item_elements(self, handler: Any, item: dict[str, Any]) -> None:
        super().add_item_elements(handler, {**item, "description": None})
        if item.get("description"):
            handler.addQuickElement("summary", item["description"], {"type": "text"})


class _WorksFeed(Feed):
    feed_type = TextSummaryAtomFeed

    def item_title(self, item: Work) -> str:
        return xml_text(item.title)

    def item_description(self, item: Work) -> str:
        abstract = xml_text(item.abstract)
        return abstract[:_SUMMARY_CHARS] + ("…" if len(abstract) > _SUMMARY_CHARS else "")

    def item_link(self, item: Work) -> str:
        return reverse("publications:work-detail", args=[item.pk])

    def item_guid(self, item: Work) -> str:
        return f"tag:bzpeer,2026:work/{item.pk}"

    item_guid_is_permalink = False

    def item_pubdate(self, item: Work) -> datetime:
        # Arrival here, so a reader shows an old paper imported today as new.
        return item.created_at

    def item_updateddate(self, item: Work) -> datetime:
        return item.created_at

    def item_author_name(self, item: Work) -> str:
        names = [xml_text(a.raw_name) for a in list(item.authorships.all())[:_AUTHORS_NAMED]]
        more = item.authors_count - len(names)
        return ", ".join(names) + (f" and {more} more" if more > 0 else "")


class ResearcherAtomFeed(_WorksFeed):
    def get_object(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Researcher:
        return kwargs["researcher"]

    def title(self, obj: Researcher) -> str:
        return f"{xml_text(obj.display_name)}: new works on bzpeer"

    def subtitle(self, obj: Researcher) -> str:
        return f"Works by {xml_text(obj.display_name)}, newest arrival first."

    def link(self, obj: Researcher) -> str:
        return reverse("researcher-profile", args=[obj.slug])

    def feed_url(self, obj: Researcher) -> str:
        return reverse("feed:researcher-atom", args=[obj.slug])

    def items(self, obj: Researcher) -> list[Work]:
        return selectors.works_newest_arrivals_of_researcher(obj)


class TopicAtomFeed(_WorksFeed):
    def get_object(self, request: HttpRequest, *args: Any, **kwargs: Any) -> Topic:
        return kwargs["topic"]

    def title(self, obj: Topic) -> str:
        return f"{xml_text(obj.name)}: new works on bzpeer"

    def subtitle(self, obj: Topic) -> str:
        return f"Works on {xml_text(obj.name)}, newest arrival first."

    def link(self, obj: Topic) -> str:
        return reverse("publications:topic-detail", args=[obj.pk])

    def feed_url(self, obj: Topic) -> str:
        return reverse("feed:topic-atom", args=[obj.pk])

    def items(self, obj: Topic) -> list[Work]:
        return selectors.works_newest_arrivals_of_topic(obj)


@require_safe
def researcher_atom(request: HttpRequest, slug: str) -> HttpResponse:
    """A merged record's feed redirects to the survivor's, as its profile does."""
    researcher = researcher_selectors.researcher_by_slug(slug)
    if researcher is None:
        return not_found(request, "researcher")
    if researcher.merged_into is not None:
        return redirect("feed:researcher-atom", slug=researcher.merged_into.slug, permanent=True)
    return ResearcherAtomFeed()(request, researcher=researcher)


@require_safe
def topic_atom(request: HttpRequest, pk: int) -> HttpResponse:
    topic = Topic.objects.filter(pk=pk).first()
    if topic is None:
        return not_found(request, "topic")
    return TopicAtomFeed()(request, topic=topic)
