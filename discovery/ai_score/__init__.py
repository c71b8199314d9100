"""The AI Score (issue 26, item 5; docs/ai-score.md): features known when a work appears
(features.py), the gradient-boosted model and its back-test (model.py), the training run that
stores the model, the forecasts and the researchers' scores (services.py), the pages' reads
(selectors.py), and what both mean by recent works and by no score (definitions.py)."""
