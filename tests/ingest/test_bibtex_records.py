"""BibTeX and dblp files through the pipeline's reader and mapper to the shared WorkRecords:
every entry of every corpus file becomes one work or one issue with its reason, checked
against an independent count of the file's entries; field by field on real entries."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import orjson
import pytest

from ingest.bibtex.mapper import map_record
from ingest.bibtex.reader import READER, bibtex_records
from ingest.records import BIBTEX, MappingError, WorkRecord

# BibTeX has no comment character outside entries: "%@ARTICLE{..." is an entry to BibTeX and
# to bibtexparser, so it is counted. Only @string, @preamble and @comment are not entries.
_BLOCK_START = re.compile(r"^[ \t%]*@\s*([A-Za-z]+)", re.MULTILINE)


def _independent_count(path: Path) -> int:
    text = path.read_text(encoding="utf-8")
    return sum(
        1
        for kind in _BLOCK_START.findall(text)
        if kind.lower() not in ("string", "preamble", "comment")
    )


@functools.cache
def _mapped(path: Path) -> tuple[list[WorkRecord], list[str]]:
    """Every file is mapped once per test run (pylatexenc is slow on the large libraries)."""
    works, reasons = [], []
    for raw in READER.records(path):
        try:
            records = map_record(raw)
        except MappingError as exc:
            reasons.append(str(exc))
            continue
        assert len(records) == 1
        assert isinstance(records[0], WorkRecord)
        works.append(records[0])
    return works, reasons


def _corpus_files(testdata_dir: Path) -> list[Path]:
    files, skipped = READER.files([str(testdata_dir / "bibtex"), str(testdata_dir / "dblp")])
    assert not skipped
    return files


def _work(testdata_dir: Path, relative: str, key: str) -> WorkRecord:
    works, _ = _mapped(testdata_dir / relative)
    return next(w for w in works if w.origin_id == f"{Path(relative).name}:{key}")


def test_every_entry_of_every_file_is_a_work_or_an_issue_with_its_reason(testdata_dir):
    files = _corpus_files(testdata_dir)
    assert len(files) == 49
    total_works = total_issues = 0
    for path in files:
        works, reasons = _mapped(path)
        assert len(works) + len(reasons) == _independent_count(path), path.name
        assert all(reason.strip() for reason in reasons), path.name
        # One record per entry key: re-importing the file finds the same works.
        assert len({w.origin_id for w in works}) == len(works), path.name
        assert all(w.origin == BIBTEX and w.title for w in works)
        total_works += len(works)
        total_issues += len(reasons)
    assert total_works > 2000
    assert total_issues < total_works / 10


def test_the_reader_gives_the_same_records_every_time(testdata_dir):
    path = testdata_dir / "bibtex/better-bibtex/web_page_and_other_mendeley_idiocy.bib"
    assert list(READER.records(path)) == list(READER.records(path))


def test_and_others_is_never_an_author_anywhere_in_the_corpus(testdata_dir):
    names = [
        authorship.raw_name.lower()
        for path in _corpus_files(testdata_dir)
        for work in _mapped(path)[0]
        for authorship in work.authorships
    ]
    assert names
    assert "others" not in names and not any(name.startswith("et al") for name in names)


def test_madelung_and_others_keeps_the_one_named_author(testdata_dir):
    work = _work(
        testdata_dir,
        "bibtex/better-bibtex/Failure_to_handle_unparsed_author_names_92.bib",
        "Madelung_1998_LB_10681727_56",
    )
    assert [(a.raw_name, a.author.family_name) for a in work.authorships] == [
        ("Madelung, O.", "Madelung")
    ]
    assert work.doi == "10.1007/10681727_56"
    assert work.type == "book-chapter"
    assert work.source is not None and work.source.name == "Landolt-Börnstein"


def test_corporate_names_in_braces_are_one_name_without_a_researcher(testdata_dir):
    work = _work(testdata_dir, "bibtex/better-bibtex/Literal_names.bib", "sasson_increasing_2013")
    assert len(work.authorships) == 20
    people = work.authorships[:15]
    assert all(a.author is not None for a in people)
    assert people[0].author.display_name == "Comilla Sasson"
    assert people[0].author.given_name == "Comilla"
    assert people[0].author.family_name == "Sasson"
    organisations = work.authorships[15:]
    assert all(a.author is None for a in organisations)
    assert organisations[2].raw_name == (
        "Council on Cardiopulmonary, Critical Care, Perioperative and Resuscitation"
    )
    assert [a.position for a in work.authorships] == list(range(1, 21))
    assert work.doi == "10.1161/cir.0b013e318288b4dd"
    assert work.published is not None and work.published.isoformat() == "2013-03"
    assert work.source is not None
    assert (work.source.name, work.source.issns) == ("Circulation", ("1524-4539",))
    assert work.language == "en"


def test_a_name_with_a_suffix_has_its_three_parts():
    (work,) = map_record(
        next(
            bibtex_records(
                "@BOOK{k, AUTHOR = {Costa, Jr., P. T. and McCrae, R. R.}, TITLE = {T}, DATE = {2013}}",
                file_name="f.bib",
            )
        )
    )
    costa, mccrae = (a.author for a in work.authorships)
    assert (costa.given_name, costa.family_name, costa.display_name) == (
        "P. T.",
        "Costa",
        "P. T. Costa Jr.",
    )
    assert mccrae.family_name == "McCrae"
    assert work.published is not None and work.published.isoformat() == "2013"


def test_accents_and_von_parts_come_out_as_written(testdata_dir):
    work = _work(
        testdata_dir, "bibtex/better-bibtex/Wrong_ring-above_import_issue1115.bib", "rehurek_lrec"
    )
    assert work.authorships[0].author.display_name == "Radim Řehůřek"
    assert work.authorships[0].author.family_name == "Řehůřek"
    assert work.published is not None and work.published.isoformat() == "2010-05-22"
    (beethoven,) = map_record(
        next(
            bibtex_records(
                "@misc{b, author = {Ludwig van Beethoven}, title = {Sonata}}", file_name="b.bib"
            )
        )
    )
    assert beethoven.authorships[0].author.family_name == "van Beethoven"
    assert beethoven.authorships[0].author.given_name == "Ludwig"


def test_field_names_in_any_case_are_read(testdata_dir):
    path = (
        testdata_dir
        / "bibtex/better-bibtex/Import_error_with_character_+_in_BibTeX_field_name_issue2660.bib"
    )
    works, _ = _mapped(path)
    assert "AUTHOR" in path.read_text(encoding="utf-8")
    titled_with_authors = [w for w in works if w.authorships]
    assert len(titled_with_authors) > 100
    reanalysis = next(w for w in works if w.origin_id.endswith(":10.1:4"))
    assert reanalysis.title == "The NCEP/NCAR 40-year Reanalysis Project"
    assert reanalysis.source is not None
    assert reanalysis.source.name == "Bulletin of the American Meteorological Society"
    assert reanalysis.published is not None and reanalysis.published.isoformat() == "1996-01-01"
    # DOI = {fg6rf9} is not a DOI; a name list missing one "and" is one name, as BibTeX reads it.
    assert reanalysis.doi is None
    assert len(reanalysis.authorships) == 22
    assert reanalysis.authorships[0].author.display_name == "E. Kalnay"
    assert reanalysis.authorships[20].raw_name == "B. Baron C. Court"


def test_entries_without_a_key_are_kept_under_their_line(testdata_dir):
    works, reasons = _mapped(
        testdata_dir / "bibtex/better-bibtex/web_page_and_other_mendeley_idiocy.bib"
    )
    keyless = [w for w in works if ":line-" in w.origin_id]
    assert len(keyless) >= 36
    first = next(w for w in keyless if w.origin_id.endswith(":line-114"))
    assert first.title == "Reviewers as Readers with Power"
    assert first.authorships[2].author.display_name == "Véronique Béghain"
    assert not any("duplicate key ''" in reason for reason in reasons)


def test_an_entry_with_a_field_given_twice_keeps_the_first_value():
    raw = next(
        bibtex_records(
            "@article{d, title = {First}, keywords = {a}, keywords = {b}, year = 2001}",
            file_name="d.bib",
        )
    )
    assert orjson.loads(raw)["warnings"] == ["field keywords given twice: the first value was kept"]
    (work,) = map_record(raw)
    assert work.title == "First"


def test_unreadable_and_untitled_entries_are_issues_with_their_reason(testdata_dir):
    _, reasons = _mapped(testdata_dir / "bibtex/bibtexparser/biblatex-examples.bib")
    assert any("the entry 'tmn4' on line 1543 has the same key" in r for r in reasons)
    assert any("@set{set}" in reason and "not a work" in reason for reason in reasons)
    works, reasons = _mapped(
        testdata_dir
        / "bibtex/crossref-transform/2023_10.1007_s40278-023-41815-2_no_author_no_title.bib"
    )
    assert works == []
    assert reasons == ["@article{2023}: the entry has no title"]


def test_crossref_children_inherit_the_venue_but_not_the_parents_identifiers():
    text = (
        "@proceedings{p, title = {Proc. of X}, year = 2006, doi = {10.1/vol}, isbn = {1-2-3},"
        " editor = {Ed Itor}, publisher = {Springer}}\n"
        "@inproceedings{c, author = {A. Author}, title = {Paper}, crossref = {p}}\n"
    )
    proceedings, paper = (map_record(raw)[0] for raw in bibtex_records(text, file_name="x.bib"))
    assert paper.doi is None and paper.external_ids == ()
    assert paper.source is not None and paper.source.name == "Proc. of X"
    assert paper.published is not None and paper.published.year == 2006
    assert proceedings.type == "book" and proceedings.doi == "10.1/vol"
    assert [a.author.display_name for a in proceedings.authorships] == ["Ed Itor"]


def test_arxiv_eprints_give_the_arxiv_id_without_version():
    text = (
        "@misc{a, title = {P}, eprint = {2101.00001v3}, archivePrefix = {arXiv}}\n"
        "@article{DBLP:journals/corr/abs-1707-08567, title = {Q}, journal = {CoRR},"
        " volume = {abs/1707.08567}, year = {2017}}\n"
    )
    preprint, corr = (map_record(raw)[0] for raw in bibtex_records(text, file_name="a.bib"))
    assert (preprint.arxiv_id, preprint.type) == ("2101.00001", "preprint")
    assert corr.arxiv_id == "1707.08567"
    assert ("dblp", "journals/corr/abs-1707-08567") in corr.external_ids


@pytest.mark.parametrize(
    ("month", "expected"), [("aug", "1970-08"), ('"August"', "1970-08"), ("{Aug.}", "1970-08")]
)
def test_months_as_macros_names_or_numbers(month, expected):
    text = f"@article{{m, title = {{T}}, year = 1970, month = {month}}}"
    (work,) = map_record(next(bibtex_records(text, file_name="m.bib")))
    assert work.published is not None and work.published.isoformat() == expected


def test_crossref_generated_bibtex_is_read_field_by_field(testdata_dir):
    work = _work(
        testdata_dir,
        "bibtex/crossref-transform/Frank_1970_10.1126_science.169.3946.635.bib",
        "Frank_1970",
    )
    assert work.doi == "10.1126/science.169.3946.635"
    assert work.published is not None and work.published.isoformat() == "1970-08"
    assert work.authorships[0].author.display_name == "Henry S. Frank"
    assert work.source is not None and work.source.issns == ("1095-9203",)
