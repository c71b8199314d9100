"""The back-test of collaborator suggestions (bench.suggestions_eval) at a tiny size: it runs,
reports both recalls and their ratio, and on its planted corpus the site's ranking beats the
common-neighbours baseline (the figures themselves are measured by `make bench`)."""

from __future__ import annotations

import pytest


@pytest.fixture
def suggestions_eval():
    """bench.suggestions_eval, imported by the tests that run it: it imports scipy (about 0.4 s),
    which every test process would otherwise pay when it collects this file."""
    from bench import suggestions_eval

    return suggestions_eval


def test_the_back_test_reports_both_recalls_and_the_ranking_beats_common_neighbours(
    suggestions_eval,
):
    figures = suggestions_eval.evaluate(researchers=200, seed=5)
    assert figures["hidden_pairs"] > 0
    assert 0 < figures["recall_baseline"] <= 1
    assert 0 < figures["recall_ranking"] <= 1
    assert figures["ratio"] > 1


def test_its_command_prints_both_figures(suggestions_eval, capsys):
    assert suggestions_eval.main(["--researchers", "150", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "recall@20 ranking (site's):" in out
    assert "recall@20 common neighbours:" in out
    assert "ratio:" in out


def test_the_tuning_grid_ranks_as_the_site_does_and_names_the_sites_weights(
    suggestions_eval, capsys
):
    # The grid's fast scoring must be the site's ranking: its recall for the site's weights is
    # the back-test's own on the same corpus.
    from bench import suggestions_tune

    table = suggestions_tune.signal_table(200, 5)
    figures = suggestions_eval.evaluate(researchers=200, seed=5)
    site = (
        suggestions_tune.ranking.WEIGHT_MEANING,
        suggestions_tune.ranking.WEIGHT_COMMON_COAUTHORS,
        suggestions_tune.ranking.WEIGHT_COMMON_WEIGHT,
        suggestions_tune.ranking.WEIGHT_CITATIONS,
        suggestions_tune.ranking.WEIGHT_TOPICS,
    )
    assert abs(suggestions_tune.recall_at(table, site) - figures["recall_ranking"]) < 1e-9
    assert suggestions_tune.main(["--researchers", "150", "--seeds", "2"]) == 0
    out = capsys.readouterr().out
    assert f"current {site}:" in out
    assert out.count("\n") == 12
