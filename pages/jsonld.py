"""schema.org JSON-LD for the public pages, so search engines read who wrote what."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from publications.selectors import WorkPage
from publications.templatetags.scholarly import researcher_url, work_url
from researchers.models import Researcher


def person_jsonld(request: HttpRequest, researcher: Researcher) -> dict[str, Any]:
    """schema.org Person for search engines; identifiers as their canonical URLs."""
    same_as = [f"https://openalex.org/{researcher.openalex_id}"] if researcher.openalex_id else []
    if researcher.orcid:
        same_as.append(f"https://orcid.org/{researcher.orcid}")
    data = {
        "@context": "https://schema.org",
        "@type": "Person",
        "name": researcher.display_name,
        "url": request.build_absolute_uri(reverse("researcher-profile", args=[researcher.slug])),
        "sameAs": same_as,
    }
    if researcher.alternate_names:
        data["alternateName"] = researcher.alternate_names
    if researcher.last_known_institution:
        data["affiliation"] = {
            "@type": "Organization",
            "name": researcher.last_known_institution.name,
        }
    if researcher.tagline:
        data["description"] = researcher.tagline
    return data


def article_jsonld(request: HttpRequest, work: WorkPage) -> dict[str, Any]:
    """schema.org ScholarlyArticle for search engines."""
    data = {
        "@context": "https://schema.org",
        "@type": "ScholarlyArticle",
        "headline": work.title[:400],
        "name": work.title,
        "url": request.build_absolute_uri(work_url(work.pk)),
        "author": [
            {
                "@type": "Person",
                "name": author.raw_name,
                **(
                    {"url": request.build_absolute_uri(researcher_url(author.slug))}
                    if author.researcher_id
                    else {}
                ),
            }
            for author in work.authors
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
    if work.source_name is not None:
        data["isPartOf"] = {"@type": "Periodical", "name": work.source_name}
    return data
