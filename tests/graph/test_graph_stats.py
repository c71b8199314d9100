"""manage.py graph_stats on the demo data."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import call_command

from graph.models import CoauthorEdge

# The demo graph is copied into each test's transaction; tests that import commit their own.
pytestmark = pytest.mark.django_db


def test_graph_stats_reports_the_demo_components_and_degrees(demo_graph):
    out = io.StringIO()

    call_command("graph_stats", stdout=out)

    text = out.getvalue()
    # The four reference researchers each lead a group of coauthors that touches no other.
    assert re.search(r"components \(2\+ researchers\)\s+4\n", text)
    assert re.search(r"largest component\s+100 researchers", text)
    assert re.search(r"next largest\s+49, 25, 5\n", text)
    assert re.search(rf"coauthor edges\s+{CoauthorEdge.objects.count():,}\n", text)
    buckets = re.findall(r"^\s+[0-9+-]+\s+([0-9,]+)$", text, flags=re.MULTILINE)
    assert sum(int(b.replace(",", "")) for b in buckets) == 179
    assert "rustworkx" in text


def test_graph_stats_on_an_empty_graph(db):
    out = io.StringIO()

    call_command("graph_stats", stdout=out)

    assert "coauthor edges              0" in out.getvalue()
