"""One line of an OpenAlex snapshot file or saved API answer -> its record: the source mapper
the import pipeline calls for OpenAlex (ingest.sources), like the other sources' map_record.

The kind of a line is its folder's (a snapshot's `works/`, `authors/`...) when the chunk knows
it, or else its id's (W..., A..., I..., S..., T...)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import orjson

from ingest.records import MappingError

from .entities import map_author, map_institution, map_source, map_topic
from .fields import entity_of_id, short_id_or_raw, type_name
from .works import map_work

MAPPERS: dict[str, Callable[[Any], Any]] = {
    "works": map_work,
    "authors": map_author,
    "institutions": map_institution,
    "sources": map_source,
    "topics": map_topic,
}

LineMapper = Callable[[bytes], Sequence[Any]]


def line_mapper(entity: str | None = None) -> LineMapper:
    """The mapper of lines of one kind (`entity`, "works"...), or of any kind (None)."""

    def map_line(raw: bytes) -> Sequence[Any]:
        try:
            obj = orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            raise MappingError(f"malformed JSON: {exc}") from exc
        raw_id = obj.get("id") if isinstance(obj, dict) else None
        external_id = short_id_or_raw(raw_id)
        kind = entity or entity_of_id(raw_id)
        if kind is None:
            raise MappingError(_unknown_kind_reason(obj, raw_id), external_id=external_id)
        try:
            record = MAPPERS[kind](obj)
        except MappingError as exc:
            raise MappingError(str(exc), external_id=external_id, entity=kind) from exc
        return [record]

    return map_line


def _unknown_kind_reason(obj: object, raw_id: object) -> str:
    if not isinstance(obj, dict):
        return f"record is {type_name(obj)}, expected an object"
    if not raw_id:
        return "record has no id"
    if not isinstance(raw_id, str):
        return f"id is {type_name(raw_id)}, expected a string"
    return f"id {raw_id!r} is not an OpenAlex work, author, institution, source or topic id"


__all__ = ["MAPPERS", "LineMapper", "line_mapper"]
