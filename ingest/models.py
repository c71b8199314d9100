from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.db import models


class PendingFollowUp(models.Model):
    """The researchers one committed import batch touched, whose metrics, slice summaries and
    trust score are refreshed later, once for many batches (ingest.services.follow_up).

    Written in the batch's own transaction, so a batch that commits is never forgotten and one
    that rolls back leaves nothing. One row per batch, with no unique key: two workers' batches
    that touch the same prolific researcher never wait for each other here.
    """

    researcher_ids = ArrayField(models.BigIntegerField())
    created_at = models.DateTimeField(auto_now_add=True)
    # A drain that took the row holds it until then; a drain that died lets it go at that time.
    claimed_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "imports_pendingfollowup"  # the table it had in the imports app
        indexes = [models.Index(fields=["claimed_until", "id"], name="followup_claimable")]

    def __str__(self) -> str:
        return f"follow-up of {len(self.researcher_ids)} researchers (batch {self.pk})"


class ImportRun(models.Model):
    class Status(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"

    source = models.CharField(max_length=30, default="openalex")
    description = models.TextField(help_text="The paths or the query this run imports.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    records_total = models.PositiveBigIntegerField(
        default=0, help_text="Lines planned, when known."
    )
    read_count = models.PositiveBigIntegerField(default=0)
    created_count = models.PositiveBigIntegerField(default=0)
    updated_count = models.PositiveBigIntegerField(default=0)
    unchanged_count = models.PositiveBigIntegerField(default=0)
    failed_count = models.PositiveBigIntegerField(default=0)
    chunks_total = models.PositiveIntegerField(default=0)
    chunks_done = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    last_progress_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # A run of records fetched from an API, with what its task needs to run it again:
    # "query" (an OpenAlex API filter, the one value) or a source's fetcher option ("orcid",
    # "doi", ...) and its values. Empty for a run of files, whose chunks hold the plan.
    fetch_option = models.CharField(max_length=30, blank=True)
    fetch_values = ArrayField(models.TextField(), default=list, blank=True)

    class Meta:
        db_table = "publications_importrun"  # the table it had in publications
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"Import #{self.pk} ({self.source}, {self.status})"

    @property
    def is_finished(self) -> bool:
        return self.status in {self.Status.SUCCEEDED, self.Status.FAILED}


class ImportChunk(models.Model):
    """A slice of one input file, or a run of small files read one after the other (paths; an
    ORCID folder holds a record per file). Lines number the chunk's records. next_line only
    moves forward, in the transaction of the batch it covers, so a chunk restarted after a
    crash resumes at its last committed batch."""

    run = models.ForeignKey(ImportRun, on_delete=models.CASCADE, related_name="chunks")
    path = models.TextField()
    # The files of a chunk of small files, in reading order; path is then their folder.
    paths = ArrayField(models.TextField(), default=list, blank=True)
    entity = models.CharField(max_length=20, blank=True)
    start_line = models.PositiveBigIntegerField()
    end_line = models.PositiveBigIntegerField()
    start_byte = models.PositiveBigIntegerField(null=True, blank=True)
    next_line = models.PositiveBigIntegerField()
    next_byte = models.PositiveBigIntegerField(null=True, blank=True)
    done = models.BooleanField(default=False)

    class Meta:
        db_table = "publications_importchunk"
        ordering = ["run", "id"]

    def __str__(self) -> str:
        return f"{self.path} [{self.start_line}, {self.end_line})"


class ImportIssue(models.Model):
    class Severity(models.TextChoices):
        ERROR = "error", "Rejected"
        WARNING = "warning", "Imported with a warning"

    run = models.ForeignKey(ImportRun, on_delete=models.CASCADE, related_name="issues")
    severity = models.CharField(max_length=10, choices=Severity.choices, default=Severity.ERROR)
    path = models.TextField(blank=True)
    line_number = models.PositiveBigIntegerField(null=True, blank=True)
    entity = models.CharField(max_length=20, blank=True)
    external_id = models.CharField(max_length=64, blank=True)
    reason = models.TextField()
    raw = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "publications_importissue"
        ordering = ["run", "id"]
        indexes = [models.Index(fields=["run", "severity"], name="import_issue_run_idx")]

    def __str__(self) -> str:
        return f"{self.external_id or self.path}:{self.line_number} {self.reason}"
