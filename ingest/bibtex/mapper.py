"""BibTeX entries (as the reader yields them) -> WorkRecord. Pure: no database, no network.

One entry is one work, or a MappingError with the reason (an unreadable block, an entry with
no title, a biblatex @set or @xdata that only groups or feeds other entries). Authors come from
`author`, or from `editor` when an edited volume has none; "others" is never an author and an
organisation braced as a whole gets a byline without a researcher. dblp's exports keep their
record key as the work's ("dblp", key) id and their homonym numbers as the authors' identity
keys (ingest.dblp.names).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from ingest.arxiv.atom import split_arxiv_id
from ingest.dblp.names import author_ref_identity, dblp_record_key, is_dblp_entry
from ingest.openalex.mapper.fields import normalize_doi
from ingest.records import (
    BIBTEX,
    AuthorRef,
    AuthorshipRecord,
    MappingError,
    PartialDate,
    SourceRecord,
    WorkRecord,
    partial_date,
)

from .names import BibName, parse_names
from .parse import MONTHS, latex_to_text

WORK_TYPES = {
    "article": "article",
    "inproceedings": "article",
    "conference": "article",
    "book": "book",
    "mvbook": "book",
    "collection": "book",
    "mvcollection": "book",
    "proceedings": "book",
    "mvproceedings": "book",
    "booklet": "book",
    "reference": "book",
    "mvreference": "book",
    "inbook": "book-chapter",
    "bookinbook": "book-chapter",
    "suppbook": "book-chapter",
    "incollection": "book-chapter",
    "suppcollection": "book-chapter",
    "inreference": "book-chapter",
    "phdthesis": "dissertation",
    "mastersthesis": "dissertation",
    "thesis": "dissertation",
    "dataset": "dataset",
    "patent": "patent",
    "review": "review",
    "unpublished": "preprint",
}
# biblatex entry types that are not works of their own.
_NOT_WORKS = {
    "set": "a biblatex @set only groups other entries",
    "xdata": "a biblatex @xdata entry only holds fields other entries inherit",
}
# The venue a part of a larger whole appeared in.
_VENUE_FIELDS = ("journal", "journaltitle", "booktitle", "maintitle")
_LANGUAGES = {
    "english": "en",
    "american": "en",
    "british": "en",
    "eng": "en",
    "en": "en",
    "german": "de",
    "ngerman": "de",
    "deutsch": "de",
    "ger": "de",
    "de": "de",
    "french": "fr",
    "francais": "fr",
    "fre": "fr",
    "fr": "fr",
    "spanish": "es",
    "spa": "es",
    "es": "es",
    "italian": "it",
    "ita": "it",
    "it": "it",
    "portuguese": "pt",
    "brazil": "pt",
    "brazilian": "pt",
    "por": "pt",
    "pt": "pt",
    "dutch": "nl",
    "latin": "la",
    "greek": "el",
    "russian": "ru",
    "czech": "cs",
    "polish": "pl",
    "japanese": "ja",
    "chinese": "zh",
}
_ISSN = re.compile(r"\b(\d{4})-?(\d{3}[\dXx])\b")
_YEAR = re.compile(r"\b(\d{4})\b")
_ISO_DATE = re.compile(r"^\s*(\d{4})(?:-(\d{1,2}))?(?:-(\d{1,2}))?")
_ESCAPED = re.compile(r"\\([_&%#$~{}])")
_MONTH_WORDS = {
    **MONTHS,
    **{
        name: number
        for number, name in enumerate(
            (
                "january",
                "february",
                "march",
                "april",
                "may",
                "june",
                "july",
                "august",
                "september",
                "october",
                "november",
                "december",
            ),
            start=1,
        )
    },
}


def verbatim(value: str) -> str:
    """A DOI, URL or identifier field: LaTeX escapes undone, braces dropped, no other decoding
    (pylatexenc would read '%' as a comment and '~' as a space)."""
    text = _ESCAPED.sub(r"\1", value.strip())
    return text.replace("{", "").replace("}", "").strip()


def month_number(value: str) -> int | None:
    """'8', 'aug', 'August', 'Aug.' -> 8; anything else None."""
    text = latex_to_text(value).strip().rstrip(".").lower()
    if text.isdigit():
        return int(text)
    return _MONTH_WORDS.get(text)


def published_date(fields: Mapping[str, str]) -> PartialDate | None:
    """biblatex's `date` (ISO, or a range whose start counts) when given, else year + month."""
    date = verbatim(fields.get("date", ""))
    if match := _ISO_DATE.match(date):
        return partial_date(match.group(1), match.group(2), match.group(3))
    year = _YEAR.search(verbatim(fields.get("year", "")))
    if year is None:
        return None
    month = month_number(fields.get("month", ""))
    day = verbatim(fields.get("day", ""))
    return partial_date(year.group(1), month, day if month else None)


def arxiv_id_of(fields: Mapping[str, str]) -> str | None:
    """biblatex's eprint with eprinttype arXiv, BibTeX's archivePrefix, dblp's CoRR volume
    ('abs/1707.08567'), or an arXiv DOI (10.48550/arXiv.NNNN)."""
    eprint_type = (fields.get("eprinttype") or fields.get("archiveprefix") or "").lower()
    candidates = []
    if "arxiv" in eprint_type and fields.get("eprint"):
        candidates.append(verbatim(fields["eprint"]))
    if verbatim(fields.get("journal", "")).lower() == "corr" and fields.get("volume"):
        candidates.append(verbatim(fields["volume"]).removeprefix("abs/"))
    doi = normalize_doi(verbatim(fields.get("doi", "")))
    if doi and doi.startswith("10.48550/arxiv."):
        candidates.append(doi.removeprefix("10.48550/arxiv."))
    for candidate in candidates:
        try:
            return split_arxiv_id(candidate)[0]
        except MappingError:
            continue
    return None


def _source(entry_type: str, fields: Mapping[str, str]) -> SourceRecord | None:
    # A book's own title is not a venue; its parts (chapters, papers) appeared in one.
    if WORK_TYPES.get(entry_type) == "book":
        return None
    name = next(
        (latex_to_text(fields[name]) for name in _VENUE_FIELDS if fields.get(name)),
        "",
    )
    if not name:
        return None
    issns = tuple(
        dict.fromkeys(
            f"{a}-{b.upper()}" for a, b in _ISSN.findall(verbatim(fields.get("issn", "")))
        )
    )
    return SourceRecord(
        name=name,
        abbreviated_name=latex_to_text(fields.get("shortjournal", "")),
        issns=issns,
        publisher=latex_to_text(fields.get("publisher", "")),
    )


def _title(entry_type: str, fields: Mapping[str, str]) -> str:
    """title: subtitle; a volume with no title of its own (a proceedings, one volume of a
    multi-volume book) is named by its maintitle or booktitle."""
    title = latex_to_text(fields.get("title", ""))
    subtitle = latex_to_text(fields.get("subtitle", ""))
    if not title and WORK_TYPES.get(entry_type) == "book":
        title = latex_to_text(fields.get("maintitle") or fields.get("booktitle") or "")
        subtitle = latex_to_text(fields.get("mainsubtitle", "")) if fields.get("maintitle") else ""
    return f"{title}: {subtitle}" if title and subtitle else title


def _byline(position: int, name: BibName) -> AuthorshipRecord:
    if name.corporate:
        return AuthorshipRecord(position=position, raw_name=name.raw_name, author=None)
    author = AuthorRef(
        display_name=name.display_name,
        given_name=name.given_name,
        family_name=name.family_name,
        **author_ref_identity(name.dblp_name),
    )
    return AuthorshipRecord(position=position, raw_name=name.raw_name, author=author)


def _external_ids(
    key: str, fields: Mapping[str, str], *, dblp: bool
) -> tuple[tuple[str, str], ...]:
    ids: list[tuple[str, str]] = []
    if dblp and (record_key := dblp_record_key(key, fields)):
        ids.append(("dblp", record_key))
    for isbn in re.split(r"[,;\s]+", verbatim(fields.get("isbn", ""))):
        if isbn:
            ids.append(("isbn", isbn))
    for scheme in ("pmid", "pmcid"):
        if value := verbatim(fields.get(scheme, "")):
            ids.append((scheme, value))
    return tuple(dict.fromkeys(ids))


def map_entry(entry: Mapping[str, Any]) -> WorkRecord:
    key = str(entry.get("key") or "")
    entry_type = str(entry.get("type") or "").lower()
    fields: dict[str, str] = {
        str(name): str(value) for name, value in (entry.get("fields") or {}).items()
    }
    label = f"@{entry_type}{{{key}}}"
    if entry_type in _NOT_WORKS:
        raise MappingError(f"{label}: {_NOT_WORKS[entry_type]}, it is not a work")
    title = _title(entry_type, fields)
    if not title:
        raise MappingError(f"{label}: the entry has no title")
    dblp = is_dblp_entry(key, fields)
    names = parse_names(fields.get("author", ""), dblp=dblp) or parse_names(
        fields.get("editor", ""), dblp=dblp
    )
    arxiv_id = arxiv_id_of(fields)
    work_type = WORK_TYPES.get(entry_type, "other")
    if work_type == "other" and arxiv_id and not fields.get("doi"):
        work_type = "preprint"
    language = latex_to_text(fields.get("langid") or fields.get("language") or "").lower()
    return WorkRecord(
        origin=BIBTEX,
        origin_id=f"{entry.get('file') or ''}:{key}",
        title=title,
        doi=normalize_doi(verbatim(fields.get("doi", ""))),
        arxiv_id=arxiv_id,
        abstract=latex_to_text(fields.get("abstract", "")),
        type=work_type,
        published=published_date(fields),
        source=_source(entry_type, fields),
        url=verbatim(fields.get("url", "")),
        language=_LANGUAGES.get(language, ""),
        authorships=tuple(_byline(position, name) for position, name in enumerate(names, start=1)),
        external_ids=_external_ids(key, fields, dblp=dblp),
    )


def map_record(raw: bytes) -> Sequence[object]:
    try:
        entry = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise MappingError(f"not a BibTeX entry as the reader writes it: {exc}") from exc
    if not isinstance(entry, dict):
        raise MappingError("not a BibTeX entry as the reader writes it")
    if entry.get("error"):
        where = f" at line {entry['line']}" if entry.get("line") else ""
        key = f" ({entry['key']})" if entry.get("key") else ""
        raise MappingError(f"{entry.get('file') or 'BibTeX'}{where}{key}: {entry['error']}")
    return [map_entry(entry)]


__all__ = ["map_entry", "map_record"]
