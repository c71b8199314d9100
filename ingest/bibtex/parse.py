"""BibTeX files -> resolved entries (plain dicts of Unicode text). Pure functions.

bibtexparser 2 splits the file into blocks with the raw values kept (no middleware), and this
module resolves them itself, so each rule is visible: field names in any case, @string macros
(names case-insensitive) and `#` concatenation, the standard month macros, `crossref` fields
inherited from the parent entry, and LaTeX turned into Unicode by pylatexenc ({\\"o} -> ö).
Every block bibtexparser could not read (a duplicate key, a broken entry) comes back as an
error with its reason, said where the researcher finds it in their file (diagnose.py: the
line, the entry's key and the field, in words); an entry bibtexparser read past a mistake (a
missing comma, a `}` too many) is an error too, not an entry with wrong values: no entry is
lost silently.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import bibtexparser
from bibtexparser import model
from pylatexenc.latex2text import LatexNodes2Text
from pylatexenc.latexwalker import LatexWalker, get_default_latex_context_db

from .diagnose import entry_problems

MONTHS = {
    name: number
    for number, name in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
        start=1,
    )
}
# A child entry inherits its parent's fields (crossref), but not what identifies or describes
# the parent alone: a paper given its proceedings' DOI would become that volume.
NOT_INHERITED = frozenset(
    (
        "doi",
        "url",
        "urldate",
        "eprint",
        "eprinttype",
        "eprintclass",
        "archiveprefix",
        "primaryclass",
        "isbn",
        "pmid",
        "pmcid",
        "ids",
        "biburl",
        "bibsource",
        "timestamp",
        "abstract",
        "crossref",
        "xref",
    )
)
_LATEX = LatexNodes2Text(math_mode="text", strict_latex_spaces=False)
# Built once: pylatexenc builds its default macro table for every walker it is not given one,
# most of the cost of a short value.
_LATEX_CONTEXT = get_default_latex_context_db()
# What LaTeX reads as more than its characters: special characters, and the ligatures of
# dashes, quotes and inverted marks. A value without any is its own text.
_LATEX_MARKUP = re.compile(r"[\\{}$%~&^_#]|--|``|''|[?!]`")
_SPACES = re.compile(r"\s+")


@dataclass(frozen=True, slots=True)
class BibEntry:
    key: str
    entry_type: str
    fields: dict[str, str]  # lower-case names, values resolved but still LaTeX
    line: int
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class BibError:
    reason: str
    line: int
    key: str = ""


@dataclass
class BibFile:
    entries: list[BibEntry] = field(default_factory=list)
    errors: list[BibError] = field(default_factory=list)


def _split_concatenation(raw: str) -> list[str]:
    """`"a" # macro # {b}` -> ['"a"', 'macro', '{b}'], # inside quotes or braces left alone."""
    parts: list[str] = []
    current: list[str] = []
    depth, quoted = 0, False
    for char in raw:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth == 0:
            quoted = not quoted
        if char == "#" and depth == 0 and not quoted:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    parts.append("".join(current).strip())
    return [part for part in parts if part]


def resolve_value(raw: str, strings: dict[str, str], warnings: list[str]) -> str:
    pieces = []
    for token in _split_concatenation(raw.strip()):
        if (token.startswith("{") and token.endswith("}")) or (
            token.startswith('"') and token.endswith('"')
        ):
            pieces.append(token[1:-1])
        elif token.isdigit():
            pieces.append(token)
        elif token.lower() in strings:
            pieces.append(strings[token.lower()])
        elif token.lower()[:3] in MONTHS and token.lower() in (
            token.lower()[:3],
            _full_month(token),
        ):
            pieces.append(str(MONTHS[token.lower()[:3]]))
        else:
            warnings.append(f"undefined macro {token!r} kept as written")
            pieces.append(token)
    return "".join(pieces)


def _full_month(token: str) -> str:
    names = (
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    )
    return token.lower() if token.lower() in names else ""


def latex_to_text(value: str) -> str:
    """LaTeX to Unicode, braces dropped, whitespace collapsed; math kept as its text."""
    if not value:
        return ""
    if not _LATEX_MARKUP.search(value):
        return _SPACES.sub(" ", value.replace("\xad", "")).strip()
    try:
        text = _LATEX.nodelist_to_text(
            LatexWalker(value, latex_context=_LATEX_CONTEXT).get_latex_nodes()[0]
        )
    except Exception:  # noqa: BLE001 - pylatexenc raises on odd input; the raw text is better than nothing
        text = value.replace("{", "").replace("}", "")
    return _SPACES.sub(" ", text.replace("\xad", "")).strip()


def parse_bibtex(text: str) -> BibFile:
    text = text.removeprefix("\ufeff")
    library = bibtexparser.parse_string(text, parse_stack=[])
    strings: dict[str, str] = {}
    for string in library.strings:
        strings[string.key.lower()] = resolve_value(str(string.value), strings, [])
    result = BibFile()
    problems = entry_problems(text)
    # (entry, warning) pairs: the entries of the library and those recovered from failed blocks.
    readable: list[tuple[model.Entry, str]] = []
    for library_entry in library.entries:
        problem = problems.get(_line_number(library_entry.start_line))
        if problem is not None and problem.silent:
            # Read without a word by bibtexparser, but with the wrong values: refused.
            result.errors.append(
                BibError(
                    reason=problem.message[:300],
                    line=_line_number(library_entry.start_line),
                    key=library_entry.key,
                )
            )
            continue
        readable.append((library_entry, ""))
    first_lines = {entry.key: _line_number(entry.start_line) for entry in reversed(library.entries)}
    for block in library.failed_blocks:
        recovered = _recoverable_entry(block)
        if recovered is not None:
            readable.append(recovered)
            continue
        problem = problems.get(_line_number(block.start_line))
        if isinstance(block, model.DuplicateBlockKeyBlock):
            first = first_lines.get(block.key)
            earlier = f" on line {first}" if first else ""
            reason = (
                f"the entry '{block.key}' on line {_line_number(block.start_line)} has the "
                f"same key as an earlier entry{earlier}: only the first one is added; give "
                "this one a key of its own"
            )
        elif problem is not None:
            reason = problem.message
        else:
            reason = _failure_reason(block)
        result.errors.append(
            BibError(
                reason=reason[:300],
                line=_line_number(block.start_line),
                key=getattr(block, "key", "") or _block_key(block),
            )
        )
    raw_entries: list[BibEntry] = []
    for parsed, warning in readable:
        warnings: list[str] = [warning] if warning else []
        fields: dict[str, str] = {}
        for fld in parsed.fields:
            name = fld.key.lower()
            if name not in fields:
                fields[name] = resolve_value(str(fld.value), strings, warnings)
        line = _line_number(parsed.start_line)
        raw_entries.append(
            BibEntry(
                # Mendeley writes "@article{," for an entry it gave no key: it still is an
                # entry, named by its line so that it is the same record on every import.
                parsed.key.strip() or f"line-{line}",
                parsed.entry_type.lower(),
                fields,
                line,
                tuple(warnings),
            )
        )
    by_key = {e.key.lower(): e for e in raw_entries}
    for entry in raw_entries:
        parent_key = entry.fields.get("crossref", "").strip().lower()
        parent = by_key.get(parent_key)
        if parent is not None:
            merged = {
                name: value for name, value in parent.fields.items() if name not in NOT_INHERITED
            }
            if "title" in parent.fields and "booktitle" not in entry.fields:
                merged["booktitle"] = parent.fields["title"]
            merged.pop("title", None) if "title" not in entry.fields else None
            merged.update(entry.fields)
            entry = BibEntry(entry.key, entry.entry_type, merged, entry.line, entry.warnings)
        elif parent_key:
            entry = BibEntry(
                entry.key,
                entry.entry_type,
                entry.fields,
                entry.line,
                (*entry.warnings, f"crossref {parent_key!r} not found"),
            )
        result.entries.append(entry)
    return result


# "@article{key," at the start of a block bibtexparser could not read.
_BLOCK_HEAD = re.compile(r"@\s*([A-Za-z]+)\s*[{(]\s*([^,\s{}()]*)")


def _block_key(block: model.Block) -> str:
    head = _BLOCK_HEAD.match(getattr(block, "raw", "") or "")
    return head.group(2) if head else ""


def _failure_reason(block: model.Block) -> str:
    """Why bibtexparser gave up on a block, in its words: an aborted block's reason (an
    unclosed brace, the end of the file inside an entry) is in the exception's abort_reason,
    and str() of that exception is empty."""
    error = getattr(block, "error", None)
    reason = str(getattr(error, "abort_reason", "") or error or "").strip()
    head = _BLOCK_HEAD.match(getattr(block, "raw", "") or "")
    what = f"the @{head.group(1).lower()} entry" if head else "this block"
    if not reason:
        return f"{what} could not be read ({type(error or block).__name__})"
    return f"{what} could not be read: {reason}"


def _recoverable_entry(block: model.Block) -> tuple[model.Entry, str] | None:
    """The entry inside a failed block that is still a whole entry: one with a field given
    twice (the first value is kept, as BibTeX does) or one of several without a key."""
    entry = getattr(block, "ignore_error_block", None)
    if not isinstance(entry, model.Entry):
        return None
    if isinstance(block, model.DuplicateFieldKeyBlock):
        names = ", ".join(sorted(block.duplicate_keys))
        return entry, f"field {names} given twice: the first value was kept"
    if isinstance(block, model.DuplicateBlockKeyBlock) and not block.key.strip():
        return entry, ""
    return None


def _line_number(start_line: int | None) -> int:
    """bibtexparser counts lines from 0 and may not know a block's line; 0 means unknown."""
    return start_line + 1 if start_line is not None else 0


def split_names(value: str) -> list[str]:
    """'A and {B and C} AND others' -> ['A', '{B and C}', 'others'] (and at brace depth 0, any case)."""
    names: list[str] = []
    depth, start, i = 0, 0, 0
    lowered = value.lower()
    while i < len(value):
        char = value[i]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif (
            depth == 0
            and lowered.startswith("and", i)
            and (i == 0 or value[i - 1].isspace())
            and (i + 3 >= len(value) or value[i + 3].isspace())
        ):
            names.append(value[start:i].strip())
            start = i + 3
            i += 3
            continue
        i += 1
    names.append(value[start:].strip())
    return [name for name in names if name]
