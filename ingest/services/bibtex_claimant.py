"""Which byline slot of a BibTeX entry is the claimant, and attaching the claimant to the works
their entries matched (ingest.services.bibtex_upload plans and confirms the upload).

A slot is the claimant when its name is compatible with one of the record's names (the display
name or an alternate name: same family name, given names equal or initials, LaTeX and accents
resolved), the most compatible one first.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection

from ingest.models import ImportIssue, ImportRun
from ingest.records import BIBTEX, AuthorshipRecord, WorkRecord
from ingest.writer import WriteResult
from ingest.writer.slots import Slot, SlotWrites, byline_slots, slots_write
from publications.models import Authorship, Work, WorkSource
from researchers.models import Researcher
from researchers.names import GivenNames, PersonName, names_compare, person_name

from .follow_up import researchers_follow_up


def claimant_names(researcher: Researcher) -> list[PersonName]:
    """The record's display name and alternate names, parsed, each once."""
    names = [researcher.display_name, *researcher.alternate_names]
    return [person_name(name) for name in dict.fromkeys(n for n in names if n and n.strip())]


def slot_name(authorship: AuthorshipRecord) -> str:
    """The name a byline slot shows: its author's display name, else the raw name."""
    author = authorship.author
    return (author.display_name if author else "") or authorship.raw_name


def claimant_slot(record: WorkRecord, claimant: Sequence[PersonName]) -> AuthorshipRecord | None:
    """The byline slot that is the claimant: the person whose name is most compatible with one
    of the claimant's names (the first of equals); None when no author can be them."""
    best: tuple[int, int] | None = None
    chosen = None
    for authorship in record.authorships:
        author = authorship.author
        if author is None:  # an organisation
            continue
        name = person_name(
            slot_name(authorship), given=author.given_name, family=author.family_name
        )
        level = max((names_compare(name, own) for own in claimant), default=0)
        if level == GivenNames.INCOMPATIBLE:
            continue
        score = (int(level), -authorship.position)
        if best is None or score > best:
            best, chosen = score, authorship
    return chosen


def claimant_attach_to_matched(
    *, run: ImportRun, researcher: Researcher, records: list[WorkRecord], origin_file: str
) -> list[str]:
    """The claimant on the matched works whose shown byline is another source's and does not
    list them yet: on the slot most compatible with their name, when it names nobody or an
    unclaimed name-only record (the writer's slot rule, writer/slots.py). Returns the titles of
    the works they could not be attached to (each an import issue). A fixed number of queries."""
    work_of = dict(
        WorkSource.objects.filter(
            origin=BIBTEX, origin_id__in=[r.origin_key[:400] for r in records]
        ).values_list("origin_id", "work_id")
    )
    work_ids = set(work_of.values())
    listed = set(
        Authorship.objects.filter(work_id__in=work_ids, researcher=researcher).values_list(
            "work_id", flat=True
        )
    )
    missing = sorted(work_ids - listed)
    if not missing:
        return []
    claimant = claimant_names(researcher)
    titles = dict(Work.objects.filter(pk__in=missing).values_list("pk", "title"))
    writes, written = SlotWrites(), WriteResult()
    refused: list[tuple[int, Slot | None]] = []
    with connection.cursor() as cursor:
        bylines = byline_slots(cursor.cursor, missing)
        for work_id in missing:
            slot = most_compatible(bylines.get(work_id, []), claimant)
            if slot is not None and slot.replaceable:
                writes.take(work_id, slot, researcher.pk, written)
            else:
                refused.append((work_id, slot))
        slots_write(cursor.cursor, writes)
    holders = dict(
        Researcher.objects.filter(
            pk__in=[slot.researcher_id for _, slot in refused if slot is not None]
        ).values_list("pk", "slug")
    )
    issues = [
        ImportIssue(
            run=run,
            severity=ImportIssue.Severity.WARNING,
            path=origin_file,
            entity="works",
            external_id=str(work_id),
            reason=f"added as a source of the work but not attached to {researcher.slug}: "
            + (
                f"work {work_id} lists {slot.raw_name!r} as another researcher "
                f"({holders.get(slot.researcher_id or 0, slot.researcher_id)})"
                if slot is not None
                else f"work {work_id}'s author list has no name that can be "
                f"{researcher.display_name}"
            ),
        )
        for work_id, slot in refused
    ]
    ImportIssue.objects.bulk_create(issues)
    researchers_follow_up(
        researcher_ids={researcher.pk}
        | written.touched_researcher_ids
        | written.unlinked_researcher_ids
    )
    return [titles.get(int(issue.external_id), issue.external_id) for issue in issues]


def most_compatible(slots: Sequence[Slot], claimant: Sequence[PersonName]) -> Slot | None:
    """The slot whose name is most compatible with one of the claimant's (the first of equals),
    whoever holds it: the caller attaches them only when it is replaceable, and says who holds
    it otherwise."""
    best: tuple[int, int] | None = None
    chosen = None
    for slot in slots:
        level = max((names_compare(person_name(slot.raw_name), own) for own in claimant), default=0)
        if level == GivenNames.INCOMPATIBLE:
            continue
        score = (int(level), -slot.position)
        if best is None or score > best:
            best, chosen = score, slot
    return chosen
