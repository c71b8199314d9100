"""The learned name resolver (issue 27): a name-only byline resolved as a whole.

- features.py: what one (mention, candidate researcher) pair has in common, as numbers;
- evidence.py: the candidates of a whole batch and their works, one query per kind of evidence;
- model.py: the pairwise model (LightGBM) and its two thresholds, loaded from the files beside
  it (resolver_model.txt, resolver_model.json) and retrained by `manage.py resolver_train`;
- decide.py: the hard rules (researchers.resolution) and the model's score combined into a
  link, a close call for moderators, or a new record, with the reasons;
- training.py: identified mentions of a database with their identifiers hidden, as labelled
  pairs (the model's training set, and the re-run over existing L0 records);
- rerun.py: the resolver re-run over L0 records, proposing or making merges.
"""
