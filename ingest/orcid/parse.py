"""ORCID public API JSON (v3.0, and the v2.x shape) -> ORCID-shaped dataclasses. Pure functions.

These dataclasses keep ORCID's own structure (put-codes, display indexes, groups of works,
dates with their precision); `mapper.py` turns them into the shared plain records. Only public
items are kept: the public API serves nothing else, but a saved record or a member-API answer
can hold limited or private items, and those are never ours to show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ingest.records import MappingError, PartialDate

from .fields import (
    OrcidExternalId,
    as_dict,
    as_list,
    display_index,
    external_ids,
    is_public,
    normalize_orcid,
    partial_date,
    put_code,
    text_of,
    value_of,
)

# activities-summary key -> (our CV section, the summary key inside v3.0's affiliation-group,
# the v2.x list key). Memberships and peer reviews are not CV sections of ours (yet).
AFFILIATION_SECTIONS: dict[str, tuple[str, str]] = {
    "employments": ("employment", "employment-summary"),
    "educations": ("education", "education-summary"),
    "distinctions": ("distinction", "distinction-summary"),
    "invited-positions": ("invited_position", "invited-position-summary"),
    "qualifications": ("qualification", "qualification-summary"),
    "services": ("service", "service-summary"),
}


@dataclass(frozen=True, slots=True)
class OrcidOrganisation:
    name: str
    city: str = ""
    region: str = ""
    country: str = ""  # ISO 3166 alpha-2, as ORCID sends it
    identifier: str = ""  # e.g. "https://ror.org/05qwgg493", "1811" (Ringgold)
    identifier_source: str = ""  # ROR, RINGGOLD, GRID, FUNDREF, LEI


@dataclass(frozen=True, slots=True)
class OrcidAffiliation:
    """One entry of a CV section: an employment, education, distinction, invited position,
    qualification or service."""

    section: str
    put_code: int | None
    organisation: OrcidOrganisation
    role: str = ""
    department: str = ""
    start: PartialDate | None = None
    end: PartialDate | None = None
    url: str = ""
    display_index: int = 0
    external_ids: tuple[OrcidExternalId, ...] = ()


@dataclass(frozen=True, slots=True)
class OrcidFunding:
    put_code: int | None
    title: str
    type: str = ""
    organisation: OrcidOrganisation | None = None
    start: PartialDate | None = None
    end: PartialDate | None = None
    url: str = ""
    display_index: int = 0
    external_ids: tuple[OrcidExternalId, ...] = ()


@dataclass(frozen=True, slots=True)
class OrcidContributor:
    name: str
    orcid: str | None = None
    role: str = ""
    sequence: str = ""  # "first", "additional" or ""


@dataclass(frozen=True, slots=True)
class OrcidWork:
    put_code: int | None
    title: str
    type: str = ""
    subtitle: str = ""
    translated_title: str = ""
    journal_title: str = ""
    publication_date: PartialDate | None = None
    url: str = ""
    external_ids: tuple[OrcidExternalId, ...] = ()
    display_index: int = 0
    source_name: str = ""
    # Only full works (/work/{put-code} or member payloads) carry these; summaries do not.
    contributors: tuple[OrcidContributor, ...] = ()
    short_description: str = ""
    citation_type: str = ""
    citation: str = ""
    language_code: str = ""

    @property
    def self_ids(self) -> tuple[OrcidExternalId, ...]:
        return tuple(i for i in self.external_ids if i.relationship == "self")

    @property
    def doi(self) -> str | None:
        for ext in self.self_ids:
            if ext.type == "doi":
                return ext.normalized or ext.value
        return None


@dataclass(frozen=True, slots=True)
class OrcidWorkGroup:
    """The works ORCID holds for one real work: one per source that asserted it."""

    external_ids: tuple[OrcidExternalId, ...]
    works: tuple[OrcidWork, ...]

    @property
    def preferred(self) -> OrcidWork:
        """The researcher's preferred version: the highest display index (ORCID lists it
        first; on a tie the first listed wins)."""
        best = self.works[0]
        for work in self.works[1:]:
            if work.display_index > best.display_index:
                best = work
        return best


@dataclass(frozen=True, slots=True)
class OrcidResearcherUrl:
    name: str
    url: str


@dataclass(frozen=True, slots=True)
class OrcidPerson:
    orcid: str | None
    given_names: str = ""
    family_name: str = ""
    credit_name: str = ""
    other_names: tuple[str, ...] = ()
    biography: str = ""
    researcher_urls: tuple[OrcidResearcherUrl, ...] = ()
    external_ids: tuple[OrcidExternalId, ...] = ()
    keywords: tuple[str, ...] = ()
    countries: tuple[str, ...] = ()

    @property
    def display_name(self) -> str:
        """The credit name when the person published one, else given and family names."""
        if self.credit_name:
            return self.credit_name
        return " ".join(part for part in (self.given_names, self.family_name) if part)


@dataclass(frozen=True, slots=True)
class OrcidRecord:
    orcid: str | None
    person: OrcidPerson | None = None
    affiliations: tuple[OrcidAffiliation, ...] = ()
    fundings: tuple[OrcidFunding, ...] = ()
    work_groups: tuple[OrcidWorkGroup, ...] = ()
    # Items left out and why (not public, no title...), one line each, for the import's issues.
    skipped: tuple[str, ...] = field(default=())
    # The works section was there and every public entry of it was read: work_groups are all
    # the works the record lists (a re-import may then drop the listings it no longer has).
    works_complete: bool = False


def parse_person(person: dict[str, Any], *, orcid: str | None = None) -> OrcidPerson:
    name = as_dict(person.get("name"))
    orcid = orcid or normalize_orcid(name.get("path")) or normalize_orcid(person.get("path"))
    public_name = is_public(name) if name else False
    other_names = [
        item
        for item in as_list(as_dict(person.get("other-names")).get("other-name"))
        if isinstance(item, dict) and is_public(item) and text_of(item.get("content"))
    ]
    other_names.sort(key=display_index, reverse=True)
    biography = as_dict(person.get("biography"))
    urls = [
        item
        for item in as_list(as_dict(person.get("researcher-urls")).get("researcher-url"))
        if isinstance(item, dict) and is_public(item) and text_of(item.get("url"))
    ]
    urls.sort(key=display_index, reverse=True)
    identifiers = [
        item
        for item in as_list(as_dict(person.get("external-identifiers")).get("external-identifier"))
        if isinstance(item, dict) and is_public(item)
    ]
    keywords = [
        text_of(item.get("content"))
        for item in as_list(as_dict(person.get("keywords")).get("keyword"))
        if isinstance(item, dict) and is_public(item) and text_of(item.get("content"))
    ]
    countries = [
        text_of(item.get("country"))
        for item in as_list(as_dict(person.get("addresses")).get("address"))
        if isinstance(item, dict) and is_public(item) and text_of(item.get("country"))
    ]
    return OrcidPerson(
        orcid=orcid,
        # Names keep their letters as written, only outer and doubled spaces go ("Wierks ").
        given_names=text_of(name.get("given-names")) if public_name else "",
        family_name=text_of(name.get("family-name")) if public_name else "",
        credit_name=text_of(name.get("credit-name")) if public_name else "",
        other_names=tuple(text_of(item.get("content")) for item in other_names),
        biography=(
            str(biography.get("content") or "").strip()
            if biography and is_public(biography)
            else ""
        ),
        researcher_urls=tuple(
            OrcidResearcherUrl(name=text_of(item.get("url-name")), url=text_of(item.get("url")))
            for item in urls
        ),
        external_ids=external_ids(identifiers),
        keywords=tuple(keywords),
        countries=tuple(countries),
    )


def parse_organisation(obj: object) -> OrcidOrganisation | None:
    org = as_dict(obj)
    name = text_of(org.get("name"))
    if not name:
        return None
    address = as_dict(org.get("address"))
    disambiguated = as_dict(org.get("disambiguated-organization"))
    return OrcidOrganisation(
        name=name,
        city=text_of(address.get("city")),
        region=text_of(address.get("region")),
        country=text_of(address.get("country")).upper(),
        identifier=text_of(disambiguated.get("disambiguated-organization-identifier")),
        identifier_source=text_of(disambiguated.get("disambiguation-source")).upper(),
    )


def parse_affiliation(section: str, summary: dict[str, Any]) -> OrcidAffiliation:
    organisation = parse_organisation(summary.get("organization"))
    if organisation is None:
        raise MappingError(f"{section} {put_code(summary)} has no organisation name")
    return OrcidAffiliation(
        section=section,
        put_code=put_code(summary),
        organisation=organisation,
        role=text_of(summary.get("role-title")),
        department=text_of(summary.get("department-name")),
        start=partial_date(summary.get("start-date")),
        end=partial_date(summary.get("end-date")),
        url=text_of(summary.get("url")),
        display_index=display_index(summary),
        external_ids=external_ids(summary.get("external-ids")),
    )


def iter_affiliation_summaries(
    activities: dict[str, Any], key: str
) -> list[tuple[str, dict[str, Any]]]:
    """(section, summary) of one activities-summary key, in the v3.0 shape (affiliation-group[]
    of summaries[] of {<kind>-summary: {...}}) or the v2.x one (<kind>-summary[])."""
    section, summary_key = AFFILIATION_SECTIONS[key]
    container = as_dict(activities.get(key))
    found: list[tuple[str, dict[str, Any]]] = []
    for group in as_list(container.get("affiliation-group")):
        for wrapper in as_list(as_dict(group).get("summaries")):
            summary = as_dict(wrapper).get(summary_key)
            if isinstance(summary, dict):
                found.append((section, summary))
    for summary in as_list(container.get(summary_key)):
        if isinstance(summary, dict):
            found.append((section, summary))
    return found


def parse_funding(summary: dict[str, Any]) -> OrcidFunding:
    title = text_of(as_dict(summary.get("title")).get("title"))
    if not title:
        raise MappingError(f"funding {put_code(summary)} has no title")
    return OrcidFunding(
        put_code=put_code(summary),
        title=title,
        type=str(summary.get("type") or "").lower().replace("_", "-"),
        organisation=parse_organisation(summary.get("organization")),
        start=partial_date(summary.get("start-date")),
        end=partial_date(summary.get("end-date")),
        url=text_of(summary.get("url")),
        display_index=display_index(summary),
        external_ids=external_ids(summary.get("external-ids")),
    )


def parse_contributors(obj: object) -> tuple[OrcidContributor, ...]:
    contributors = []
    for item in as_list(as_dict(obj).get("contributor")):
        if not isinstance(item, dict):
            continue
        name = text_of(item.get("credit-name"))
        if not name:
            continue
        attributes = as_dict(item.get("contributor-attributes"))
        contributors.append(
            OrcidContributor(
                name=name,
                orcid=normalize_orcid(as_dict(item.get("contributor-orcid")).get("path")),
                role=str(attributes.get("contributor-role") or "").lower(),
                sequence=str(attributes.get("contributor-sequence") or "").lower(),
            )
        )
    return tuple(contributors)


def parse_work(work: dict[str, Any]) -> OrcidWork:
    """A work summary (in a /works group) or a full work (/work/{put-code}, member payloads)."""
    title_block = as_dict(work.get("title"))
    title = text_of(title_block.get("title"))
    if not title:
        raise MappingError(f"work {put_code(work)} has no title")
    citation = as_dict(work.get("citation"))
    source = as_dict(work.get("source"))
    return OrcidWork(
        put_code=put_code(work),
        title=title,
        type=str(work.get("type") or "").lower().replace("_", "-"),
        subtitle=text_of(title_block.get("subtitle")),
        translated_title=text_of(title_block.get("translated-title")),
        journal_title=text_of(work.get("journal-title")),
        publication_date=partial_date(work.get("publication-date")),
        url=text_of(work.get("url")),
        external_ids=external_ids(work.get("external-ids")),
        display_index=display_index(work),
        source_name=text_of(source.get("source-name")),
        contributors=parse_contributors(work.get("contributors")),
        short_description=str(work.get("short-description") or "").strip(),
        citation_type=str(citation.get("citation-type") or "").lower(),
        citation=str(citation.get("citation-value") or ""),
        language_code=str(value_of(work.get("language-code")) or ""),
    )


def parse_work_groups(
    works: dict[str, Any], skipped: list[str], failed: list[str] | None = None
) -> tuple[OrcidWorkGroup, ...]:
    """A /works answer (or activities-summary.works) as ORCID grouped it. An entry that cannot
    be read is also named in `failed` (a private one is left out, not failed)."""
    groups = []
    for group in as_list(works.get("group")):
        parsed = []
        for summary in as_list(as_dict(group).get("work-summary")):
            if not isinstance(summary, dict):
                if failed is not None:
                    failed.append("a work summary that is not an object")
                continue
            if not is_public(summary):
                skipped.append(f"work {put_code(summary)}: not public")
                continue
            try:
                parsed.append(parse_work(summary))
            except MappingError as exc:
                skipped.append(str(exc))
                if failed is not None:
                    failed.append(str(exc))
        if parsed:
            groups.append(
                OrcidWorkGroup(
                    external_ids=external_ids(as_dict(group).get("external-ids")),
                    works=tuple(parsed),
                )
            )
    return tuple(groups)


def parse_record(record: dict[str, Any]) -> OrcidRecord:
    """A full /record (v3.0 or v2.x): person, CV sections, fundings and grouped works."""
    orcid = normalize_orcid(as_dict(record.get("orcid-identifier")).get("path"))
    if orcid is None:
        orcid = normalize_orcid(record.get("path"))
    skipped: list[str] = []
    person_obj = record.get("person")
    person = parse_person(person_obj, orcid=orcid) if isinstance(person_obj, dict) else None
    activities = as_dict(record.get("activities-summary"))
    affiliations = []
    for key in AFFILIATION_SECTIONS:
        for section, summary in iter_affiliation_summaries(activities, key):
            if not is_public(summary):
                skipped.append(f"{section} {put_code(summary)}: not public")
                continue
            try:
                affiliations.append(parse_affiliation(section, summary))
            except MappingError as exc:
                skipped.append(str(exc))
    fundings = []
    for group in as_list(as_dict(activities.get("fundings")).get("group")):
        for summary in as_list(as_dict(group).get("funding-summary")):
            if not isinstance(summary, dict):
                continue
            if not is_public(summary):
                skipped.append(f"funding {put_code(summary)}: not public")
                continue
            try:
                fundings.append(parse_funding(summary))
            except MappingError as exc:
                skipped.append(str(exc))
    works = activities.get("works")
    failed: list[str] = []
    work_groups = parse_work_groups(as_dict(works), skipped, failed)
    return OrcidRecord(
        orcid=orcid,
        person=person,
        affiliations=tuple(affiliations),
        fundings=tuple(fundings),
        work_groups=work_groups,
        skipped=tuple(skipped),
        works_complete=works_section_complete(works, failed),
    )


def works_section_complete(works: object, failed: Sequence[str]) -> bool:
    """A works section (activities-summary.works, or a /works answer) read in full: it is
    an object whose `group` is a list, and no entry of it failed to parse."""
    return isinstance(works, dict) and isinstance(works.get("group"), list) and not failed


def group_works(works: list[OrcidWork]) -> tuple[OrcidWorkGroup, ...]:
    """Group loose works as ORCID does: a shared `self` or `version-of` identifier puts two
    works in one group; `part-of` (the book a chapter is in, the journal of an article) never
    does, or every article of a journal would become one work. A work without a groupable
    identifier stands alone. Used for works that arrive outside a /works answer."""
    parent = list(range(len(works)))

    def find(index: int) -> int:
        while parent[index] != index:
            parent[index] = parent[parent[index]]
            index = parent[index]
        return index

    owner: dict[tuple[str, str], int] = {}
    for index, work in enumerate(works):
        for ext in work.external_ids:
            if ext.relationship not in ("self", "version-of"):
                continue
            if ext.key in owner:
                parent[find(index)] = find(owner[ext.key])
            else:
                owner[ext.key] = index
    members: dict[int, list[int]] = {}
    for index in range(len(works)):
        members.setdefault(find(index), []).append(index)
    groups = []
    for indexes in members.values():
        ids: dict[tuple[str, str], OrcidExternalId] = {}
        for index in indexes:
            for ext in works[index].external_ids:
                if ext.relationship in ("self", "version-of"):
                    ids.setdefault(ext.key, ext)
        groups.append(
            OrcidWorkGroup(external_ids=tuple(ids.values()), works=tuple(works[i] for i in indexes))
        )
    return tuple(groups)
