"""dblp's BibTeX exports: record keys as the works' dblp ids, homonym numbers as the authors'
identity keys (never shown in the name), LaTeX accents and escaped underscores decoded."""

from __future__ import annotations

import dataclasses

from ingest.bibtex.mapper import map_record
from ingest.bibtex.names import parse_names
from ingest.bibtex.reader import READER, bibtex_records
from ingest.dblp.names import dblp_record_key, is_dblp_entry, split_homonym
from ingest.records import AuthorRef

_DBLP_ENTRY = (
    "@inproceedings{DBLP:conf/x/WangW01,\n"
    '  author    = {Wei Wang 0001 and Wei Wang 0002 and Hagen H{\\"{o}}pfner},\n'
    "  title     = {Two Namesakes},\n"
    "  booktitle = {Proc. X},\n"
    "  year      = {2001},\n"
    "  biburl    = {https://dblp.org/rec/conf/x/WangW01.bib},\n"
    "  bibsource = {dblp computer science bibliography, https://dblp.org}\n"
    "}\n"
)


def _works(path):
    return [map_record(raw)[0] for raw in READER.records(path)]


def test_homonym_numbers_are_split_from_the_name():
    assert split_homonym("Wei Wang 0001") == ("Wei Wang", "Wei Wang 0001")
    assert split_homonym("Michael Ley") == ("Michael Ley", None)
    assert split_homonym("Year 2001 Committee") == ("Year 2001 Committee", None)


def test_namesakes_keep_different_identity_keys_and_the_same_displayed_name():
    first, second, third = parse_names(
        'Wei Wang 0001 and Wei Wang 0002 and Hagen H{\\"{o}}pfner', dblp=True
    )
    assert (first.display_name, first.family_name, first.given_name) == ("Wei Wang", "Wang", "Wei")
    assert first.dblp_name == "Wei Wang 0001"
    assert second.dblp_name == "Wei Wang 0002"
    assert second.display_name == "Wei Wang"
    # Un-numbered names are not identity keys in dblp: several people may share them.
    assert third.dblp_name is None and third.display_name == "Hagen Höpfner"


def test_a_number_outside_dblp_is_part_of_the_name():
    (name,) = parse_names("Wei Wang 0001")
    assert name.dblp_name is None


def test_a_dblp_entry_maps_to_a_work_with_its_dblp_key_and_clean_author_names():
    (work,) = map_record(next(bibtex_records(_DBLP_ENTRY, file_name="dblp.bib")))
    assert ("dblp", "conf/x/WangW01") in work.external_ids
    assert [a.author.display_name for a in work.authorships] == [
        "Wei Wang",
        "Wei Wang",
        "Hagen Höpfner",
    ]
    assert [a.raw_name for a in work.authorships][:2] == ["Wei Wang", "Wei Wang"]
    if "dblp" in {f.name for f in dataclasses.fields(AuthorRef)}:
        assert [getattr(a.author, "dblp", None) for a in work.authorships] == [
            "Wei Wang 0001",
            "Wei Wang 0002",
            None,
        ]


def test_dblp_keys_come_from_the_key_or_the_biburl():
    assert dblp_record_key("DBLP:journals/pvldb/Ley09", {}) == "journals/pvldb/Ley09"
    biburl = {"biburl": "https://dblp.org/rec/bib/conf/jcdl/MichelsFLSS17"}
    assert dblp_record_key("Michels2017", biburl) == "conf/jcdl/MichelsFLSS17"
    assert is_dblp_entry("Michels2017", biburl)
    assert not is_dblp_entry("Smith2001", {"bibsource": "Zotero"})


def test_the_dblp_files_of_the_corpus_field_by_field(testdata_dir):
    ley = {w.origin_id: w for w in _works(testdata_dir / "dblp/ley.bib")}
    lessons = ley["ley.bib:DBLP:journals/pvldb/Ley09"]
    assert lessons.title == "DBLP - Some Lessons Learned"
    assert lessons.doi == "10.14778/1687553.1687577"
    assert lessons.source is not None and lessons.source.name == "PVLDB"
    assert ("dblp", "journals/pvldb/Ley09") in lessons.external_ids
    assert lessons.published is not None and lessons.published.isoformat() == "2009"
    jcdl = ley["ley.bib:DBLP:conf/jcdl/MichelsFLSS17"]
    assert [a.author.family_name for a in jcdl.authorships] == [
        "Michels",
        "Fayzrakhmanov",
        "Ley",
        "Sallinger",
        "Schenkel",
    ]
    paper, proceedings = _works(testdata_dir / "dblp/dblp_crossref.bib")
    assert paper.doi == "10.1007/11880561_13"  # dblp escapes the underscore: 11880561\_13
    assert paper.source is not None and "SPIRE 2006" in paper.source.name
    assert ("dblp", "conf/spire/BastMW06") in paper.external_ids
    assert proceedings.type == "book" and proceedings.doi == "10.1007/11880561"
    (doi_org,) = _works(testdata_dir / "dblp/dblp_doi.org.bib")
    assert doi_org.doi == paper.doi  # the same paper from doi.org: one work for the writer
    assert not any(scheme == "dblp" for scheme, _ in doi_org.external_ids)
