"""The name resolver in the import's writer: name-only authors of real batches linked, left
as new L0 records, or queued for moderators, with the resolver's reasons stored."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from claims.models import NameLink, SamePersonCandidate, SamePersonStatus
from ingest.writer.authors import NameMention
from ingest.writer.resolver import name_resolution
from publications.models import Authorship
from researchers.models import Researcher, VerificationLevel
from tests.factories import (
    AffiliationFactory,
    AuthorshipFactory,
    InstitutionFactory,
    ResearcherFactory,
    WorkFactory,
)

from .resolution_support import CountingCursor, author, crossref_work, orcid, write

pytestmark = pytest.mark.django_db


@pytest.fixture
def team():
    """John Smith (no identifiers known to the byline) and three coauthors with ORCID iDs,
    who have written two works together."""
    john = ResearcherFactory(display_name="John Smith", openalex_id="A1")
    coauthors = [
        ResearcherFactory(display_name=name, orcid=orcid(serial), openalex_id=None)
        for serial, name in ((11, "Alice Ames"), (12, "Bob Brown"), (13, "Carol Chen"))
    ]
    for _ in range(2):
        work = WorkFactory()
        AuthorshipFactory(work=work, researcher=john, position=1)
        for position, coauthor in enumerate(coauthors, start=2):
            AuthorshipFactory(work=work, researcher=coauthor, position=position)
    return john, coauthors


def _byline_researcher(doi: str, position: int) -> Researcher:
    return (
        Authorship.objects.select_related("researcher")
        .get(work__doi=doi, position=position)
        .researcher
    )


def test_two_shared_coauthors_link_the_name_and_the_reasons_are_stored(team) -> None:
    john, (alice, bob, _) = team
    write(
        crossref_work(
            "10.1/a",
            author(1, "John Smith"),
            author(2, "Alice Ames", orcid_id=alice.orcid),
            author(3, "Bob Brown", orcid_id=bob.orcid),
        )
    )
    assert _byline_researcher("10.1/a", 1) == john
    link = NameLink.objects.get(origin="crossref", origin_id="10.1/a")
    assert link.researcher == john
    assert link.evidence["shared_coauthors"] == sorted([alice.pk, bob.pk])
    assert link.evidence["rule"] == "independent evidence"
    assert not SamePersonCandidate.objects.exists()


def test_one_shared_coauthor_and_the_same_institution_link(team) -> None:
    john, (alice, _, _) = team
    institution = InstitutionFactory(openalex_id="I77")
    AffiliationFactory(researcher=john, institution=institution)
    write(
        crossref_work(
            "10.1/b",
            author(1, "Smith, John", institutions=("I77",)),
            author(2, "Alice Ames", orcid_id=alice.orcid),
        )
    )
    assert _byline_researcher("10.1/b", 1) == john
    assert NameLink.objects.get(origin_id="10.1/b").evidence["same_institution"] is True


def test_the_same_free_text_affiliation_counts_as_the_same_institution(team) -> None:
    john, (alice, _, _) = team
    work = WorkFactory()
    AuthorshipFactory(
        work=work, researcher=john, position=1, affiliation_names=["Dept. of Physics, MIT"]
    )
    write(
        crossref_work(
            "10.1/c",
            author(1, "John Smith", affiliations=("Dept of Physics MIT",)),
            author(2, "Alice Ames", orcid_id=alice.orcid),
        )
    )
    assert _byline_researcher("10.1/c", 1) == john


def test_the_name_alone_makes_a_new_l0_record(team) -> None:
    john, _ = team
    write(crossref_work("10.1/d", author(1, "John Smith")))
    made = _byline_researcher("10.1/d", 1)
    assert made != john
    assert made.verification_level == VerificationLevel.NAME_ONLY
    assert not NameLink.objects.exists()
    assert not SamePersonCandidate.objects.exists()


def test_an_initial_with_strong_evidence_is_queued_not_linked(team) -> None:
    john, (alice, bob, carol) = team
    write(
        crossref_work(
            "10.1/e",
            author(1, "J. Smith"),
            author(2, "Alice Ames", orcid_id=alice.orcid),
            author(3, "Bob Brown", orcid_id=bob.orcid),
            author(4, "Carol Chen", orcid_id=carol.orcid),
        )
    )
    made = _byline_researcher("10.1/e", 1)
    assert made != john
    pair = SamePersonCandidate.objects.get()
    assert (pair.record, pair.candidate, pair.status) == (made, john, SamePersonStatus.OPEN)
    assert pair.mention_name == "J. Smith"
    assert "initials" in pair.evidence["why_not_linked"]
    assert pair.evidence["shared_coauthors"] == sorted([alice.pk, bob.pk, carol.pk])


def test_one_shared_coauthor_alone_is_queued(team) -> None:
    john, (alice, _, _) = team
    write(
        crossref_work(
            "10.1/f", author(1, "John Smith"), author(2, "Alice Ames", orcid_id=alice.orcid)
        )
    )
    pair = SamePersonCandidate.objects.get()
    assert pair.candidate == john
    assert pair.evidence["why_not_linked"] == "one signal only"


def test_two_namesakes_with_evidence_each_are_queued_and_neither_linked(team) -> None:
    john, (alice, bob, carol) = team
    other_john = ResearcherFactory(display_name="John Smith", openalex_id="A2")
    work = WorkFactory()
    AuthorshipFactory(work=work, researcher=other_john, position=1)
    AuthorshipFactory(work=work, researcher=bob, position=2)
    AuthorshipFactory(work=work, researcher=carol, position=3)
    write(
        crossref_work(
            "10.1/g",
            author(1, "John Smith"),
            author(2, "Alice Ames", orcid_id=alice.orcid),
            author(3, "Bob Brown", orcid_id=bob.orcid),
            author(4, "Carol Chen", orcid_id=carol.orcid),
        )
    )
    made = _byline_researcher("10.1/g", 1)
    assert made not in (john, other_john)
    assert {p.candidate for p in SamePersonCandidate.objects.all()} == {john, other_john}


def test_a_merged_away_record_is_never_a_candidate(team) -> None:
    john, (alice, bob, _) = team
    survivor = ResearcherFactory(display_name="Someone Else", openalex_id="A3")
    Researcher.objects.filter(pk=john.pk).update(merged_into=survivor)
    write(
        crossref_work(
            "10.1/h",
            author(1, "John Smith"),
            author(2, "Alice Ames", orcid_id=alice.orcid),
            author(3, "Bob Brown", orcid_id=bob.orcid),
        )
    )
    assert _byline_researcher("10.1/h", 1) not in (john, survivor)


def test_a_re_import_keeps_the_link_and_queues_nothing_twice(team) -> None:
    john, (alice, _, _) = team
    record = crossref_work(
        "10.1/i", author(1, "J. Smith"), author(2, "Alice Ames", orcid_id=alice.orcid)
    )
    write(record)
    first = _byline_researcher("10.1/i", 1)
    write(record)
    assert _byline_researcher("10.1/i", 1) == first
    assert SamePersonCandidate.objects.count() == 1


def test_the_same_dblp_homonym_number_is_one_record_and_another_number_another(team) -> None:
    _, (alice, bob, _) = team
    write(
        crossref_work("10.1/j", author(1, "Wei Wang", dblp="Wei Wang 0001")),
        crossref_work("10.1/k", author(1, "Wei Wang", dblp="Wei Wang 0001")),
    )
    first = _byline_researcher("10.1/j", 1)
    assert first == _byline_researcher("10.1/k", 1)
    assert first.dblp_id == "Wei Wang 0001"
    write(crossref_work("10.1/l", author(1, "Wei Wang", dblp="Wei Wang 0001")))
    assert _byline_researcher("10.1/l", 1) == first
    # Another number: never the same, even with shared coauthors.
    work = WorkFactory()
    AuthorshipFactory(work=work, researcher=first, position=1)
    AuthorshipFactory(work=work, researcher=alice, position=2)
    AuthorshipFactory(work=work, researcher=bob, position=3)
    write(
        crossref_work(
            "10.1/m",
            author(1, "Wei Wang", dblp="Wei Wang 0002"),
            author(2, "Alice Ames", orcid_id=alice.orcid),
            author(3, "Bob Brown", orcid_id=bob.orcid),
        )
    )
    second = _byline_researcher("10.1/m", 1)
    assert second != first
    assert second.dblp_id == "Wei Wang 0002"


def test_the_lookup_costs_the_same_statements_for_one_mention_or_two_hundred(team) -> None:
    _, coauthors = team
    coauthor_ids = frozenset(c.pk for c in coauthors)

    def statements(count: int) -> int:
        mentions = [
            NameMention(
                "crossref",
                f"10.9/{index}",
                f"john smith{index % 3}",
                ("John Smith", "J. Smith", "Zhong Zhizhen")[index % 3],
                coauthor_ids=coauthor_ids,
                institution_openalex_ids=frozenset({"I1"}),
            )
            for index in range(count)
        ]
        with transaction.atomic(), connection.cursor() as cursor:
            counting = CountingCursor(cursor.cursor)
            name_resolution(counting, mentions)  # type: ignore[arg-type]
        return counting.statements

    assert statements(200) == statements(1) <= 5


def test_a_record_known_by_an_initial_is_queued_not_linked_to_the_spelled_out_name() -> None:
    """The other side of 'an initial alone never decides': a record its bylines only ever
    call 'J. Smith' may be Jane as well as John, so a John Smith beside all three of its
    coauthors goes to the moderators' queue, however strong the team."""
    coauthors = [
        ResearcherFactory(display_name=name, orcid=orcid(serial), openalex_id=None)
        for serial, name in ((31, "Alice Ames"), (32, "Bob Brown"), (33, "Carol Chen"))
    ]
    initials = ResearcherFactory(display_name="J. Smith", openalex_id="A31")
    for _ in range(2):
        work = WorkFactory()
        AuthorshipFactory(work=work, researcher=initials, position=1)
        for position, coauthor in enumerate(coauthors, start=2):
            AuthorshipFactory(work=work, researcher=coauthor, position=position)
    write(
        crossref_work(
            "10.1/n",
            author(1, "John Smith"),
            *(author(p, c.display_name, orcid_id=c.orcid) for p, c in enumerate(coauthors, 2)),
        )
    )
    made = _byline_researcher("10.1/n", 1)
    assert made != initials
    pair = SamePersonCandidate.objects.get()
    assert (pair.record, pair.candidate) == (made, initials)
    assert "initials" in pair.evidence["why_not_linked"]
    assert not NameLink.objects.filter(researcher=initials).exists()


def test_another_copy_of_the_same_paper_is_no_evidence_but_another_paper_is() -> None:
    """The publisher's version of Maria Rossi's paper (the same title, year and first author,
    another DOI: not yet known to be one work) repeats her byline by name only. Her own
    byline is no history of working together: she is not linked on it (her profile would
    list the paper twice). A new paper with the same two coauthors is."""
    title = "Quantum widgets for sparse graphs"
    team = (author(2, "Luca Bianchi"), author(3, "Anna Verdi"))
    write(
        crossref_work(
            "10.2/preprint", author(1, "Maria Rossi", orcid_id=orcid(41)), *team, title=title
        )
    )
    maria = Researcher.objects.get(orcid=orcid(41))

    write(crossref_work("10.2/published", author(1, "Maria Rossi"), *team, title=title))
    copy = _byline_researcher("10.2/published", 1)
    assert copy != maria
    assert copy.verification_level == VerificationLevel.NAME_ONLY

    write(
        crossref_work(
            "10.2/next", author(1, "Maria Rossi"), *team, title="Widgets for dense graphs"
        )
    )
    assert _byline_researcher("10.2/next", 1) == maria
    assert Authorship.objects.filter(researcher=maria).count() == 2


@pytest.fixture
def kieron():
    """Kieron Burke (an ORCID iD) with one paper at his institution, written with people the
    next byline never names: no team to find him by."""
    kieron = ResearcherFactory(display_name="Kieron Burke", orcid=orcid(51), openalex_id=None)
    institution = InstitutionFactory(openalex_id="I51")
    AffiliationFactory(researcher=kieron, institution=institution)
    work = WorkFactory()
    AuthorshipFactory(work=work, researcher=kieron, position=1, raw_name="Kieron Burke")
    AuthorshipFactory(work=work, position=2, raw_name="Ana Alves")
    return kieron


def _strangers_byline(doi: str, name: str) -> None:
    write(
        crossref_work(
            doi,
            author(1, name, institutions=("I51",)),
            author(2, "John P. Perdew"),
            author(3, "Matthias Ernzerhof"),
        )
    )


def test_a_rare_name_at_the_same_institution_links_without_a_team(kieron) -> None:
    _strangers_byline("10.3/a", "Kieron Burke")
    assert _byline_researcher("10.3/a", 1) == kieron
    link = NameLink.objects.get(origin_id="10.3/a")
    assert link.evidence["rule"] == "rare name and another signal"
    assert link.evidence["same_institution"] is True
    assert link.evidence["shared_coauthors"] == []


def test_an_unplaced_byline_of_the_same_name_leaves_it_rare(kieron) -> None:
    """His own earlier name-only byline (an L0 record of exactly his name) is no namesake."""
    write(crossref_work("10.3/b", author(1, "Kieron Burke"), author(2, "Hannah Lloyd")))
    assert _byline_researcher("10.3/b", 1) != kieron
    _strangers_byline("10.3/c", "Kieron Burke")
    assert _byline_researcher("10.3/c", 1) == kieron


@pytest.mark.parametrize(
    "namesake",
    [
        {"display_name": "Kevin Burke", "openalex_id": "A52"},  # identified, the same key
        {"display_name": "K. Burke", "openalex_id": None},  # an L0 record spelled otherwise
    ],
)
def test_the_same_name_beside_a_namesake_is_not_linked_without_a_team(kieron, namesake) -> None:
    """Another record with the same family name and initial makes the name common: the
    institution alone (the department's namesakes share it) is the moderators' call."""
    ResearcherFactory(**namesake)
    _strangers_byline("10.3/d", "Kieron Burke")
    made = _byline_researcher("10.3/d", 1)
    assert made != kieron
    assert made.verification_level == VerificationLevel.NAME_ONLY
    assert not NameLink.objects.filter(researcher=kieron).exists()
    pair = SamePersonCandidate.objects.get(candidate=kieron)
    assert pair.evidence["why_not_linked"] == "one signal only"


def test_a_rare_name_given_by_an_initial_or_without_another_signal_is_not_linked(kieron) -> None:
    _strangers_byline("10.3/e", "K. Burke")
    write(crossref_work("10.3/f", author(1, "Kieron Burke"), author(2, "Marc Moens")))
    assert _byline_researcher("10.3/e", 1) != kieron
    assert _byline_researcher("10.3/f", 1) != kieron
    assert not NameLink.objects.filter(researcher=kieron).exists()


@pytest.mark.parametrize("l0_at_his_institution", [True, False])
def test_an_unplaced_byline_of_the_rare_name_lends_its_evidence_when_it_shares_his(
    kieron, l0_at_his_institution
) -> None:
    """An L0 byline of exactly his rare name, at his institution, is read as his (nothing is
    merged): a new byline that shares only its affiliation string links to him. An L0 byline
    that shares nothing with him lends nothing."""
    stray = ResearcherFactory(display_name="Kieron Burke", openalex_id=None)
    institution_ids = [kieron.affiliations.get().institution_id] if l0_at_his_institution else []
    AuthorshipFactory(
        work=WorkFactory(),
        researcher=stray,
        position=1,
        raw_name="Kieron Burke",
        institution_ids=institution_ids,
        affiliation_names=["Department of Chemistry, UC Irvine"],
    )
    write(
        crossref_work(
            "10.3/g",
            author(1, "Kieron Burke", affiliations=("Department of Chemistry, UC Irvine",)),
            author(2, "Hardy Gross"),
        )
    )
    placed = _byline_researcher("10.3/g", 1)
    if l0_at_his_institution:
        assert placed == kieron
        assert NameLink.objects.get(origin_id="10.3/g").evidence["same_institution"] is True
    else:
        assert placed != kieron
        assert not NameLink.objects.filter(researcher=kieron).exists()
