"""A claimant adds works to their own record from a BibTeX file (issue 15, item 5).

Two steps, nothing written before the second:
1. bibtex_upload_preview: the file is checked (size, text encoding, entry count), read and
   mapped by the pipeline's own BibTeX reader and mapper (ingest.parsing), and
   planned: each entry is new, matches an existing work (which one, and whether it is on the
   record already), or is rejected with the parser's or mapper's reason. The file's text is
   kept server-side (the cache, keyed to the user and the record, for PENDING_SECONDS) under a
   random token; the person's browser holds only the token.
2. bibtex_upload_confirm: the kept text is read and planned again (the client's copy of the
   records is never trusted), and written as one ImportRun of source "bibtex" by the shared
   writer (batch_write) in one transaction: the rejected entries become its ImportIssues, and
   the record's metrics are refreshed in the same transaction (the batch's follow-up).

Attaching the works to the record: in each entry, the byline slot whose name is compatible
with the record's (display name or an alternate name: same family name, given names equal or
initials, LaTeX and accents resolved) is the claimant, even when written differently ('Smith,
A.', 'A. Smíth'); an entry where no author can be the claimant is rejected. The writer finds a
name-only author through NameOnlyAuthor (origin, origin id, name): that row is written for the
claimant's slot before the write, so the writer links the slot to the record, now and on every
re-import, and makes no L0 record for it. The other authors go through the writer's own name
resolution. A matched work whose shown byline comes from another source (OpenAlex, Crossref)
gets the claimant on the compatible slot of that byline when the slot holds no identified
person (no researcher, or an unclaimed L0 record made for that name); otherwise the entry is
added as a source of the work and the reason it was not attached is an import issue.

Entries are kept per record and file name ('upload-r<id>/<file name>:<key>'), so the same
file uploaded again finds its records unchanged and adds nothing.

Rate limits: previews and confirms are counted per user and per client address (the address
our proxies vouch for, bzpeer.http.client_address) with claims' sliding-window limiter, as the
other state changes are (CLAIMS_RATE_LIMITS "bibtex_upload" and "bibtex_confirm"); over
either, the service refuses with RateLimited (429, Retry-After) before reading the file or the
kept preview, so a refused confirm can be repeated later with the same token.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

import orjson
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from rest_framework import status

from bzpeer.errors import InvalidRequest, RateLimited, ServiceError
from bzpeer.users.models import User
from claims.ratelimit import RateLimited as ClaimsRateLimited
from claims.ratelimit import rate_limit_check
from ingest import sources
from ingest.bibtex.reader import bibtex_records
from ingest.models import ImportIssue, ImportRun
from ingest.records import BIBTEX, AuthorshipRecord, WorkRecord
from ingest.writer import prepare_works
from publications.models import Authorship, NameOnlyAuthor, Work, WorkSource
from researchers.models import Researcher
from researchers.names import normalize_name

from ..parsing import ParsedBatch, issue_text, parse_batch
from .batches import batch_write_isolating_refusals, run_counts_add
from .bibtex_claimant import claimant_attach_to_matched, claimant_names, claimant_slot, slot_name

logger = logging.getLogger(__name__)

MAX_BYTES = 2 * 1024 * 1024
MAX_ENTRIES = 500
# How long a preview can be confirmed.
PENDING_SECONDS = 30 * 60
_SAFE_NAME = re.compile(r"[^\w.-]+")
_CONTROL = re.compile(r"[\x00-\x08\x0e-\x1f]")


class UploadTooLarge(ServiceError):
    """The file or its number of entries is over the limit (413)."""

    status_code: int = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE


class PreviewExpired(ServiceError):
    """The preview to confirm is not (or no longer) kept: upload the file again (410)."""

    status_code: int = status.HTTP_410_GONE


@dataclass(frozen=True)
class PlannedEntry:
    """An entry that will be written: a new work, or a source of an existing one."""

    key: str
    title: str
    year: int | None
    authors: tuple[str, ...]
    claimant_as: str  # the byline name that is the claimant
    work_id: int | None = None  # the existing work it matches
    work_title: str = ""
    matched_by: str = ""  # 'DOI', 'arXiv id', 'title, year and first author', 'this file'
    on_record: bool = False  # the work already lists the claimant


@dataclass(frozen=True)
class RejectedEntry:
    key: str
    line: int | None
    reason: str


@dataclass
class UploadPlan:
    file_name: str
    origin_file: str = ""  # the ImportIssues' path and the start of the entries' origin ids
    new: list[PlannedEntry] = field(default_factory=list)
    matched: list[PlannedEntry] = field(default_factory=list)
    rejected: list[RejectedEntry] = field(default_factory=list)
    # What the confirm writes: the batch (rejected entries as its issues) and, per record
    # kept, the normalised name of the claimant's byline slot.
    batch: ParsedBatch = field(default_factory=ParsedBatch, repr=False)
    claimant_names: dict[str, str] = field(default_factory=dict, repr=False)


@dataclass(frozen=True)
class UploadResult:
    run: ImportRun
    created: int
    updated: int
    unchanged: int
    rejected: int
    not_attached: list[str]


def _origin_file(researcher: Researcher, file_name: str) -> str:
    """The entries' origin ids start with this: per record, so that two people's files with the
    same name and keys are never one record."""
    name = _SAFE_NAME.sub("-", PurePath(file_name or "upload.bib").name)[:100] or "upload.bib"
    return f"upload-r{researcher.pk}/{name}"


def bibtex_upload_decode(raw: bytes) -> str:
    """The file as text: UTF-8 (a BOM dropped), else Windows-1252/Latin-1. Raises
    UploadTooLarge over MAX_BYTES and InvalidRequest for an empty file or one that is not text
    in either encoding (a UTF-16 file, a PDF, an image)."""
    if len(raw) > MAX_BYTES:
        raise UploadTooLarge(
            f"The file is larger than {MAX_BYTES // (1024 * 1024)} MB; split it into smaller files."
        )
    if not raw.strip():
        raise InvalidRequest("The file is empty.")
    not_text = InvalidRequest(
        "The file is not a BibTeX text file in UTF-8 or Latin-1; export your bibliography as "
        "BibTeX (.bib) and upload that."
    )
    if b"\x00" in raw:
        raise not_text
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        try:
            text = raw.decode("cp1252")
        except UnicodeDecodeError:
            try:
                text = raw.decode("latin-1")
            except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes every byte
                raise not_text from None
    # Binary files that happen to decode are full of control characters; BibTeX never is.
    if len(_CONTROL.findall(text[:65536])) > 8:
        raise not_text
    return text


_RATE_LIMITED_WHAT = {"bibtex_upload": "BibTeX uploads", "bibtex_confirm": "BibTeX imports"}


def _rate_limit(action: str, user: User, client_address: str) -> None:
    """Count one attempt by the user and one by the client address; RateLimited (429) when
    either is over the action's limit."""
    try:
        # The address first: an attempt it refuses is not counted against the person.
        if client_address:
            rate_limit_check(action=action, key=f"ip:{client_address}")
        rate_limit_check(action=action, key=f"user:{user.pk}")
    except ClaimsRateLimited as refusal:
        retry_after = refusal.retry_after or 60
        minutes = max(1, round(retry_after / 60))
        raise RateLimited(
            f"Too many {_RATE_LIMITED_WHAT[action]} in a short time. Please try again in "
            f"about {minutes} minute{'s' if minutes != 1 else ''}.",
            retry_after=retry_after,
        ) from refusal


def _issue_place(issue: ImportIssue) -> tuple[str, int | None, str]:
    """The entry's key, its line in the file and what is wrong with it, from the raw record
    the reader wrote. An entry the reader could not read carries its reason, said for the
    researcher (ingest.bibtex.diagnose); the issue's own reason starts with the stored file's
    path, which means nothing to them."""
    try:
        raw = orjson.loads(issue.raw)
    except orjson.JSONDecodeError:
        return issue.external_id, None, issue.reason
    if not isinstance(raw, dict):
        return issue.external_id, None, issue.reason
    line = raw.get("line")
    error = raw.get("error")
    reason = error if isinstance(error, str) and error else issue.reason
    return (
        str(raw.get("key") or issue.external_id),
        line if isinstance(line, int) and line > 0 else None,
        reason,
    )


def bibtex_upload_plan(*, researcher: Researcher, text: str, file_name: str) -> UploadPlan:
    """Read, map and plan a BibTeX text for `researcher` (reads the database, writes nothing).
    Raises InvalidRequest for a text without entries, UploadTooLarge over MAX_ENTRIES."""
    origin_file = _origin_file(researcher, file_name)
    raws = list(bibtex_records(text, file_name=origin_file))
    if not raws:
        raise InvalidRequest(
            "No BibTeX entries were found in this file (entries start with @article{, "
            "@inproceedings{, @book{ ...)."
        )
    if len(raws) > MAX_ENTRIES:
        raise UploadTooLarge(
            f"The file holds {len(raws)} entries; at most {MAX_ENTRIES} can be added at once. "
            "Split it into smaller files."
        )
    batch = parse_batch(
        enumerate(raws, start=1),
        mapper=sources.mapper_of(BIBTEX),
        source=BIBTEX,
        path=origin_file,
        run_id=0,
    )
    plan = UploadPlan(file_name=PurePath(file_name).name, origin_file=origin_file, batch=batch)
    claimant = claimant_names(researcher)
    kept: list[WorkRecord] = []
    slots: dict[str, AuthorshipRecord] = {}
    for record in batch.records.get("works", []):
        slot = claimant_slot(record, claimant)
        if slot is None:
            names = ", ".join(a.raw_name for a in record.authorships) or "no authors"
            batch.issues.append(
                ImportIssue(
                    run_id=0,
                    path=origin_file,
                    entity="works",
                    external_id=issue_text(f"{BIBTEX}:{record.origin_key}", 64),
                    reason=issue_text(
                        f"none of its authors ({names}) can be {researcher.display_name}: "
                        "only your own works can be added to your record"
                    ),
                    raw=orjson.dumps({"key": record.origin_key.rsplit(":", 1)[-1]}).decode(),
                )
            )
            continue
        kept.append(record)
        slots[record.origin_key] = slot
    batch.records["works"] = kept
    batch.prepared["works"] = prepare_works(kept)
    plan.claimant_names = {
        key: normalize_name(slot_name(slot))[:500] for key, slot in slots.items()
    }
    for issue in batch.issues:
        if issue.severity == ImportIssue.Severity.ERROR:
            key, line, reason = _issue_place(issue)
            plan.rejected.append(RejectedEntry(key=key, line=line, reason=reason))
    _plan_matches(plan, researcher, kept, slots)
    return plan


def _plan_matches(
    plan: UploadPlan,
    researcher: Researcher,
    records: Sequence[WorkRecord],
    slots: dict[str, AuthorshipRecord],
) -> None:
    """Which existing work each record is, as the writer will find it (writer/targets.py): the
    work its source record made before, then DOI, arXiv id, and title key for a record with
    neither. Three queries whatever the number of entries."""
    contributions = plan.batch.prepared["works"].contributions
    origin_ids = [r.origin_key[:400] for r in records]
    known = dict(
        WorkSource.objects.filter(origin=BIBTEX, origin_id__in=origin_ids).values_list(
            "origin_id", "work_id"
        )
    )
    dois = [c["doi"] for c in contributions if c["doi"]]
    arxiv_ids = [c["arxiv_id"] for c in contributions if c["arxiv_id"]]
    title_keys = [
        c["title_key"]
        for c in contributions
        if c["title_key"] and not c["doi"] and not c["arxiv_id"]
    ]
    works = {
        w.pk: w
        for w in Work.objects.filter(
            Q(pk__in=known.values())
            | Q(doi__in=dois)
            | Q(arxiv_id__in=arxiv_ids)
            | Q(title_key__in=title_keys)
        ).only("id", "title", "doi", "arxiv_id", "title_key")
    }
    by_key: dict[tuple[str, str], int] = {}
    for work in sorted(works.values(), key=lambda w: w.pk):
        for kind, value in (("doi", work.doi), ("arxiv", work.arxiv_id), ("title", work.title_key)):
            if value:
                by_key.setdefault((kind, value), work.pk)
    on_record = set(
        Authorship.objects.filter(work_id__in=list(works), researcher=researcher).values_list(
            "work_id", flat=True
        )
    )
    for record, fields in zip(records, contributions, strict=True):
        work_id: int | None = known.get(record.origin_key[:400])
        matched_by = "this file, uploaded before" if work_id else ""
        keys = [("doi", fields["doi"], "DOI"), ("arxiv", fields["arxiv_id"], "arXiv id")]
        if not fields["doi"] and not fields["arxiv_id"]:
            keys.append(("title", fields["title_key"], "title, year and first author"))
        for kind, value, label in keys:
            if work_id is None and value and (kind, value) in by_key:
                work_id, matched_by = by_key[(kind, value)], label
        year = record.published.year if record.published else None
        entry = PlannedEntry(
            key=record.origin_key.rsplit(":", 1)[-1],
            title=record.title,
            year=year,
            authors=tuple(a.raw_name for a in record.authorships),
            claimant_as=slots[record.origin_key].raw_name,
            work_id=work_id,
            work_title=works[work_id].title if work_id in works else "",
            matched_by=matched_by,
            on_record=work_id in on_record,
        )
        (plan.matched if work_id else plan.new).append(entry)


def _pending_key(user: User, researcher: Researcher, token: str) -> str:
    return f"bibtex-upload:{user.pk}:{researcher.pk}:{token}"


def bibtex_upload_preview(
    *, user: User, researcher: Researcher, raw: bytes, file_name: str, client_address: str = ""
) -> tuple[str, UploadPlan]:
    """Check and plan an uploaded file; keep its text for the confirm. Returns the token that
    names it and the plan. The caller has checked that `user` is the record's approved
    claimant. Raises RateLimited (see the module docstring), UploadTooLarge or InvalidRequest
    (see bibtex_upload_decode and _plan)."""
    _rate_limit("bibtex_upload", user, client_address)
    text = bibtex_upload_decode(raw)
    plan = bibtex_upload_plan(researcher=researcher, text=text, file_name=file_name)
    token = secrets.token_urlsafe(24)
    cache.set(
        _pending_key(user, researcher, token),
        {"text": text, "file_name": file_name},
        timeout=PENDING_SECONDS,
    )
    return token, plan


def bibtex_upload_confirm(
    *, user: User, researcher: Researcher, token: str, client_address: str = ""
) -> UploadResult:
    """Write what the preview named `token` planned (planned again from the kept text). Once:
    the kept text is dropped. Raises RateLimited (see the module docstring), PreviewExpired
    when nothing is kept under the token for this user and record. The caller has checked
    that `user` is the approved claimant."""
    _rate_limit("bibtex_confirm", user, client_address)
    key = _pending_key(user, researcher, token)
    pending = cache.get(key) if token else None
    if not isinstance(pending, dict):
        raise PreviewExpired(
            "This preview has expired or was confirmed already; upload the file again."
        )
    cache.delete(key)
    plan = bibtex_upload_plan(
        researcher=researcher, text=pending["text"], file_name=pending["file_name"]
    )
    batch = plan.batch
    with transaction.atomic():
        now = timezone.now()
        run = ImportRun.objects.create(
            source=BIBTEX,
            description=(
                f"BibTeX upload by user {user.pk} to researcher {researcher.slug}: {plan.file_name}"
            ),
            status=ImportRun.Status.RUNNING,
            records_total=batch.read,
            started_at=now,
            last_progress_at=now,
        )
        for issue in batch.issues:
            issue.run_id = run.pk
        records: list[WorkRecord] = batch.records["works"]
        # The claimant's slot of each entry is them, now and on every re-import of the entry.
        NameOnlyAuthor.objects.bulk_create(
            [
                NameOnlyAuthor(
                    origin=BIBTEX,
                    origin_id=record.origin_key[:400],
                    name_key=plan.claimant_names[record.origin_key],
                    researcher=researcher,
                )
                for record in records
                if plan.claimant_names[record.origin_key]
            ],
            update_conflicts=True,
            unique_fields=["origin", "origin_id", "name_key"],
            update_fields=["researcher"],
        )
        # The record's metrics, trust and pages follow up in this transaction (the writer's
        # default for a batch written outside a run of chunks).
        totals = batch_write_isolating_refusals(batch, run_id=run.pk, path=plan.origin_file)
        not_attached = claimant_attach_to_matched(
            run=run,
            researcher=researcher,
            records=plan.batch.records["works"],
            origin_file=plan.origin_file,
        )
        run_counts_add(run.pk, read=batch.read, totals=totals, chunk_finished=False)
        ImportRun.objects.filter(pk=run.pk).update(
            status=ImportRun.Status.SUCCEEDED, finished_at=timezone.now()
        )
    run.refresh_from_db()
    logger.info(
        "BibTeX upload of user %s to researcher %s: run %s, %s created, %s updated",
        user.pk,
        researcher.pk,
        run.pk,
        totals["created"],
        totals["updated"],
    )
    return UploadResult(
        run=run,
        created=totals["created"],
        updated=totals["updated"],
        unchanged=totals["unchanged"],
        rejected=totals["failed"],
        not_attached=not_attached,
    )
