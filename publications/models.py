from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import BrinIndex, GinIndex
from django.contrib.postgres.search import SearchVector, SearchVectorField
from django.db import models
from django.db.models import Func, Value
from django.db.models.functions import Coalesce, Now, NullIf


class WorkType(models.TextChoices):
    ARTICLE = "article"
    PREPRINT = "preprint"
    BOOK = "book"
    BOOK_CHAPTER = "book-chapter"
    DISSERTATION = "dissertation"
    DATASET = "dataset"
    PATENT = "patent"
    REVIEW = "review"
    OTHER = "other"


class Source(models.Model):
    """Where a work appeared: a journal, a conference, a repository such as arXiv."""

    openalex_id = models.CharField(max_length=32, unique=True, null=True, blank=True)
    issn_l = models.CharField("ISSN-L", max_length=9, blank=True)
    name = models.CharField(max_length=500)
    abbreviated_name = models.CharField(max_length=200, blank=True)
    type = models.CharField(max_length=50, blank=True)
    homepage = models.URLField(max_length=500, blank=True)
    # A venue named by a source without OpenAlex ids (Crossref, BibTeX...): 'issn:NNNN-NNNN' or
    # 'name:<normalised name>', so every batch finds the same row (the writer's ON CONFLICT).
    venue_key = models.CharField(max_length=300, unique=True, null=True, blank=True)
    content_hash = models.CharField(max_length=32, blank=True, editable=False)
    source_updated_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def short_name(self) -> str:
        return self.abbreviated_name or self.name


class TopicLevel(models.TextChoices):
    DOMAIN = "domain"
    FIELD = "field"
    SUBFIELD = "subfield"
    TOPIC = "topic"
    CATEGORY = "category"


class Topic(models.Model):
    """A subject: an OpenAlex domain > field > subfield > topic, or a category code (cs.CV)."""

    # "T10017", "subfields/1705", "fields/17", "domains/3", or "arxiv:cs.NI".
    external_id = models.CharField(max_length=64, unique=True)
    name = models.CharField(max_length=300)
    code = models.CharField(max_length=32, blank=True)
    level = models.CharField(max_length=10, choices=TopicLevel.choices, default=TopicLevel.TOPIC)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children"
    )
    description = models.TextField(blank=True)
    content_hash = models.CharField(max_length=32, blank=True, editable=False)
    source_updated_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Kept exact by feed.services; a database default because the writer inserts topics itself.
    followers_count = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Work(models.Model):
    openalex_id = models.CharField(max_length=32, unique=True, null=True, blank=True)
    doi = models.CharField("DOI", max_length=300, unique=True, null=True, blank=True)
    arxiv_id = models.CharField("arXiv id", max_length=40, unique=True, null=True, blank=True)
    title = models.TextField()
    abstract = models.TextField(blank=True)
    type = models.CharField(max_length=40, default=WorkType.ARTICLE)
    publication_date = models.DateField(null=True, blank=True)
    publication_year = models.PositiveSmallIntegerField(null=True, blank=True)
    # 'year', 'month' or 'day': how much of publication_date the sources know ('' = a full
    # date, as OpenAlex gives). A month-precise date is stored as its first day.
    publication_date_precision = models.CharField(max_length=5, blank=True, db_default="")
    # The best date known, what "newest first" sorts by: the date, or a year-only work at the
    # first day of its year (as a month-precise date is stored as the month's first day).
    # Computed by PostgreSQL, so the writer's COPY loads and every other write keep it right.
    sort_date = models.GeneratedField(
        expression=Coalesce(
            "publication_date",
            Func(
                NullIf("publication_year", Value(0)),
                Value(1),
                Value(1),
                function="make_date",
                output_field=models.DateField(),
            ),
        ),
        output_field=models.DateField(null=True),
        db_persist=True,
    )
    source = models.ForeignKey(
        Source, null=True, blank=True, on_delete=models.SET_NULL, related_name="works"
    )
    cited_by_count = models.PositiveIntegerField(default=0)
    counts_by_year = models.JSONField(default=dict, blank=True)
    open_access_url = models.URLField(max_length=1000, blank=True)
    code_url = models.URLField(max_length=1000, blank=True)
    language = models.CharField(max_length=10, blank=True)
    authors_count = models.PositiveIntegerField(default=0)
    # arXiv's journal reference (free text), when the work has an arXiv version.
    journal_ref = models.TextField(blank=True, db_default="")
    # Normalised title + year + first author's family name: how a record with neither DOI nor
    # arXiv id finds its work (ingest.writer.identity.title_key).
    title_key = models.CharField(max_length=300, null=True, blank=True)  # noqa: DJ001 - no key, no match
    # The source whose byline the work shows (ingest.writer.merge).
    byline_origin = models.CharField(max_length=20, blank=True, db_default="openalex")
    # Computed by PostgreSQL from title and abstract, so bulk COPY loads keep it right too.
    search_vector = models.GeneratedField(
        expression=SearchVector("title", weight="A", config="english")
        + SearchVector("abstract", weight="B", config="english"),
        output_field=SearchVectorField(),
        db_persist=True,
    )
    content_hash = models.CharField(max_length=32, blank=True, editable=False)
    source_updated_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = [models.F("sort_date").desc(nulls_last=True), "-id"]
        indexes = [
            GinIndex(fields=["search_vector"], name="work_search_vector_gin"),
            models.Index(fields=["-publication_year"], name="work_year_idx"),
            models.Index(
                models.F("sort_date").desc(nulls_last=True),
                models.F("id").desc(),
                name="work_newest_idx",
            ),
            models.Index(fields=["title_key"], name="work_title_key_idx"),
        ]

    def __str__(self) -> str:
        return self.title


class Authorship(models.Model):
    """One author slot of a work, in byline order. researcher is empty when the source gave no id."""

    # No single-column indexes on the two keys: the (work, position) and (researcher, work)
    # ones below lead with them, and each index costs every imported row an entry.
    work = models.ForeignKey(
        Work, on_delete=models.CASCADE, related_name="authorships", db_index=False
    )
    researcher = models.ForeignKey(
        "researchers.Researcher",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="authorships",
        db_index=False,
    )
    position = models.PositiveSmallIntegerField()
    raw_name = models.CharField(max_length=500)
    is_corresponding = models.BooleanField(default=False)
    # Institution ids as listed on the byline; kept as an array so imports stay one COPY per batch.
    institution_ids = ArrayField(models.BigIntegerField(), default=list, blank=True)
    # Affiliations as the source wrote them, for sources without institution ids (arXiv...).
    affiliation_names = ArrayField(
        models.CharField(max_length=500), default=list, blank=True, db_default=[]
    )
    # The work's arrival (Work.created_at), copied here so the feed reads a followed researcher's
    # newest arrivals from one index without visiting works (feed.selectors). The writer COPYs
    # it; any other insert leaves it empty and a trigger fills it from the work, and a trigger
    # on works spreads a changed created_at (migration publications 0007).
    work_created_at = models.DateTimeField(editable=False)

    class Meta:
        ordering = ["work", "position"]
        constraints = [
            models.UniqueConstraint(fields=["work", "position"], name="authorship_position_unique"),
        ]
        indexes = [
            models.Index(fields=["researcher", "work"], name="authorship_researcher_idx"),
            # The feed: a researcher's works newest arrival first, read from the index alone.
            models.Index(
                fields=["researcher", "work_created_at", "work"], name="authorship_arrival_idx"
            ),
            # Institution pages list the works whose byline names the institution.
            GinIndex(fields=["institution_ids"], name="authorship_institutions_gin"),
        ]

    def __str__(self) -> str:
        return f"{self.position}. {self.raw_name}"


class WorkTopic(models.Model):
    # Indexed by the (work, topic) and (topic, work) pairs below, not one column at a time.
    work = models.ForeignKey(
        Work, on_delete=models.CASCADE, related_name="work_topics", db_index=False
    )
    topic = models.ForeignKey(
        Topic, on_delete=models.CASCADE, related_name="work_topics", db_index=False
    )
    score = models.FloatField(default=1.0)
    # The source that tagged the work: re-importing one source replaces only its own topics.
    origin = models.CharField(max_length=20, db_default="openalex")
    # The work's arrival, as on Authorship (the feed of followed topics).
    work_created_at = models.DateTimeField(editable=False)

    class Meta:
        ordering = ["work", "-score"]
        constraints = [
            # The score rides along, so a listing reads a work's topics, strongest first, from
            # the index alone.
            models.UniqueConstraint(
                fields=["work", "topic"], include=["score"], name="work_topic_unique"
            )
        ]
        indexes = [
            models.Index(fields=["topic", "work"], name="work_topic_topic_idx"),
            models.Index(
                fields=["topic", "work_created_at", "work"], name="work_topic_arrival_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.topic_id} on {self.work_id} ({self.score:.2f})"


class WorkSource(models.Model):
    """What one source record says about a work, kept with its origin (issue 15).

    The work shows, field by field, the value of the first source in the precedence of
    ingest.writer.merge; the others stay here, so re-importing one source never
    erases what another contributed. content_hash makes an unchanged re-import cost nothing."""

    work = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="sources")
    origin = models.CharField(max_length=20)
    # The source's own id of the record: a W id, a DOI, an arXiv id, '<ORCID iD>:<put-code>'...
    origin_id = models.CharField(max_length=400)
    fields = models.JSONField(default=dict)
    content_hash = models.CharField(max_length=32)
    source_updated_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_default=Now())
    updated_at = models.DateTimeField(auto_now=True, db_default=Now())

    class Meta:
        ordering = ["work", "origin"]
        constraints = [
            models.UniqueConstraint(fields=["origin", "origin_id"], name="work_source_unique")
        ]
        indexes = [models.Index(fields=["work"], name="work_source_work_idx")]

    def __str__(self) -> str:
        return f"{self.origin}:{self.origin_id} -> {self.work_id}"


class WorkVersion(models.Model):
    """A version of a work: its preprint (arXiv, with its first and latest revision) and its
    published version (the publisher's DOI). One work, counted once, whatever its versions."""

    class Kind(models.TextChoices):
        PREPRINT = "preprint"
        PUBLISHED = "published"

    work = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="versions")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # The arXiv id (no revision) or the DOI.
    identifier = models.CharField(max_length=300)
    first_label = models.CharField(max_length=10, blank=True)
    latest_label = models.CharField(max_length=10, blank=True)
    first_date = models.DateField(null=True, blank=True)
    latest_date = models.DateField(null=True, blank=True)

    class Meta:
        ordering = ["work", "kind"]
        constraints = [
            models.UniqueConstraint(
                fields=["work", "kind", "identifier"], name="work_version_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.identifier}"


class MergedWork(models.Model):
    """A work that turned out to be another (one record carried identifiers of both): its id
    answers with the survivor, so its page redirects (301) there. Written by the importer
    (ingest.writer.absorb); a chain (the survivor absorbed later) is kept
    pointing at the last survivor."""

    # The merged-away work's id (the row itself is gone).
    id = models.BigIntegerField(primary_key=True)
    survivor = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="merged_aways")
    merged_at = models.DateTimeField(db_default=Now())

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"work {self.id} -> {self.survivor_id}"


class FormerOpenAlexWorkId(models.Model):
    """An OpenAlex work id a work answered to before: OpenAlex merged it into another
    (merged_ids), or the writer found its work to be another (writer/absorb.py). A lookup by the
    old id (the API's ?openalex_id=) finds the work it now lives in. Written and moved along a
    chain by ingest.writer.work_references_move and ingest.services.merged_ids.
    """

    openalex_id = models.CharField(max_length=32, primary_key=True)
    work = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="former_openalex_ids")

    class Meta:
        ordering = ["openalex_id"]

    def __str__(self) -> str:
        return f"{self.openalex_id} -> work {self.work_id}"


class WorkListedBy(models.Model):
    """A researcher says the work is theirs: their own ORCID record lists it (WorkRecord.
    listed_by). The writer puts them on the byline slot compatible with their name
    (writer/listed_by.py; position), or, when no slot can be them, keeps the signal here
    without one (position empty). Applied again whenever another source rewrites the byline:
    ORCID decides what the researcher says is theirs (merge.py)."""

    # No index of their own: the unique (work, researcher) serves lookups by work, and
    # work_listed_by_researcher_idx those by researcher.
    work = models.ForeignKey(
        Work, on_delete=models.CASCADE, related_name="listed_by", db_index=False
    )
    researcher = models.ForeignKey(
        "researchers.Researcher",
        on_delete=models.CASCADE,
        related_name="listed_works",
        db_index=False,
    )
    origin = models.CharField(max_length=20)
    # The source record that lists it ('<ORCID iD>:<put-code>').
    origin_id = models.CharField(max_length=400)
    position = models.PositiveSmallIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(db_default=Now())

    class Meta:
        ordering = ["work", "researcher"]
        constraints = [
            models.UniqueConstraint(fields=["work", "researcher"], name="work_listed_by_unique")
        ]
        indexes = [models.Index(fields=["researcher"], name="work_listed_by_researcher_idx")]

    def __str__(self) -> str:
        return f"work {self.work_id} listed by {self.researcher_id}"


class NameOnlyAuthor(models.Model):
    """The L0 researcher made for a name without identifiers on one source record, so that
    re-importing the record finds them again instead of making another (writer/authors.py)."""

    origin = models.CharField(max_length=20)
    origin_id = models.CharField(max_length=400)
    name_key = models.CharField(max_length=500)
    researcher = models.ForeignKey(
        "researchers.Researcher", on_delete=models.CASCADE, related_name="+"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["origin", "origin_id", "name_key"], name="name_only_author_unique"
            )
        ]

    def __str__(self) -> str:
        return f"{self.name_key} on {self.origin}:{self.origin_id}"


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
        Work, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
    )
    # citation_cited_idx (cited, citing) serves "cited by" without a visit to the table.
    cited = models.ForeignKey(
        Work, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
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
        Work, on_delete=models.CASCADE, related_name="+", db_index=False, db_constraint=False
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
        Work, primary_key=True, on_delete=models.CASCADE, related_name="novelty"
    )
    publication_year = models.PositiveSmallIntegerField(null=True)
    # The OpenAlex field of the work's primary topic (or that topic, without a field above it).
    field = models.ForeignKey(
        Topic, null=True, on_delete=models.SET_NULL, related_name="+", db_index=False
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
    work = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="+", db_index=False)
    # related_work_related_idx: a work deleted (a merge) takes the rows naming it along.
    related = models.ForeignKey(Work, on_delete=models.CASCADE, related_name="+", db_index=False)
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

    work = models.OneToOneField(Work, on_delete=models.CASCADE, primary_key=True, related_name="+")
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
