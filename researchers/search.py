"""Search selectors: researchers by name, works by full text, topics and institutions by name.

Shared by the search page, the header suggestions and the API (`?search=` on researchers).
Each selector runs a fixed number of queries, whatever the number of matches.

Names are compared in one normal form on both sides: researchers.names.normalize_name in Python
(the importer stores it as Researcher.name_normalized; the query goes through it here), and its
SQL twin researchers_normalize_name() (migrations 0007 and 0008) for text without a stored
normal form: alternate names, institution and topic names. Both fold accents and case and keep
a-z and 0-9. Researcher names are found word by word, a typo per word forgiven, through exact
lookups in a GIN index of their words; trigram similarity only steps in when that finds nobody
(see _name_candidates). Ranking is by trigram similarity to the whole query.

Works use the generated tsvector column. Ranking every match of a common word is what makes
full-text search slow (about 1 s at 200k matches), so the candidates are a LIMITed GIN match and
only those are ranked: beyond WORK_CANDIDATE_LIMIT matches the page says so and asks for more
words instead of pretending to have ranked everything.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from django.contrib.postgres.expressions import ArraySubquery
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.search import (
    SearchQuery,
    TrigramSimilarity,
    TrigramWordSimilarity,
)
from django.db import connection
from django.db.models import (
    BigIntegerField,
    Case,
    Count,
    Exists,
    F,
    FloatField,
    Func,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    TextField,
    Value,
    When,
    Window,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Greatest
from django.db.models.lookups import Lookup
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from publications.models import Authorship, Topic, Work, WorkTopic

from .models import Institution, Researcher
from .names import normalize_name
from .selectors import researchers_public

SEARCH_PAGE_SIZE = 20
MAX_QUERY_LENGTH = 200
# The header box answers from this many characters on; shorter input gets an empty response.
SUGGESTION_MIN_LENGTH = 2
SUGGESTION_LIMIT = 8
# Works: only this many full-text matches are ranked (see the module docstring).
WORK_CANDIDATE_LIMIT = 1000
# Tab counts stop here and show "1,000+": an exact count of a common word costs a full scan.
COUNT_CAP = 1000
FACET_LIMIT = 12
AUTHORS_SHOWN = 5

# ts_headline wraps matches in these private-use characters, which are removed from the text
# first; everything else is escaped and only then do they become <mark> tags. Titles and
# abstracts come from outside, so no markup of theirs may survive.
_HIGHLIGHT_START = "\ue000"
_HIGHLIGHT_STOP = "\ue001"
_TITLE_HEADLINE_OPTIONS = (
    f'HighlightAll=true, StartSel="{_HIGHLIGHT_START}", StopSel="{_HIGHLIGHT_STOP}"'
)
_ABSTRACT_HEADLINE_OPTIONS = (
    f'MaxFragments=2, MaxWords=30, MinWords=12, FragmentDelimiter=" … ", '
    f'StartSel="{_HIGHLIGHT_START}", StopSel="{_HIGHLIGHT_STOP}"'
)
TEXT_SEARCH_CONFIG = "english"  # the config Work.search_vector is generated with

ResultT = TypeVar("ResultT")


# --- pages and counts -------------------------------------------------------------------------


@dataclass(frozen=True)
class TabCount:
    """How many records of one kind match, counted up to COUNT_CAP."""

    count: int
    capped: bool = False

    def __str__(self) -> str:
        return f"{self.count:,}+" if self.capped else f"{self.count:,}"


@dataclass(frozen=True)
class SearchPage(Generic[ResultT]):
    """One page of results. `total` counts every match, except for works, where it stops at
    WORK_CANDIDATE_LIMIT and `total_capped` says so."""

    items: list[ResultT]
    number: int
    page_size: int
    total: int
    total_capped: bool = False

    @property
    def num_pages(self) -> int:
        return max(1, -(-self.total // self.page_size))

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.number < self.num_pages

    @property
    def previous_page_number(self) -> int:
        return self.number - 1

    @property
    def next_page_number(self) -> int:
        return self.number + 1

    @property
    def start_index(self) -> int:
        return (self.number - 1) * self.page_size + 1 if self.items else 0

    @property
    def end_index(self) -> int:
        return (self.number - 1) * self.page_size + len(self.items)

    @property
    def past_the_end(self) -> bool:
        """A page number beyond the results (an old link, a hand-edited URL)."""
        return not self.items and self.number > 1


@dataclass(frozen=True)
class Facet:
    """One choice of a filter, with how many of the current matches it keeps."""

    value: str
    label: str
    count: int


def _page_offset(page: int) -> int:
    return (max(page, 1) - 1) * SEARCH_PAGE_SIZE


def _capped_count(queryset: QuerySet[Any]) -> TabCount:
    # The order is dropped: counting needs none, and a sort would read every match.
    count = queryset.order_by()[: COUNT_CAP + 1].count()
    return TabCount(count=min(count, COUNT_CAP), capped=count > COUNT_CAP)


# --- names: researchers, institutions, topics -------------------------------------------------


class NormalizedName(Func):
    """researchers_normalize_name(text): normalize_name in SQL, for columns without a stored
    normal form. Institution names have a trigram index on exactly this expression."""

    function = "researchers_normalize_name"
    output_field = TextField()


class NormalizedNames(Func):
    """researchers_normalize_names(varchar[]): all alternate names as one normalized text.
    Researcher.alternate_names has a trigram index on exactly this expression."""

    function = "researchers_normalize_names"
    output_field = TextField()


class BestAlternateNameScore(Func):
    """The best name score (see _name_score) among a researcher's alternate names, 0 if none.

    Scored name by name rather than on the joined text, so that a record with many alternate
    names does not win on their sheer number. Only computed for rows that already matched.
    """

    output_field = FloatField()

    def __init__(self, names: Any, normalized_query: str) -> None:
        super().__init__(names, Value(normalized_query, output_field=TextField()))

    def as_sql(self, compiler: Any, connection: Any, **extra_context: Any) -> tuple[str, list]:
        names_sql, names_params = compiler.compile(self.source_expressions[0])
        query_sql, query_params = compiler.compile(self.source_expressions[1])
        # Most records have no alternate name: the CASE spares them the subquery.
        sql = (
            f"CASE WHEN cardinality({names_sql}) = 0 THEN 0 ELSE "
            f"(SELECT coalesce(max(similarity({query_sql}, alternate.name) "
            f"+ word_similarity({query_sql}, alternate.name)), 0) "
            f"FROM unnest({names_sql}) AS raw_name, "
            f"researchers_normalize_name(raw_name) AS alternate(name)) END"
        )
        return sql, [*names_params, *query_params, *query_params, *names_params]


def _name_score(normalized_query: str, expression: Any) -> Any:
    """similarity + word similarity, from 0 to 2.

    Word similarity measures how much of the query a stretch of the name holds, forgiving typos;
    plain similarity then prefers the name that has nothing else in it, so "zhong" lists Kai
    Zhong before Kangyou Zhong, and "zhizhen zhong" puts Zhizhen Zhong before Zhizhen Zheng
    however much more cited. Trigrams are a set, so word order does not count: "zhong zhizhen"
    scores 2 against "zhizhen zhong".
    """
    return TrigramSimilarity(expression, normalized_query) + TrigramWordSimilarity(
        normalized_query, expression
    )


def _trigram_name_condition(query: Any, expression: str, *, fragment: Any = None) -> Q:
    """Rows whose `expression` is like `query`, through a pg_trgm GIN index: `%>` is word
    similarity of at least 0.6, so a name typed part way, a single word of a longer name or a
    word with a typo matches. `fragment`, a LIKE pattern, catches a piece of a word ("izhe");
    LIKE is case-sensitive, which is right because both sides are already lower-case (icontains
    would wrap the column in UPPER() and miss the index)."""
    condition = Q(**{f"{expression}__trigram_word_similar": query})
    if fragment is not None:
        condition |= Q(Like(F(expression), fragment))
    return condition


class Like(Lookup):
    """`lhs LIKE rhs` with the pattern as given (Django's contains escapes and wraps it)."""

    lookup_name = "like"

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list]:
        lhs_sql, lhs_params = self.process_lhs(compiler, connection)
        rhs_sql, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs_sql} LIKE {rhs_sql}", [*lhs_params, *rhs_params]


def _fragment_pattern(normalized_query: str) -> str | None:
    """A LIKE pattern for a one-word query of three letters or more (under three, LIKE has no
    trigram to use the index with and `%>` finds the words that start that way)."""
    if " " in normalized_query or len(normalized_query) < 3:
        return None
    return f"%{normalized_query}%"


_LETTERS = "abcdefghijklmnopqrstuvwxyz"
# Above this many query words the rest are looked up exactly: each word's variants are a few
# hundred strings, and a query that long is a pasted title, not a name.
_MAX_FUZZY_WORDS = 6


def word_variants(word: str) -> list[str]:
    """`word` and every string one edit away from it (Damerau: a letter dropped, added or
    replaced, or two neighbours swapped), over the letters normalize_name keeps.

    Words of one or two letters (initials, "li") stand for themselves: one edit away from
    them is nearly every short word."""
    if len(word) <= 2:
        return [word]
    variants = {word}
    for position in range(len(word) + 1):
        head, tail = word[:position], word[position:]
        variants.update(head + letter + tail for letter in _LETTERS)  # added
        if tail:
            variants.add(head + tail[1:])  # dropped
            variants.update(head + letter + tail[1:] for letter in _LETTERS)  # replaced
        if len(tail) > 1:
            variants.add(head + tail[1] + tail[0] + tail[2:])  # swapped
    return sorted(variants)


_NAME_WORDS = "string_to_array(name_normalized::text, ' ')"
_ALTERNATE_NAME_WORDS = "string_to_array(researchers_normalize_names(alternate_names), ' ')"
_ALTERNATE_NAMES = "researchers_normalize_names(alternate_names)"


def _name_candidates(normalized_query: str) -> RawSQL:
    """ARRAY(ids of the researchers whose name or an alternate name matches), in two tiers:

    1. every word of the query, give or take one typo, is a word of the name: exact lookups in
       the word indexes (`&&` on `string_to_array(...)`, migration 0008), cheap however common
       the words are;
    2. only when tier 1 finds nobody: trigram word similarity (`%>`, at least 0.6) for names
       typed part way and heavier typos, and LIKE for a piece of a word ("izhe"). The trigram
       scan reads the long posting lists of common trigrams, so it runs only when needed: the
       `NOT EXISTS` is a one-time filter that skips it otherwise.

    Merged records count in neither tier (they only live on as redirects). One statement,
    evaluated once per query as an InitPlan; the caller matches `id = ANY(...)` on the primary
    key.
    """
    words = list(dict.fromkeys(normalized_query.split()))
    variants = [
        word_variants(word) if index < _MAX_FUZZY_WORDS else [word]
        for index, word in enumerate(words)
    ]
    # Each array goes in once, and reaches `&&` through a scalar subquery: given the array
    # itself, the planner adds up a guess for each of its few hundred variants, concludes that
    # most of the table matches and scans it all; given a subquery it takes its default 1% and
    # uses the index.
    columns = [f"w{index}" for index in range(len(variants))]
    query_words = ", ".join(f"%s::text[] AS {column}" for column in columns)
    by_name = " AND ".join(
        f"{_NAME_WORDS} && (SELECT {column} FROM query_words)" for column in columns
    )
    by_alternate = " AND ".join(
        f"{_ALTERNATE_NAME_WORDS} && (SELECT {column} FROM query_words)" for column in columns
    )
    trigram = f"name_normalized %%> %s OR {_ALTERNATE_NAMES} %%> %s"
    trigram_params: list[Any] = [normalized_query, normalized_query]
    if fragment := _fragment_pattern(normalized_query):
        trigram += f" OR name_normalized LIKE %s OR {_ALTERNATE_NAMES} LIKE %s"
        trigram_params += [fragment, fragment]
    sql = f"""ARRAY(
        WITH query_words AS MATERIALIZED (SELECT {query_words}),
        found_by_words AS MATERIALIZED (
            SELECT id FROM researchers_researcher
            WHERE merged_into_id IS NULL AND (({by_name}) OR ({by_alternate}))
        )
        SELECT id FROM found_by_words
        UNION ALL
        SELECT id FROM researchers_researcher
        WHERE NOT EXISTS (SELECT FROM found_by_words) AND merged_into_id IS NULL
          AND ({trigram})
    )"""
    # The SQL above is built from constants only; every value goes in as a parameter.
    return RawSQL(  # noqa: S611
        sql, [*variants, *trigram_params], output_field=ArrayField(BigIntegerField())
    )


class AnyOf(Lookup):
    """`lhs = ANY(rhs)` for an array: with an ARRAY(subquery) it becomes an index scan on lhs
    for the ids the subquery computed once."""

    lookup_name = "any_of"

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list]:
        lhs_sql, lhs_params = self.process_lhs(compiler, connection)
        rhs_sql, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs_sql} = ANY({rhs_sql})", [*lhs_params, *rhs_params]


def _researchers_name_filter(
    queryset: QuerySet[Researcher], normalized_query: str
) -> QuerySet[Researcher]:
    """Researchers in `queryset` whose name or an alternate name matches (_name_candidates)."""
    return queryset.filter(AnyOf(F("id"), _name_candidates(normalized_query)))


def researchers_matching_name(queryset: QuerySet[Researcher], query: str) -> QuerySet[Researcher]:
    """Narrow `queryset` to researchers whose name or an alternate name is like `query`, best
    match first (annotated `name_score`), then the exact spelling, then most cited.

    Case, accents, word order and a typo per word do not matter: "Zhong Zhizhen", "ZHIZHEN",
    "zhizen zong" and "zhízhen zhong" all find Zhizhen Zhong. Used by the search page, the
    header suggestions and the API.
    """
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        # Punctuation only: nothing can match, and an empty pattern would match everything.
        return queryset.none()
    return (
        _researchers_name_filter(queryset, normalized_query)
        .annotate(
            name_score=Greatest(
                _name_score(normalized_query, F("name_normalized")),
                BestAlternateNameScore(F("alternate_names"), normalized_query),
            ),
            # Trigrams are a set: "li anan" and "anan li" score the same, the spelling decides.
            exact_name=Case(
                When(name_normalized=normalized_query, then=Value(1)),
                default=Value(0),
            ),
        )
        .order_by("-name_score", "-exact_name", "-cited_by_count", "id")
    )


@dataclass(frozen=True)
class ResearcherFilters:
    institution_id: int | None = None
    has_orcid: bool = False
    claimed: bool = False


def _researcher_filter_q(filters: ResearcherFilters, *, with_institution: bool = True) -> Q:
    condition = Q()
    if with_institution and filters.institution_id is not None:
        condition &= Q(last_known_institution_id=filters.institution_id)
    if filters.has_orcid:
        condition &= Q(orcid__isnull=False)
    if filters.claimed:
        condition &= Q(claimed_by__isnull=False)
    return condition


def researcher_search(
    *, query: str, filters: ResearcherFilters = ResearcherFilters(), page: int = 1
) -> SearchPage[Researcher]:
    """One page of researchers for the search page, institution joined. One query."""
    matches = researchers_matching_name(researchers_public(), query).filter(
        _researcher_filter_q(filters)
    )
    offset = _page_offset(page)
    rows = list(
        matches.select_related("last_known_institution").annotate(matches_total=Window(Count("*")))[
            offset : offset + SEARCH_PAGE_SIZE
        ]
    )
    return SearchPage(
        items=rows,
        number=page,
        page_size=SEARCH_PAGE_SIZE,
        total=rows[0].matches_total if rows else 0,
    )


def researcher_institution_facets(*, query: str, filters: ResearcherFilters) -> list[Facet]:
    """The current institutions most common among the matches (the other filters applied),
    the chosen one first. One query."""
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        return []
    rows = (
        _researchers_name_filter(researchers_public(), normalized_query)
        .filter(_researcher_filter_q(filters, with_institution=False))
        .filter(last_known_institution__isnull=False)
        .values("last_known_institution_id", "last_known_institution__name")
        .annotate(
            matches=Count("id"),
            chosen=Case(
                When(last_known_institution_id=filters.institution_id, then=Value(0)),
                default=Value(1),
            ),
        )
        .order_by("chosen", "-matches", "last_known_institution__name")[:FACET_LIMIT]
    )
    return [
        Facet(
            value=str(row["last_known_institution_id"]),
            label=row["last_known_institution__name"],
            count=row["matches"],
        )
        for row in rows
    ]


def researcher_suggestions(query: str) -> list[Researcher]:
    """A few researchers for the header box, best match first, institution joined. One query,
    or none when the query has fewer than SUGGESTION_MIN_LENGTH letters or digits."""
    if len(normalize_name(query[:MAX_QUERY_LENGTH])) < SUGGESTION_MIN_LENGTH:
        return []
    return list(
        researchers_matching_name(researchers_public(), query).select_related(
            "last_known_institution"
        )[:SUGGESTION_LIMIT]
    )


def _institutions_matching_name(normalized_query: str) -> QuerySet[Institution]:
    return Institution.objects.alias(name_key=NormalizedName("name")).filter(
        _trigram_name_condition(
            normalized_query, "name_key", fragment=_fragment_pattern(normalized_query)
        )
    )


@dataclass(frozen=True)
class InstitutionFilters:
    country_code: str = ""


def institution_search(
    *, query: str, filters: InstitutionFilters = InstitutionFilters(), page: int = 1
) -> SearchPage[Institution]:
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        return SearchPage(items=[], number=page, page_size=SEARCH_PAGE_SIZE, total=0)
    matches = _institutions_matching_name(normalized_query)
    if filters.country_code:
        matches = matches.filter(country_code=filters.country_code.upper())
    offset = _page_offset(page)
    rows = list(
        matches.annotate(
            name_score=_name_score(normalized_query, NormalizedName("name")),
            matches_total=Window(Count("*")),
        ).order_by("-name_score", "name", "id")[offset : offset + SEARCH_PAGE_SIZE]
    )
    return SearchPage(
        items=rows,
        number=page,
        page_size=SEARCH_PAGE_SIZE,
        total=rows[0].matches_total if rows else 0,
    )


def institution_country_facets(*, query: str, filters: InstitutionFilters) -> list[Facet]:
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        return []
    chosen = filters.country_code.upper()
    rows = (
        _institutions_matching_name(normalized_query)
        .exclude(country_code="")
        .values("country_code")
        .annotate(
            matches=Count("id"),
            chosen=Case(When(country_code=chosen, then=Value(0)), default=Value(1)),
        )
        .order_by("chosen", "-matches", "country_code")[:FACET_LIMIT]
    )
    return [
        Facet(value=row["country_code"], label=row["country_code"], count=row["matches"])
        for row in rows
    ]


def _topics_matching(query: str) -> QuerySet[Topic]:
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        return Topic.objects.none()
    # A few thousand rows at most (OpenAlex has ~4,500 topics): no index needed.
    return Topic.objects.alias(name_key=NormalizedName("name")).filter(
        _trigram_name_condition(
            normalized_query, "name_key", fragment=_fragment_pattern(normalized_query)
        )
        | Q(code__iexact=query.strip())
    )


@dataclass(frozen=True)
class TopicFilters:
    level: str = ""


def topic_search(
    *, query: str, filters: TopicFilters = TopicFilters(), page: int = 1
) -> SearchPage[Topic]:
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    matches = _topics_matching(query)
    if filters.level:
        matches = matches.filter(level=filters.level)
    offset = _page_offset(page)
    rows = list(
        matches.select_related("parent")
        .annotate(
            name_score=_name_score(normalized_query, NormalizedName("name"))
            # A category code typed exactly ("cs.CV") beats any name.
            + Case(When(code__iexact=query.strip(), then=Value(2.0)), default=Value(0.0)),
            matches_total=Window(Count("*")),
        )
        .order_by("-name_score", "name", "id")[offset : offset + SEARCH_PAGE_SIZE]
    )
    return SearchPage(
        items=rows,
        number=page,
        page_size=SEARCH_PAGE_SIZE,
        total=rows[0].matches_total if rows else 0,
    )


# --- works ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WorkFilters:
    year_from: int | None = None
    year_to: int | None = None
    type: str = ""
    topic_id: int | None = None


@dataclass
class WorkHit:
    work: Work
    rank: float
    title_html: SafeString
    snippet_html: SafeString
    authorships: list[Authorship] = field(default_factory=list)

    @property
    def more_authors_count(self) -> int:
        """Authors beyond the ones shown (the work's own count, the byline may be longer)."""
        return max(0, self.work.authors_count - len(self.authorships))


def highlighted_html(headline: str) -> SafeString:
    """Escaped text with the ts_headline marks turned into <mark>…</mark>, always balanced."""
    parts: list[str] = []
    marking = False
    for character_run in _split_marks(headline):
        if character_run == _HIGHLIGHT_START:
            if not marking:
                parts.append("<mark>")
                marking = True
        elif character_run == _HIGHLIGHT_STOP:
            if marking:
                parts.append("</mark>")
                marking = False
        else:
            parts.append(escape(character_run))
    if marking:
        parts.append("</mark>")
    return mark_safe("".join(parts))  # noqa: S308 - every piece of text above is escaped


def _split_marks(text: str) -> list[str]:
    pieces: list[str] = []
    current: list[str] = []
    for character in text:
        if character in (_HIGHLIGHT_START, _HIGHLIGHT_STOP):
            if current:
                pieces.append("".join(current))
                current = []
            pieces.append(character)
        else:
            current.append(character)
    if current:
        pieces.append("".join(current))
    return pieces


def _work_search_query(query: str) -> SearchQuery:
    return SearchQuery(query[:MAX_QUERY_LENGTH], search_type="websearch", config=TEXT_SEARCH_CONFIG)


def _works_matching(query: str, filters: WorkFilters, *, with_topic: bool = True) -> QuerySet[Work]:
    """Works whose title or abstract match, filters applied, in no particular order."""
    matches = Work.objects.filter(search_vector=_work_search_query(query)).order_by()
    if filters.year_from is not None:
        matches = matches.filter(publication_year__gte=filters.year_from)
    if filters.year_to is not None:
        matches = matches.filter(publication_year__lte=filters.year_to)
    if filters.type:
        matches = matches.filter(type=filters.type)
    if with_topic and filters.topic_id is not None:
        matches = matches.filter(
            Exists(WorkTopic.objects.filter(work=OuterRef("pk"), topic_id=filters.topic_id))
        )
    return matches


def _work_candidates(query: str, filters: WorkFilters, *, with_topic: bool = True) -> Any:
    return _works_matching(query, filters, with_topic=with_topic).values("id")[
        :WORK_CANDIDATE_LIMIT
    ]


_WORK_PAGE_SQL = """
WITH candidates AS MATERIALIZED ({candidates}),
ranked AS (
    SELECT c.id, c.cited_by_count,
           ts_rank(c.search_vector, websearch_to_tsquery(%s::regconfig, %s)) AS rank,
           count(*) OVER () AS total
    FROM candidates c
    ORDER BY rank DESC, c.cited_by_count DESC, c.id
    LIMIT %s OFFSET %s
)
SELECT r.id, r.rank, r.total,
       ts_headline(%s::regconfig, translate(w.title, %s, ''),
                   websearch_to_tsquery(%s::regconfig, %s), %s),
       ts_headline(%s::regconfig, translate(w.abstract, %s, ''),
                   websearch_to_tsquery(%s::regconfig, %s), %s)
FROM ranked r JOIN publications_work w ON w.id = r.id
ORDER BY r.rank DESC, r.cited_by_count DESC, r.id
"""


_WORK_HIT_FIELDS = (
    "id",
    "type",
    "publication_year",
    "cited_by_count",
    "authors_count",
    "source__name",
    "source__abbreviated_name",
)
_AUTHORSHIP_FIELDS = (
    "id",
    "work_id",
    "position",
    "raw_name",
    "researcher__slug",
    "researcher__display_name",
)


def work_search(
    *, query: str, filters: WorkFilters = WorkFilters(), page: int = 1
) -> SearchPage[WorkHit]:
    """One page of works, best ranked first, with highlighted title and abstract snippet.

    Three queries: the ranked page (candidates, rank and headlines in one statement), the works
    with their source, and their first AUTHORS_SHOWN authorships.
    """
    query = query[:MAX_QUERY_LENGTH]
    candidates = _works_matching(query, filters).values("id", "search_vector", "cited_by_count")[
        :WORK_CANDIDATE_LIMIT
    ]
    candidates_sql, candidates_params = candidates.query.sql_with_params()
    marks = _HIGHLIGHT_START + _HIGHLIGHT_STOP
    params = [
        *candidates_params,
        TEXT_SEARCH_CONFIG,
        query,
        SEARCH_PAGE_SIZE,
        _page_offset(page),
        TEXT_SEARCH_CONFIG,
        marks,
        TEXT_SEARCH_CONFIG,
        query,
        _TITLE_HEADLINE_OPTIONS,
        TEXT_SEARCH_CONFIG,
        marks,
        TEXT_SEARCH_CONFIG,
        query,
        _ABSTRACT_HEADLINE_OPTIONS,
    ]
    with connection.cursor() as cursor:
        cursor.execute(_WORK_PAGE_SQL.format(candidates=candidates_sql), params)
        rows = cursor.fetchall()
    if not rows:
        return SearchPage(items=[], number=page, page_size=SEARCH_PAGE_SIZE, total=0)
    # Only what a result row shows: the title and abstract come highlighted from the query
    # above, and the JSON columns would only cost decoding.
    works = (
        Work.objects.select_related("source")
        .only(*_WORK_HIT_FIELDS)
        .prefetch_related(
            Prefetch(
                "authorships",
                queryset=Authorship.objects.select_related("researcher")
                .only(*_AUTHORSHIP_FIELDS)
                .order_by("position")[:AUTHORS_SHOWN],
                to_attr="first_authorships",
            )
        )
        .in_bulk([row[0] for row in rows])
    )
    hits = [
        WorkHit(
            work=works[work_id],
            rank=rank,
            title_html=highlighted_html(title_headline),
            snippet_html=highlighted_html(abstract_headline or ""),
            authorships=works[work_id].first_authorships,
        )
        for work_id, rank, _total, title_headline, abstract_headline in rows
        if work_id in works  # deleted between the two queries: leave it out
    ]
    total = rows[0][2]
    return SearchPage(
        items=hits,
        number=page,
        page_size=SEARCH_PAGE_SIZE,
        total=total,
        total_capped=total >= WORK_CANDIDATE_LIMIT,
    )


def work_topic_facets(*, query: str, filters: WorkFilters) -> list[Facet]:
    """The topics most common among the candidate works (the other filters applied), the chosen
    one first. One query."""
    rows = (
        WorkTopic.objects.filter(
            AnyOf(F("work_id"), ArraySubquery(_work_candidates(query, filters, with_topic=False)))
        )
        .values("topic_id", "topic__name")
        .annotate(
            matches=Count("work_id"),
            chosen=Case(When(topic_id=filters.topic_id, then=Value(0)), default=Value(1)),
        )
        .order_by("chosen", "-matches", "topic__name")[:FACET_LIMIT]
    )
    return [
        Facet(value=str(row["topic_id"]), label=row["topic__name"], count=row["matches"])
        for row in rows
    ]


def work_type_facets(*, query: str, filters: WorkFilters) -> list[Facet]:
    """The work types among the candidate works (the other filters applied). One query."""
    rows = (
        Work.objects.filter(
            AnyOf(
                F("id"),
                ArraySubquery(_work_candidates(query, dataclasses.replace(filters, type=""))),
            )
        )
        .values("type")
        .annotate(matches=Count("id"))
        .order_by("-matches", "type")
    )
    return [Facet(value=row["type"], label=row["type"], count=row["matches"]) for row in rows]


# --- all tabs ---------------------------------------------------------------------------------

SEARCH_KINDS: Sequence[str] = ("researchers", "works", "topics", "institutions")


def search_counts(query: str) -> dict[str, TabCount]:
    """How many records of each kind match `query`, without filters. Four queries."""
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        return {kind: TabCount(0) for kind in SEARCH_KINDS}
    return {
        "researchers": _capped_count(
            _researchers_name_filter(researchers_public(), normalized_query)
        ),
        "works": _capped_count(_works_matching(query[:MAX_QUERY_LENGTH], WorkFilters())),
        "topics": _capped_count(_topics_matching(query)),
        "institutions": _capped_count(_institutions_matching_name(normalized_query)),
    }
