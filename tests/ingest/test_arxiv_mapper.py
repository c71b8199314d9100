"""arXiv Atom feeds from the shared corpus, field by field; every file is read or rejected
with a reason, against an entry count made by a regex over the raw bytes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ingest.arxiv.atom import parse_feed, split_arxiv_id
from ingest.records import MappingError


def _feed(testdata_dir: Path, name: str):
    return parse_feed((testdata_dir / "arxiv" / "api" / name).read_bytes())


def test_an_old_style_id_keeps_affiliations_journal_ref_and_dates(testdata_dir):
    (entry,) = _feed(testdata_dir, "id_astro-ph_0601001.atom.xml").entries

    assert (entry.arxiv_id, entry.version, entry.versioned_id) == (
        "astro-ph/0601001",
        1,
        "astro-ph/0601001v1",
    )
    assert entry.title.startswith("Frequency of Hot Jupiters and Very Hot Jupiters")
    assert entry.summary.startswith("We derive the frequencies of hot Jupiters")
    assert (entry.published, entry.updated) == ("2006-01-02T14:57:58Z", "2006-01-02T14:57:58Z")
    assert [(a.name, a.affiliations) for a in entry.authors] == [
        ("Andrew Gould", ("Ohio State",)),
        ("Susan Dorsher", ("Ohio State",)),
        ("B. Scott Gaudi", ("CfA",)),
        ("Andrzej Udalski", ("Warsaw University Observatory",)),
    ]
    assert (entry.primary_category, entry.categories) == ("astro-ph", ("astro-ph",))
    assert entry.journal_ref == "ActaAstron.56:1-50,2006"
    assert entry.comment.startswith("62 pages including 16 figures")
    assert entry.doi is None
    assert entry.abs_url == "https://arxiv.org/abs/astro-ph/0601001v1"
    assert entry.pdf_url == "https://arxiv.org/pdf/astro-ph/0601001v1"
    assert entry.datacite_doi == "10.48550/arxiv.astro-ph/0601001"


def test_versions_first_and_latest_dates_and_the_publisher_doi(testdata_dir):
    feed = _feed(testdata_dir, "query_all-testing_start0_max100.atom.xml")
    by_id = {e.arxiv_id: e for e in feed.entries}

    revised = by_id["2012.10662"]
    assert revised.version == 2 and revised.versioned_id == "2012.10662v2"
    assert revised.updated == "2021-03-18T12:36:38Z"
    assert revised.published < revised.updated
    first = feed.entries[0]
    assert (first.arxiv_id, first.doi) == ("2202.12139", "10.1109/icstw55395.2022.00035")
    assert (first.primary_category, first.categories) == ("cs.SE", ("cs.SE", "cs.LG"))
    assert first.journal_ref.startswith("Artificial Intellige")
    assert sum(1 for e in feed.entries if e.doi) == 32
    assert sum(1 for e in feed.entries if e.journal_ref) == 18


def test_names_come_out_as_written_from_the_repaired_files(testdata_dir):
    (entry,) = _feed(testdata_dir, "id_1707.08567.atom.xml").entries
    names = [a.name for a in entry.authors]
    assert len(names) == 34
    assert "Dirk Wübben" in names
    assert not any("Ã" in name for name in names)
    feed = _feed(testdata_dir, "query_all-testing_start0_max100.atom.xml")
    non_ascii = [a.name for e in feed.entries for a in e.authors if not a.name.isascii()]
    assert len(non_ascii) == 17
    assert {"Katharina Götz", "Oliver Weißl", "Sólrún Einarsdóttir", "Lasse Møldrup"} <= set(
        non_ascii
    )
    assert not any("Ã" in name or "Â" in name for name in non_ascii)


def test_the_older_feed_format_reads_the_same(testdata_dir):
    feed = _feed(testdata_dir, "rh_query_cat-cs.AI_2_entries_trimmed.atom.xml")
    first = feed.entries[0]
    assert feed.total_results == 141182
    assert (first.arxiv_id, first.version) == ("2509.08827", 1)
    assert (first.primary_category, first.categories) == ("cs.CL", ("cs.CL", "cs.AI", "cs.LG"))
    assert first.pdf_url == "http://arxiv.org/pdf/2509.08827v1"
    # arXiv wraps abstracts at 80 columns: the newlines go.
    assert (
        "\n" not in first.summary and "Reinforcement Learning (RL) for reasoning" in first.summary
    )


def test_an_api_error_entry_is_an_error_of_the_feed_not_a_preprint(testdata_dir):
    feed = _feed(testdata_dir, "id_abc_error_400.atom.xml")
    assert feed.entries == ()
    assert feed.errors == ("arXiv API error: incorrect id format for abc",)


def test_a_missing_id_gives_only_the_existing_entry(testdata_dir):
    feed = _feed(testdata_dir, "id_list_one_missing_0808.05394_1707.08567.atom.xml")
    assert [e.arxiv_id for e in feed.entries] == ["1707.08567"] and feed.total_results == 1
    assert _feed(testdata_dir, "id_0000.0000_empty.atom.xml").entries == ()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("http://arxiv.org/abs/quant-ph/0201082v1", ("quant-ph/0201082", 1)),
        ("2104.12255v1", ("2104.12255", 1)),
        ("arXiv:1605.08386", ("1605.08386", None)),
        ("https://arxiv.org/pdf/2012.10662v2.pdf", ("2012.10662", 2)),
        ("math.GT/0309136", ("math.GT/0309136", None)),
    ],
)
def test_arxiv_ids_split_into_id_and_version(text, expected):
    assert split_arxiv_id(text) == expected


def test_a_body_that_is_not_a_feed_is_refused():
    with pytest.raises(MappingError, match="not well-formed"):
        parse_feed(b"<feed")
    with pytest.raises(MappingError, match="not an Atom feed"):
        parse_feed(b"<html/>")


def test_every_arxiv_file_is_read_or_rejected_with_a_reason(testdata_dir):
    files = sorted((testdata_dir / "arxiv").rglob("*.xml"))
    assert len(files) == 12
    for path in files:
        raw = path.read_bytes()
        expected_entries = len(re.findall(rb"<entry>", raw))
        feed = parse_feed(raw)
        assert len(feed.entries) + len(feed.errors) == expected_entries, path.name
        assert all(reason for reason in feed.errors)
        for entry in feed.entries:
            assert entry.title and entry.authors and entry.published and entry.categories, (
                entry.arxiv_id
            )
