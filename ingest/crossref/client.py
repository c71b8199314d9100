"""Crossref REST client: the polite pool (a mailto in the User-Agent and the query), at most
ten requests a second, timeouts and retries with backoff (polite_http)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from urllib.parse import quote

from django.conf import settings

from ingest.openalex.mapper.fields import normalize_doi
from ingest.polite_http import USER_AGENT, PoliteClient
from ingest.records import Rejected

from .reader import answer_records

CROSSREF_API_URL = "https://api.crossref.org"
# Crossref's polite pool allows 10 requests a second (its X-Rate-Limit headers say so).
CROSSREF_MIN_INTERVAL_SECONDS = 0.1


class CrossrefClient(PoliteClient):
    def __init__(
        self, *, base_url: str = CROSSREF_API_URL, mailto: str | None = None, **kwargs
    ) -> None:
        self.mailto = mailto if mailto is not None else getattr(settings, "OPENALEX_MAILTO", "")
        kwargs.setdefault("min_interval_seconds", CROSSREF_MIN_INTERVAL_SECONDS)
        agent = f"{USER_AGENT} (mailto:{self.mailto})" if self.mailto else USER_AGENT
        super().__init__(
            source="Crossref", base_url=base_url, headers={"User-Agent": agent}, **kwargs
        )

    def work_records(self, doi: str) -> Iterator[bytes | Rejected]:
        """The raw record of one DOI, or a Rejected saying why there is none (a DataCite DOI,
        such as arXiv's 10.48550/arxiv..., answers 404: it is not in Crossref)."""
        normalized = normalize_doi(doi)
        if normalized is None:
            yield Rejected(reason=f"'{doi}' is not a DOI", external_id=doi)
            return
        params = {"mailto": self.mailto} if self.mailto else None
        response = self.get(
            f"/works/{quote(normalized, safe='/:()')}",
            params=params,
            accept_statuses=frozenset({404}),
        )
        if response.status_code == 404:
            hint = (
                " (a DataCite DOI: arXiv registers its DOIs with DataCite, not Crossref)"
                if normalized.startswith("10.48550/")
                else ""
            )
            yield Rejected(
                reason=f"Crossref has no record of DOI {normalized} (404 {response.text.strip()[:80]}){hint}",
                external_id=normalized,
            )
            return
        yield from answer_records(response.content, what=f"for {normalized}")


def fetch_records(values: Sequence[str]) -> Iterator[bytes | Rejected]:
    """The pipeline's fetcher for `--doi`."""
    client = CrossrefClient()
    try:
        for doi in values:
            yield from client.work_records(doi)
    finally:
        client.close()
