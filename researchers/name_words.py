"""The vocabulary of name words (migration 0017): each word of a researcher's name or alternate
name once, for the name search's vocabulary tier (researchers.name_search).

A word with two or three typos ("lieelqqi" for "lielqi") is not among the one-edit variants
the word tier looks up, and the trigram tier that used to catch it compares the query with
every full name (499,170 at 1M works), reading the long posting lists of common trigrams and
then ranking the thousands of loose matches they bring (issue 30). The vocabulary is small
(17,860 words for 99,813 researchers), so the closest real words to a query word are found in
it by edit distance in well under a millisecond, and the researchers bearing them through the
word indexes of migration 0008, exactly as the word tier finds them.

Currency: researchers_name_words_built holds the highest researcher id the vocabulary has read,
and the search matches the researchers above it as the trigram tier does, so a name imported
after the last refresh is still found (only more slowly once many wait). name_words_refresh
reads just those newer researchers; `from_start=True` reads everyone again (a name changed in
place or a record committed late with a lower id). Words no longer borne by anyone stay: they
find nobody and cost a lookup. This module reads no other app.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction

from bzpeer.queueing import task_enqueue_on_commit

NAME_WORDS_REFRESH_TASK = "researchers.tasks.name_words_refresh"

# One statement, so the highest id and the words read come from one snapshot.
NAME_WORDS_REFRESH_SQL = r"""
WITH up_to AS (SELECT coalesce(max(id), 0) AS id FROM researchers_researcher),
added AS (
    INSERT INTO researchers_name_word (word)
    SELECT DISTINCT name_word FROM researchers_researcher AS researcher,
    unnest(string_to_array(researcher.name_normalized::text, ' ')
           || string_to_array(researchers_normalize_names(researcher.alternate_names), ' '))
        AS name_word
    WHERE researcher.merged_into_id IS NULL AND researcher.id > %s AND name_word <> ''
    ON CONFLICT DO NOTHING
    RETURNING 1
),
built AS (
    INSERT INTO researchers_name_words_built (id, researchers_up_to, refreshed_at)
    SELECT 1, up_to.id, now() FROM up_to
    ON CONFLICT (id) DO UPDATE
    SET researchers_up_to = greatest(
        researchers_name_words_built.researchers_up_to, excluded.researchers_up_to
    ), refreshed_at = excluded.refreshed_at
    RETURNING researchers_up_to
)
SELECT (SELECT count(*) FROM added), (SELECT researchers_up_to FROM built)
"""


@dataclass(frozen=True)
class NameWordsRefreshed:
    words_added: int
    researchers_up_to: int


def name_words_refresh(*, from_start: bool = False) -> NameWordsRefreshed:
    """Add the words of the researchers the vocabulary has not read yet (all of them with
    `from_start`). Refreshes queue behind one another (a transaction lock), so two never read
    the same new researchers twice; searches are never blocked."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext('researchers_name_words_refresh'))")
        cursor.execute("SELECT researchers_name_words_up_to()")
        up_to = 0 if from_start else int(cursor.fetchone()[0])
        cursor.execute(NAME_WORDS_REFRESH_SQL, [up_to])
        added, researchers_up_to = cursor.fetchone()
    return NameWordsRefreshed(words_added=int(added), researchers_up_to=int(researchers_up_to))


def name_words_refresh_on_commit() -> None:
    """For an import's end: the vocabulary refreshed once the run commits (by task name)."""
    task_enqueue_on_commit(NAME_WORDS_REFRESH_TASK)


# The words a query word of three letters or more begins that are kept.
_COMPLETIONS = 32


def vocabulary_words_sql(
    word: str, variants_sql: str, *, query_words_count: int
) -> tuple[str, list[Any]]:
    """ARRAY(real words a query word may stand for), through researchers_name_word_candidates
    (migration 0017): its one-edit variants that are words of the vocabulary (the word tier's
    matches, as words); for a word of three letters or more, also the 32 closest words of the
    vocabulary that start with the same letter (people rarely mistype that one, and it narrows
    the search to a range of the primary key) within two edits (five letters or fewer; one for
    four letters or fewer when it is the only word of the query) or three, and the first 32
    words it begins. In the database's collation, as
    the word indexes are (against the vocabulary's "C", `&&` could not use them).

    `variants_sql` is an SQL expression for the word's variants array (a constant of the
    caller). The word goes in as a parameter.
    """
    completions = _COMPLETIONS if len(word) >= 3 else 0
    return (
        f"researchers_name_word_candidates(%s, {variants_sql}::text[], %s, %s)",
        [word, query_words_count, completions],
    )
