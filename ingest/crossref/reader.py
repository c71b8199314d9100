"""Reader of saved Crossref answers: a single work (/works/{doi}), a work list (/works?...,
/journals/{issn}/works...), the CSL-JSON transform, and error bodies (JSON or the plain-text
"Resource not found."). Each work is one raw record; an error answer is one raw record that
the mapper turns into an import issue, so nothing in a file is lost silently."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import orjson

from ingest.reading import files_with_suffixes


def error_record(reason: str) -> bytes:
    return orjson.dumps({"crossref_error": reason})


def answer_records(body: bytes, *, status: int = 200, what: str = "") -> Iterator[bytes]:
    """The raw records of one Crossref answer body."""
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError:
        text = body[:300].decode("utf-8", "replace").strip()
        status_text = f" {status}" if status != 200 else ""
        yield error_record(
            f"Crossref answered{status_text} {what}: {text or 'an empty body'}".replace("  ", " ")
        )
        return
    if not isinstance(payload, dict):
        yield error_record("the Crossref answer is not a JSON object")
        return
    message = payload.get("message")
    message_type = payload.get("message-type")
    if payload.get("status") == "failed" or str(message_type or "").endswith("failure"):
        details = message if isinstance(message, list) else [message]
        texts = "; ".join(str(d.get("message") if isinstance(d, dict) else d) for d in details)
        yield error_record(f"Crossref refused the request ({message_type}): {texts}")
        return
    if message_type == "work-list" and isinstance(message, dict):
        for item in message.get("items") or []:
            yield orjson.dumps(item)
        return
    if message_type == "work" and isinstance(message, dict):
        yield orjson.dumps(message)
        return
    if "DOI" in payload:  # CSL-JSON: the work itself, no envelope
        yield orjson.dumps(payload)
        return
    yield error_record(f"not a Crossref works answer (message-type {message_type!r})")


class CrossrefReader:
    def files(self, paths: Sequence[str]) -> tuple[list[Path], list[str]]:
        return files_with_suffixes(paths, (".json", ".txt"))

    def records(self, path: Path) -> Iterator[bytes]:
        # A saved plain-text body is an error answer (Crossref's 404 is "Resource not found.").
        yield from answer_records(path.read_bytes(), what=f"in {path.name}")


READER = CrossrefReader()
