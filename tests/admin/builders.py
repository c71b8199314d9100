"""Small row builders for the admin tests: plain ORM writes, every foreign key filled in, so
a changelist that queried once per row would show it."""

from __future__ import annotations

import datetime
import itertools
from typing import Any

from django.utils import timezone

from ingest.models import ImportChunk, ImportIssue, ImportRun
from publications.models import (
    Authorship,
    FormerOpenAlexWorkId,
    MergedWork,
    NameOnlyAuthor,
    Source,
    Topic,
    Work,
    WorkListedBy,
    WorkSource,
    WorkTopic,
    WorkVersion,
)
from researchers.models import Affiliation, CVEntry, Follow, Institution, Researcher
from researchers.names import normalize_name

_serial = itertools.count(1)


def institution(name: str = "", **fields: Any) -> Institution:
    number = next(_serial)
    fields.setdefault("openalex_id", f"I{number}")
    return Institution.objects.create(name=name or f"Institution {number}", **fields)


def researcher(display_name: str = "", **fields: Any) -> Researcher:
    number = next(_serial)
    display_name = display_name or f"Researcher {number}"
    fields.setdefault("slug", f"researcher-{number}")
    fields.setdefault("openalex_id", f"A{number}")
    return Researcher.objects.create(
        display_name=display_name, name_normalized=normalize_name(display_name), **fields
    )


def source(name: str = "", **fields: Any) -> Source:
    number = next(_serial)
    fields.setdefault("openalex_id", f"S{number}")
    return Source.objects.create(name=name or f"Journal {number}", **fields)


def topic(name: str = "", **fields: Any) -> Topic:
    number = next(_serial)
    fields.setdefault("external_id", f"T{number}")
    return Topic.objects.create(name=name or f"Topic {number}", **fields)


def work(title: str = "", *, authors: tuple[Researcher, ...] = (), **fields: Any) -> Work:
    number = next(_serial)
    fields.setdefault("openalex_id", f"W{number}")
    created = Work.objects.create(
        title=title or f"Work {number}", authors_count=len(authors), **fields
    )
    for position, author in enumerate(authors, start=1):
        Authorship.objects.create(
            work=created, researcher=author, position=position, raw_name=author.display_name
        )
    return created


def import_run(**fields: Any) -> ImportRun:
    fields.setdefault("description", "demo/openalex/works.jsonl")
    return ImportRun.objects.create(**fields)


def import_issue(run: ImportRun, **fields: Any) -> ImportIssue:
    number = next(_serial)
    fields.setdefault("path", "demo/openalex/works.jsonl")
    fields.setdefault("line_number", number)
    fields.setdefault("entity", "work")
    fields.setdefault("external_id", f"W{number}")
    fields.setdefault("reason", "title is missing")
    return ImportIssue.objects.create(run=run, **fields)


def import_chunk(run: ImportRun, **fields: Any) -> ImportChunk:
    number = next(_serial)
    fields.setdefault("path", "demo/openalex/works.jsonl")
    fields.setdefault("start_line", number * 100)
    fields.setdefault("end_line", number * 100 + 100)
    fields.setdefault("next_line", number * 100)
    return ImportChunk.objects.create(run=run, **fields)


def running_run(**fields: Any) -> ImportRun:
    """A run half-way through: 4,321 of 10,000 records read, 3 of 8 chunks done."""
    values = {
        "status": ImportRun.Status.RUNNING,
        "records_total": 10_000,
        "read_count": 4321,
        "created_count": 4000,
        "updated_count": 200,
        "unchanged_count": 100,
        "failed_count": 21,
        "chunks_total": 8,
        "chunks_done": 3,
        "started_at": timezone.now() - datetime.timedelta(seconds=100),
        **fields,
    }
    return import_run(**values)


# One row of each model, with its related rows: used by the page and query-count tests.


def one_institution() -> Institution:
    return institution(country_code="FR", type="education")


def one_researcher() -> Researcher:
    return researcher(last_known_institution=institution())


def one_affiliation() -> Affiliation:
    return Affiliation.objects.create(
        researcher=researcher(), institution=institution(), role="Professor"
    )


def one_source() -> Source:
    return source(type="journal")


def one_topic() -> Topic:
    return topic(parent=topic(level="field"))


def one_work() -> Work:
    return work(source=source(), authors=(researcher(),), publication_year=2020)


def one_authorship() -> Authorship:
    return work(authors=(researcher(),)).authorships.get()


def one_work_topic() -> WorkTopic:
    return WorkTopic.objects.create(work=work(), topic=topic(), score=0.9)


def one_follow() -> Follow:
    from django.contrib.auth import get_user_model

    number = Follow.objects.count()
    reader = get_user_model().objects.create_user(
        username=f"reader{number}", email=f"reader{number}@example.org", password="x"
    )
    return Follow.objects.create(user=reader, researcher=researcher())


def one_import_run() -> ImportRun:
    return running_run()


def one_import_chunk() -> ImportChunk:
    return import_chunk(import_run())


def one_import_issue() -> ImportIssue:
    return import_issue(import_run())


def one_work_source() -> WorkSource:
    row = work()
    return WorkSource.objects.create(
        work=row, origin="crossref", origin_id=f"10.1234/{row.pk}", fields={"title": row.title}
    )


def one_work_version() -> WorkVersion:
    row = work()
    return WorkVersion.objects.create(
        work=row, kind=WorkVersion.Kind.PREPRINT, identifier=f"2401.{row.pk:05d}"
    )


def one_name_only_author() -> NameOnlyAuthor:
    person = researcher()
    return NameOnlyAuthor.objects.create(
        origin="bibtex", origin_id=f"entry{person.pk}", name_key="ada lovelace", researcher=person
    )


def one_merged_work() -> MergedWork:
    survivor = work()
    return MergedWork.objects.create(id=survivor.pk + 1_000_000, survivor=survivor)


def one_former_openalex_work_id() -> FormerOpenAlexWorkId:
    return FormerOpenAlexWorkId.objects.create(openalex_id=f"W9{next(_serial)}", work=work())


def one_work_listed_by() -> WorkListedBy:
    return WorkListedBy.objects.create(
        work=work(),
        researcher=researcher(),
        origin="orcid",
        origin_id="0000-0002-1825-0097:1",
        position=None,
    )


def one_cv_entry() -> CVEntry:
    return CVEntry.objects.create(
        researcher=researcher(),
        section="employment",
        organisation="University of Somewhere",
        role="Lecturer",
        start_year=2019,
        source="orcid",
        source_key="employment:1",
    )


ONE_ROW = {
    Institution: one_institution,
    Researcher: one_researcher,
    Affiliation: one_affiliation,
    Follow: one_follow,
    Source: one_source,
    Topic: one_topic,
    Work: one_work,
    Authorship: one_authorship,
    WorkTopic: one_work_topic,
    ImportRun: one_import_run,
    ImportChunk: one_import_chunk,
    ImportIssue: one_import_issue,
    WorkSource: one_work_source,
    WorkVersion: one_work_version,
    NameOnlyAuthor: one_name_only_author,
    MergedWork: one_merged_work,
    FormerOpenAlexWorkId: one_former_openalex_work_id,
    WorkListedBy: one_work_listed_by,
    CVEntry: one_cv_entry,
}
