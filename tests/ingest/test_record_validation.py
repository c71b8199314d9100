"""The checks every importer's records pass before the write (ingest.validation):
what the database would refuse is cleaned with a warning, or rejects the record with a reason."""

from __future__ import annotations

import math

import pytest

from ingest.records import (
    InstitutionRecord,
    MappingError,
    ResearcherRecord,
    TopicRecord,
    WorkRecord,
    WorkTopicRecord,
)
from ingest.validation import record_checked


def test_a_record_that_fits_comes_back_as_it_is_without_a_warning():
    record = WorkRecord(openalex_id="W1", title="A title", publication_year=2020)
    checked, warnings = record_checked(record)
    assert checked is record
    assert warnings == []


def test_list_items_too_long_are_left_out_one_by_one():
    institution = InstitutionRecord(
        openalex_id="I1", name="Uni", email_domains=("uni.example", "x" * 300 + ".example")
    )
    researcher = ResearcherRecord(
        openalex_id="A1", display_name="Ada", alternate_names=("Ada L.", "A" * 600)
    )
    checked_institution, warnings = record_checked(institution)
    assert checked_institution.email_domains == ("uni.example",)
    assert "email_domains[1]" in warnings[0]
    checked_researcher, warnings = record_checked(researcher)
    assert checked_researcher.alternate_names == ("Ada L.",)
    assert warnings


def test_a_score_that_is_not_a_number_becomes_zero():
    topic = TopicRecord(external_id="T1", name="Topic", level="topic")
    record = WorkRecord(
        openalex_id="W1", title="t", topics=(WorkTopicRecord(topic=topic, score=math.inf),)
    )
    checked, warnings = record_checked(record)
    assert checked.topics[0].score == 0.0
    assert "topics[0].score" in warnings[0]


def test_nul_in_an_identifier_is_removed_and_an_identifier_too_long_rejects():
    checked, warnings = record_checked(WorkRecord(openalex_id="W1\x00", title="t"))
    assert checked.openalex_id == "W1"
    assert "NUL characters removed" in warnings[0]
    with pytest.raises(MappingError, match="arxiv_id is 41 characters"):
        record_checked(WorkRecord(openalex_id="W1", title="t", arxiv_id="1" * 41))


def test_a_repeated_topic_is_checked_the_same_every_time():
    topic = TopicRecord(external_id="T1", name="N" * 400, level="topic")
    for _ in range(2):
        checked, warnings = record_checked(topic)
        assert len(checked.name) == 300
        assert warnings == ["name: cut from 400 to 300 characters"]
