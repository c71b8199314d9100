"""ORCID public API answers (v3.0 and the v2.x shape), read field by field from the shared
corpus of real records; every file under testdata/orcid is read or rejected with a reason,
and the counts are checked against a count made by walking the JSON independently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.orcid.fields import orcid_checksum_valid
from ingest.orcid.parse import group_works
from ingest.orcid.reader import read_orcid_file
from ingest.records import PartialDate

SECTIONS = {
    "employments": "employment",
    "educations": "education",
    "distinctions": "distinction",
    "invited-positions": "invited_position",
    "qualifications": "qualification",
    "services": "service",
}


def _orcid(testdata_dir: Path, relative: str):
    return read_orcid_file(testdata_dir / "orcid" / relative)


def _put_codes_under(node: object, key: str) -> list[int]:
    """Every put-code anywhere below `key`, found by walking the raw JSON (not our parser)."""
    found: list[int] = []

    def walk(obj: object) -> None:
        if isinstance(obj, dict):
            if "put-code" in obj and str(obj.get("visibility", "public")).lower() == "public":
                found.append(int(obj["put-code"]))
            for value in obj.values():
                walk(value)
        elif isinstance(obj, list):
            for value in obj:
                walk(value)

    walk(node.get(key) if isinstance(node, dict) else None)
    return found


def test_the_v2_record_reads_person_cv_fundings_and_works(testdata_dir):
    record = _orcid(testdata_dir, "v2.x/pyorcidator_record_0000-0003-4423-4370.json").record

    assert record.orcid == "0000-0003-4423-4370"
    person = record.person
    assert (person.given_names, person.family_name, person.credit_name) == (
        "Charles",
        "Hoyt",
        "Charles Tapley Hoyt",
    )
    # Emoji flags (surrogate pairs in the JSON) come out as the characters they are.
    assert "\U0001f1fa\U0001f1f8" in person.biography
    employments = [a for a in record.affiliations if a.section == "employment"]
    first = next(a for a in employments if a.put_code == 14207397)
    assert first.organisation.name == "Harvard Medical School"
    assert first.role == "Postdoctoral Research Fellow"
    assert first.department == "Laboratory of Systems Pharmacology"
    assert (first.organisation.city, first.organisation.region, first.organisation.country) == (
        "Boston",
        "MA",
        "US",
    )
    assert (first.organisation.identifier, first.organisation.identifier_source) == (
        "1811",
        "RINGGOLD",
    )
    assert first.start == PartialDate(2021, 2, 15) and first.end is None
    enveda = next(a for a in employments if a.put_code == 11243167)
    # Month precision kept: ORCID sent no day.
    assert (enveda.start, enveda.end) == (PartialDate(2020, 1), PartialDate(2020, 10))
    assert enveda.start.isoformat() == "2020-01" and enveda.start.precision == "month"
    assert enveda.organisation.identifier == ""
    assert len(employments) == 4
    assert len([a for a in record.affiliations if a.section == "education"]) == 3
    group = record.work_groups[0]
    assert group.preferred.title.startswith("A Systems Biology Approach for Hypothesizing")
    assert group.preferred.type == "journal-article"  # v2.x JOURNAL_ARTICLE
    assert group.preferred.publication_date == PartialDate(2021, 2)
    assert group.preferred.doi == "10.3233/jad-201397"
    assert {(i.type, i.relationship) for i in group.external_ids} == {
        ("doi", "self"),
        ("pmid", "self"),
    }


def test_the_official_v3_record_reads_every_cv_section(testdata_dir):
    record = _orcid(testdata_dir, "v3.0/orcid-model_record-full-3.0.json").record

    assert record.orcid == "0000-0002-7319-2192"
    person = record.person
    assert person.display_name == "Three releasecandidate1"
    # Other names in display order (highest display index first), as ORCID shows them.
    assert person.other_names[:3] == ("Other Name", "{}", "{yo}")
    assert "dreamofaredbird" in person.other_names
    assert [u.url for u in person.researcher_urls][:2] == [
        "https://site1.com/",
        "http://www.fjksbl.com",
    ]
    assert [(e.type, e.value) for e in person.external_ids] == [("my id system", "A-0003")]
    sections = {a.section for a in record.affiliations}
    assert sections == set(SECTIONS.values())
    distinction = next(a for a in record.affiliations if a.section == "distinction")
    assert distinction.put_code == 9264
    assert distinction.role == "role-title" and distinction.department == "department-name"
    assert distinction.start == PartialDate(1948, 2, 2)
    assert distinction.organisation.identifier_source == "FUNDREF"
    funding = record.fundings[0]
    assert (funding.title, funding.type) == ("Grant title", "grant")
    assert funding.organisation.name == "Wellcome Trust"
    assert (funding.start, funding.end) == (PartialDate(2000, 2, 2), PartialDate(2020, 2, 2))
    # The work's only `self` id is the DOI "work:doi"; the real DOI is `version-of`.
    work = record.work_groups[0].preferred
    assert work.title == "Work Title"
    assert {(i.value, i.relationship) for i in work.external_ids} == {
        ("10.1087/20120404", "version-of"),
        ("work:doi", "self"),
    }


def test_the_preferred_work_of_a_group_is_the_one_with_the_highest_display_index(testdata_dir):
    record = _orcid(testdata_dir, "v3.0/kbase_sandbox_record_0000-0003-4997-3076.json").record

    group = next(g for g in record.work_groups if len(g.works) == 2)
    assert [(w.put_code, w.display_index) for w in group.works] == [(1489307, 1), (1526014, 0)]
    assert group.preferred.put_code == 1489307 and group.preferred.type == "data-set"
    # The employment that ran from 1914 to 2022 keeps both years.
    years = {
        (a.start.year if a.start else None, a.end.year if a.end else None)
        for a in record.affiliations
    }
    assert (1914, 2022) in years


def test_works_with_several_sources_stay_one_group(testdata_dir):
    record = _orcid(testdata_dir, "v3.0/rorcid_works_0000-0001-8607-8025.json").record

    assert record.orcid == "0000-0001-8607-8025"
    assert len(record.work_groups) == 74
    multi = [g for g in record.work_groups if len(g.works) > 1]
    assert len(multi) == 4
    jneurosci = next(g for g in multi if any(i.value == "27030758" for i in g.external_ids))
    assert {w.source_name for w in jneurosci.works} == {"Europe PubMed Central", "Crossref"}
    first = record.work_groups[0].preferred
    assert (first.title, first.journal_title, first.doi) == (
        "Open Code and Peer Review",
        "Open Science Talk",
        "10.7557/19.5311",
    )
    assert first.publication_date == PartialDate(2020, 2, 4)


def test_grouping_by_self_and_version_of_ids_reproduces_orcids_own_groups(testdata_dir):
    for relative in (
        "v3.0/rorcid_works_0000-0001-8607-8025.json",
        "v3.0/rorcid_works_0000-0003-1444-9135.json",
        "v3.0/kbase_sandbox_works_0000-0003-4997-3076.json",
        "v2.x/pyorcidator_record_0000-0003-4423-4370.json",
    ):
        record = _orcid(testdata_dir, relative).record
        ours = group_works([w for g in record.work_groups for w in g.works])
        as_sets = lambda groups: sorted(sorted(w.put_code for w in g.works) for g in groups)  # noqa: E731
        assert as_sets(ours) == as_sets(record.work_groups), relative


def test_part_of_never_groups_and_version_of_does(testdata_dir):
    bulk = _orcid(testdata_dir, "v3.0/write_samples/orcid-model_work-full-3.0.json").record
    work = bulk.work_groups[0].works[0]
    chapter = work.__class__(put_code=1, title="Chapter one", external_ids=work.external_ids)
    other = work.__class__(
        put_code=2,
        title="Chapter two",
        external_ids=tuple(i for i in work.external_ids if i.relationship == "part-of"),
    )
    # Sharing only the `part-of` DOI (the book) leaves two works.
    assert len(group_works([chapter, other])) == 2
    full = (
        _orcid(testdata_dir, "v3.0/orcid-model_record-full-3.0.json").record.work_groups[0].works[0]
    )
    preprint = full.__class__(
        put_code=3,
        title="Preprint",
        external_ids=tuple(i for i in full.external_ids if i.relationship == "version-of"),
    )
    assert len(group_works([full, preprint])) == 1


def test_a_full_work_keeps_contributors_with_orcid_and_sequence(testdata_dir):
    work = _orcid(
        testdata_dir, "v3.0/write_samples/orcid-model_work-51-contributors-3.0.json"
    ).record
    contributors = work.work_groups[0].preferred.contributors
    assert len(contributors) == 51
    full = _orcid(testdata_dir, "v3.0/write_samples/orcid-model_work-full-3.0.json").record
    first = full.work_groups[0].preferred.contributors[0]
    assert (first.name, first.orcid, first.sequence, first.role) == (
        "Jordan",
        "0000-0002-5391-5437",
        "first",
        "author",
    )
    single = (
        _orcid(testdata_dir, "v3.0/rorcid_work_77226586_compact.json")
        .record.work_groups[0]
        .preferred
    )
    assert single.title == "Dose-Rate Estimation using α-Al2O3:C Chips: Aftermath"
    assert single.citation_type == "bibtex" and single.citation.startswith("@article{")
    pretty = (
        _orcid(testdata_dir, "v3.0/rorcid_work_77226586_pretty.json")
        .record.work_groups[0]
        .preferred
    )
    assert pretty == single  # the same data, serialised two ways


def test_person_names_keep_their_letters_and_lose_stray_spaces(testdata_dir):
    assert (
        _orcid(testdata_dir, "v3.0/search/rorcid_search_person_4.json").record.person.display_name
        == "CARL HIMPSEL"
    )
    assert (
        _orcid(testdata_dir, "v3.0/search/rorcid_search_person_7.json").record.person.display_name
        == "carl mattacola"
    )
    wierks = _orcid(testdata_dir, "v3.0/search/rorcid_search_person_9.json").record.person
    assert wierks.family_name == "Wierks"
    empty = _orcid(testdata_dir, "v3.0/rorcid_person_0000-0003-1620-1408.json").record.person
    assert (empty.display_name, empty.biography, empty.other_names) == ("Thomas Johnson", "", ())
    scott = _orcid(testdata_dir, "v3.0/rorcid_person_0000-0003-1444-9135.json").record.person
    assert scott.orcid == "0000-0003-1444-9135"
    assert scott.biography.startswith("Co-founder at rOpenSci")
    assert ("Scopus Author ID".lower(), "16229564500") in [
        (e.type, e.value) for e in scott.external_ids
    ]
    assert scott.countries == ("US",)


def test_the_orcid_checksum_accepts_x_and_refuses_a_typo():
    assert orcid_checksum_valid("0000-0003-4575-321X")
    assert orcid_checksum_valid("0000-0002-1825-0097")
    assert not orcid_checksum_valid("0000-0002-1825-0098")


def test_only_public_items_are_read(tmp_path):
    record = {
        "orcid-identifier": {"path": "0000-0002-1825-0097"},
        "person": {
            "name": {
                "given-names": {"value": "Josiah"},
                "family-name": {"value": "Carberry"},
                "visibility": "public",
            }
        },
        "activities-summary": {
            "employments": {
                "affiliation-group": [
                    {
                        "summaries": [
                            {
                                "employment-summary": {
                                    "put-code": 1,
                                    "visibility": "limited",
                                    "organization": {"name": "Hidden U"},
                                }
                            }
                        ]
                    },
                    {
                        "summaries": [
                            {
                                "employment-summary": {
                                    "put-code": 2,
                                    "visibility": "public",
                                    "organization": {"name": "Brown University"},
                                }
                            }
                        ]
                    },
                ]
            },
            "works": {
                "group": [
                    {
                        "work-summary": [
                            {
                                "put-code": 3,
                                "visibility": "private",
                                "title": {"title": {"value": "Secret"}},
                            }
                        ]
                    }
                ]
            },
        },
    }
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    read = read_orcid_file(path).record
    assert [a.organisation.name for a in read.affiliations] == ["Brown University"]
    assert read.work_groups == ()
    assert read.skipped == ("employment 1: not public", "work 3: not public")


def test_every_orcid_file_is_read_or_rejected_with_a_reason(testdata_dir):
    files = sorted(p for p in (testdata_dir / "orcid").rglob("*") if p.is_file())
    assert len(files) == 36
    for path in files:
        read = read_orcid_file(path)
        if path.suffix == ".xml":
            assert read.record is None and "XML" in read.rejected[0]
            continue
        raw = json.loads(path.read_text(encoding="utf-8"))
        if "response-code" in raw:
            assert read.kind == "error" and read.rejected[0].startswith(
                f"ORCID answered {raw['response-code']}"
            )
            continue
        if "num-found" in raw:
            assert len(read.orcids) == len(raw["result"] or [])
            continue
        record = read.record
        assert record is not None, path
        activities = raw.get("activities-summary", raw)
        works_node = activities.get("works", raw) if "activities-summary" in raw else raw
        if "group" in works_node:
            assert len(record.work_groups) == len(works_node["group"]), path
            assert sorted(w.put_code for g in record.work_groups for w in g.works) == sorted(
                _put_codes_under(works_node, "group")
            ), path
        if "activities-summary" in raw:
            expected = sorted(
                code for key in SECTIONS for code in _put_codes_under(activities, key)
            )
            assert sorted(a.put_code for a in record.affiliations) == expected, path
            assert sorted(f.put_code for f in record.fundings) == sorted(
                code
                for group in (activities.get("fundings") or {}).get("group", [])
                for code in _put_codes_under({"g": group.get("funding-summary")}, "g")
            ), path
        if "bulk" in raw:
            assert sum(len(g.works) for g in record.work_groups) == len(raw["bulk"])
        assert record.skipped == ()


def _mapped(testdata_dir: Path, relative: str) -> list:
    from ingest.orcid.mapper import map_record
    from ingest.orcid.reader import READER

    (raw,) = list(READER.records(testdata_dir / "orcid" / relative))
    return list(map_record(raw))


def test_a_record_maps_to_the_researcher_and_one_work_per_group(testdata_dir):
    from ingest.records import ResearcherRecord, WorkRecord

    out = _mapped(testdata_dir, "v2.x/pyorcidator_record_0000-0003-4423-4370.json")
    (person,) = [r for r in out if isinstance(r, ResearcherRecord)]
    assert (person.origin, person.orcid, person.display_name) == (
        "orcid",
        "0000-0003-4423-4370",
        "Charles Tapley Hoyt",
    )
    assert (person.given_name, person.family_name) == ("Charles", "Hoyt")
    works = [r for r in out if isinstance(r, WorkRecord)]
    assert len(works) == 26
    first = works[0]
    assert first.origin_id == "0000-0003-4423-4370:88946008"
    assert (first.doi, first.type, first.published) == (
        "10.3233/jad-201397",
        "article",
        PartialDate(2021, 2),
    )
    assert ("pmid", "33554913") in first.external_ids
    assert first.listed_by.orcid == "0000-0003-4423-4370"


def test_a_work_identified_only_by_part_of_gets_no_doi_from_it(testdata_dir):
    (work,) = _mapped(testdata_dir, "v3.0/write_samples/orcid-model_work-full-3.0.json")
    # Its DOI 10.1187/20120402 is `part-of` (the container), and its `self` DOI is not a DOI.
    assert work.doi is None
    assert [(a.raw_name, a.author.orcid, a.sequence) for a in work.authorships][:1] == [
        ("Jordan", "0000-0002-5391-5437", "first")
    ]


def test_error_search_and_xml_answers_are_rejected_with_their_reason(testdata_dir):
    from ingest.orcid.mapper import map_record
    from ingest.orcid.reader import READER
    from ingest.records import MappingError

    for relative, reason in (
        ("v3.0/errors/rorcid_404_invalid_id.json", "ORCID answered 404"),
        ("v3.0/search/rorcid_search_given-names_carl.json", "search answer lists 10 iDs"),
        ("v3.0/xml/orcid-model_record-3.0.xml", "ORCID XML is not read"),
    ):
        (raw,) = list(READER.records(testdata_dir / "orcid" / relative))
        with pytest.raises(MappingError, match=reason):
            map_record(raw)


def test_works_without_a_put_code_keep_keys_of_their_own(testdata_dir):
    from ingest.records import WorkRecord

    # ORCID's write samples: works posted alone, with no put-code and no record iD.
    bulk = "v3.0/write_samples/orcid-model_bulk-works-3-works-3.0.json"
    keys = [r.origin_id for r in _mapped(testdata_dir, bulk) if isinstance(r, WorkRecord)]
    other = [
        r.origin_id
        for r in _mapped(testdata_dir, "v3.0/write_samples/orcid-model_work-full-3.0.json")
        if isinstance(r, WorkRecord)
    ]
    assert len(keys) == 3 and len(set(keys + other)) == 4  # were all "no-orcid:None"
    # Mapped again, the same works get the same keys: a re-import updates, never duplicates.
    assert [r.origin_id for r in _mapped(testdata_dir, bulk) if isinstance(r, WorkRecord)] == keys
