"""BibTeX files from the shared corpus (and dblp's exports): every entry is read or becomes an
error with its reason, counted independently ('@' at line starts that are not @string,
@preamble or @comment); values resolved field by field."""

from __future__ import annotations

import re
from pathlib import Path

from ingest.bibtex.parse import latex_to_text, parse_bibtex, split_names

# BibTeX itself has no comment character outside entries: "%@ARTICLE{..." (issue2660) is an
# entry to BibTeX and to bibtexparser, so it is counted.
_BLOCK_START = re.compile(r"^[ \t%]*@\s*([A-Za-z]+)", re.MULTILINE)


def _bib(testdata_dir: Path, relative: str):
    return parse_bibtex((testdata_dir / relative).read_text(encoding="utf-8"))


def test_every_bibtex_and_dblp_entry_is_read_or_an_error_with_a_reason(testdata_dir):
    files = sorted(
        [*(testdata_dir / "bibtex").rglob("*.bib"), *(testdata_dir / "dblp").rglob("*.bib")]
    )
    assert len(files) == 49
    for path in files:
        text = path.read_text(encoding="utf-8")
        expected = sum(
            1
            for kind in _BLOCK_START.findall(text)
            if kind.lower() not in ("string", "preamble", "comment")
        )
        parsed = parse_bibtex(text)
        assert len(parsed.entries) + len(parsed.errors) == expected, path.name
        assert all(error.reason for error in parsed.errors)


def test_strings_concatenation_and_month_macros_resolve():
    parsed = parse_bibtex(
        '@STRING{j = "Journal"}\n@Article{a, TITLE={A {\\"o} b}, journal = J # " of X", month = aug, year=2001}'
    )
    (entry,) = parsed.entries
    assert entry.fields["journal"] == "Journal of X"
    assert entry.fields["month"] == "8"
    assert latex_to_text(entry.fields["title"]) == "A ö b"


def test_crossref_fields_are_inherited(testdata_dir):
    parsed = _bib(testdata_dir, "dblp/dblp_crossref.bib")
    child = next(e for e in parsed.entries if e.entry_type == "inproceedings")
    assert child.fields.get("booktitle") and child.fields.get("year")


def test_and_others_and_corporate_names_split_as_written():
    assert split_names("Smith, J. and {American Heart Association} AND others") == [
        "Smith, J.",
        "{American Heart Association}",
        "others",
    ]


def test_accents_come_out_as_unicode(testdata_dir):
    assert latex_to_text('H{\\"{o}}pfner {\\v R}eh{\\r u}{\\v r}ek') == "Höpfner Řehůřek"


def test_duplicate_keys_are_errors_with_the_key(testdata_dir):
    parsed = _bib(testdata_dir, "bibtex/bibtexparser/biblatex-examples.bib")
    assert [e.reason for e in parsed.errors] == [
        "the entry 'tmn4' on line 1543 has the same key as an earlier entry on line 1535: "
        "only the first one is added; give this one a key of its own"
    ]


def test_an_unclosed_entry_is_an_error_that_says_why_and_its_neighbours_are_read():
    parsed = parse_bibtex(
        "@article{first, title={One}, author={A B}, year=2020}\n"
        "@article{broken, title={Two, author={C D}, year=2021}\n"
        "@article{third, title={Three}, author={E F}, year=2022}\n"
    )
    assert [e.key for e in parsed.entries] == ["first", "third"]
    (error,) = parsed.errors
    assert (error.key, error.line) == ("broken", 2)
    assert error.reason == (
        "in the entry 'broken', the value of the field 'title' on line 2 opens more braces '{' "
        "than it closes, so the fields after it are read as its text"
    )


def test_an_entry_cut_off_by_the_end_of_the_file_says_so():
    (error,) = parse_bibtex("@book{cut, title={Half a book").errors
    assert error.key == "cut"
    assert error.reason == (
        "in the entry 'cut', the value of the field 'title' on line 1 opens a brace '{' that is "
        "never closed"
    )
