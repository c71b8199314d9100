"""Researcher name search: typo-tolerant matching of names, shared by the search app (its
researchers tab and the header suggestions), the API (`?search=` on researchers) and the graph
app's path finder (researchers.selectors.researchers_matching_name forwards here).

Names are compared in one normal form on both sides: researchers.names.normalize_name in Python
(the importer stores it as Researcher.name_normalized; the query goes through it here), and its
SQL twin researchers_normalize_name() (migrations 0007 and 0008) for text without a stored
normal form: alternate names, institution and topic names. Both fold accents and case and keep
a-z and 0-9. Researcher names are found word by word, a typo per word forgiven, through exact
lookups in a GIN index of their words; when that finds nobody, each word's closest real words
in the vocabulary of name words (researchers.name_words: two or three typos, or typed part
way) are looked up the same way; trigram similarity over every name only steps in when that
finds nobody either (see _name_candidates_statement). Ranking is by trigram similarity to the
whole query. The search page's researchers tab ranks, pages and counts these candidates in one
statement of its own (researchers.name_page), by the same scores and order.

The name helpers below (NormalizedName, name_score, trigram_name_condition, fragment_pattern)
are also what the search app matches institution and topic names with. This module reads no
other app: it sits at the bottom with the researchers it searches.
"""

from __future__ import annotations

from typing import Any

from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.search import TrigramSimilarity, TrigramWordSimilarity
from django.db.models import (
    BigIntegerField,
    Case,
    F,
    FloatField,
    Func,
    Q,
    QuerySet,
    TextField,
    Value,
    When,
)
from django.db.models.expressions import RawSQL
from django.db.models.functions import Greatest
from django.db.models.lookups import Lookup

from bzpeer.db import array_literal

from .models import Researcher
from .name_words import vocabulary_words_sql
from .names import normalize_name

# Longer input is cut here: a name is never that long, and every matching cost grows with it.
MAX_QUERY_LENGTH = 200


class NormalizedName(Func):
    """researchers_normalize_name(text): normalize_name in SQL, for columns without a stored
    normal form. Institution names have a trigram index on exactly this expression."""

    function = "researchers_normalize_name"
    output_field = TextField()


# Most records have no alternate name: the CASE spares them the subquery. `names` comes first
# and last, `query` twice in between: callers pass their parameters in that order.
_BEST_ALTERNATE_SCORE_SQL = (
    "CASE WHEN cardinality({names}) = 0 THEN 0 ELSE "
    "(SELECT coalesce(max(similarity({query}, alternate.name) "
    "+ word_similarity({query}, alternate.name)), 0) "
    "FROM unnest({names}) AS raw_name, "
    "researchers_normalize_name(raw_name) AS alternate(name)) END"
)


class BestAlternateNameScore(Func):
    """The best name score (see name_score) among a researcher's alternate names, 0 if none.

    Scored name by name rather than on the joined text, so that a record with many alternate
    names does not win on their sheer number. Only computed for rows that already matched.
    """

    output_field = FloatField()

    def __init__(self, names: Any, normalized_query: str) -> None:
        super().__init__(names, Value(normalized_query, output_field=TextField()))

    def as_sql(  # type: ignore[override]  # only compiler and connection are ever passed
        self, compiler: Any, connection: Any, **extra_context: Any
    ) -> tuple[str, list]:
        names_sql, names_params = compiler.compile(self.source_expressions[0])
        query_sql, query_params = compiler.compile(self.source_expressions[1])
        sql = _BEST_ALTERNATE_SCORE_SQL.format(names=names_sql, query=query_sql)
        return sql, [*names_params, *query_params, *query_params, *names_params]


def name_score(normalized_query: str, expression: Any) -> Any:
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


def trigram_name_condition(query: Any, expression: str, *, fragment: Any = None) -> Q:
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


def fragment_pattern(normalized_query: str) -> str | None:
    """A LIKE pattern for a one-word query of three letters or more (under three, LIKE has no
    trigram to use the index with and `%>` finds the words that start that way)."""
    if " " in normalized_query or len(normalized_query) < 3:
        return None
    return f"%{normalized_query}%"


_LETTERS = "abcdefghijklmnopqrstuvwxyz"
# Above this many query words the rest are looked up exactly: each word's variants are a few
# hundred strings, and a query that long is a pasted title, not a name.
_MAX_FUZZY_WORDS = 6
# The vocabulary tier's words are looked up only when the query's last word has this many
# letters (see _name_candidates_statement).
_VOCABULARY_LAST_WORD_LENGTH = 3


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


def _name_candidates_statement(normalized_query: str, columns: str) -> tuple[str, list[Any]]:
    """SELECT `columns` of the researchers whose name or an alternate name matches, in three
    tiers, each only when the ones before found nobody:

    1. every word of the query, give or take one typo, is a word of the name: exact lookups in
       the word indexes (`&&` on `string_to_array(...)`, migration 0008), cheap however common
       the words are;
    2. the vocabulary tier (researchers.name_words): every word of the query, give or take two
       or three typos, or typed part way, is a word of the name: each word's closest real words
       are found in the vocabulary of name words, then their bearers through the same word
       indexes. Only when the query's last word has three letters or more (one ending in an
       initial is a name being typed). The researchers the vocabulary has not read yet (imported
       since its last refresh) are matched as tier 3 matches them, and for a one-word query the
       names holding it as a piece of a word (LIKE, over every name) are added;
    3. trigram word similarity (`%>`, at least 0.6) for names typed part way and heavier typos
       (a piece of a word, "izhe", is tier 2's LIKE: found there or nowhere), its values through
       subqueries so that the planner does not estimate them over the column's statistics
       (pg_trgm's matchingsel, half a millisecond of planning each in every search). The
       trigram scan reads the long posting lists of common trigrams over every name, so it runs
       only when needed: the `NOT EXISTS` are one-time filters that skip it otherwise. They stand outside the scan (`OFFSET 0` keeps
       them from being pushed down): inside, a scan the planner runs in parallel started its
       workers before the filter stopped them, even when the words had found someone (issue
       30: "da da", which the words find 2,532 times at 200,000 works, spent most of its time
       starting workers that did nothing).

    Merged records count in no tier (they only live on as redirects). `columns` are columns of
    researchers_researcher, a constant of this module, never user input.
    """
    words = list(dict.fromkeys(normalized_query.split()))
    fuzzy_words = words[:_MAX_FUZZY_WORDS]
    variants = [word_variants(word) for word in fuzzy_words] + [
        [w] for w in words[len(fuzzy_words) :]
    ]
    # Each array goes in once, and reaches `&&` through a scalar subquery: given the array
    # itself, the planner adds up a guess for each of its few hundred variants, concludes that
    # most of the table matches and scans it all; given a subquery it takes its default 1% and
    # uses the index.
    array_names = [f"w{index}" for index in range(len(variants))]
    query_words = ", ".join(f"%s::text[] AS {name}" for name in array_names)
    vocabulary_sql, vocabulary_params = _vocabulary_words(words, fuzzy_words, array_names)
    trigram, trigram_params = _trigram_condition(normalized_query)
    # A query ending in an initial or two letters is a name being typed (the header box): the
    # trigram tier's beginnings of words answer it better than the vocabulary's neighbours.
    vocabulary_applies = "true" if len(words[-1]) >= _VOCABULARY_LAST_WORD_LENGTH else "false"
    fragment = fragment_pattern(normalized_query)
    by_fragment = (
        f"UNION SELECT {columns} FROM researchers_researcher WHERE merged_into_id IS NULL "
        f"AND (name_normalized LIKE (SELECT %s) OR {_ALTERNATE_NAMES} LIKE (SELECT %s))"
        if fragment
        else ""
    )
    sql = f"""
        WITH query_words AS MATERIALIZED (SELECT {query_words}),
        found_by_words AS MATERIALIZED (
            SELECT {columns} FROM researchers_researcher
            WHERE merged_into_id IS NULL AND ({_words_condition(array_names, "query_words")})
        ),
        vocabulary_words AS MATERIALIZED (SELECT {vocabulary_sql}),
        found_by_vocabulary AS MATERIALIZED (
            SELECT {columns} FROM researchers_researcher
            WHERE merged_into_id IS NULL AND {vocabulary_applies}
            AND ({_words_condition(array_names, "vocabulary_words")})
            UNION
            SELECT {columns} FROM researchers_researcher
            WHERE merged_into_id IS NULL AND id > researchers_name_words_up_to()
            AND ({trigram})
            {by_fragment}
        )
        SELECT {columns} FROM found_by_words
        UNION ALL
        SELECT {columns} FROM found_by_vocabulary WHERE NOT EXISTS (SELECT FROM found_by_words)
        UNION ALL
        SELECT {columns} FROM (
            SELECT {columns} FROM researchers_researcher
            WHERE merged_into_id IS NULL AND ({trigram})
            OFFSET 0
        ) AS found_by_trigrams
        WHERE NOT EXISTS (SELECT FROM found_by_words)
        AND NOT EXISTS (SELECT FROM found_by_vocabulary)
    """
    params = [
        *(array_literal(words) for words in variants),
        *vocabulary_params,
        *trigram_params,
        *([fragment, fragment] if fragment else []),
        *trigram_params,
    ]
    return sql, params


def _words_condition(array_names: list[str], source: str) -> str:
    """Every query word's array (a column of the CTE `source`) meets the words of the name, or
    every one meets the words of an alternate name."""
    by_name = " AND ".join(
        f"{_NAME_WORDS} && (SELECT {name} FROM {source})" for name in array_names
    )
    by_alternate = " AND ".join(
        f"{_ALTERNATE_NAME_WORDS} && (SELECT {name} FROM {source})" for name in array_names
    )
    return f"({by_name}) OR ({by_alternate})"


def _vocabulary_words(
    words: list[str], fuzzy_words: list[str], array_names: list[str]
) -> tuple[str, list[Any]]:
    """The select list of the vocabulary_words CTE: for each query word, under the name of its
    variants array, the real words it may stand for (researchers.name_words); the words past
    _MAX_FUZZY_WORDS stand for themselves."""
    columns: list[str] = []
    params: list[Any] = []
    for index, (word, name) in enumerate(zip(words, array_names, strict=True)):
        if index < len(fuzzy_words):
            sql, word_params = vocabulary_words_sql(
                word, f"(SELECT {name} FROM query_words)", query_words_count=len(words)
            )
        else:
            sql, word_params = "ARRAY[%s]::text[]", [word]
        columns.append(f"{sql} AS {name}")
        params += word_params
    return ", ".join(columns), params


def _trigram_condition(normalized_query: str) -> tuple[str, list[Any]]:
    """The trigram tier's condition on a row of researchers_researcher, and its parameters
    (the statement uses it twice: for the researchers newer than the vocabulary, and for the
    trigram tier; each time with these parameters).

    Only `%>`: the LIKE of a one-word query's fragment is the vocabulary tier's `by_fragment`,
    over every researcher, so a name it matches is found there, and the trigram tier, which
    runs only when that tier found nobody, would scan the trigram index for it again to find
    nobody (issue 30: a third of a one-word query's trigram scans on the works tab).

    Each value comes through a subquery, so the planner does not estimate the condition by
    running it over the column's statistics (pg_trgm's matchingsel: about half a millisecond of
    planning for each `%>` of a name search), where the rows it filters are read by another
    index anyway."""
    value = "(SELECT %s)"
    trigram = f"name_normalized %%> {value} OR {_ALTERNATE_NAMES} %%> {value}"
    return trigram, [normalized_query, normalized_query]


def _name_candidates(normalized_query: str) -> RawSQL:
    """ARRAY(ids of the matching researchers, see _name_candidates_statement). One statement,
    evaluated once per query as an InitPlan; the caller matches `id = ANY(...)` on the primary
    key."""
    statement, params = _name_candidates_statement(normalized_query, "id")
    # The SQL is built from constants only; every value goes in as a parameter.
    return RawSQL(  # noqa: S611
        f"ARRAY({statement})", params, output_field=ArrayField(BigIntegerField())
    )


# The order of name matches in SQL, over the columns of researchers_researcher: best score,
# then the exact spelling, then most cited, then id (what _best_first sorts by in the ORM).
# Its five placeholders all take the normalized query.
_NAME_MATCH_SCORE_SQL = (
    "greatest(similarity(name_normalized, %s) + word_similarity(%s, name_normalized), "
    + _BEST_ALTERNATE_SCORE_SQL.format(names="alternate_names", query="%s")
    + ")"
)
_NAME_MATCH_ORDER_SQL = (
    f"{_NAME_MATCH_SCORE_SQL} DESC, name_normalized = %s DESC, cited_by_count DESC, id"
)
_CANDIDATE_COLUMNS = "id, name_normalized, alternate_names, cited_by_count"


def _best_name_candidates(normalized_query: str, limit: int, ranked_at_most: int) -> RawSQL:
    """ARRAY(ids of the `limit` best matches, in researchers_matching_name's order), ranking at
    most `ranked_at_most` of the matches.

    Ranking a match means reading its row and scoring its name, and two letters typed match
    tens of thousands of names ("ch": 37,000 of 500,000), so only the first `ranked_at_most`
    matches found are ranked. When there were more, the best names among them are completed by
    their most cited namesakes (researcher_name_cited_idx): a name shared by many, often the
    best match of a short query, still lists its most cited bearers. Below the cap the result
    is exactly researchers_matching_name's first `limit`.
    """
    statement, params = _name_candidates_statement(normalized_query, _CANDIDATE_COLUMNS)
    sql = f"""ARRAY(
        WITH candidate AS MATERIALIZED (
            SELECT {_CANDIDATE_COLUMNS} FROM ({statement}) AS matched LIMIT %s
        ),
        best AS MATERIALIZED (
            SELECT {_CANDIDATE_COLUMNS} FROM candidate ORDER BY {_NAME_MATCH_ORDER_SQL} LIMIT %s
        ),
        namesake AS (
            SELECT bearer.* FROM (
                -- A name that matched: with no alternate name, the record matched by it.
                SELECT DISTINCT name_normalized FROM best WHERE cardinality(alternate_names) = 0
            ) AS best_name
            CROSS JOIN LATERAL (
                SELECT {_CANDIDATE_COLUMNS} FROM researchers_researcher
                WHERE merged_into_id IS NULL AND name_normalized = best_name.name_normalized
                ORDER BY cited_by_count DESC, id LIMIT %s
            ) AS bearer
            WHERE (SELECT count(*) FROM candidate) >= %s
        )
        SELECT id FROM (SELECT * FROM best UNION SELECT * FROM namesake) AS found
        ORDER BY {_NAME_MATCH_ORDER_SQL} LIMIT %s
    )"""
    order_params = [normalized_query] * 5
    params = [
        *params,
        ranked_at_most,
        *order_params,
        limit,
        limit,
        ranked_at_most,
        *order_params,
        limit,
    ]
    # The SQL is built from constants only; every value goes in as a parameter.
    return RawSQL(sql, params, output_field=ArrayField(BigIntegerField()))  # noqa: S611


class AnyOf(Lookup):
    """`lhs = ANY(rhs)` for an array: with an ARRAY(subquery) it becomes an index scan on lhs
    for the ids the subquery computed once."""

    lookup_name = "any_of"

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list]:
        lhs_sql, lhs_params = self.process_lhs(compiler, connection)
        rhs_sql, rhs_params = self.process_rhs(compiler, connection)
        return f"{lhs_sql} = ANY({rhs_sql})", [*lhs_params, *rhs_params]


def researchers_name_filter(
    queryset: QuerySet[Researcher], normalized_query: str
) -> QuerySet[Researcher]:
    """Researchers in `queryset` whose name or an alternate name matches (_name_candidates)."""
    return queryset.filter(AnyOf(F("id"), _name_candidates(normalized_query)))


def researchers_matching_name(queryset: QuerySet[Researcher], query: str) -> QuerySet[Researcher]:
    """Narrow `queryset` to researchers whose name or an alternate name is like `query`, best
    match first (annotated `name_score`), then the exact spelling, then most cited.

    Case, accents, word order and a typo per word do not matter: "Zhong Zhizhen", "ZHIZHEN",
    "zhizen zong" and "zhízhen zhong" all find Zhizhen Zhong. Used by the search page, the
    API and the graph app's path finder.
    """
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        # Punctuation only: nothing can match, and an empty pattern would match everything.
        return queryset.none()
    return _best_first(researchers_name_filter(queryset, normalized_query), normalized_query)


def researchers_best_matching_name(
    query: str, *, limit: int, ranked_at_most: int
) -> QuerySet[Researcher]:
    """The `limit` best public researchers by name, for the header suggestions, ranked as
    researchers_matching_name ranks them.

    When `query` matches at most `ranked_at_most` names these are exactly the first `limit` of
    researchers_matching_name(researchers_public(), query); beyond, the first `ranked_at_most`
    matches found are ranked and the best names among them brought their most cited namesakes
    (see _best_name_candidates). Either way each match is read once, scored inside the
    candidate scan, and only `limit` rows come back. Further filters cannot be added to the
    result: they would apply after the limit.
    """
    normalized_query = normalize_name(query[:MAX_QUERY_LENGTH])
    if not normalized_query:
        return Researcher.objects.none()
    # The candidates are the public records already: no merged_into filter needed here.
    best = Researcher.objects.filter(
        AnyOf(F("id"), _best_name_candidates(normalized_query, limit, ranked_at_most))
    )
    return _best_first(best, normalized_query)


def _best_first(queryset: QuerySet[Researcher], normalized_query: str) -> QuerySet[Researcher]:
    """The ranking of name matches; _best_name_candidates orders by the same keys in SQL."""
    return queryset.annotate(
        name_score=Greatest(
            name_score(normalized_query, F("name_normalized")),
            BestAlternateNameScore(F("alternate_names"), normalized_query),
        ),
        # Trigrams are a set: "li anan" and "anan li" score the same, the spelling decides.
        exact_name=Case(
            When(name_normalized=normalized_query, then=Value(1)),
            default=Value(0),
        ),
    ).order_by("-name_score", "-exact_name", "-cited_by_count", "id")
