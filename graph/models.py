"""The collaborator graph: one row per pair of researchers who wrote a work together."""

from __future__ import annotations

from decimal import Decimal

from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce

# Works with more authors than this count as works but add no coauthor edges: a consortium
# paper with hundreds of names says little about who works with whom, and its pairs would
# dominate the table (n * (n - 1) / 2 of them).
MAX_AUTHORS_FOR_EDGES = 100

# "Close collaborators" (graph.selectors.CLOSE_COLLABORATORS_DEFINITION says it in words):
# coauthors with at least CLOSE_MIN_JOINT_WORKS joint works, or with one joint work of at most
# CLOSE_MAX_TEAM_SIZE authors. A single work of n authors has weight 1 / (n - 1), so the second
# condition is weight >= 1 / (CLOSE_MAX_TEAM_SIZE - 1); the small margin keeps a float sum of
# exactly that value on the right side.
CLOSE_MIN_JOINT_WORKS = 2
CLOSE_MAX_TEAM_SIZE = 10
CLOSE_MIN_WEIGHT = Decimal(1) / (CLOSE_MAX_TEAM_SIZE - 1) - Decimal("1e-9")
# The same condition in SQL, on a row of graph_coauthoredge aliased "e".
CLOSE_SQL = f"(e.joint_works_count >= {CLOSE_MIN_JOINT_WORKS} OR e.weight >= {CLOSE_MIN_WEIGHT})"


class CoauthorEdge(models.Model):
    """Two researchers with at least one joint work of at most MAX_AUTHORS_FOR_EDGES authors.

    One row per pair, researcher_a < researcher_b. weight is the sum over the joint works of
    1 / (authors - 1): a two-author paper counts 1, a paper with 11 authors 0.1.

    Written only by graph.services (set-based SQL: the incremental refresh after each import
    batch and the full rebuild). The foreign keys carry no database constraint so the rebuild
    can load tens of millions of rows without a lookup per row; a researcher record that goes
    away is handled by refreshing the ids involved (graph.services.coauthor_edges_refresh).
    """

    pk = models.CompositePrimaryKey("researcher_a", "researcher_b")
    researcher_a = models.ForeignKey(
        "researchers.Researcher",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        db_index=False,  # the primary key (researcher_a, researcher_b) serves this side
        related_name="+",
    )
    researcher_b = models.ForeignKey(
        "researchers.Researcher",
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        db_index=False,  # coauthor_edge_b_idx serves this side
        related_name="+",
    )
    joint_works_count = models.PositiveIntegerField()
    # Exact: each work adds round(1 / (authors - 1), 12), and sums of these decimals do not
    # depend on their order, so the incremental refresh and the rebuild agree to the last digit.
    weight = models.DecimalField(max_digits=24, decimal_places=12)
    first_year = models.PositiveSmallIntegerField(null=True, blank=True)
    last_year = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(researcher_a__lt=models.F("researcher_b")),
                name="coauthor_edge_ordered",
            ),
        ]
        indexes = [
            models.Index(fields=["researcher_b", "researcher_a"], name="coauthor_edge_b_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.researcher_a_id} - {self.researcher_b_id} ({self.joint_works_count})"

    @property
    def is_close(self) -> bool:
        return self.joint_works_count >= CLOSE_MIN_JOINT_WORKS or self.weight >= CLOSE_MIN_WEIGHT


class PendingByline(models.Model):
    """A byline an import batch wrote (sign +1) or replaced (sign -1), written in the batch's
    own transaction and consumed, exactly once, by the edge drain (graph.services), which adds
    or subtracts its pairs' contributions. Only bylines that can make edges are kept (two
    identified researchers or more, 2 to MAX_AUTHORS_FOR_EDGES authors)."""

    work_id = models.BigIntegerField()
    sign = models.SmallIntegerField()
    researcher_ids = ArrayField(models.BigIntegerField())
    authors_count = models.PositiveIntegerField()
    publication_year = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=models.Q(sign__in=[-1, 1]), name="pending_byline_sign"
            ),
        ]

    def __str__(self) -> str:
        return f"{'+' if self.sign > 0 else '-'}{self.work_id} {self.researcher_ids}"


class PendingEdgeRefresh(models.Model):
    """A researcher whose edges with every coauthor wait for a full refresh, because a merge or
    a split moved authorships: written in that change's own transaction (so a change that
    commits is owed its refresh, whatever happens to the broker or to Redis) and deleted by the
    drain (graph.services) in the transaction that refreshes them.

    No unique constraint: a merge never waits on a drain deleting the same id, and the drain
    coalesces the rows, however many, into one refresh of the distinct ids."""

    researcher_id = models.BigIntegerField()

    def __str__(self) -> str:
        return f"edges of researcher {self.researcher_id} to refresh"


# Records with at least this many works get a SliceSummary. On the 1M-work bench corpus a cold
# slice read from the works took 25 ms at 1,900 works, 45 ms at 3,300 and 220-260 ms at 13,800;
# each summary costs its record's import batches another pass over its works.
SLICE_SUMMARY_MIN_WORKS = 2000


class SliceSummary(models.Model):
    """The parts of a prolific researcher's graph slice that need every one of their works:
    the most recent and the most cited works and the topics with most of their works, in
    slice order (graph.selectors.SLICE_CAPS entries each).

    Written by graph.services.researcher_metrics_refresh, in the transaction that changes the
    researcher's works, for records with at least SLICE_SUMMARY_MIN_WORKS works (and removed
    below that), so it is as current as works_count; the slice reads titles, years, citations
    and topic names from their own rows. No edge enters it: drains and rebuilds leave it alone.
    """

    researcher = models.OneToOneField(
        "researchers.Researcher", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    recent_work_ids = ArrayField(models.BigIntegerField())
    cited_work_ids = ArrayField(models.BigIntegerField())
    topic_ids = ArrayField(models.BigIntegerField())
    topic_works = ArrayField(models.IntegerField())

    def __str__(self) -> str:
        return f"slice summary of researcher {self.researcher_id}"


class CloseCollaboratorsCount(models.Model):
    """How many close collaborators (CLOSE_SQL) a researcher has, for each researcher with at
    least one: a researcher without a row has none (readers coalesce to 0, see
    close_collaborators_count_of).

    Kept here rather than on the researcher row: the rebuild writes every count afresh as a new
    table, swapped in with the new edges in one transaction, and the drain upserts a few
    thousand narrow rows; updating the wide researchers row (twenty-odd indexes, several GIN)
    cost about 75 us a row, 36-49 s for the 480k counts of a fresh 1M-work corpus.

    Written only by graph.services, under the edges lock, in the transactions that change the
    edges, so it always agrees with graph_coauthoredge. No database foreign key, like the
    edges: the rebuild loads the whole table at once.
    """

    researcher = models.OneToOneField(
        "researchers.Researcher",
        on_delete=models.CASCADE,
        db_constraint=False,
        primary_key=True,
        related_name="+",
    )
    close_collaborators_count = models.PositiveIntegerField()

    def __str__(self) -> str:
        return f"researcher {self.researcher_id}: {self.close_collaborators_count} close"


def close_collaborators_count_of(researcher_ref: str = "pk") -> Coalesce:
    """The close-collaborators count of the researcher `researcher_ref` names in the outer
    query, 0 without a row: `Researcher.objects.annotate(close_collaborators_count=...)`."""
    stored = CloseCollaboratorsCount.objects.filter(researcher_id=OuterRef(researcher_ref))
    return Coalesce(
        Subquery(stored.values("close_collaborators_count")[:1]), 0, output_field=IntegerField()
    )
