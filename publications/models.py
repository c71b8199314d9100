from __future__ import annotations

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
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


# The works' full-text index is keyed by a bucket of ids besides the words (btree_gin, migration
# 0019): a search reads its matches bucket by bucket in id order and stops once it has enough
# (search.selectors.works), instead of reading every match of a common word first.
WORK_SEARCH_BUCKET_SHIFT = 13


class WorkSearchBucket(Func):
    """`id >> WORK_SEARCH_BUCKET_SHIFT`, 8,192 ids a bucket. The shift is written into the SQL:
    a query must spell the index's expression exactly, which a bound parameter would not."""

    template = f"(%(expressions)s >> {WORK_SEARCH_BUCKET_SHIFT})"
    output_field = models.BigIntegerField()


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
            GinIndex(WorkSearchBucket("id"), "search_vector", name="work_search_bucket_gin"),
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


# The citation graph and what is derived from it, in a module of their own.
from .models_citations import Citation as Citation  # noqa: E402
from .models_citations import CitationDegree as CitationDegree  # noqa: E402
from .models_citations import NoveltyGap as NoveltyGap  # noqa: E402
from .models_citations import PendingRelatedWorks as PendingRelatedWorks  # noqa: E402
from .models_citations import RelatedWork as RelatedWork  # noqa: E402
from .models_citations import ResearcherNovelty as ResearcherNovelty  # noqa: E402
from .models_citations import UnresolvedReference as UnresolvedReference  # noqa: E402
from .models_citations import WorkNovelty as WorkNovelty  # noqa: E402
from .models_citations import percentile_label as percentile_label  # noqa: E402
from .models_citations import related_work_reason as related_work_reason  # noqa: E402
