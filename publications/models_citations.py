"""The citation graph and what is derived from it (issue 25): citations and the references
waiting for their work, a work's related works and their bookkeeping, novelty. Models of the
publications app (publications.models re-exports them; they name Work and Topic by string,
as publications.models imports this module)."""

from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import BrinIndex
from django.db import models
from django.db.models.functions import Now


class Citation(models.Model):
    """`citing` lists `cited` among its references, both works held here: the citation graph
    (ingest.writer.citations writes it). One row per pair, whatever the sources and however
    many identifiers the reference list named the cited work by; never a work citing itself.
    Keyed by the pair itself: at OpenAlex's scale (billions of references) a surrogate id
    would be a second index of the same size."""

    pk = models.CompositePrimaryKey("citing", "cited")
    # No foreign key constraints in the database: checked at each commit, they cost the import
    # a lookup and a row lock of both works per citation (30-40 a work), more than the rest of
    # the citation write. The writer makes a citation only from works it has just found
    # (ingest/writer/citations.py), moves them before it deletes a merged work (absorb.py),
    # and Django's delete cascades to them as it would with the constraint.
    # The primary key leads with citing: no index of its own.
    citing = models.ForeignKey(
        "publications.Work",
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    # citation_cited_idx (cited, citing) serves "cited by" without a visit to the table.
    cited = models.ForeignKey(
        "publications.Work",
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )

    class Meta:
        indexes = [models.Index(fields=["cited", "citing"], name="citation_cited_idx")]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(citing=models.F("cited")), name="citation_not_self"
            )
        ]

    def __str__(self) -> str:
        return f"work {self.citing_id} cites work {self.cited_id}"


class UnresolvedReference(models.Model):
    """A reference to a work not held here (yet), kept by its identifier ("openalex:W123",
    "doi:10.1000/x"): it becomes a Citation the moment a work with that identifier arrives,
    from any source (ingest.writer.citations)."""

    pk = models.CompositePrimaryKey("citing", "identifier")
    # No database constraint, as Citation's (the same cost, the same guarantees by the writer).
    citing = models.ForeignKey(
        "publications.Work",
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )
    identifier = models.CharField(max_length=320)
    created_at = models.DateTimeField(db_default=Now())

    class Meta:
        indexes = [
            models.Index(fields=["identifier"], name="unresolved_reference_id_idx"),
            # Rows arrive in time order: a BRIN index finds the recent ones (the sweep of
            # ingest.services.citations) at a fraction of a B-tree's upkeep.
            BrinIndex(fields=["created_at"], name="unresolved_reference_new_idx"),
        ]

    def __str__(self) -> str:
        return f"work {self.citing_id} cites {self.identifier}"


class NoveltyGap(models.TextChoices):
    """Why a work has no novelty percentile: the data is too thin to give one."""

    NONE = "", "computed"
    NO_YEAR = "no_year", "its year of publication is not known"
    FEW_REFERENCES = "few_references", "too few of its references are held with their journal"
    THIN_HISTORY = (
        "thin_history",
        "too few earlier works are held to tell a new pair of journals from an old one",
    )
    NO_FIELD = "no_field", "its field is not known"
    SMALL_BASELINE = "small_baseline", "too few works of its field and year to compare it with"


def percentile_label(percentile: float | None) -> str:
    """A percentile as the pages show it ("61%"), rounded half up; "" for none."""
    if percentile is None:
        return ""
    return f"{int(percentile + 0.5)}%"


class WorkNovelty(models.Model):
    """A work's novelty after Wang, Veugelers and Stephan (2017), as docs/novelty.md defines it
    (publications.services.novelty computes it): the pairs of journals its held references
    combine for the first time, each weighted by how far apart the two journals are, summed;
    and that score's percentile among the works of its field and year. Derived data: rewritten
    by every run; an absorbed work's row goes with it (cascade)."""

    work = models.OneToOneField(
        "publications.Work", primary_key=True, on_delete=models.CASCADE, related_name="novelty"
    )
    publication_year = models.PositiveSmallIntegerField(null=True)
    # The OpenAlex field of the work's primary topic (or that topic, without a field above it).
    field = models.ForeignKey(
        "publications.Topic", null=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    references_held = models.PositiveIntegerField(default=0)
    # Held references whose work has a journal (Work.source): what the pairs are made of.
    references_with_journal = models.PositiveIntegerField(default=0)
    journals = models.PositiveIntegerField(default=0)
    pairs = models.PositiveIntegerField(default=0)
    new_pairs = models.PositiveIntegerField(default=0)
    score = models.FloatField(default=0.0)
    # The new pairs, farthest first, as [journal id, journal id, distance] (at most
    # services.novelty.PAIRS_KEPT of them; new_pairs counts them all).
    new_pair_list = models.JSONField(default=list)
    # Works with references held published before the work's year: the history it is read against.
    prior_works = models.PositiveIntegerField(default=0)
    # Works of the same field and year with enough references (this one included).
    baseline_size = models.PositiveIntegerField(default=0)
    # Share of the other works of the baseline that score lower, 0 to 100; null when thin.
    percentile = models.FloatField(null=True)
    gap = models.CharField(max_length=20, choices=NoveltyGap.choices, blank=True, default="")
    computed_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "work novelties"
        indexes = [
            models.Index(fields=["field", "publication_year"], name="work_novelty_baseline_idx")
        ]

    def __str__(self) -> str:
        return f"novelty of work {self.work_id}: {self.percentile}"

    @property
    def percentile_label(self) -> str:
        return percentile_label(self.percentile)


class ResearcherNovelty(models.Model):
    """A researcher's Novelty: the median percentile of their works that have one
    (WorkNovelty.percentile not null), written with the works' run."""

    researcher = models.OneToOneField(
        "researchers.Researcher", primary_key=True, on_delete=models.CASCADE, related_name="novelty"
    )
    percentile = models.FloatField(null=True)
    works_counted = models.PositiveIntegerField(default=0)
    computed_at = models.DateTimeField()

    class Meta:
        verbose_name_plural = "researcher novelties"

    def __str__(self) -> str:
        return f"novelty of researcher {self.researcher_id}: {self.percentile}"

    @property
    def percentile_label(self) -> str:
        return percentile_label(self.percentile)


# --- Related works (issue 25, item 4): publications.services.related_works computes them ------


class RelatedWork(models.Model):
    """One of a work's related works (at most RELATED_WORKS_PER_WORK, ranked 1 to 10), from
    co-citation (both cited by the same works) and bibliographic coupling (both citing the same
    works). Derived data: the full computation rewrites every work's rows, the drain those of
    the works whose citations changed and of their neighbours
    (publications.services.related_works says how, and how the score is defined)."""

    pk = models.CompositePrimaryKey("work", "related")
    # The primary key leads with work: a work page reads its ten rows from it.
    work = models.ForeignKey(
        "publications.Work", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    # related_work_related_idx: a work deleted (a merge) takes the rows naming it along.
    related = models.ForeignKey(
        "publications.Work", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    cocitations = models.PositiveIntegerField()  # works citing both
    shared_references = models.PositiveIntegerField()  # works both cite
    score = models.FloatField()
    rank = models.PositiveSmallIntegerField()

    class Meta:
        indexes = [models.Index(fields=["related"], name="related_work_related_idx")]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(work=models.F("related")), name="related_work_not_self"
            )
        ]

    def __str__(self) -> str:
        return f"work {self.work_id}: {self.rank}. work {self.related_id}"

    @property
    def reason(self) -> str:
        """Why it is related, in words: "cited together by 14 works, shares 9 references"."""
        return related_work_reason(
            cocitations=self.cocitations, shared_references=self.shared_references
        )


def related_work_reason(*, cocitations: int, shared_references: int) -> str:
    parts = []
    if cocitations:
        parts.append(f"cited together by {cocitations} work{'s' if cocitations != 1 else ''}")
    if shared_references:
        parts.append(f"shares {shared_references} reference{'s' if shared_references != 1 else ''}")
    return ", ".join(parts)


class CitationDegree(models.Model):
    """How many works held here cite this work and how many it cites: the norms of the related
    works' score, kept for every work with a citation (the full computation counts them all,
    the drain those of the works whose citations changed)."""

    work = models.OneToOneField(
        "publications.Work", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    cited_by = models.PositiveIntegerField()
    references = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"work {self.work_id}: cited by {self.cited_by}, {self.references} references"


class PendingRelatedWorks(models.Model):
    """The works whose citations changed in one transaction (an import batch, a merge, the
    sweep of waiting references): one row each, so concurrent batches never wait on one
    another; publications.services.related_works_drain takes the rows and recomputes."""

    work_ids = ArrayField(models.BigIntegerField())
    created_at = models.DateTimeField(db_default=Now())

    def __str__(self) -> str:
        return f"{len(self.work_ids)} works whose citations changed"
