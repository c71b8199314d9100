"""Every plain record made to fit the database before it is written, whatever its source.

PostgreSQL refuses some values outright: a NUL character in text, a string longer than its
varchar column, a number outside its column's range or check constraint, a date it cannot
read, a text search vector over a megabyte. One such value used to abort the whole batch it
was in. Here each record is checked against the columns it will be written to, before the
write:

- what can be cleaned is cleaned, with a warning on the run: NUL characters removed, free text
  (names, titles, abstracts) cut to what the column holds, an optional value the database
  cannot hold (a URL too long, a year of -44, a date of 31 February) left empty;
- what cannot be cleaned without changing what the record is rejects it, with the reason: an
  identifier longer than its column (it would match nothing, or the wrong thing), a byline
  position past the column's range.

The limits are read from the models, so a migration that changes a column changes them too.
Mappers of every source produce these records, so every importer gets the same treatment.
"""

from __future__ import annotations

import dataclasses
import datetime
import math
import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

from django.db import models

from publications.models import Authorship, Source, Topic, Work
from researchers.models import Affiliation, Institution, Researcher

from .records import (
    AffiliationRecord,
    AuthorRef,
    AuthorshipRecord,
    InstitutionRecord,
    InstitutionRef,
    MappingError,
    ResearcherRecord,
    SourceRecord,
    TopicRecord,
    WorkRecord,
    WorkTopicRecord,
)

RecordT = TypeVar("RecordT")

# Identifiers: too long means malformed; the record is rejected rather than stored cut.
IDENTIFIER_FIELDS = frozenset(
    {"openalex_id", "doi", "arxiv_id", "ror", "orcid", "external_id", "parent_external_id"}
)
# Text the generated search vector reads (title, abstract): PostgreSQL refuses a tsvector over
# 1 MB, which a few hundred thousand distinct words reach. No real title or abstract is near.
TEXT_LIMITS: dict[tuple[type, str], int] = {
    (WorkRecord, "title"): 2_000,
    (WorkRecord, "abstract"): 100_000,
}
# Lists whose items can be left out one by one (an alternate name, an email domain too long).
LIST_FIELDS = frozenset({"alternate_names", "email_domains"})
# Optional values the record can lose without becoming another record: left empty if unusable.
OPTIONAL_FIELDS = frozenset(
    {
        "issn_l",
        "homepage",
        "open_access_url",
        "code_url",
        "language",
        "country_code",
        "type",
        "abbreviated_name",
        "code",
        "publication_date",
        "publication_year",
        "start_year",
        "end_year",
        "cited_by_count",
    }
)

# The columns each record's fields are written to.
_COLUMNS: dict[type, tuple[type[models.Model], dict[str, str]]] = {
    WorkRecord: (
        Work,
        {
            name: name
            for name in (
                "openalex_id",
                "doi",
                "arxiv_id",
                "type",
                "publication_year",
                "cited_by_count",
                "open_access_url",
                "code_url",
                "language",
            )
        },
    ),
    SourceRecord: (
        Source,
        {n: n for n in ("openalex_id", "name", "abbreviated_name", "issn_l", "type", "homepage")},
    ),
    InstitutionRecord: (
        Institution,
        {
            n: n
            for n in (
                "openalex_id",
                "name",
                "ror",
                "country_code",
                "type",
                "homepage",
                "email_domains",
            )
        },
    ),
    InstitutionRef: (
        Institution,
        {n: n for n in ("openalex_id", "name", "ror", "country_code", "type")},
    ),
    TopicRecord: (
        Topic,
        {"external_id": "external_id", "name": "name", "code": "code", "level": "level"},
    ),
    AuthorRef: (Researcher, {n: n for n in ("openalex_id", "display_name", "orcid")}),
    ResearcherRecord: (
        Researcher,
        {n: n for n in ("openalex_id", "display_name", "orcid", "alternate_names")},
    ),
    AuthorshipRecord: (Authorship, {"raw_name": "raw_name", "position": "position"}),
    AffiliationRecord: (Affiliation, {"start_year": "start_year", "end_year": "end_year"}),
    WorkTopicRecord: (Work, {}),
}
# The largest values of PostgreSQL's integer columns, by Django field class.
_INTEGER_RANGES: dict[type[models.Field], tuple[int, int]] = {
    models.PositiveSmallIntegerField: (0, 32_767),
    models.SmallIntegerField: (-32_768, 32_767),
    models.PositiveIntegerField: (0, 2_147_483_647),
    models.IntegerField: (-2_147_483_648, 2_147_483_647),
    models.PositiveBigIntegerField: (0, 9_223_372_036_854_775_807),
    models.BigIntegerField: (-9_223_372_036_854_775_808, 9_223_372_036_854_775_807),
}


@dataclass
class Checked:
    """What checking one record found: the warnings of what was cleaned."""

    warnings: list[str] = field(default_factory=list)

    def warn(self, path: str, what: str) -> None:
        self.warnings.append(f"{path}: {what}")


@cache
def _limits(record_type: type) -> dict[str, tuple[str, Any]]:
    """field name -> ("length", max_length) or ("range", (low, high)), from the model; for an
    array column, the limit of its items."""
    model, columns = _COLUMNS.get(record_type, (None, {}))
    limits: dict[str, tuple[str, Any]] = {}
    if model is None:
        return limits
    for name, column in columns.items():
        model_field: Any = model._meta.get_field(column)
        model_field = getattr(model_field, "base_field", model_field)  # ArrayField's items
        max_length = getattr(model_field, "max_length", None)
        if max_length:
            limits[name] = ("length", max_length)
        for integer_type, bounds in _INTEGER_RANGES.items():
            if type(model_field) is integer_type:
                limits[name] = ("range", bounds)
    return limits


@cache
def _max_length(record_type: type, name: str) -> int | None:
    limit = _limits(record_type).get(name)
    if limit and limit[0] == "length":
        return int(limit[1])
    return TEXT_LIMITS.get((record_type, name))


@cache
def _plan(record_type: type) -> tuple[tuple[str, int | None, tuple[int, int] | None], ...]:
    """Per field of a record class: its name, the length its text may have, the range its
    number may take (None where the column sets none)."""
    limits = _limits(record_type)
    plan = []
    for record_field in dataclasses.fields(record_type):
        if (record_type, record_field.name) in _CHECKED_APART:
            continue
        limit = limits.get(record_field.name)
        plan.append(
            (
                record_field.name,
                _max_length(record_type, record_field.name),
                limit[1] if limit and limit[0] == "range" else None,
            )
        )
    return tuple(plan)


def _checked_text(record_type: type, name: str, value: str, path: str, checked: Checked) -> str:
    max_length = _max_length(record_type, name)
    # Nearly every value fits: one scan for NUL and a length comparison.
    if "\x00" not in value and (max_length is None or len(value) <= max_length):
        return value
    if "\x00" in value:
        checked.warn(path, "NUL characters removed")
        value = value.replace("\x00", "")
    if max_length and len(value) > max_length:
        if name in IDENTIFIER_FIELDS:
            raise MappingError(
                f"{path} is {len(value):,} characters, longer than the {max_length} an "
                "identifier can have here"
            )
        if name in OPTIONAL_FIELDS or name in LIST_FIELDS:
            checked.warn(path, f"{len(value):,} characters, over {max_length}: left out")
            return ""
        checked.warn(path, f"cut from {len(value):,} to {max_length} characters")
        value = value[:max_length]
    return value


def _checked_integer(record_type: type, name: str, value: int, path: str, checked: Checked) -> Any:
    limit = _limits(record_type).get(name)
    if not limit or limit[0] != "range":
        return value
    low, high = limit[1]
    if low <= value <= high:
        return value
    if name not in OPTIONAL_FIELDS:
        raise MappingError(f"{path} is {value}, outside {low}..{high}")
    checked.warn(path, f"{value} is outside {low}..{high}: left empty")
    return 0 if name == "cited_by_count" else None


# Records that many works repeat (a topic with its ancestors, an institution, a venue), checked
# once: equal records are equal values, so the first check holds for every later copy.
_REPEATED = (TopicRecord, InstitutionRef, SourceRecord)
_CLEAN_REPEATED: set[Any] = set()
_CLEAN_REPEATED_AT_MOST = 200_000


def _checked(value: Any, record_type: type, name: str, path: str, checked: Checked) -> Any:
    """`value` (a record, a tuple, a string, a number) made to fit its column."""
    if value is None:
        return value
    value_type: type = type(value)
    if hasattr(value_type, "__dataclass_fields__"):
        repeated = value_type in _REPEATED
        if repeated and value in _CLEAN_REPEATED:
            return value
        changes = {}
        # The common case is decided inline, without a call per value: a work has a few
        # hundred of them, and every one is checked.
        for field_name, max_length, bounds in _plan(value_type):
            old = getattr(value, field_name)
            old_type = type(old)
            if old_type is str:
                if (
                    "\x00" not in old
                    and (max_length is None or len(old) <= max_length)
                    and field_name != "publication_date"
                ):
                    continue
            elif old_type is int:
                if bounds is None or bounds[0] <= old <= bounds[1]:
                    continue
            elif old is None or old_type is bool:
                continue
            elif old_type is float:
                if math.isfinite(old):
                    continue
            elif old_type is tuple and not old:
                continue
            where = f"{path}.{field_name}" if path else field_name
            new = _checked(old, value_type, field_name, where, checked)
            if new is not old:
                changes[field_name] = new
        if changes:
            return dataclasses.replace(value, **changes)
        if repeated:
            if len(_CLEAN_REPEATED) >= _CLEAN_REPEATED_AT_MOST:
                _CLEAN_REPEATED.clear()
            _CLEAN_REPEATED.add(value)
        return value
    if value_type is tuple:
        items = tuple(
            _checked(item, record_type, name, f"{path}[{index}]", checked)
            for index, item in enumerate(value)
        )
        if name in LIST_FIELDS:
            items = tuple(item for item in items if item != "")
        unchanged = len(items) == len(value) and all(
            a is b for a, b in zip(items, value, strict=True)
        )
        return value if unchanged else items
    if value_type is str:
        new_text = _checked_text(record_type, name, value, path, checked)
        if name == "publication_date" and new_text and not _usable_date(new_text):
            checked.warn(path, f"{new_text!r} is not a date: left empty")
            return None
        return value if new_text == value else new_text
    if value_type is int:
        return _checked_integer(record_type, name, value, path, checked)
    if value_type is float and not math.isfinite(value):
        checked.warn(path, f"{value} is not a number: 0 instead")
        return 0.0
    return value


def _usable_date(value: str) -> bool:
    try:
        datetime.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def record_checked(record: RecordT) -> tuple[RecordT, list[str]]:
    """The record (or tuple of records) made to fit the database, and a warning for each value
    that was cleaned.

    Raises MappingError, with the reason, when the record cannot be stored without becoming
    another record."""
    checked = Checked()
    result = _checked(record, type(record), "", "", checked)
    if type(result) is WorkRecord and (result.references or result.unlinked_references):
        result = _references_checked(result, checked)
    return result, checked.warnings


# Fields checked by a rule of their own after the generic pass (_references_checked).
_CHECKED_APART = {(WorkRecord, "references"), (WorkRecord, "unlinked_references")}

# A work's reference list: what a real one holds (the longest in OpenAlex run to a few
# thousand), and identifiers that can name a work.
MAX_REFERENCES = 10_000
MAX_UNLINKED_REFERENCES = 2_000
MAX_REFERENCE_TEXT = 1_000
_REFERENCE_ID = {
    "openalex": re.compile(r"W[1-9][0-9]{0,14}"),
    "doi": re.compile(r"10\.[0-9]{4,9}/\S{1,300}"),
}


def _is_work_identifier(scheme: str, value: str) -> bool:
    if scheme == "openalex":  # the common case, without a regex: "W" and up to 15 digits
        return (
            2 <= len(value) <= 16
            and value[0] == "W"
            and value[1:].isascii()
            and value[1:].isdigit()
            and value[1] != "0"
        )
    pattern = _REFERENCE_ID.get(scheme)
    return pattern is not None and pattern.fullmatch(value) is not None


def _references_checked(record: WorkRecord, checked: Checked) -> WorkRecord:
    """The references that can name a work, at most MAX_REFERENCES; the unlinked ones as text
    that fits. What is left out is said in a warning; the work itself is kept."""
    usable = tuple(reference for reference in record.references if _is_work_identifier(*reference))
    if len(usable) < len(record.references):
        bad = [f"{s}:{v}" for s, v in record.references if (s, v) not in set(usable)]
        checked.warn(
            "references",
            f"{len(bad):,} not a work identifier, left out (first: {bad[0][:80]!r})",
        )
    if len(usable) > MAX_REFERENCES:
        checked.warn("references", f"{len(usable):,} listed, the first {MAX_REFERENCES:,} kept")
        usable = usable[:MAX_REFERENCES]
    unlinked = record.unlinked_references
    if len(unlinked) > MAX_UNLINKED_REFERENCES:
        checked.warn(
            "unlinked_references",
            f"{len(unlinked):,} listed, the first {MAX_UNLINKED_REFERENCES:,} kept",
        )
        unlinked = unlinked[:MAX_UNLINKED_REFERENCES]
    if any(len(text) > MAX_REFERENCE_TEXT or "\x00" in text for text in unlinked):
        checked.warn("unlinked_references", f"texts cut to {MAX_REFERENCE_TEXT} characters")
        unlinked = tuple(text.replace("\x00", "")[:MAX_REFERENCE_TEXT] for text in unlinked)
    if usable == record.references and unlinked == record.unlinked_references:
        return record
    return dataclasses.replace(record, references=usable, unlinked_references=unlinked)
