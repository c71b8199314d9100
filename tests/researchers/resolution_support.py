"""Shared by the resolver's tests: records written through the real pipeline, checksum-valid
ORCID iDs, and a cursor that counts statements."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from ingest.models import ImportRun
from ingest.parsing import ParsedBatch
from ingest.records import (
    CROSSREF,
    AuthorRef,
    AuthorshipRecord,
    InstitutionRef,
    WorkRecord,
    partial_date,
)
from ingest.services.batches import batch_write
from ingest.writer import prepare_works


def orcid(serial: int) -> str:
    """A checksum-valid ORCID iD (ISO 7064 11,2) made from a serial number."""
    digits = f"{serial:015d}"
    total = 0
    for digit in digits:
        total = (total + int(digit)) * 2
    check = (12 - total % 11) % 11
    base = digits + ("X" if check == 10 else str(check))
    return "-".join(base[i : i + 4] for i in range(0, 16, 4))


def write(*records: WorkRecord) -> dict[str, int]:
    run = ImportRun.objects.create(source="test", description="resolver test")
    batch = ParsedBatch(read=len(records), records={"works": list(records)})
    batch.prepared["works"] = prepare_works(list(records))
    with transaction.atomic():
        return batch_write(batch, run_id=run.id, path="resolver test")


def author(
    position: int,
    name: str,
    *,
    orcid_id: str | None = None,
    openalex_id: str | None = None,
    dblp: str | None = None,
    institutions: tuple[str, ...] = (),
    affiliations: tuple[str, ...] = (),
) -> AuthorshipRecord:
    return AuthorshipRecord(
        position=position,
        raw_name=name,
        author=AuthorRef(display_name=name, orcid=orcid_id, openalex_id=openalex_id, dblp=dblp),
        institutions=tuple(InstitutionRef(openalex_id=i, name=i) for i in institutions),
        affiliation_names=affiliations,
    )


def crossref_work(doi: str, *authors: AuthorshipRecord, title: str = "") -> WorkRecord:
    return WorkRecord(
        origin=CROSSREF,
        origin_id=doi,
        doi=doi,
        title=title or f"A study numbered {doi}",
        published=partial_date(2022),
        authorships=tuple(authors),
    )


class CountingCursor:
    """Wraps a psycopg cursor and counts execute() calls (COPY included)."""

    def __init__(self, cursor: Any) -> None:
        self._cursor = cursor
        self.statements = 0

    def execute(self, *args: Any, **kwargs: Any) -> Any:
        self.statements += 1
        return self._cursor.execute(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._cursor, name)
