"""Plain records that every importer produces and the shared writer consumes.

Mappers turn a source's JSON, XML or BibTeX into these; they never touch the database. A
record's content_hash is computed from its fields, so a record that did not change since the
last import is recognised and skipped by the writer.

The records are source-neutral: OpenAlex, ORCID, arXiv, Crossref and BibTeX all produce the
same classes. A work record names the source it came from (`origin`) and that source's own id
for it (`origin_id`); the writer keeps each source's contribution apart (WorkSource) and finds
the work by DOI, then arXiv id, then title + year + first author (writer/identity.py). The
contract for the mappers' authors is /work/notes/records_contract.md and docs/architecture.md.
"""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
import operator
from dataclasses import dataclass, field

import orjson

from researchers.cv_entry import CvEntryData


class MappingError(ValueError):
    """A record that cannot be imported; the message is the reason shown to moderators.
    `external_id` and `entity` say which record it was, when the mapper got that far."""

    def __init__(self, reason: str, *, external_id: str = "", entity: str = "") -> None:
        super().__init__(reason)
        self.external_id = external_id
        self.entity = entity


# The sources records come from (WorkRecord.origin, ResearcherRecord.origin, ImportRun.source).
OPENALEX = "openalex"
ORCID = "orcid"
ARXIV = "arxiv"
CROSSREF = "crossref"
BIBTEX = "bibtex"
ORIGINS = (OPENALEX, ORCID, ARXIV, CROSSREF, BIBTEX)


@dataclass(frozen=True, slots=True)
class Rejected:
    """A part of a source record that a mapper drops (one work of an ORCID record, one entry
    of a BibTeX file): it becomes an ImportIssue with the reason while the rest is imported.
    A mapper that rejects its whole input raises MappingError instead."""

    reason: str
    external_id: str = ""
    raw: str = ""


@dataclass(frozen=True, slots=True)
class PartialDate:
    """A date with its precision: a year, a year and a month, or a full date.

    Build it with partial_date(), which keeps what is valid and drops the rest, so a source's
    partial or broken date becomes a partial date, never an exception."""

    year: int
    month: int | None = None
    day: int | None = None

    @property
    def precision(self) -> str:
        return "day" if self.day else "month" if self.month else "year"

    def isoformat(self) -> str:
        """'2021', '2021-03' or '2021-03-04'."""
        if self.day and self.month:
            return f"{self.year:04d}-{self.month:02d}-{self.day:02d}"
        if self.month:
            return f"{self.year:04d}-{self.month:02d}"
        return f"{self.year:04d}"

    def first_day(self) -> str:
        """The first day the date can mean, as an ISO date ('2021-03' -> '2021-03-01')."""
        return f"{self.year:04d}-{self.month or 1:02d}-{self.day or 1:02d}"


def partial_date(year: object, month: object = None, day: object = None) -> PartialDate | None:
    """The most precise valid date of year, month and day (ints or digit strings); None without
    a usable year (1..9999). An invalid month drops month and day; an invalid day drops the day."""

    def number(value: object) -> int | None:
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            return value
        if isinstance(value, str) and value.strip().isdigit():
            return int(value.strip())
        return None

    y, m, d = number(year), number(month), number(day)
    if y is None or not 1 <= y <= 9999:
        return None
    if m is None or not 1 <= m <= 12:
        return PartialDate(y)
    if d is None:
        return PartialDate(y, m)
    try:
        datetime.date(y, m, d)
    except ValueError:
        return PartialDate(y, m)
    return PartialDate(y, m, d)


# Per record class, an attrgetter of its fields; for the top level, all but the source's date.
_FIELDS: dict[type, operator.attrgetter] = {}
_HASHED_FIELDS: dict[type, operator.attrgetter] = {}


def _field_values(record: object) -> tuple:
    """A nested record as the tuple of its field values (orjson's `default` for dataclasses)."""
    values = _FIELDS.get(type(record))
    if values is None:
        names = [f.name for f in dataclasses.fields(record)]  # type: ignore[arg-type]
        values = _FIELDS[type(record)] = operator.attrgetter(*names)
    return values(record)


def content_hash(record: object) -> str:
    """Hash of what we store. The source's own modification date is left out: a record that was
    only re-stamped upstream is unchanged for us.

    The field values, in field order, nested records as the tuples of theirs, are serialised by
    orjson: records are turned into tuples by a getter per class, which is twice as fast as
    orjson's own dataclass support and several times faster than dataclasses.asdict.
    """
    cls = type(record)
    values = _HASHED_FIELDS.get(cls)
    if values is None:
        names = [f.name for f in dataclasses.fields(cls) if f.name != "source_updated_at"]  # type: ignore[arg-type]
        values = _HASHED_FIELDS[cls] = operator.attrgetter(*names)
    payload = orjson.dumps(
        values(record), default=_field_values, option=orjson.OPT_PASSTHROUGH_DATACLASS
    )
    return hashlib.md5(payload, usedforsecurity=False).hexdigest()


@dataclass(frozen=True, slots=True)
class InstitutionRef:
    """An institution a byline or an affiliation names. Only refs with an OpenAlex id are
    stored as institutions; sources without one put the names in
    AuthorshipRecord.affiliation_names instead."""

    openalex_id: str
    name: str
    ror: str | None = None
    country_code: str = ""
    type: str = ""


@dataclass(frozen=True, slots=True)
class InstitutionRecord:
    openalex_id: str
    name: str
    ror: str | None = None
    country_code: str = ""
    type: str = ""
    homepage: str = ""
    email_domains: tuple[str, ...] = ()
    # When the source last changed the record; an older copy never overwrites a newer one.
    source_updated_at: str | None = None


@dataclass(frozen=True, slots=True)
class SourceRecord:
    """A venue. OpenAlex's have an openalex_id; other sources give a name and ISSNs (issn_l
    and issns), and the writer finds the venue by ISSN, else by its normalised name."""

    openalex_id: str | None = None
    name: str = ""
    abbreviated_name: str = ""
    issn_l: str = ""
    type: str = ""
    homepage: str = ""
    # When the source last changed the record; an older copy never overwrites a newer one.
    source_updated_at: str | None = None
    # Every ISSN the source gives (print, electronic), 'NNNN-NNNC'.
    issns: tuple[str, ...] = ()
    publisher: str = ""


@dataclass(frozen=True, slots=True)
class TopicRecord:
    """A topic with its ancestors; parent_external_id links the hierarchy."""

    external_id: str
    name: str
    level: str
    code: str = ""
    parent_external_id: str | None = None
    description: str = ""
    # When the source last changed the record; an older copy never overwrites a newer one.
    source_updated_at: str | None = None


@dataclass(frozen=True, slots=True)
class TopicWithAncestors:
    """An OpenAlex topic record: the topic, and the ancestors it names (inserted when new)."""

    topic: TopicRecord
    ancestors: tuple[TopicRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class AuthorRef:
    """A person a byline names. openalex_id or a checksum-valid orcid identifies them (the
    writer finds or creates that researcher); with neither it is a name-only author, who
    becomes a new L0 researcher per (normalised name, source record) unless the name resolver
    (writer/authors.py: resolve_name_only_authors) links them. Give given_name and family_name
    when the source separates them: the resolver and title matching use the family name."""

    openalex_id: str | None = None
    display_name: str = ""
    orcid: str | None = None
    given_name: str = ""
    family_name: str = ""
    # Crossref's authenticated-orcid: the person signed in to ORCID to assert it.
    orcid_authenticated: bool = False
    # dblp's name with its homonym number ('Wei Wang 0001'; display_name is then 'Wei Wang'):
    # an identity key for the name resolver. Set only when the name carries a number.
    dblp: str | None = None


@dataclass(frozen=True, slots=True)
class AuthorshipRecord:
    """One byline slot. author None means no researcher at all (an organisation, "others");
    a person without identifiers is an AuthorRef with neither id."""

    position: int
    raw_name: str
    author: AuthorRef | None
    institutions: tuple[InstitutionRef, ...] = ()
    is_corresponding: bool = False
    # Free-text affiliations as the source writes them (arXiv, Crossref, ORCID), kept on the byline.
    affiliation_names: tuple[str, ...] = ()
    # Crossref's 'first' / 'additional', as given.
    sequence: str = ""


@dataclass(frozen=True, slots=True)
class WorkTopicRecord:
    topic: TopicRecord
    score: float
    # Ancestors first (domain, field, subfield), so parents exist before children are written.
    ancestors: tuple[TopicRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class VersionRecord:
    """One version of a preprint as its server numbers it ('v1', 'v2'), with its date."""

    label: str
    date: PartialDate | None = None


@dataclass(frozen=True, slots=True)
class WorkRecord:
    """A work as one source describes it.

    Identity (writer/identity.py): `doi` normalised (lower case, no resolver prefix), then
    `arxiv_id` (no version, no 'arXiv:' prefix: '2101.00001', 'hep-th/9901001'), then, only
    when the record has neither, normalised title + year + first author's family name.
    `origin` names the source and `origin_id` its own id of this record (OpenAlex: the W id;
    ORCID: '<iD>:<put-code>'; arXiv: the arXiv id; Crossref: the DOI; BibTeX: '<file name>:<key>'),
    so re-importing the same record finds the same work even if its identifiers changed.
    """

    openalex_id: str | None = None
    title: str = ""
    doi: str | None = None
    arxiv_id: str | None = None
    abstract: str = ""
    type: str = "article"
    # OpenAlex's full date and year. Other sources give `published` instead.
    publication_date: str | None = None
    publication_year: int | None = None
    source: SourceRecord | None = None
    cited_by_count: int = 0
    counts_by_year: tuple[tuple[int, int], ...] = ()
    open_access_url: str = ""
    code_url: str = ""
    language: str = ""
    authorships: tuple[AuthorshipRecord, ...] = ()
    topics: tuple[WorkTopicRecord, ...] = ()
    # When the source last changed the record; an older copy never overwrites a newer one.
    source_updated_at: str | None = None
    # --- source-neutral fields (all optional; OpenAlex's mapper leaves them at their defaults
    # except origin/origin_id, which the writer fills from openalex_id) ---
    origin: str = OPENALEX
    origin_id: str = ""
    # The publication date with its precision; when set, it decides publication_date/_year.
    published: PartialDate | None = None
    # arXiv versions, oldest first ('v1' with the submission date ... the latest).
    versions: tuple[VersionRecord, ...] = ()
    # Category codes, primary first ('cs.LG', 'stat.ML'); stored as topics 'arxiv:cs.LG'.
    categories: tuple[str, ...] = ()
    # arXiv's journal reference, free text.
    journal_ref: str = ""
    # The researcher whose own record lists this work (ORCID): linked to it by the writer.
    listed_by: AuthorRef | None = None
    # Other identifiers of the work as (scheme, value): ('pmid', '123'), ('isbn', '...').
    external_ids: tuple[tuple[str, str], ...] = ()
    url: str = ""
    # The works it cites, by identifier, in the source's order, once each: ('openalex', 'W123')
    # or ('doi', '10.1000/x'). Each becomes a citation when bzpeer holds the cited work, now or
    # when it arrives (writer/citations.py).
    references: tuple[tuple[str, str], ...] = ()
    # References the source gives without an identifier (Crossref's unstructured ones): shown as
    # text on the work, not linked.
    unlinked_references: tuple[str, ...] = ()

    @property
    def origin_key(self) -> str:
        """This record's id in its source (origin_id, or the OpenAlex id)."""
        return self.origin_id or self.openalex_id or ""


@dataclass(frozen=True, slots=True)
class AffiliationRecord:
    institution: InstitutionRef
    start_year: int | None = None
    end_year: int | None = None


@dataclass(frozen=True, slots=True)
class StatedFigures:
    """The figures a source states for a researcher's whole record (OpenAlex: works_count,
    cited_by_count and summary_stats), as of the source record's date ("YYYY-MM-DD"). They count
    works bzpeer may not hold, so they are kept beside bzpeer's own, never in place of them."""

    source: str
    as_of: str | None = None
    works_count: int | None = None
    cited_by_count: int | None = None
    h_index: int | None = None
    i10_index: int | None = None
    two_year_mean_citedness: float | None = None


@dataclass(frozen=True, slots=True)
class ResearcherRecord:
    """A researcher as a source describes them: OpenAlex (keyed by openalex_id) or ORCID
    (openalex_id None, keyed by its checksum-valid orcid)."""

    openalex_id: str | None = None
    display_name: str = ""
    alternate_names: tuple[str, ...] = ()
    orcid: str | None = None
    last_known_institution: InstitutionRef | None = None
    affiliations: tuple[AffiliationRecord, ...] = field(default_factory=tuple)
    # When the source last changed the record; an older copy never overwrites a newer one.
    source_updated_at: str | None = None
    origin: str = OPENALEX
    given_name: str = ""
    family_name: str = ""
    biography: str = ""
    # (label, url) pairs the person lists (ORCID researcher-urls).
    urls: tuple[tuple[str, str], ...] = ()
    # (scheme, value) pairs: ('scopus', '123'), ('dblp', 'w/WeiWang0001').
    external_ids: tuple[tuple[str, str], ...] = ()
    # What the source states for the whole record (OpenAlex), or None.
    stated_figures: StatedFigures | None = None


@dataclass(frozen=True, slots=True)
class CvEntryRecord:
    """One entry of a researcher's CV (ORCID employments, educations, distinctions, invited
    positions, qualifications, services, fundings, memberships) and whose it is: `entry` keeps
    the one shape the CV model's writer takes (researchers.cv_entry.CvEntryData), from the
    mapper to the database; `owner_orcid` finds the researcher, `source` ("orcid") names the
    entries it replaces (ingest/orcid/writer.py)."""

    owner_orcid: str
    source: str
    entry: CvEntryData


@dataclass(frozen=True, slots=True)
class ListedWorksRecord:
    """Every work one owner's record lists, read completely (an ORCID record or /works answer
    whose works section parsed without a failure): the works of this origin that the owner's
    record listed before and no longer does stop being listed by them (writer/listed_by.py:
    listings_prune). A record read partially gives none, so it never removes a listing.
    `origin_ids` are the WorkRecord.origin_id of the listed works."""

    owner_orcid: str
    origin: str
    origin_ids: tuple[str, ...] = ()
