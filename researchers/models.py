from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex, OpClass
from django.db import models


class VerificationLevel(models.IntegerChoices):
    NAME_ONLY = 0, "L0 name-only record"
    IDENTIFIED = 1, "L1 identified record"
    CLAIMED = 2, "L2 claimed, awaiting corroboration"
    CORROBORATED = 3, "L3 claim corroborated"
    MODERATOR_VERIFIED = 4, "L4 verified by a moderator"


class Institution(models.Model):
    openalex_id = models.CharField(max_length=32, unique=True, null=True, blank=True)
    ror = models.CharField("ROR id", max_length=32, unique=True, null=True, blank=True)
    name = models.CharField(max_length=500)
    country_code = models.CharField(max_length=2, blank=True)
    type = models.CharField(max_length=50, blank=True)
    homepage = models.URLField(max_length=500, blank=True)
    # Used to corroborate claims: a verified email at one of these domains.
    email_domains = ArrayField(models.CharField(max_length=253), default=list, blank=True)
    content_hash = models.CharField(max_length=32, blank=True, editable=False)
    source_updated_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Kept exact by feed.services (set-based UPDATEs beside the unique follow rows). A database
    # default as well: the importer's writer inserts institutions with its own column list.
    followers_count = models.PositiveIntegerField(default=0, db_default=0)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


# The sources that state figures for a researcher's whole record, by the name pages give them.
STATED_FIGURES_SOURCES = {"openalex": "OpenAlex"}


class Researcher(models.Model):
    slug = models.SlugField(max_length=200, unique=True)
    display_name = models.CharField(max_length=500)
    # Lower-case ASCII form of display_name (researchers.names.normalize_name); search runs on it.
    name_normalized = models.CharField(max_length=500, editable=False)
    alternate_names = ArrayField(models.CharField(max_length=500), default=list, blank=True)
    tagline = models.CharField(max_length=300, blank=True)

    openalex_id = models.CharField(max_length=32, unique=True, null=True, blank=True)
    orcid = models.CharField("ORCID iD", max_length=19, unique=True, null=True, blank=True)
    dblp_id = models.CharField(max_length=100, unique=True, null=True, blank=True)
    semantic_scholar_id = models.CharField(max_length=32, unique=True, null=True, blank=True)
    scholar_id = models.CharField(
        "Google Scholar id", max_length=32, unique=True, null=True, blank=True
    )

    last_known_institution = models.ForeignKey(
        Institution, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    open_to_collaborate = models.BooleanField(default=True)
    homepage = models.URLField(max_length=500, blank=True)
    # Links the claimant adds: [{"label": "Lab page", "url": "https://..."}].
    links = models.JSONField(default=list, blank=True)

    claimed_by = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="researcher",
    )
    verification_level = models.PositiveSmallIntegerField(
        choices=VerificationLevel.choices, default=VerificationLevel.NAME_ONLY
    )
    trust_score = models.PositiveSmallIntegerField(default=0)
    trust_breakdown = models.JSONField(default=dict, blank=True)

    # Cached figures, refreshed by graph.services.researcher_metrics_refresh after each import batch.
    works_count = models.PositiveIntegerField(default=0)
    cited_by_count = models.PositiveIntegerField(default=0)
    h_index = models.PositiveIntegerField(default=0)
    i10_index = models.PositiveIntegerField(default=0)
    topics_count = models.PositiveIntegerField(default=0)
    followers_count = models.PositiveIntegerField(default=0)
    citations_by_year = models.JSONField(default=dict, blank=True)
    # The figures a source states for the researcher's whole record (OpenAlex's works_count,
    # cited_by_count and summary_stats), which count works bzpeer may not hold: shown beside the
    # figures above, never in place of them, labelled with the source and the date of its
    # record. Null where no source stated them. Written by ingest.writer.researchers.
    stated_works_count = models.PositiveIntegerField(null=True, blank=True)
    stated_cited_by_count = models.PositiveIntegerField(null=True, blank=True)
    stated_h_index = models.PositiveIntegerField(null=True, blank=True)
    stated_i10_index = models.PositiveIntegerField(null=True, blank=True)
    stated_two_year_mean_citedness = models.FloatField(null=True, blank=True)
    stated_figures_source = models.CharField(max_length=20, blank=True, db_default="")
    stated_figures_as_of = models.DateField(null=True, blank=True)

    merged_into = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="merged_records"
    )
    content_hash = models.CharField(max_length=32, blank=True, editable=False)
    source_updated_at = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["display_name"]
        indexes = [
            GinIndex(OpClass("name_normalized", name="gin_trgm_ops"), name="researcher_name_trgm"),
            models.Index(fields=["-cited_by_count"], name="researcher_cited_idx"),
            models.Index(fields=["-followers_count", "id"], name="researcher_followers_idx"),
            # Bylines in listings link each author by slug: from this small index alone, not
            # one row of this wide table per author.
            models.Index(
                fields=["id"], include=["slug", "display_name"], name="researcher_byline_idx"
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(merged_into=models.F("id")),
                name="researcher_not_merged_into_itself",
            ),
        ]

    def __str__(self) -> str:
        return self.display_name

    @property
    def stated_figures_source_label(self) -> str:
        """The name of the source of the stated_* figures, as a page labels them."""
        return STATED_FIGURES_SOURCES.get(self.stated_figures_source, self.stated_figures_source)

    @property
    def is_claimed(self) -> bool:
        return self.claimed_by_id is not None


class Affiliation(models.Model):
    researcher = models.ForeignKey(
        Researcher, on_delete=models.CASCADE, related_name="affiliations"
    )
    institution = models.ForeignKey(
        Institution, on_delete=models.CASCADE, related_name="affiliations"
    )
    role = models.CharField(max_length=200, blank=True)
    start_year = models.PositiveSmallIntegerField(null=True, blank=True)
    end_year = models.PositiveSmallIntegerField(null=True, blank=True)
    source = models.CharField(max_length=30, default="openalex")

    class Meta:
        ordering = ["-end_year", "-start_year"]
        constraints = [
            models.UniqueConstraint(
                fields=["researcher", "institution", "source"], name="affiliation_unique_per_source"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.researcher} @ {self.institution}"


class Follow(models.Model):
    """A user follows a researcher. The unique constraint keeps counts exact under double clicks."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows"
    )
    researcher = models.ForeignKey(Researcher, on_delete=models.CASCADE, related_name="follows")
    created_at = models.DateTimeField(auto_now_add=True)
    # Muted in the feed (feed.services.follow_mute_set) without unfollowing: still counted and
    # listed, but its works no longer reach the user's feed. A database default, since
    # follow_create inserts with its own column list.
    muted = models.BooleanField(default=False, db_default=False)

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["user", "researcher"], name="follow_once")]
        indexes = [models.Index(fields=["researcher", "-created_at"], name="follow_researcher_idx")]

    def __str__(self) -> str:
        return f"{self.user} follows {self.researcher}"


class CvSection(models.TextChoices):
    """The CV sections ORCID keeps (and a claimant may add to). The values are the kinds of
    ingest.records.CvEntryRecord."""

    EMPLOYMENT = "employment", "Experience"
    EDUCATION = "education", "Education"
    DISTINCTION = "distinction", "Awards"
    INVITED_POSITION = "invited-position", "Invited positions"
    QUALIFICATION = "qualification", "Qualifications"
    SERVICE = "service", "Service"
    FUNDING = "funding", "Funding"
    MEMBERSHIP = "membership", "Memberships"


class CVEntry(models.Model):
    """One entry of a researcher's CV, as a source states it: a position, a degree, an award.

    Dates keep the precision the source gave (a year, a year and month, or a day): ORCID often
    knows only the year, and a CV that printed "1 January" would invent it. An entry is
    identified by (researcher, source, source_key) (ORCID: "<iD>:<put-code>"), so a refresh
    updates it in place and keeps what the claimant chose (hidden) across imports.
    """

    researcher = models.ForeignKey(Researcher, on_delete=models.CASCADE, related_name="cv_entries")
    section = models.CharField(max_length=20, choices=CvSection.choices)
    organisation = models.CharField(max_length=500, blank=True)
    role = models.CharField("role or title", max_length=500, blank=True)
    department = models.CharField(max_length=500, blank=True)
    city = models.CharField(max_length=200, blank=True)
    region = models.CharField(max_length=200, blank=True)
    country = models.CharField("country (ISO 3166 alpha-2)", max_length=2, blank=True)
    start_year = models.PositiveSmallIntegerField(null=True, blank=True)
    start_month = models.PositiveSmallIntegerField(null=True, blank=True)
    start_day = models.PositiveSmallIntegerField(null=True, blank=True)
    end_year = models.PositiveSmallIntegerField(null=True, blank=True)
    end_month = models.PositiveSmallIntegerField(null=True, blank=True)
    end_day = models.PositiveSmallIntegerField(null=True, blank=True)
    url = models.CharField(max_length=1000, blank=True)
    # ("ror", "https://ror.org/..."), ("ringgold", "1811"): the organisation's identifiers.
    organisation_ids = models.JSONField(default=list, blank=True)
    amount = models.CharField(max_length=50, blank=True)
    currency = models.CharField(max_length=3, blank=True)
    source = models.CharField(max_length=20)  # "orcid", "claimant"
    source_key = models.CharField(max_length=100)
    # The claimant's choice; an import never changes it.
    hidden = models.BooleanField(default=False, db_default=False)
    # The source's own order within a section (ORCID's display index, highest first).
    display_order = models.IntegerField(default=0, db_default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["section", "-display_order", "-end_year", "-start_year", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["researcher", "source", "source_key"], name="cventry_unique_per_source"
            ),
            models.CheckConstraint(
                condition=models.Q(start_month__isnull=True) | models.Q(start_year__isnull=False),
                name="cventry_start_month_needs_year",
            ),
            models.CheckConstraint(
                condition=models.Q(end_month__isnull=True) | models.Q(end_year__isnull=False),
                name="cventry_end_month_needs_year",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.researcher_id}: {self.section} {self.role} @ {self.organisation}"

    @property
    def years(self) -> str:
        """'2018–2021', '2021–' (ongoing) or '2019' (one year or no end)."""
        start, end = self.start_year, self.end_year
        if start and end:
            return str(start) if start == end else f"{start}–{end}"
        if start:
            return f"{start}–" if self.section in ("employment", "education") else str(start)
        return str(end or "")

    @property
    def place(self) -> str:
        return ", ".join(part for part in (self.city, self.country) if part)
