from __future__ import annotations

from django.core.paginator import Paginator
from django.db.models import Count, Exists, OuterRef
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from researchers.selectors import researchers_public
from researchers.views import not_found

from .models import Authorship, Topic, Work, WorkTopic
from .selectors import WorkListing, works_with_details


def article_jsonld(request: HttpRequest, work: Work) -> dict:
    """schema.org ScholarlyArticle for search engines."""
    data = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "headline": work.title[:400],
        "name": work.title,
        "url": request.build_absolute_uri(reverse("publications:work-detail", args=[work.pk])),
        "author": [
            {
                "@type": "Person",
                "name": authorship.raw_name,
                **(
                    {
                        "url": request.build_absolute_uri(
                            reverse("researcher-profile", args=[authorship.researcher.slug])
                        )
                    }
                    if authorship.researcher_id
                    else {}
                ),
            }
            for authorship in work.authorships.all()
        ],
        "citationCount": work.cited_by_count,
    }
    if work.publication_date:
        data["datePublished"] = work.publication_date.isoformat()
    elif work.publication_year:
        data["datePublished"] = str(work.publication_year)
    if work.doi:
        data["sameAs"] = f"https://doi.org/{work.doi}"
        data["identifier"] = {"@type": "PropertyValue", "propertyID": "DOI", "value": work.doi}
    if work.abstract:
        data["abstract"] = work.abstract
    if work.source:
        data["isPartOf"] = {"@type": "Periodical", "name": work.source.name}
    return data


@require_GET
def work_detail(request: HttpRequest, pk: int) -> HttpResponse:
    work = works_with_details().filter(pk=pk).first()
    if work is None:
        return not_found(request, "work")
    context = {"work": work, "article_jsonld": article_jsonld(request, work)}
    return render(request, "publications/work.html", context)


@require_GET
def topic_detail(request: HttpRequest, pk: int) -> HttpResponse:
    topic = Topic.objects.select_related("parent__parent__parent").filter(pk=pk).first()
    if topic is None:
        return not_found(request, "topic")
    in_topic = WorkTopic.objects.filter(topic=topic, work=OuterRef("work"))
    researchers = (
        researchers_public()
        .filter(
            Exists(Authorship.objects.filter(researcher=OuterRef("pk")).filter(Exists(in_topic)))
        )
        .select_related("last_known_institution")
        .order_by("-cited_by_count", "id")[:24]
    )
    page = Paginator(WorkListing.for_topic(topic.pk), 20).get_page(request.GET.get("page"))
    ancestors = []
    node = topic.parent
    while node is not None and len(ancestors) < 3:
        ancestors.insert(0, node)
        node = node.parent
    children = topic.children.annotate(works=Count("work_topics")).order_by("-works", "name")[:30]
    context = {
        "topic": topic,
        "ancestors": ancestors,
        "children": children,
        "researchers": researchers,
        "works_page": page,
        "works_query": "",
    }
    return render(request, "publications/topic.html", context, using="jinja2")
