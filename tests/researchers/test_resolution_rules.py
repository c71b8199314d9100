"""The resolver's rules (researchers.resolution.decide): pure, no database."""

from __future__ import annotations

from researchers.names import person_name
from researchers.resolution import CandidateFacts, MentionFacts, Outcome, decide


def mention(
    name: str,
    *,
    coauthors: set[int] = frozenset(),  # type: ignore[assignment]
    institutions: set[int] = frozenset(),  # type: ignore[assignment]
    dblp: str | None = None,
) -> MentionFacts:
    return MentionFacts(
        name=person_name(name),
        dblp_key=dblp,
        coauthor_ids=frozenset(coauthors),
        institution_ids=frozenset(institutions),
        affiliation_keys=frozenset(),
    )


def candidate(
    researcher_id: int,
    name: str,
    *,
    shared: set[int] = frozenset(),  # type: ignore[assignment]
    institutions: set[int] = frozenset(),  # type: ignore[assignment]
    dblp: str | None = None,
    orcid: str | None = None,
) -> CandidateFacts:
    return CandidateFacts(
        researcher_id=researcher_id,
        name=person_name(name),
        orcid=orcid,
        dblp_key=dblp,
        shared_coauthor_ids=frozenset(shared),
        institution_ids=frozenset(institutions),
        affiliation_keys=frozenset(),
    )


def test_two_shared_coauthors_and_the_same_first_name_link_with_reasons() -> None:
    decision = decide(
        mention("John Smith", coauthors={10, 11, 12}),
        [candidate(1, "John Smith", shared={10, 11})],
    )
    assert decision.outcome == Outcome.LINKED
    assert decision.researcher_id == 1
    assert decision.reasons["shared_coauthors"] == [10, 11]
    assert decision.reasons["rule"] == "independent evidence"


def test_one_shared_coauthor_and_the_same_institution_link() -> None:
    decision = decide(
        mention("John Smith", coauthors={10}, institutions={7}),
        [candidate(1, "Smith, John", shared={10}, institutions={7, 8})],
    )
    assert decision.outcome == Outcome.LINKED
    assert decision.reasons["same_institution"] is True


def test_the_name_alone_never_links() -> None:
    decision = decide(mention("John Smith"), [candidate(1, "John Smith")])
    assert decision.outcome == Outcome.NEW


def test_one_signal_is_a_close_call_not_a_link() -> None:
    decision = decide(
        mention("John Smith", coauthors={10}), [candidate(1, "John Smith", shared={10})]
    )
    assert decision.outcome == Outcome.CLOSE_CALL
    assert [c[0] for c in decision.close_calls] == [1]
    assert decision.close_calls[0][2]["why_not_linked"] == "one signal only"


def test_an_initial_alone_never_links_even_with_strong_evidence() -> None:
    decision = decide(
        mention("J. Smith", coauthors={10, 11, 12}, institutions={7}),
        [candidate(1, "John Smith", shared={10, 11, 12}, institutions={7})],
    )
    assert decision.outcome == Outcome.CLOSE_CALL
    assert "initials" in decision.close_calls[0][2]["why_not_linked"]


def test_two_candidates_too_close_to_each_other_are_a_close_call() -> None:
    decision = decide(
        mention("John Smith", coauthors={10, 11, 12}),
        [candidate(1, "John Smith", shared={10, 11}), candidate(2, "John Smith", shared={12})],
    )
    assert decision.outcome == Outcome.CLOSE_CALL
    assert {c[0] for c in decision.close_calls} == {1, 2}


def test_a_clear_margin_links_the_best_candidate() -> None:
    decision = decide(
        mention("John Smith", coauthors={10, 11, 12}, institutions={7}),
        [
            candidate(1, "John Smith", shared={10, 11, 12}, institutions={7}),
            candidate(2, "John Smith", shared={12}),
        ],
    )
    assert decision.outcome == Outcome.LINKED
    assert decision.researcher_id == 1
    assert decision.reasons["margin"] == 3


def test_different_names_never_link_whatever_the_evidence() -> None:
    decision = decide(
        mention("Jane Smith", coauthors={10, 11}),
        [candidate(1, "John Smith", shared={10, 11})],
    )
    assert decision.outcome == Outcome.NEW


def test_different_dblp_homonym_numbers_never_link() -> None:
    decision = decide(
        mention("Wei Wang", coauthors={10, 11}, dblp="wei wang 0001"),
        [candidate(1, "Wei Wang", shared={10, 11}, dblp="wei wang 0002")],
    )
    assert decision.outcome == Outcome.NEW


def test_the_same_dblp_homonym_number_links_by_itself() -> None:
    decision = decide(
        mention("Wei Wang", dblp="wei wang 0001"),
        [candidate(1, "Wei Wang", dblp="wei wang 0001"), candidate(2, "Wei Wang")],
    )
    assert decision.outcome == Outcome.LINKED
    assert decision.researcher_id == 1


def test_a_researcher_already_on_the_byline_is_not_the_name() -> None:
    decision = decide(
        mention("John Smith", coauthors={1, 10, 11}),
        [candidate(1, "John Smith", shared={10, 11})],
    )
    assert decision.outcome == Outcome.NEW
