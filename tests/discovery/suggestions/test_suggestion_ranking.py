"""The ranking both the site and the back-test use (discovery.suggestion_ranking)."""

from __future__ import annotations

from discovery.suggestion_ranking import SuggestionSignals, score_parts, suggestions_ranked


def test_open_to_collaborate_comes_before_a_higher_score():
    closed = SuggestionSignals(candidate_id=1, open_to_collaborate=False, common_coauthors=5)
    open_ = SuggestionSignals(candidate_id=2, topic_overlap=0.1)
    assert [s.candidate_id for s in suggestions_ranked([closed, open_])] == [2, 1]


def test_among_the_open_the_higher_score_comes_first_and_ties_go_by_id():
    rows = [
        SuggestionSignals(candidate_id=3, common_coauthors=1),
        SuggestionSignals(candidate_id=2, common_coauthors=1),
        SuggestionSignals(candidate_id=9, common_coauthors=4),
    ]
    assert [s.candidate_id for s in suggestions_ranked(rows)] == [9, 2, 3]


def test_a_candidate_without_any_signal_is_never_suggested():
    rows = [SuggestionSignals(candidate_id=1, meaning=-0.2), SuggestionSignals(candidate_id=2)]
    assert suggestions_ranked(rows) == []


def test_it_keeps_at_most_the_limit():
    rows = [SuggestionSignals(candidate_id=i, common_coauthors=1) for i in range(30)]
    assert len(suggestions_ranked(rows)) == 20
    assert len(suggestions_ranked(rows, limit=None)) == 30


def test_the_score_is_the_sum_of_its_parts():
    signals = SuggestionSignals(
        candidate_id=1, meaning=0.5, common_coauthors=2, they_cited_you=3, topic_overlap=0.4
    )
    (ranked,) = suggestions_ranked([signals])
    assert ranked.score == sum(score_parts(signals).values())


def test_the_reason_names_the_three_strongest_signals_strongest_first():
    signals = SuggestionSignals(
        candidate_id=1,
        common_coauthors=3,
        common_coauthor_weight=1.5,
        they_cited_you=4,
        topic_overlap=0.9,
        top_topic="Graph neural networks",
        meaning=0.05,
    )
    (ranked,) = suggestions_ranked([signals])
    assert ranked.reason == (
        "3 of your coauthors have written with them; you both write about Graph neural "
        "networks; they cited you 4 times"
    )
