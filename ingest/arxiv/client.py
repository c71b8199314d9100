"""arXiv API client (export.arxiv.org/api/query): one request every 3 seconds, as arXiv's API
terms ask, pages of at most 2000 entries, and the Atom body handed on as bytes."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ingest.polite_http import PoliteClient

from .atom import ArxivFeed, parse_feed

ARXIV_API_URL = "https://export.arxiv.org"
# arXiv's terms of use for the legacy API: "no more than one request every three seconds".
ARXIV_MIN_INTERVAL_SECONDS = 3.0
ARXIV_MAX_PAGE = 2000


class ArxivClient(PoliteClient):
    def __init__(self, *, base_url: str = ARXIV_API_URL, page_size: int = 100, **kwargs) -> None:
        kwargs.setdefault("min_interval_seconds", ARXIV_MIN_INTERVAL_SECONDS)
        super().__init__(source="arXiv", base_url=base_url, **kwargs)
        self.page_size = min(page_size, ARXIV_MAX_PAGE)

    def query(
        self, *, search_query: str = "", id_list: tuple[str, ...] = (), start: int = 0
    ) -> ArxivFeed:
        response = self.get(
            "/api/query",
            params={
                "search_query": search_query,
                "id_list": ",".join(id_list),
                "start": start,
                "max_results": self.page_size,
            },
            # A malformed id is answered 400 with an Atom feed holding an error entry: the
            # feed is parsed and its error becomes the import issue.
            accept_statuses=frozenset({400}),
        )
        return parse_feed(response.content)

    def iter_feeds(
        self, *, search_query: str = "", id_list: tuple[str, ...] = ()
    ) -> Iterator[ArxivFeed]:
        """Every page of a query, until the feed runs out or reaches its totalResults."""
        start = 0
        while True:
            feed = self.query(search_query=search_query, id_list=id_list, start=start)
            yield feed
            start += len(feed.entries)
            if (
                not feed.entries
                or feed.errors
                or (feed.total_results is not None and start >= feed.total_results)
            ):
                return


def fetch_records(values: Sequence[str]) -> Iterator[bytes]:
    """The pipeline's fetcher for `--arxiv-query`: every entry of every page, as the reader
    yields them (an API error entry included: the mapper turns it into an issue)."""
    from .reader import feed_records

    client = ArxivClient()
    try:
        for query in values:
            start = 0
            while True:
                response = client.get(
                    "/api/query",
                    params={"search_query": query, "start": start, "max_results": client.page_size},
                    accept_statuses=frozenset({400}),
                )
                records = list(feed_records(response.content))
                yield from records
                feed = parse_feed(response.content)
                start += len(feed.entries)
                if (
                    not feed.entries
                    or feed.errors
                    or (feed.total_results is not None and start >= feed.total_results)
                ):
                    break
    finally:
        client.close()
