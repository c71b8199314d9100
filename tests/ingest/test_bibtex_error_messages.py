"""Issue 24, item 5: a BibTeX entry that cannot be read is said where the researcher finds it
in their own file (the line, the entry's key, the field) and in words, for each kind of
mistake; an entry bibtexparser reads past a mistake is refused, not imported with wrong
values; the preview never shows the server's path of the file."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from ingest.bibtex.parse import parse_bibtex
from tests.factories import AuthorshipFactory, ResearcherFactory
from tests.support.people import approved_claimant

GOOD = "@article{good2021,\n  author = {Liddell, Alice},\n  title = {Fine},\n  year = 2021,\n}\n"

CASES = {
    "a missing comma": (
        "@article{smith2020,\n  author = {Liddell, Alice},\n  title = {A study}\n"
        "  year = {2020},\n}\n",
        "the entry 'smith2020' is not closed: a comma or a closing brace is missing after the "
        "field 'title' on line 3 (the field 'year' follows on line 4)",
    ),
    "a missing comma before a bare value": (
        "@article{smith2020,\n  author = {Liddell, Alice},\n  year = 2020\n"
        "  title = {A study},\n}\n",
        "the entry 'smith2020' is not closed: a comma or a closing brace is missing after the "
        "field 'year' on line 3 (the field 'title' follows on line 4)",
    ),
    "a brace opened and never closed in a value": (
        "@article{smith2020,\n  author = {Liddell, Alice},\n  title = {A {study},\n"
        "  year = {2020},\n}\n",
        "in the entry 'smith2020', the value of the field 'title' on line 3 opens more braces "
        "'{' than it closes, so the fields after it are read as its text",
    ),
    "a brace too many": (
        "@article{smith2020,\n  author = {Liddell, Alice},\n  title = {A study}},\n"
        "  year = {2020},\n}\n",
        "the entry 'smith2020' is closed too early, on line 3: a '}' too many ends it there, "
        "and the fields after it are not read",
    ),
    "the entry's closing brace missing before the next entry": (
        "@article{smith2020,\n  author = {Liddell, Alice},\n  title = {A study},\n\n",
        "the entry 'smith2020' is not closed: its closing brace is missing after the field "
        "'title' on line 3 (the next entry starts on line 5)",
    ),
    "a field without its equals sign": (
        "@article{smith2020,\n  author {Liddell, Alice},\n  title = {A study},\n}\n",
        "in the entry 'smith2020', the field 'author' on line 2 has no '=' between its name "
        "and its value",
    ),
    "a quotation mark never closed": (
        '@article{smith2020,\n  author = {Liddell, Alice},\n  title = "A study,\n}\n',
        "in the entry 'smith2020', the value of the field 'title' on line 3 opens a quotation "
        'mark (") that is never closed',
    ),
    "words outside braces": (
        "@article{smith2020,\n  author = Alice Liddell,\n  title = {A study},\n}\n",
        "in the entry 'smith2020', the value of the field 'author' on line 2 has words outside "
        "braces or quotation marks: put the value in braces, as author = {...}",
    ),
    "a key without its comma": (
        "@article{smith2020\n  author = {Liddell, Alice},\n  title = {A study},\n}\n",
        "the entry 'smith2020' on line 1: its key must be followed by a comma before the first "
        "field",
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_kind_of_mistake_is_said_with_its_line_key_and_field(name):
    broken, reason = CASES[name]
    parsed = parse_bibtex(GOOD + broken + GOOD.replace("good2021", "after2022"))

    assert [entry.key for entry in parsed.entries] == ["good2021", "after2022"]
    (error,) = parsed.errors
    assert (error.key, error.line) == ("smith2020", 6)
    # The lines are the file's: the broken entry starts on line 6.
    assert error.reason == _shifted(reason, by=5)


def _shifted(reason: str, *, by: int) -> str:
    return re.sub(r"line (\d+)", lambda m: f"line {int(m.group(1)) + by}", reason)


def test_the_closing_brace_missing_at_the_end_of_the_file():
    text = GOOD + "@article{smith2020,\n  author = {Liddell, Alice},\n  title = {A study},\n"
    (error,) = parse_bibtex(text).errors
    assert (error.key, error.line) == ("smith2020", 6)
    assert error.reason == (
        "the entry 'smith2020' is not closed: its closing brace is missing after the field "
        "'title' on line 8 (the file ends first)"
    )


def test_a_duplicate_key_names_both_lines():
    parsed = parse_bibtex(GOOD + GOOD.replace("Fine", "Other"))
    (error,) = parsed.errors
    assert (error.key, error.line) == ("good2021", 6)
    assert error.reason == (
        "the entry 'good2021' on line 6 has the same key as an earlier entry on line 1: only "
        "the first one is added; give this one a key of its own"
    )


def test_valid_entries_of_every_form_raise_nothing():
    text = (
        '@string{jnl = "Journal of Things"}\n'
        "@comment{anything {at all} = here}\n"
        '@preamble{ "\\newcommand{\\x}{y}" }\n'
        '@article(paren2020, author = {A. B}, title = "Quoted {With} Braces", journal = jnl,'
        ' month = jan # "~1", year = 2020)\n'
        "@misc{nofinalcomma, title = {T}, note = {a, b = c}, year = {2019}}\n"
        "@book{abstract2018,\n  title = {Long},\n  abstract = {Line one,\n  then = more text},"
        "\n  year = 2018\n}\n"
        "@online{mendeley, url = {https://example.org/a@b}, title = {E-mail a@b.c}}\n"
    )
    parsed = parse_bibtex(text)
    assert parsed.errors == []
    assert len(parsed.entries) == 4


@pytest.mark.django_db
def test_the_preview_says_where_in_the_file_and_never_the_servers_path(client, alice):
    record = ResearcherFactory(display_name="Alice Liddell", slug="alice-liddell")
    AuthorshipFactory(researcher=record)
    approved_claimant(alice, record)
    client.force_login(alice)
    from django.core.files.uploadedfile import SimpleUploadedFile

    broken, _ = CASES["a missing comma"]
    upload = SimpleUploadedFile("my refs.bib", (GOOD + broken).encode())
    response = client.post(reverse("ingest:bibtex-upload", args=[record.slug]), {"file": upload})

    page = response.content.decode()
    assert response.status_code == 200
    assert "Line 6 of your file:" in page and "<strong>smith2020</strong>" in page
    assert (
        "The entry &#x27;smith2020&#x27; is not closed: a comma or a closing brace is missing "
        "after the field &#x27;title&#x27; on line 8" in page
    )
    assert not re.search(r"upload-[\w-]+/", page) and ".bib at line" not in page
    assert "Unexpectedly" not in page
