"""arXiv API Atom feeds -> arXiv-shaped dataclasses. Pure functions over bytes.

The feed is parsed from its bytes by lxml, which honours the XML declaration (UTF-8): decoding
the body to text first with a guessed charset is how "Dirk Wübben" once became "Dirk WÃ¼bben".
Both response formats are read: the 2026 one (namespaces declared on <feed>) and the older one
(xmlns repeated on each arxiv: and opensearch: element); lxml resolves either the same way.

An entry is one preprint at its latest version: <id> carries that version (…/abs/2012.10662v2),
<published> the first version's date and <updated> the latest one's. The API reports a bad
request as a feed holding a single error entry (id under /api/errors); that entry becomes an
error of the feed, never a preprint.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml import etree

from ingest.records import MappingError

ATOM = "{http://www.w3.org/2005/Atom}"
ARXIV = "{http://arxiv.org/schemas/atom}"
OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"

# New-style ids (0704.0001, 2104.12255) and old-style ones (astro-ph/0601001, math.GT/0309136),
# each with an optional version suffix.
ARXIV_ID = re.compile(
    r"(?P<id>\d{4}\.\d{4,5}|[a-z][a-z\-]*(?:\.[A-Z]{2})?/\d{7})(?:v(?P<version>\d+))?$"
)
_ABS_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/(?P<rest>.+?)(?:\.pdf)?$")
_SPACES = re.compile(r"\s+")
_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)


@dataclass(frozen=True, slots=True)
class ArxivAuthor:
    name: str
    affiliations: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ArxivEntry:
    arxiv_id: str  # without version: 2104.12255, astro-ph/0601001
    version: int  # the latest version the feed describes
    title: str
    summary: str = ""
    published: str = ""  # first version, ISO 8601 as arXiv sent it
    updated: str = ""  # latest version
    authors: tuple[ArxivAuthor, ...] = ()
    primary_category: str = ""
    categories: tuple[str, ...] = ()  # every category, the primary first
    journal_ref: str = ""
    doi: str | None = None  # the publisher's DOI, when the authors gave one
    comment: str = ""
    abs_url: str = ""
    pdf_url: str = ""

    @property
    def versioned_id(self) -> str:
        return f"{self.arxiv_id}v{self.version}"

    @property
    def datacite_doi(self) -> str:
        """The DOI arXiv registers for every preprint with DataCite (not the publisher's)."""
        return f"10.48550/arxiv.{self.arxiv_id}".lower()


@dataclass(frozen=True, slots=True)
class ArxivFeed:
    entries: tuple[ArxivEntry, ...]
    # Entries that are no preprint: the API's error entries, or entries we cannot read.
    errors: tuple[str, ...] = ()
    total_results: int | None = None
    start_index: int | None = None
    items_per_page: int | None = None


def split_arxiv_id(text: str) -> tuple[str, int | None]:
    """'http://arxiv.org/abs/quant-ph/0201082v1' -> ('quant-ph/0201082', 1)."""
    text = text.strip()
    if match := _ABS_URL.search(text):
        text = match.group("rest")
    text = re.sub(r"^arxiv:", "", text, flags=re.IGNORECASE)
    match = ARXIV_ID.search(text)
    if match is None:
        raise MappingError(f"'{text[:100]}' is not an arXiv identifier")
    version = match.group("version")
    return match.group("id"), int(version) if version else None


def parse_feed(body: bytes) -> ArxivFeed:
    try:
        root = etree.fromstring(body, parser=_PARSER)
    except etree.XMLSyntaxError as exc:
        raise MappingError(f"the arXiv answer is not well-formed XML: {exc}") from exc
    if root.tag != f"{ATOM}feed":
        raise MappingError(
            f"the arXiv answer is a <{etree.QName(root).localname}>, not an Atom feed"
        )
    entries = []
    errors = []
    for element in root.iterfind(f"{ATOM}entry"):
        try:
            entries.append(parse_entry(element))
        except MappingError as exc:
            errors.append(str(exc))
    return ArxivFeed(
        entries=tuple(entries),
        errors=tuple(errors),
        total_results=_int(root.findtext(f"{OPENSEARCH}totalResults")),
        start_index=_int(root.findtext(f"{OPENSEARCH}startIndex")),
        items_per_page=_int(root.findtext(f"{OPENSEARCH}itemsPerPage")),
    )


def parse_entry(entry: etree._Element) -> ArxivEntry:
    raw_id = _text(entry.findtext(f"{ATOM}id"))
    if "/api/errors" in raw_id:
        # The API's way of answering a bad request: the summary says what was wrong.
        raise MappingError(f"arXiv API error: {_text(entry.findtext(f'{ATOM}summary')) or raw_id}")
    arxiv_id, version = split_arxiv_id(raw_id)
    title = _text(entry.findtext(f"{ATOM}title"))
    if not title:
        raise MappingError(f"arXiv entry {arxiv_id} has no title")
    authors = tuple(
        ArxivAuthor(
            name=_text(author.findtext(f"{ATOM}name")),
            affiliations=tuple(
                text
                for affiliation in author.iterfind(f"{ARXIV}affiliation")
                if (text := _text(affiliation.text))
            ),
        )
        for author in entry.iterfind(f"{ATOM}author")
        if _text(author.findtext(f"{ATOM}name"))
    )
    primary = entry.find(f"{ARXIV}primary_category")
    primary_term = primary.get("term", "").strip() if primary is not None else ""
    categories = [primary_term] if primary_term else []
    for category in entry.iterfind(f"{ATOM}category"):
        term = category.get("term", "").strip()
        if term and term not in categories:
            categories.append(term)
    abs_url = pdf_url = ""
    for link in entry.iterfind(f"{ATOM}link"):
        if link.get("rel") == "alternate":
            abs_url = link.get("href", "")
        elif link.get("title") == "pdf" or link.get("type") == "application/pdf":
            pdf_url = link.get("href", "")
    doi = _text(entry.findtext(f"{ARXIV}doi")) or None
    return ArxivEntry(
        arxiv_id=arxiv_id,
        version=version or 1,
        title=title,
        summary=_text(entry.findtext(f"{ATOM}summary")),
        published=_text(entry.findtext(f"{ATOM}published")),
        updated=_text(entry.findtext(f"{ATOM}updated")),
        authors=authors,
        primary_category=primary_term,
        categories=tuple(categories),
        journal_ref=_text(entry.findtext(f"{ARXIV}journal_ref")),
        doi=doi.lower() if doi else None,
        comment=_text(entry.findtext(f"{ARXIV}comment")),
        abs_url=abs_url,
        pdf_url=pdf_url,
    )


def _text(value: str | None) -> str:
    """Whitespace collapsed: arXiv wraps titles and abstracts at 80 columns."""
    return _SPACES.sub(" ", value).strip() if value else ""


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None
