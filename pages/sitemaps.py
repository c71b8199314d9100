"""/sitemap.xml: an index of researcher and work sections, paginated by Django's sitemap views."""

from __future__ import annotations

from django.contrib.sitemaps import Sitemap
from django.db.models import QuerySet
from django.urls import reverse

from publications.models import Work
from researchers.models import Researcher


class ResearcherSitemap(Sitemap):
    changefreq = "weekly"
    limit = 10_000

    def items(self) -> QuerySet[Researcher]:
        return (
            Researcher.objects.filter(merged_into__isnull=True)
            .order_by("id")
            .only("slug", "updated_at")
        )

    def location(self, item: Researcher) -> str:
        return reverse("researcher-profile", args=[item.slug])

    def lastmod(self, item: Researcher):  # noqa: ANN201
        return item.updated_at


class WorkSitemap(Sitemap):
    changefreq = "monthly"
    limit = 10_000

    def items(self) -> QuerySet[Work]:
        return Work.objects.order_by("id").only("id", "updated_at")

    def location(self, item: Work) -> str:
        return reverse("publications:work-detail", args=[item.pk])

    def lastmod(self, item: Work):  # noqa: ANN201
        return item.updated_at


SITEMAPS = {"researchers": ResearcherSitemap, "works": WorkSitemap}
