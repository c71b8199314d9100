"""Crossref REST works from the shared corpus, field by field; every file gives mapped works
or issues with reasons, counted against the JSON's own item lists."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.crossref.jats import markup_to_text
from ingest.crossref.mapper import map_record, map_work
from ingest.crossref.reader import READER
from ingest.records import MappingError, PartialDate


def _work(testdata_dir: Path, relative: str):
    return map_work(
        json.loads((testdata_dir / "crossref" / relative).read_text(encoding="utf-8"))["message"]
    )


def _items(testdata_dir: Path, relative: str) -> list[dict]:
    return json.loads((testdata_dir / "crossref" / relative).read_text(encoding="utf-8"))[
        "message"
    ]["items"]


def test_a_work_maps_field_by_field_with_orcid_and_sequence(testdata_dir):
    work = _work(testdata_dir, "works/hab_work_10.1136_jclinpath-2020-206745.json")
    assert (work.origin, work.origin_id, work.doi) == (
        "crossref",
        "10.1136/jclinpath-2020-206745",
        "10.1136/jclinpath-2020-206745",
    )
    # <i>KRAS</i> / <i>NRAS</i> across indented lines: tags gone, whitespace collapsed.
    assert "KRAS /NRAS" in work.title or "KRAS / NRAS" in work.title
    assert "\n" not in work.title and "<" not in work.title
    assert len(work.authorships) == 15
    first = work.authorships[0]
    assert first.sequence == "first" and all(
        a.sequence == "additional" for a in work.authorships[1:]
    )
    with_orcid = [a for a in work.authorships if a.author and a.author.orcid]
    assert with_orcid and all(a.author.orcid_authenticated in (True, False) for a in with_orcid)
    assert work.source.name and work.source.issns


def test_jats_abstracts_become_plain_text(testdata_dir):
    work = _work(testdata_dir, "works/hab_work_10.1002_jor.1100150407.json")
    assert work.abstract.startswith("Twenty‐two beagles were divided into two equal groups")
    assert "<jats" not in work.abstract and "Abstract" not in work.abstract[:10]
    assert "(p < 0.001)" in work.abstract  # an escaped < in the text stays text
    assert work.published == PartialDate(1997, 7)
    assert [a.author.family_name for a in work.authorships[:2]] == ["Lieber", "Jacks"]


def test_markup_mathml_and_entities_are_readable():
    assert (
        markup_to_text(
            "<jats:p>x <mml:math><mml:msup><mml:mi>E</mml:mi><mml:mn>2</mml:mn></mml:msup></mml:math> y&nbsp;z</jats:p>"
        )
        == "x E^2 y z"
    )
    assert (
        markup_to_text(
            "a <mml:math><mml:mfrac><mml:mn>1</mml:mn><mml:mi>n</mml:mi></mml:mfrac></mml:math>"
        )
        == "a 1/n"
    )
    assert markup_to_text("<scp>T</scp>reebase") == "Treebase"
    assert markup_to_text("p110α (\n   <i>PIK3CA</i>\n )") == "p110α ( PIK3CA )"


def test_greek_letters_and_newlines_in_titles(testdata_dir):
    work = _work(testdata_dir, "works/pqa_work_10.1073_pnas.1205508109.json")
    assert "p110α" in work.title and "PIK3CA" in work.title and "  " not in work.title


def test_partial_or_missing_issued_dates_never_raise():
    base = {"DOI": "10.1/x", "title": ["T"], "type": "journal-article"}
    assert map_work({**base, "issued": {"date-parts": [[None]]}}).published is None
    assert map_work({**base}).published is None
    assert map_work({**base, "issued": {"date-parts": [[2020]]}}).published == PartialDate(2020)
    assert map_work({**base, "issued": {"date-parts": [[2020, 13]]}}).published == PartialDate(2020)
    assert map_work({**base, "issued": {"date-parts": []}}).published is None


def test_organisation_authors_get_no_researcher(testdata_dir):
    items = _items(testdata_dir, "lists/hab_journal_1803-2427_works_unicode.json")
    organisations = [a for item in items for a in map_work(item).authorships if a.author is None]
    assert [a.raw_name for a in organisations] == ["Sudesiqin"]
    reports = [map_work(item) for item in _items(testdata_dir, "lists/hab_type_report_works.json")]
    assert any(a.author is None for w in reports for a in w.authorships)


def test_the_preprint_keeps_its_published_version(testdata_dir):
    work = _work(testdata_dir, "works/pqa_work_10.1101_2024.04.01.587366_biorxiv.json")
    assert work.type == "preprint"
    assert any(scheme == "is-preprint-of" for scheme, _ in work.external_ids)


def test_a_datacite_404_and_other_errors_are_issues_with_reasons(testdata_dir):
    (raw,) = list(
        READER.records(testdata_dir / "crossref" / "errors" / "pqa_404_datacite_arxiv_doi.txt")
    )
    with pytest.raises(MappingError, match="Resource not found"):
        map_record(raw)
    (raw,) = list(
        READER.records(testdata_dir / "crossref" / "errors" / "hab_400_rows_not_integer.json")
    )
    with pytest.raises(MappingError, match="validation-failure"):
        map_record(raw)


def test_every_crossref_file_is_mapped_or_rejected_with_a_reason(testdata_dir):
    files = sorted(p for p in (testdata_dir / "crossref").rglob("*") if p.is_file())
    assert len(files) == 32
    totals = {"mapped": 0, "rejected": 0}
    for path in files:
        if path.suffix == ".txt":
            expected = 1
        else:
            payload = json.loads(path.read_text(encoding="utf-8"))
            message = payload.get("message")
            expected = len(message["items"]) if payload.get("message-type") == "work-list" else 1
        records = list(READER.records(path))
        assert len(records) == expected, path.name
        for raw in records:
            try:
                (work,) = map_record(raw)
            except MappingError as exc:
                assert str(exc), path.name
                totals["rejected"] += 1
            else:
                assert work.title and work.doi
                totals["mapped"] += 1
    assert totals == {"mapped": 152, "rejected": 23}
