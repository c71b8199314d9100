"""python manage.py import_openalex ARGS: the same as `import openalex ARGS`, kept as an alias."""

from __future__ import annotations

import importlib

from django.core.management.base import CommandParser

from ingest.records import OPENALEX

# The command module is named `import`, a keyword: imported by name.
ImportCommand = importlib.import_module("ingest.management.commands.import").Command


class Command(ImportCommand):  # type: ignore[misc, valid-type]
    help = "The same as `import openalex`: OpenAlex snapshot files or folders, or --query FILTER."

    def add_source_argument(self, parser: CommandParser) -> None:
        parser.set_defaults(source=OPENALEX)
