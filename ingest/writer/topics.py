"""Topics and their hierarchy (domain > field > subfield > topic, or arXiv categories)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..records import TopicRecord, TopicWithAncestors, content_hash
from .staging import Column, Cursor, UpsertTable, WriteResult, stage_and_upsert, stage_rows

_TOPIC_COLUMNS = [
    ("external_id", "text"),
    ("name", "text"),
    ("code", "text"),
    ("level", "text"),
    ("parent_external_id", "text"),
    ("description", "text"),
    ("content_hash", "text"),
    ("source_updated_at", "timestamptz"),
]

_TOPICS = UpsertTable(
    table="publications_topic",
    stage="stage_topic",
    staged=_TOPIC_COLUMNS,
    key="external_id",
    # The parent is linked by _link_topic_parents, once the parent's row exists.
    columns=[Column("name"), Column("code"), Column("level"), Column("description")],
    timestamps=False,
)


def _topic_row(topic: TopicRecord, *, hashed: str, updated_at: str | None) -> tuple[object, ...]:
    """A topic's row in _TOPIC_COLUMNS order; a topic known only as an ancestor of another has
    no hash or date of its own, so a later full record of it always updates it."""
    return (
        topic.external_id,
        topic.name[:300],
        topic.code,
        topic.level,
        topic.parent_external_id,
        topic.description,
        hashed,
        updated_at,
    )


def _link_topic_parents(cursor: Cursor, stage: str) -> None:
    cursor.execute(
        f"""
        UPDATE publications_topic t SET parent_id = p.id
        FROM {stage} s JOIN publications_topic p ON p.external_id = s.parent_external_id
        WHERE t.external_id = s.external_id AND t.parent_id IS DISTINCT FROM p.id
        """
    )


def upsert_topic_refs(cursor: Cursor, topics: Iterable[TopicRecord]) -> None:
    """Insert the topics a batch names, when they are new; existing rows are untouched."""
    unique = {t.external_id: t for t in topics}
    if not unique:
        return
    stage_rows(
        cursor,
        "stage_topic_ref",
        _TOPIC_COLUMNS,
        [_topic_row(t, hashed="", updated_at=None) for t in unique.values()],
    )
    cursor.execute(
        """
        INSERT INTO publications_topic (external_id, name, code, level, description, content_hash)
        SELECT external_id, name, code, level, description, '' FROM stage_topic_ref ORDER BY external_id
        ON CONFLICT DO NOTHING
        """
    )
    _link_topic_parents(cursor, "stage_topic_ref")


def write_topics(cursor: Cursor, records: Sequence[TopicWithAncestors]) -> WriteResult:
    """Upsert topics, each given with its ancestors (which are inserted when new)."""
    result = WriteResult()
    upsert_topic_refs(cursor, (ancestor for r in records for ancestor in r.ancestors))
    stage_and_upsert(
        cursor,
        _TOPICS,
        [
            _topic_row(r.topic, hashed=content_hash(r.topic), updated_at=r.topic.source_updated_at)
            for r in records
        ],
        result,
    )
    _link_topic_parents(cursor, "stage_topic")
    return result
