"""ORCID answers -> the shared plain records. Pure: no database, no network.

One raw record is one ORCID answer in the envelope the reader and the fetcher both produce
({"orcid": iD or null, "name": file name, "answer": the JSON}). A full record gives the
researcher, their CV entries and one work per ORCID group (the group's preferred entry, with
the group's `self` identifiers); a /works answer gives the works; a /person the researcher.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import orjson

from ingest.arxiv.atom import split_arxiv_id
from ingest.openalex.mapper.fields import normalize_doi
from ingest.records import (
    ORCID,
    AuthorRef,
    AuthorshipRecord,
    CvEntryRecord,
    ListedWorksRecord,
    MappingError,
    PartialDate,
    Rejected,
    ResearcherRecord,
    SourceRecord,
    WorkRecord,
)
from researchers.cv_entry import CvEntryData

from .parse import OrcidAffiliation, OrcidFunding, OrcidPerson, OrcidRecord, OrcidWorkGroup
from .reader import read_orcid_payload

# ORCID work types (v3.0 spelling; v2.x's JOURNAL_ARTICLE is lowered and dashed on reading).
WORK_TYPES = {
    "journal-article": "article",
    "conference-paper": "article",
    "magazine-article": "article",
    "newspaper-article": "article",
    "working-paper": "preprint",
    "preprint": "preprint",
    "book": "book",
    "edited-book": "book",
    "book-chapter": "book-chapter",
    "dissertation": "dissertation",
    "dissertation-thesis": "dissertation",
    "supervised-student-publication": "dissertation",
    "data-set": "dataset",
    "patent": "patent",
    "review": "review",
    "book-review": "review",
}
CV_KINDS = {"invited_position": "invited-position"}
# Identifier types a work keeps as (scheme, value); the DOI and arXiv id have fields of their own.
_KEPT_ID_TYPES = {"pmid", "pmc", "isbn", "issn", "handle", "wosuid", "eid", "urn", "uri", "bibcode"}


def map_record(raw: bytes) -> Sequence[object]:
    try:
        envelope = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise MappingError(f"not valid JSON: {exc}") from exc
    if not isinstance(envelope, dict) or "answer" not in envelope:
        raise MappingError("not an ORCID answer read by this importer")
    if envelope.get("xml"):
        raise MappingError(
            "ORCID XML is not read: the importer asks ORCID for JSON, which carries the same record"
        )
    read = read_orcid_payload(
        envelope["answer"], orcid_hint=envelope.get("orcid"), name_hint=envelope.get("name") or ""
    )
    if read.kind == "search":
        raise MappingError(
            f"an ORCID search answer lists {len(read.orcids)} iDs, not records: "
            "import them with --orcid"
        )
    if read.record is None:
        raise MappingError(
            read.rejected[0] if read.rejected else f"nothing to import ({read.kind})"
        )
    out: list[object] = [Rejected(reason=reason) for reason in read.rejected]
    out.extend(map_orcid_record(read.record))
    return out


def map_orcid_record(record: OrcidRecord) -> list[object]:
    out: list[object] = []
    orcid = record.orcid
    if record.person is not None:
        researcher = map_person(record.person)
        if researcher is not None:
            out.append(researcher)
    owner = (
        AuthorRef(orcid=orcid, display_name=record.person.display_name if record.person else "")
        if orcid
        else None
    )
    for affiliation in record.affiliations:
        out.append(
            map_affiliation(affiliation, orcid) if orcid else _no_owner(affiliation.put_code)
        )
    for funding in record.fundings:
        out.append(map_funding(funding, orcid) if orcid else _no_owner(funding.put_code))
    listed: list[str] = []
    complete = record.works_complete
    for group in record.work_groups:
        try:
            work = map_work_group(group, orcid=orcid, owner=owner)
        except MappingError as exc:
            complete = False
            out.append(Rejected(reason=str(exc), external_id=f"{orcid}:{group.preferred.put_code}"))
            continue
        out.append(work)
        listed.append(work.origin_id)
    if orcid and complete:
        # All the works the record lists: the owner's earlier listings from it that are not
        # among them go (a record read partially says nothing about the works it left out).
        out.append(ListedWorksRecord(owner_orcid=orcid, origin=ORCID, origin_ids=tuple(listed)))
    out.extend(Rejected(reason=reason, external_id=orcid or "") for reason in record.skipped)
    return out


def _no_owner(put_code: int | None) -> Rejected:
    return Rejected(
        reason=f"CV entry {put_code} of a record without an ORCID iD: no one to give it to"
    )


def map_person(person: OrcidPerson) -> ResearcherRecord | None:
    if not person.orcid or not person.display_name:
        return None
    return ResearcherRecord(
        origin=ORCID,
        orcid=person.orcid,
        display_name=person.display_name,
        given_name=person.given_names,
        family_name=person.family_name,
        alternate_names=person.other_names,
        biography=person.biography,
        urls=tuple((url.name, url.url) for url in person.researcher_urls),
        external_ids=tuple((ext.type, ext.value) for ext in person.external_ids),
    )


def _organisation_ids(source: str, identifier: str) -> tuple[tuple[str, str], ...]:
    return ((source.lower(), identifier),) if source and identifier else ()


def _date_parts(date: PartialDate | None) -> tuple[int | None, int | None, int | None]:
    return (date.year, date.month, date.day) if date else (None, None, None)


def map_affiliation(affiliation: OrcidAffiliation, orcid: str) -> CvEntryRecord:
    organisation = affiliation.organisation
    return CvEntryRecord(
        owner_orcid=orcid,
        source=ORCID,
        entry=CvEntryData(
            section=CV_KINDS.get(affiliation.section, affiliation.section),
            source_key=f"{orcid}:{affiliation.put_code}",
            organisation=organisation.name,
            role=affiliation.role,
            department=affiliation.department,
            city=organisation.city,
            region=organisation.region,
            country=organisation.country,
            start=_date_parts(affiliation.start),
            end=_date_parts(affiliation.end),
            url=affiliation.url,
            organisation_ids=_organisation_ids(
                organisation.identifier_source, organisation.identifier
            ),
            display_order=affiliation.display_index,
        ),
    )


def map_funding(funding: OrcidFunding, orcid: str) -> CvEntryRecord:
    organisation = funding.organisation
    return CvEntryRecord(
        owner_orcid=orcid,
        source=ORCID,
        entry=CvEntryData(
            section="funding",
            source_key=f"{orcid}:{funding.put_code}",
            organisation=organisation.name if organisation else "",
            role=funding.title,
            city=organisation.city if organisation else "",
            region=organisation.region if organisation else "",
            country=organisation.country if organisation else "",
            start=_date_parts(funding.start),
            end=_date_parts(funding.end),
            url=funding.url,
            organisation_ids=(
                _organisation_ids(organisation.identifier_source, organisation.identifier)
                if organisation
                else ()
            ),
            display_order=funding.display_index,
        ),
    )


def map_work_group(
    group: OrcidWorkGroup, *, orcid: str | None, owner: AuthorRef | None
) -> WorkRecord:
    """The group's preferred entry, identified by the group's `self` identifiers (never by a
    `part-of` one: that is the book or journal the work is in)."""
    work = group.preferred
    self_ids = [
        ext for ext in (*group.external_ids, *work.external_ids) if ext.relationship == "self"
    ]
    doi = next((_doi(ext.normalized or ext.value) for ext in self_ids if ext.type == "doi"), None)
    arxiv_id = next((_arxiv(ext.value) for ext in self_ids if ext.type == "arxiv"), None)
    external_ids: dict[tuple[str, str], None] = {}
    for ext in self_ids:
        if ext.type in _KEPT_ID_TYPES:
            external_ids[(ext.type, ext.value)] = None
    authorships = tuple(
        AuthorshipRecord(
            position=position,
            raw_name=contributor.name,
            author=AuthorRef(display_name=contributor.name, orcid=contributor.orcid),
            sequence=contributor.sequence,
        )
        for position, contributor in enumerate(
            (c for c in work.contributors if c.role in ("", "author")), start=1
        )
    )
    return WorkRecord(
        origin=ORCID,
        origin_id=_work_origin_id(group, orcid=orcid, doi=doi, arxiv_id=arxiv_id),
        title=work.title if not work.subtitle else f"{work.title}: {work.subtitle}",
        doi=doi,
        arxiv_id=arxiv_id,
        abstract=work.short_description,
        type=WORK_TYPES.get(work.type, "other"),
        published=work.publication_date,
        source=SourceRecord(name=work.journal_title) if work.journal_title else None,
        url=work.url,
        language=work.language_code,
        authorships=authorships,
        listed_by=owner,
        external_ids=tuple(external_ids),
    )


def _work_origin_id(
    group: OrcidWorkGroup, *, orcid: str | None, doi: str | None, arxiv_id: str | None
) -> str:
    """The work's key among ORCID's contributions: the record's iD and the entry's put-code.
    An entry without a put-code (a write sample, a work posted alone) is keyed by what it says
    instead, so two such works stay two and the same one imported again is recognised; without
    this they all shared the key ":None" and overwrote each other."""
    work = group.preferred
    if work.put_code is not None:
        return f"{orcid or 'no-orcid'}:{work.put_code}"
    said = orjson.dumps(
        [
            work.title,
            work.subtitle,
            work.type,
            str(work.publication_date),
            work.journal_title,
            doi,
            arxiv_id,
            sorted(
                {
                    (ext.type, ext.value, ext.relationship)
                    for ext in (*group.external_ids, *work.external_ids)
                }
            ),
        ]
    )
    return f"{orcid or 'no-orcid'}:content-{hashlib.sha256(said).hexdigest()[:20]}"


def _doi(value: str) -> str | None:
    return normalize_doi(value)


def _arxiv(value: str) -> str | None:
    try:
        return split_arxiv_id(value)[0]
    except MappingError:
        return None
