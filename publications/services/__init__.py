"""Writes of the scholarly model that are not the import's: derived measures (issue 25)."""
