"""What is wrong with a BibTeX entry, said where the researcher can find it: the line in their
file, the entry's key and the field, in words. Pure functions.

bibtexparser 2 says why it gave up on a block in a parser's words ("Unexpectedly reached end of
file", "Expected a `=` after entry key, but found `@article`"), often about the line where it
noticed rather than where the mistake is, and some mistakes it does not notice at all: a
missing comma makes the next field part of the previous value (`title = {A study}
year = {2020}` reads as one title), and a `}` too many closes the entry early, its other fields
dropped. This module walks each entry of the file itself, with the few rules BibTeX has, and
finds the first thing that breaks them:

- a comma missing between two fields;
- a `{` that is never closed in a value, or a quotation mark never closed;
- the entry's closing brace missing (at the end of the file, or before the next entry);
- a `}` too many, closing the entry before its last fields;
- a field without `=`, or without a value; a key not followed by a comma.

`entry_problems(text)` maps the line each faulty entry starts on (counted from 1) to its
problem; the parser looks a block up by that line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# An entry's type and the start of its body: "@article{" or "@article(".
_ENTRY_START = re.compile(r"@\s*([A-Za-z]+)\s*([{(])")
_NAME = re.compile(r"[A-Za-z0-9_\-:.+/]+")
_BARE_VALUE = re.compile(r"[^\s,#{}()\"=]+")
# The start of a field (", year = {2020}" or a line "  year = 2020"), seen inside a value that
# ran on over the fields after it.
_FIELD_LINE = re.compile(r"[\n,]\s*[A-Za-z][A-Za-z0-9_\-]*\s*=\s*[{\"0-9]")
_NOT_ENTRIES = frozenset(("comment", "preamble", "string"))


@dataclass(frozen=True, slots=True)
class EntryProblem:
    line: int  # where the entry starts, from 1
    key: str
    message: str
    # True for a mistake bibtexparser reads past without a word (a missing comma, a `}` too
    # many): the entry it made of it holds wrong values and must not be imported.
    silent: bool = False


class _Stop(Exception):
    def __init__(self, message: str, *, silent: bool = False) -> None:
        super().__init__(message)
        self.message = message
        self.silent = silent


class _Entry:
    """One entry being walked: the text, a position in it and line numbers."""

    def __init__(self, text: str, start: int, line_starts: list[int]) -> None:
        self.text = text
        self.pos = start
        self.line_starts = line_starts
        self.key = ""

    def line_at(self, pos: int) -> int:
        low, high = 0, len(self.line_starts)
        while low + 1 < high:
            middle = (low + high) // 2
            if self.line_starts[middle] <= pos:
                low = middle
            else:
                high = middle
        return low + 1

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def at_next_entry(self) -> bool:
        """An "@" at the start of a line: the next entry begins here."""
        if self.peek() != "@":
            return False
        line_start = self.text.rfind("\n", 0, self.pos) + 1
        return not self.text[line_start : self.pos].strip()

    def entry(self) -> str:
        return f"the entry '{self.key}'" if self.key else "an entry without a key"


def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(match.end() for match in re.finditer(r"\n", text))
    return starts


def entry_problems(text: str) -> dict[int, EntryProblem]:
    """The first problem of each entry of `text` that has one, by the line it starts on."""
    line_starts = _line_starts(text)
    problems: dict[int, EntryProblem] = {}
    pos = 0
    while True:
        at = text.find("@", pos)
        if at < 0:
            return problems
        head = _ENTRY_START.match(text, at)
        if head is None:
            pos = at + 1
            continue
        walker = _Entry(text, head.end(), line_starts)
        start_line = walker.line_at(at)
        closer = "}" if head.group(2) == "{" else ")"
        if head.group(1).lower() in _NOT_ENTRIES:
            pos = _skip_balanced(text, head.end(), closer)
            continue
        try:
            _walk_entry(walker, closer)
            after = _after_entry(walker)
            if after:
                raise _Stop(after, silent=True)
        except _Stop as stop:
            problems[start_line] = EntryProblem(
                line=start_line, key=walker.key, message=stop.message, silent=stop.silent
            )
        # Go on from where the walk stopped, or from the next line for a broken entry, so
        # the entry after a broken one is looked at as well.
        pos = max(walker.pos, head.end())


def _skip_balanced(text: str, pos: int, closer: str) -> int:
    """Past the end of a block that holds no fields (@comment, @preamble, @string)."""
    opener, depth = ("{" if closer == "}" else "("), 1
    while pos < len(text) and depth:
        if text[pos] == opener:
            depth += 1
        elif text[pos] == closer:
            depth -= 1
        pos += 1
    return pos


def _walk_entry(walker: _Entry, closer: str) -> None:
    text = walker.text
    key_end = len(text)
    for stop_char in (",", closer, "\n"):
        found = text.find(stop_char, walker.pos)
        if found >= 0:
            key_end = min(key_end, found)
    walker.key = text[walker.pos : key_end].strip()
    key_line = walker.line_at(walker.pos)
    walker.pos = key_end
    walker.skip_space()
    if walker.peek() == closer:
        walker.pos += 1
        return
    if walker.peek() != ",":
        raise _Stop(
            f"{walker.entry()} on line {key_line}: its key must be followed by a comma before "
            "the first field"
        )
    walker.pos += 1
    last_field, last_line = "", key_line
    while True:
        walker.skip_space()
        if walker.at_end():
            raise _Stop(_not_closed(walker, last_field, last_line, "the file ends first"))
        if walker.peek() == closer:
            walker.pos += 1
            return
        if walker.at_next_entry():
            raise _Stop(
                _not_closed(
                    walker,
                    last_field,
                    last_line,
                    f"the next entry starts on line {walker.line_at(walker.pos)}",
                )
            )
        name_match = _NAME.match(text, walker.pos)
        if name_match is None:
            raise _Stop(
                f"in {walker.entry()}, unexpected {walker.peek()!r} on line "
                f"{walker.line_at(walker.pos)} where a field name should be"
            )
        name, name_line = name_match.group(0), walker.line_at(walker.pos)
        walker.pos = name_match.end()
        walker.skip_space()
        if walker.peek() != "=":
            raise _Stop(
                f"in {walker.entry()}, the field '{name}' on line {name_line} has no '=' between "
                "its name and its value"
            )
        walker.pos += 1
        value_start = walker.pos
        _walk_value(walker, name, name_line, closer)
        last_field, last_line = name, name_line
        walker.skip_space()
        if walker.peek() == ",":
            walker.pos += 1
            continue
        if walker.peek() == closer:
            walker.pos += 1
            return
        if _FIELD_LINE.search(text, value_start, walker.pos):
            # The value ran on over the fields after it: its braces do not balance.
            raise _Stop(
                f"in {walker.entry()}, the value of the field '{name}' on line {name_line} opens "
                "more braces '{' than it closes, so the fields after it are read as its text"
            )
        if walker.at_end():
            raise _Stop(_not_closed(walker, name, name_line, "the file ends first"))
        following = _NAME.match(text, walker.pos)
        if following is not None and text[following.end() :].lstrip().startswith("="):
            raise _Stop(
                f"{walker.entry()} is not closed: a comma or a closing brace is missing after "
                f"the field '{name}' on line {name_line} (the field '{following.group(0)}' "
                f"follows on line {walker.line_at(walker.pos)})",
                silent=True,
            )
        if following is not None and text[value_start : walker.pos].strip()[:1] not in '{"':
            raise _Stop(
                f"in {walker.entry()}, the value of the field '{name}' on line {name_line} has "
                "words outside braces or quotation marks: put the value in braces, as "
                f"{name} = {{...}}",
                silent=True,
            )
        raise _Stop(
            f"{walker.entry()} is not closed: a comma or a closing brace is missing after the "
            f"field '{name}' on line {name_line}"
        )


def _not_closed(walker: _Entry, field: str, line: int, why: str) -> str:
    after = f"after the field '{field}' on line {line}" if field else f"after line {line}"
    return f"{walker.entry()} is not closed: its closing brace is missing {after} ({why})"


def _walk_value(walker: _Entry, name: str, name_line: int, closer: str) -> None:
    text = walker.text
    while True:
        walker.skip_space()
        char = walker.peek()
        if char == "{":
            _walk_braced(walker, name, name_line)
        elif char == '"':
            _walk_quoted(walker, name, name_line)
        elif char and (match := _BARE_VALUE.match(text, walker.pos)) is not None:
            walker.pos = match.end()
        else:
            raise _Stop(f"in {walker.entry()}, the field '{name}' on line {name_line} has no value")
        walker.skip_space()
        if walker.peek() != "#":
            return
        walker.pos += 1


def _walk_braced(walker: _Entry, name: str, name_line: int) -> None:
    """A {value}: braces inside it must balance. A value whose braces never balance runs on
    into the fields and entries after it, so the first line that starts a new entry, seen
    inside the value, tells that a `}` is missing in this field."""
    text, depth = walker.text, 0
    pos = walker.pos
    while pos < len(text):
        char = text[pos]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                walker.pos = pos + 1
                return
        elif char == "@" and not text[text.rfind("\n", 0, pos) + 1 : pos].strip():
            break
        pos += 1
    raise _Stop(
        f"in {walker.entry()}, the value of the field '{name}' on line {name_line} opens a brace "
        "'{' that is never closed"
    )


def _walk_quoted(walker: _Entry, name: str, name_line: int) -> None:
    text, depth = walker.text, 0
    pos = walker.pos + 1
    while pos < len(text):
        char = text[pos]
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == '"' and depth <= 0:
            walker.pos = pos + 1
            return
        elif char == "@" and not text[text.rfind("\n", 0, pos) + 1 : pos].strip():
            break
        pos += 1
    raise _Stop(
        f"in {walker.entry()}, the value of the field '{name}' on line {name_line} opens a "
        'quotation mark (") that is never closed'
    )


def _after_entry(walker: _Entry) -> str:
    """What follows a closed entry before the next one: a field there (`, year = 2020,`)
    means the entry was closed too early, by a `}` too many."""
    text = walker.text
    end = text.find("\n@", walker.pos)
    rest = text[walker.pos : end if end >= 0 else len(text)]
    if re.search(r"^\s*,?\s*[A-Za-z][A-Za-z0-9_\-:.+/]*\s*=", rest):
        return (
            f"{walker.entry()} is closed too early, on line {walker.line_at(walker.pos - 1)}: "
            "a '}' too many ends it there, and the fields after it are not read"
        )
    return ""
