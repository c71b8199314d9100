"""Novelty after Wang, Veugelers and Stephan (2017), "Bias against novelty in science"
(Research Policy 46(8), 1416-1436); docs/novelty.md says what it measures and its limits.

For a work published in year t, its journals are the journals (Work.source) of its references
held here. A pair of its journals is new when no work held here published before t cites both.
Each new pair weighs 1 - cos(a, b), where a and b are the two journals' co-citation profiles in
the WINDOW_YEARS years before t (how often each was cited beside every other journal): two
journals cited beside the same others are close, two never cited in the same company are far
(distance 1, also when a journal was not cited at all in the window). The work's score is the
sum over its new pairs. Its percentile is the share of the other works of its field (OpenAlex's
field above its primary topic) and year, with enough references, that score lower.

The whole computation is set-based: a few statements over the citation table (each work's
journals, then one pass over their pairs counted per year), then one group of statements per
publication year (its works' new pairs and the co-citation profiles of the years before it),
then the percentiles and the researchers' medians; the results replace the stored ones in the same
transaction, so readers see the old figures or the new ones, never a mix.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection, transaction

from publications.models import (
    Authorship,
    Citation,
    NoveltyGap,
    ResearcherNovelty,
    Topic,
    Work,
    WorkNovelty,
    WorkTopic,
)

logger = logging.getLogger(__name__)

# A work needs this many references held here whose works have a journal, or its pairs say
# too little (Wang, Veugelers and Stephan's papers have tens of references).
MIN_REFERENCES = 5
# Works of the same field and year with enough references, this one included, below which a
# percentile would rank a work among too few others.
MIN_BASELINE = 10
# Works held with at least two referenced journals, published before the work's year: with
# fewer, almost every pair looks new because the history is missing, not because it is new.
MIN_PRIOR_WORKS = 50
# The co-citation profiles behind the distances are read over the years just before the
# work's (three in the paper).
WINDOW_YEARS = 3
# The new pairs kept on a work for its explanation, farthest first (all are counted).
PAIRS_KEPT = 200
# A researcher's Novelty needs this many of their works with a percentile.
RESEARCHER_MIN_WORKS = 1

TASK = "publications.tasks.novelty_compute"


@dataclass(frozen=True, slots=True)
class NoveltyResult:
    works: int
    works_with_percentile: int
    researchers: int
    years: int
    seconds: float


_WORK = Work._meta.db_table
_CITATION = Citation._meta.db_table
_WORK_TOPIC = WorkTopic._meta.db_table
_TOPIC = Topic._meta.db_table
_AUTHORSHIP = Authorship._meta.db_table
_WORK_NOVELTY = WorkNovelty._meta.db_table
_RESEARCHER_NOVELTY = ResearcherNovelty._meta.db_table

# Every citing work with its counts of references: held, held with a journal, distinct journals.
_WORKS_SQL = f"""
CREATE TEMP TABLE novelty_works ON COMMIT DROP AS
SELECT c.citing_id AS work_id, w.publication_year AS year,
       count(*) AS references_held, count(r.source_id) AS references_with_journal,
       count(DISTINCT r.source_id) AS journals
FROM {_CITATION} c
JOIN {_WORK} w ON w.id = c.citing_id
JOIN {_WORK} r ON r.id = c.cited_id
GROUP BY c.citing_id, w.publication_year
"""

# The journals each dated work cites (once each).
_REFS_SQL = f"""
CREATE TEMP TABLE novelty_refs ON COMMIT DROP AS
SELECT DISTINCT c.citing_id AS work_id, w.publication_year AS year, r.source_id
FROM {_CITATION} c
JOIN {_WORK} w ON w.id = c.citing_id
JOIN {_WORK} r ON r.id = c.cited_id
WHERE r.source_id IS NOT NULL AND w.publication_year > 0
"""

# How many works of each year cite each pair of journals (a < b): the one pass over every
# work's pairs; the history (first years) and the windows' co-citation counts are read from it.
_YEAR_PAIRS_SQL = """
CREATE TEMP TABLE novelty_year_pairs ON COMMIT DROP AS
SELECT a.year, a.source_id AS a, b.source_id AS b, count(*)::float8 AS n
FROM novelty_refs a JOIN novelty_refs b ON b.work_id = a.work_id AND b.source_id > a.source_id
GROUP BY a.year, a.source_id, b.source_id
"""

# Each pair of journals with the first year a work cites both.
_PAIR_FIRST_SQL = """
CREATE TEMP TABLE novelty_pair_first ON COMMIT DROP AS
SELECT a, b, min(year) AS first_year FROM novelty_year_pairs GROUP BY a, b
"""

_RESULTS_SQL = """
CREATE TEMP TABLE novelty_results (
  work_id bigint PRIMARY KEY, new_pairs integer, score float8, new_pair_list jsonb
) ON COMMIT DROP
"""

# The year's new pairs: the pairs first cited together in year t (no earlier work cites both;
# a work of year t makes the first year t at the latest), then the works of t citing each: read
# from the few new pairs, not from every pair of the year's works.
_NEW_PAIRS_SQL = """
CREATE TEMP TABLE novelty_new ON COMMIT DROP AS
SELECT a.work_id, f.a, f.b
FROM novelty_pair_first f
JOIN novelty_refs a ON a.source_id = f.a AND a.year = %(year)s
JOIN novelty_refs b ON b.work_id = a.work_id AND b.source_id = f.b
WHERE f.first_year = %(year)s
"""

# Co-citation counts in the window, in both directions, for the journals of the new pairs:
# cc(x, y) = the number of works of the window citing both x and y (x <> y).
_COCITATION_SQL = """
CREATE TEMP TABLE novelty_cc ON COMMIT DROP AS
WITH journals AS (SELECT a AS j FROM novelty_new UNION SELECT b FROM novelty_new),
window_pairs AS (
  SELECT a, b, sum(n) AS n FROM novelty_year_pairs
  WHERE year BETWEEN %(first)s AND %(last)s GROUP BY a, b
)
SELECT a AS x, b AS y, n FROM window_pairs WHERE a IN (SELECT j FROM journals)
UNION ALL
SELECT b AS x, a AS y, n FROM window_pairs WHERE b IN (SELECT j FROM journals)
"""

# Distance of each distinct new pair, then each work's sum; a journal without a profile in the
# window has no neighbours: cosine 0, distance 1.
_SCORES_SQL = """
WITH pairs AS (SELECT DISTINCT a, b FROM novelty_new),
norms AS (SELECT x, sqrt(sum(n * n)) AS norm FROM novelty_cc GROUP BY x),
dots AS (
  SELECT p.a, p.b, sum(ca.n * cb.n) AS dot
  FROM pairs p
  JOIN novelty_cc ca ON ca.x = p.a
  JOIN novelty_cc cb ON cb.x = p.b AND cb.y = ca.y
  GROUP BY p.a, p.b
),
distances AS (
  SELECT p.a, p.b,
         1.0 - coalesce(d.dot / nullif(na.norm * nb.norm, 0), 0.0) AS distance
  FROM pairs p
  LEFT JOIN dots d ON d.a = p.a AND d.b = p.b
  LEFT JOIN norms na ON na.x = p.a
  LEFT JOIN norms nb ON nb.x = p.b
)
INSERT INTO novelty_results (work_id, new_pairs, score, new_pair_list)
SELECT n.work_id, count(*), sum(d.distance),
       array_to_json((array_agg(json_build_array(n.a, n.b, round(d.distance::numeric, 4))
                                ORDER BY d.distance DESC, n.a, n.b))[1:%(kept)s])::jsonb
FROM novelty_new n JOIN distances d ON d.a = n.a AND d.b = n.b
GROUP BY n.work_id
"""

# Each work's field: its primary topic (the highest score; OpenAlex's topics before arXiv's
# categories) and the first of it, its parent and grandparent that is a field; the topic itself
# when none is.
_FIELDS_SQL = f"""
CREATE TEMP TABLE novelty_fields ON COMMIT DROP AS
SELECT DISTINCT ON (wt.work_id) wt.work_id,
       CASE WHEN t.level = 'field' THEN t.id WHEN p.level = 'field' THEN p.id
            WHEN g.level = 'field' THEN g.id ELSE t.id END AS field_id
FROM {_WORK_TOPIC} wt
JOIN novelty_works nw ON nw.work_id = wt.work_id
JOIN {_TOPIC} t ON t.id = wt.topic_id
LEFT JOIN {_TOPIC} p ON p.id = t.parent_id
LEFT JOIN {_TOPIC} g ON g.id = p.parent_id
ORDER BY wt.work_id, t.level = 'category', wt.score DESC, wt.topic_id
"""

# The stored rows, replaced: the gates in order (no year, too few references, too little
# history, no field), then the percentile among the works of the field and year that passed
# them, and the baseline's size (too small: no percentile either).
_STORE_SQL = f"""
WITH prior AS (
  SELECT y.year, (SELECT count(*) FROM novelty_works p
                  WHERE p.year < y.year AND p.year > 0 AND p.journals >= 2) AS prior_works
  FROM (SELECT DISTINCT year FROM novelty_works WHERE year > 0) y
),
gated AS (
  SELECT w.*, nullif(w.year, 0) AS known_year, f.field_id,
         coalesce(r.new_pairs, 0) AS new_pairs, coalesce(r.score, 0.0) AS score,
         coalesce(r.new_pair_list, '[]'::jsonb) AS new_pair_list,
         coalesce(pr.prior_works, 0) AS prior_works,
         CASE WHEN coalesce(w.year, 0) = 0 THEN '{NoveltyGap.NO_YEAR}'
              WHEN w.references_with_journal < %(min_references)s
                THEN '{NoveltyGap.FEW_REFERENCES}'
              WHEN coalesce(pr.prior_works, 0) < %(min_prior_works)s
                THEN '{NoveltyGap.THIN_HISTORY}'
              WHEN f.field_id IS NULL THEN '{NoveltyGap.NO_FIELD}'
              ELSE '' END AS gap
  FROM novelty_works w
  LEFT JOIN novelty_fields f ON f.work_id = w.work_id
  LEFT JOIN novelty_results r ON r.work_id = w.work_id
  LEFT JOIN prior pr ON pr.year = w.year
),
ranked AS (
  SELECT g.*,
         CASE WHEN g.gap = '' THEN count(*) OVER baseline ELSE 0 END AS baseline_size,
         CASE WHEN g.gap = '' THEN 100.0 * percent_rank() OVER (baseline ORDER BY g.score)
         END AS rank_percentile
  FROM gated g
  WINDOW baseline AS (PARTITION BY g.gap = '', g.field_id, g.year)
)
INSERT INTO {_WORK_NOVELTY} (
  work_id, publication_year, field_id, references_held, references_with_journal, journals,
  pairs, new_pairs, score, new_pair_list, prior_works, baseline_size, percentile, gap,
  computed_at)
SELECT work_id, known_year, field_id, references_held, references_with_journal, journals,
       journals * (journals - 1) / 2, new_pairs, score, new_pair_list, prior_works,
       baseline_size,
       CASE WHEN baseline_size >= %(min_baseline)s THEN rank_percentile END,
       CASE WHEN gap = '' AND baseline_size < %(min_baseline)s
            THEN '{NoveltyGap.SMALL_BASELINE}' ELSE gap END,
       now()
FROM ranked
"""

_DROP_SQL = """
DROP TABLE IF EXISTS novelty_works, novelty_refs, novelty_year_pairs, novelty_pair_first,
  novelty_results,
  novelty_new, novelty_cc, novelty_fields
"""

_RESEARCHERS_SQL = f"""
INSERT INTO {_RESEARCHER_NOVELTY} (researcher_id, percentile, works_counted, computed_at)
SELECT s.researcher_id,
       CASE WHEN count(n.percentile) >= %(min_works)s
            THEN percentile_cont(0.5) WITHIN GROUP (ORDER BY n.percentile) END,
       count(n.percentile), now()
FROM (SELECT DISTINCT a.researcher_id, a.work_id FROM {_AUTHORSHIP} a
      WHERE a.researcher_id IS NOT NULL) s
JOIN {_WORK_NOVELTY} n ON n.work_id = s.work_id
GROUP BY s.researcher_id
"""


def novelty_compute(
    *,
    min_references: int = MIN_REFERENCES,
    min_baseline: int = MIN_BASELINE,
    min_prior_works: int = MIN_PRIOR_WORKS,
    researcher_min_works: int = RESEARCHER_MIN_WORKS,
    on_progress: Callable[[int, int], None] | None = None,
) -> NoveltyResult:
    """Compute every work's novelty and every researcher's median from the citations held, and
    replace the stored figures, in one transaction. on_progress(done, total) is called after
    each publication year. The thresholds are parameters for the tests' small corpora."""
    started = time.monotonic()
    with transaction.atomic(), connection.cursor() as cursor:
        # ON COMMIT DROP does not fire when a caller's transaction holds this one (a savepoint):
        # the tables go explicitly too, before and after.
        cursor.execute(_DROP_SQL)
        cursor.execute(_WORKS_SQL)
        cursor.execute(_REFS_SQL)
        cursor.execute("CREATE INDEX ON novelty_refs (source_id, year)")
        cursor.execute("CREATE INDEX ON novelty_refs (work_id)")
        cursor.execute("ANALYZE novelty_refs")
        cursor.execute(_YEAR_PAIRS_SQL)
        cursor.execute("CREATE INDEX ON novelty_year_pairs (year)")
        cursor.execute(_PAIR_FIRST_SQL)
        cursor.execute("CREATE INDEX ON novelty_pair_first (first_year)")
        cursor.execute("ANALYZE novelty_year_pairs")
        cursor.execute("ANALYZE novelty_pair_first")
        cursor.execute(_RESULTS_SQL)
        cursor.execute("SELECT DISTINCT year FROM novelty_refs ORDER BY year")
        years = [row[0] for row in cursor.fetchall()]
        for done, year in enumerate(years, start=1):
            cursor.execute(_NEW_PAIRS_SQL, {"year": year})
            cursor.execute(_COCITATION_SQL, {"first": year - WINDOW_YEARS, "last": year - 1})
            cursor.execute(_SCORES_SQL, {"kept": PAIRS_KEPT})
            cursor.execute("DROP TABLE novelty_new, novelty_cc")
            if on_progress is not None:
                on_progress(done, len(years))
        cursor.execute(_FIELDS_SQL)
        cursor.execute(f"DELETE FROM {_WORK_NOVELTY}")
        cursor.execute(
            _STORE_SQL,
            {
                "min_references": min_references,
                "min_prior_works": min_prior_works,
                "min_baseline": min_baseline,
            },
        )
        works = cursor.rowcount
        cursor.execute(f"DELETE FROM {_RESEARCHER_NOVELTY}")
        cursor.execute(_RESEARCHERS_SQL, {"min_works": researcher_min_works})
        researchers = cursor.rowcount
        cursor.execute(f"SELECT count(*) FROM {_WORK_NOVELTY} WHERE percentile IS NOT NULL")
        with_percentile = cursor.fetchone()[0]
        cursor.execute(_DROP_SQL)
    result = NoveltyResult(
        works=works,
        works_with_percentile=with_percentile,
        researchers=researchers,
        years=len(years),
        seconds=time.monotonic() - started,
    )
    logger.info(
        "novelty computed: %s works (%s with a percentile), %s researchers, %s years in %.1fs",
        result.works,
        result.works_with_percentile,
        result.researchers,
        result.years,
        result.seconds,
    )
    return result
