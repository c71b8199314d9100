"""Reader of saved ORCID answers: tells which API answer a JSON file holds and parses it.

ORCID's public API answers in several shapes: a full /record, /person, /works (grouped), a
single /work, /search (iDs only), and error bodies; member-API payloads (a work, a bulk of
works, an affiliation) share the v3.0 schema. Each shape is read into an OrcidRecord, so the
mapper has one input; a file that holds no importable record says why in `rejected`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from ingest.records import MappingError

from .fields import as_dict, as_list, is_public, normalize_orcid
from .parse import (
    AFFILIATION_SECTIONS,
    OrcidRecord,
    group_works,
    parse_affiliation,
    parse_person,
    parse_record,
    parse_work,
    parse_work_groups,
    works_section_complete,
)

_FILE_ORCID = re.compile(r"(\d{4}-\d{4}-\d{4}-\d{3}[\dX])", re.IGNORECASE)
# Member-API affiliation payloads do not name their section: their endpoint does, and a saved
# payload keeps it only in its file name (employment-3.0.json).
_SECTION_WORDS = {
    "employment": "employment",
    "education": "education",
    "distinction": "distinction",
    "invited-position": "invited_position",
    "qualification": "qualification",
    "service": "service",
}


@dataclass(frozen=True, slots=True)
class OrcidFile:
    kind: str  # record, person, works, work, bulk, affiliation, search, error, empty
    record: OrcidRecord | None = None
    # A search answer lists iDs, not records: the client fetches each.
    orcids: tuple[str, ...] = ()
    # Why nothing (or not everything) in the file could be imported.
    rejected: tuple[str, ...] = field(default=())


def read_orcid_file(path: Path) -> OrcidFile:
    raw = path.read_bytes()
    if raw.lstrip().startswith(b"<"):
        return OrcidFile(
            kind="xml",
            rejected=(
                "ORCID XML is not read: the importer asks ORCID for JSON "
                "(Accept: application/json), which carries the same record",
            ),
        )
    try:
        payload = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return OrcidFile(kind="invalid", rejected=(f"not valid JSON: {exc}",))
    return read_orcid_payload(payload, orcid_hint=_orcid_in_name(path.name), name_hint=path.name)


def read_orcid_payload(
    payload: object, *, orcid_hint: str | None = None, name_hint: str = ""
) -> OrcidFile:
    if not isinstance(payload, dict):
        return OrcidFile(kind="invalid", rejected=("the answer is not a JSON object",))
    if "response-code" in payload and ("developer-message" in payload or "user-message" in payload):
        return OrcidFile(kind="error", rejected=(error_reason(payload),))
    if "activities-summary" in payload or "orcid-identifier" in payload:
        return OrcidFile(kind="record", record=parse_record(payload))
    if "num-found" in payload and "result" in payload:
        orcids = tuple(
            orcid
            for item in as_list(payload.get("result"))
            if (
                orcid := normalize_orcid(as_dict(as_dict(item).get("orcid-identifier")).get("path"))
            )
        )
        return OrcidFile(kind="search", orcids=orcids)
    if "name" in payload and ("other-names" in payload or "biography" in payload):
        person = parse_person(payload, orcid=orcid_hint or normalize_orcid(payload.get("path")))
        return OrcidFile(kind="person", record=OrcidRecord(orcid=person.orcid, person=person))
    if "group" in payload:
        skipped: list[str] = []
        failed: list[str] = []
        groups = parse_work_groups(payload, skipped, failed)
        orcid = orcid_hint or normalize_orcid(payload.get("path"))
        return OrcidFile(
            kind="works",
            record=OrcidRecord(
                orcid=orcid,
                work_groups=groups,
                skipped=tuple(skipped),
                works_complete=works_section_complete(payload, failed),
            ),
        )
    if "bulk" in payload:
        works = []
        rejected = []
        for item in as_list(payload.get("bulk")):
            work = as_dict(item).get("work")
            if not isinstance(work, dict):
                rejected.append("bulk item without a work (an error entry of the bulk answer)")
                continue
            try:
                works.append(parse_work(work))
            except MappingError as exc:
                rejected.append(str(exc))
        return OrcidFile(
            kind="bulk",
            record=OrcidRecord(orcid=orcid_hint, work_groups=group_works(works)),
            rejected=tuple(rejected),
        )
    if "title" in payload and "type" in payload:
        orcid = orcid_hint or normalize_orcid(payload.get("path"))
        if not is_public(payload):
            return OrcidFile(kind="work", rejected=(f"work {payload.get('put-code')}: not public",))
        try:
            work = parse_work(payload)
        except MappingError as exc:
            return OrcidFile(kind="work", rejected=(str(exc),))
        return OrcidFile(
            kind="work", record=OrcidRecord(orcid=orcid, work_groups=group_works([work]))
        )
    if "organization" in payload:
        section = _section_in_name(name_hint)
        if section is None:
            return OrcidFile(
                kind="affiliation",
                rejected=(
                    "an affiliation payload whose section (employment, education...) is unknown",
                ),
            )
        try:
            affiliation = parse_affiliation(section, payload)
        except MappingError as exc:
            return OrcidFile(kind="affiliation", rejected=(str(exc),))
        return OrcidFile(
            kind="affiliation", record=OrcidRecord(orcid=orcid_hint, affiliations=(affiliation,))
        )
    return OrcidFile(kind="unknown", rejected=("not an ORCID API answer this importer knows",))


def error_reason(payload: dict[str, Any]) -> str:
    code = payload.get("response-code")
    message = payload.get("developer-message") or payload.get("user-message") or "no message"
    return f"ORCID answered {code}: {str(message)[:500]}"


def _orcid_in_name(name: str) -> str | None:
    match = _FILE_ORCID.search(name)
    return match.group(1).upper() if match else None


def _section_in_name(name: str) -> str | None:
    lowered = name.lower()
    for word, section in _SECTION_WORDS.items():
        if word in lowered:
            return section
    return None


__all__ = ["AFFILIATION_SECTIONS", "OrcidFile", "read_orcid_file", "read_orcid_payload"]


class OrcidReader:
    """The import pipeline's reader (ingest.sources): one raw record per file,
    the answer wrapped with the iD and file name the mapper may need (a /works answer names
    its iD only in the path; a member payload's section only in its file name)."""

    # Every file is one record (records() yields exactly one, whatever the file holds).
    one_record_per_file = True

    def files(self, paths: Sequence[str]) -> tuple[list[Path], list[str]]:
        from ingest.reading import files_with_suffixes

        return files_with_suffixes(paths, (".json", ".xml"))

    def records(self, path: Path) -> Iterator[bytes]:
        raw = path.read_bytes()
        if raw.lstrip().startswith(b"<"):
            yield orjson.dumps({"orcid": None, "name": path.name, "xml": True, "answer": None})
            return
        try:
            answer = orjson.loads(raw)
        except orjson.JSONDecodeError:
            answer = {"invalid": raw[:200].decode("utf-8", "replace")}
        yield envelope(answer, orcid=_orcid_in_name(path.name), name=path.name)


def envelope(answer: object, *, orcid: str | None, name: str = "") -> bytes:
    return orjson.dumps({"orcid": orcid, "name": name, "answer": answer})


READER = OrcidReader()
