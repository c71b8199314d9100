"""References that wait for a work another batch was bringing at the same time.

A batch stores a reference as unresolved when the cited work is not held; a concurrent batch
that brings that work, and had not committed yet, does not see the reference, so it waits on
(ingest/writer/citations.py). This sweep, run periodically (beat), turns such references into
citations: it only reads the references stored in the last WAITING_WINDOW, through their
creation index, so its cost does not grow with the billions a large corpus keeps waiting.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import connection, transaction

from publications.services import related_works_mark_pending_sql

# Longer than any batch's transaction takes; the sweep runs far more often than this.
WAITING_WINDOW = timedelta(hours=6)

_RESOLVE_WAITING = f"""
WITH recent AS (
    SELECT citing_id, identifier, split_part(identifier, ':', 1) AS scheme,
           substr(identifier, strpos(identifier, ':') + 1) AS value
    FROM publications_unresolvedreference
    WHERE created_at >= now() - make_interval(secs => %(window)s)
),
found AS (
    SELECT r.citing_id, r.identifier, w.id AS cited_id
    FROM recent r JOIN publications_work w ON r.scheme = 'openalex' AND w.openalex_id = r.value
    UNION ALL
    SELECT r.citing_id, r.identifier, f.work_id
    FROM recent r JOIN publications_formeropenalexworkid f
         ON r.scheme = 'openalex' AND f.openalex_id = r.value
    UNION ALL
    SELECT r.citing_id, r.identifier, w.id
    FROM recent r JOIN publications_work w ON r.scheme = 'doi' AND w.doi = r.value
),
matched AS (
    DELETE FROM publications_unresolvedreference u USING found f
    WHERE u.citing_id = f.citing_id AND u.identifier = f.identifier
    RETURNING f.citing_id, f.cited_id
),
inserted AS (
    INSERT INTO publications_citation (citing_id, cited_id)
    SELECT DISTINCT citing_id, cited_id FROM matched WHERE citing_id <> cited_id
    ORDER BY citing_id, cited_id
    ON CONFLICT DO NOTHING
    RETURNING citing_id, cited_id
),
-- Both ends wait for their related works (publications.services.related_works_drain).
pending AS ({
    related_works_mark_pending_sql(
        "SELECT citing_id FROM inserted UNION SELECT cited_id FROM inserted"
    )
})
SELECT count(*) FROM inserted
"""


def citations_resolve_waiting(*, window: timedelta = WAITING_WINDOW) -> int:
    """Turn the recent references whose work is held now into citations. Returns how many."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(_RESOLVE_WAITING, {"window": window.total_seconds()})
        return cursor.fetchone()[0]
