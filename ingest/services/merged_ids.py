"""OpenAlex merges applied (issue 15, item 8): when an OpenAlex import run finishes, the
`merged_ids` files under its paths (ingest.openalex.merged_ids) are applied to
the records bzpeer holds.

- Authors: the record of the merged-away id is merged into the survivor's by claims'
  researcher_merge (as a moderator's merge, by the system): authorships, follows, claims,
  affiliations move; the old record keeps its row with merged_into set, so its page answers 301
  and an API lookup by the old id finds the survivor. A survivor bzpeer does not hold yet is
  created from the old record (the next import of it fills it in). A merge researcher_merge
  refuses (two ORCID iDs, two claimants) is an import issue, and nothing moves.
- Works: the merged-away work goes into the survivor's: its byline moves when the survivor has
  none (else the survivor's byline stands), its topics, versions and the other sources'
  contributions move; what refers to it moves as when the writer finds two works to be one
  (ingest.writer.work_references_move): its id in MergedWork, so its page and
  API URL answer 301 with the survivor (a chain, A into B and later B into C, leads from A to C
  in one hop), who listed it (ORCID), split requests and invitation anchors; the old work is
  deleted; coauthor edges and the researchers' figures follow. A survivor bzpeer does not hold
  yet: the old work takes its id. Either way the old id stays a lookup key
  (FormerOpenAlexWorkId): the API's ?openalex_id= finds the work by it.

Only records bzpeer holds are touched: a file of millions of rows costs one lookup per 10,000
rows, and a merge per record found. Applying the same files again changes nothing, and a
chain within one file is followed whatever the order of its rows.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from django.db import connection, transaction

from claims.services import ClaimError, researcher_merge
from graph.services import coauthor_bylines_before, coauthor_edges_record_batch
from ingest.models import ImportIssue, ImportRun
from ingest.openalex.merged_ids import (
    MergedId,
    merged_id_files,
    read_merged_ids,
)
from ingest.records import OPENALEX
from ingest.writer import researcher_slug, work_references_move
from publications.models import (
    Authorship,
    FormerOpenAlexWorkId,
    Work,
    WorkListedBy,
    WorkSource,
    WorkTopic,
    WorkVersion,
)
from researchers.models import Researcher

from .follow_up import researchers_follow_up

logger = logging.getLogger(__name__)

LOOKUP_ROWS = 10_000


@dataclass
class MergeCounts:
    researchers_merged: int = 0
    works_merged: int = 0
    works_renamed: int = 0
    refused: int = 0
    unreadable: int = 0


def _batched(rows: Iterable[MergedId | str], size: int) -> Iterator[list[MergedId | str]]:
    iterator = iter(rows)
    while batch := list(itertools.islice(iterator, size)):
        yield batch


def _issue(run_id: int, entity: str, external_id: str, reason: str) -> ImportIssue:
    return ImportIssue(
        run_id=run_id,
        severity=ImportIssue.Severity.WARNING,
        path="merged_ids",
        entity=entity,
        external_id=external_id[:64],
        reason=reason,
    )


def _survivor_for(old: Researcher, survivor_id: str) -> Researcher:
    """The survivor's record; made from the old one when bzpeer does not hold it yet."""
    survivor = Researcher.objects.filter(openalex_id=survivor_id).first()
    while survivor is not None and survivor.merged_into_id is not None:
        survivor = survivor.merged_into  # merged again since: the last survivor
    if survivor is not None:
        return survivor
    return Researcher.objects.create(
        display_name=old.display_name,
        name_normalized=old.name_normalized,
        slug=researcher_slug(old.display_name, survivor_id),
        openalex_id=survivor_id,
        content_hash="",  # the next import of the survivor's own record fills it in
    )


def _researchers_apply(run_id: int, merges: list[MergedId], counts: MergeCounts) -> None:
    olds = {
        r.openalex_id: r
        for r in Researcher.objects.filter(
            openalex_id__in=[m.merged_id for m in merges], merged_into__isnull=True
        )
    }
    for merge in merges:
        old = olds.get(merge.merged_id)
        if old is None:
            continue  # not held, or merged already: nothing to do
        try:
            with transaction.atomic():
                survivor = _survivor_for(old, merge.survivor_id)
                if survivor.pk == old.pk:
                    continue
                researcher_merge(
                    source=old,
                    survivor=survivor,
                    moderator=None,
                    reason=(
                        f"OpenAlex merged {merge.merged_id} into {merge.survivor_id}"
                        f" ({merge.merge_date or 'undated'})."
                    ),
                )
        except ClaimError as refusal:
            counts.refused += 1
            _issue(
                run_id,
                "authors",
                merge.merged_id,
                f"not merged into {merge.survivor_id}: {refusal}",
            ).save()
            continue
        counts.researchers_merged += 1


def work_merge(*, source: Work, survivor: Work) -> None:
    """Move what hangs off `source` to `survivor` and delete `source`. Caller holds the
    transaction."""
    # Locked in id order, as the writer locks the works it updates and absorbs.
    list(
        Work.objects.select_for_update()
        .filter(pk__in=[source.pk, survivor.pk])
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    coauthor_bylines_before(work_ids=[source.pk, survivor.pk])
    researcher_ids = set(
        Authorship.objects.filter(
            work__in=[source, survivor], researcher__isnull=False
        ).values_list("researcher_id", flat=True)
    ) | set(
        WorkListedBy.objects.filter(work__in=[source, survivor]).values_list(
            "researcher_id", flat=True
        )
    )
    if not Authorship.objects.filter(work=survivor).exists():
        Authorship.objects.filter(work=source).update(
            work=survivor, work_created_at=survivor.created_at
        )
    kept_topics = WorkTopic.objects.filter(work=survivor).values("topic")
    WorkTopic.objects.filter(work=source).exclude(topic__in=kept_topics).update(
        work=survivor, work_created_at=survivor.created_at
    )
    for version in WorkVersion.objects.filter(work=source):
        if not WorkVersion.objects.filter(
            work=survivor, kind=version.kind, identifier=version.identifier
        ).exists():
            WorkVersion.objects.filter(pk=version.pk).update(work=survivor)
    # Other sources' contributions now describe the survivor; OpenAlex's own copy goes.
    WorkSource.objects.filter(work=source).exclude(origin=OPENALEX).update(work=survivor)
    # Its id (the 301), who listed it, split requests, invitation anchors: as the writer's merge.
    with connection.cursor() as cursor:
        work_references_move(cursor.cursor, [(source.pk, survivor.pk)])
    source.delete()
    coauthor_edges_record_batch(work_ids={survivor.pk})
    researchers_follow_up(researcher_ids=researcher_ids)


def _chain(openalex_id: str, forward: dict[str, str]) -> list[str]:
    """The ids a chain of the batch's merges leads through from openalex_id, itself first and
    the last survivor last (A into B, B into C: A, B, C), in any order of the rows; a cycle
    (bad data) stops where it would come back."""
    chain = [openalex_id]
    while (next_id := forward.get(chain[-1])) is not None and next_id not in chain:
        chain.append(next_id)
    return chain


def _works_apply(merges: list[MergedId], counts: MergeCounts) -> None:
    olds = {
        w.openalex_id: w for w in Work.objects.filter(openalex_id__in=[m.merged_id for m in merges])
    }
    if not olds:
        return
    forward = {m.merged_id: m.survivor_id for m in merges}
    chains = {m.merged_id: _chain(m.merged_id, forward) for m in merges}
    last = {merged_id: chain[-1] for merged_id, chain in chains.items()}
    survivors = {w.openalex_id: w for w in Work.objects.filter(openalex_id__in=set(last.values()))}
    for merge in merges:
        # Each old work is applied once: a repeated row finds nothing to do.
        old = olds.pop(merge.merged_id, None)
        survivor_id = last[merge.merged_id]
        if old is None or survivor_id == merge.merged_id:
            continue
        with transaction.atomic():
            survivor = survivors.get(survivor_id)
            if survivor is None:
                # The old work is the survivor now: it takes its id, and the survivor's record
                # updates it when imported.
                Work.objects.filter(pk=old.pk).update(openalex_id=survivor_id)
                WorkSource.objects.filter(origin=OPENALEX, origin_id=merge.merged_id).update(
                    origin_id=survivor_id
                )
                survivors[survivor_id] = old
                counts.works_renamed += 1
            elif survivor.pk != old.pk:
                work_merge(source=old, survivor=survivor)
                counts.works_merged += 1
            # Every id the chain passed through (the old one, and those of works bzpeer never
            # held) finds the work from now on.
            FormerOpenAlexWorkId.objects.bulk_create(
                [
                    FormerOpenAlexWorkId(openalex_id=former_id, work_id=survivors[survivor_id].pk)
                    for former_id in chains[merge.merged_id][:-1]
                ],
                update_conflicts=True,
                unique_fields=["openalex_id"],
                update_fields=["work"],
            )


def openalex_merges_apply(*, run_id: int, paths: Sequence[str]) -> MergeCounts:
    """Apply every merged_ids file under paths (see the module docstring)."""
    counts = MergeCounts()
    for entity, path in merged_id_files(paths):
        for rows in _batched(read_merged_ids(entity, path), LOOKUP_ROWS):
            unreadable = [row for row in rows if isinstance(row, str)]
            if unreadable:
                counts.unreadable += len(unreadable)
                ImportIssue.objects.bulk_create(
                    _issue(run_id, entity, "", reason) for reason in unreadable
                )
            merges = [row for row in rows if isinstance(row, MergedId)]
            if entity == "authors":
                _researchers_apply(run_id, merges, counts)
            else:
                _works_apply(merges, counts)
    if any(vars(counts).values()):
        logger.info("import run %s: OpenAlex merges applied: %s", run_id, counts)
    return counts


def openalex_merges_apply_for_run(*, run_id: int) -> MergeCounts | None:
    """The merges of a finished OpenAlex run (its paths are its description, one a line)."""
    run = ImportRun.objects.filter(id=run_id, source=OPENALEX).first()
    if run is None:
        return None
    return openalex_merges_apply(run_id=run_id, paths=run.description.splitlines())
