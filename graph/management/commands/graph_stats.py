"""Statistics of the coauthor graph: components, degree distribution, largest component."""

from __future__ import annotations

import time

import numpy as np
import rustworkx as rx
from django.core.management.base import BaseCommand
from django.db import connection

from researchers.models import Researcher

# PostgreSQL's binary COPY of two bigint columns: a 19-byte header, then per row a field count,
# and a length and a value per field, big-endian; a 2-byte trailer.
_ROW = np.dtype([("fields", ">i2"), ("a_len", ">i4"), ("a", ">i8"), ("b_len", ">i4"), ("b", ">i8")])
_BUCKETS = [(1, 1), (2, 2), (3, 4), (5, 9), (10, 19), (20, 49), (50, 99), (100, 999), (1000, None)]


def load_edges() -> tuple[np.ndarray, np.ndarray]:
    """Every edge as two arrays of researcher ids, read with one binary COPY."""
    buffer = bytearray()
    with connection.cursor() as cursor:
        with cursor.cursor.copy(
            "COPY (SELECT researcher_a_id, researcher_b_id FROM graph_coauthoredge)"
            " TO STDOUT (FORMAT BINARY)"
        ) as copy:
            for block in copy:
                buffer += block
    rows = np.frombuffer(bytes(buffer[19:-2]), dtype=_ROW)
    return rows["a"].astype(np.int64), rows["b"].astype(np.int64)


class Command(BaseCommand):
    help = "Print the coauthor graph's components, degree distribution and largest component."

    def handle(self, *args, **options) -> None:
        started = time.monotonic()
        a, b = load_edges()
        ids, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
        sources, targets = inverse[: len(a)], inverse[len(a) :]
        # The edges are unique already (primary key); a simple graph would look each one up
        # before adding it, which is quadratic in the degree of a hub.
        graph = rx.PyGraph(multigraph=True)
        graph.add_nodes_from(range(len(ids)))
        graph.add_edges_from_no_data(list(zip(sources.tolist(), targets.tolist(), strict=True)))
        components = rx.connected_components(graph)
        sizes = sorted((len(c) for c in components), reverse=True)
        degrees = np.bincount(np.concatenate([sources, targets]), minlength=len(ids))
        with_works = Researcher.objects.filter(works_count__gt=0, merged_into=None).count()
        isolated = max(0, with_works - len(ids))

        out = self.stdout.write
        out(f"researchers with works      {with_works:,}")
        out(f"  with at least one coauthor {len(ids):,}")
        out(f"  with no coauthor edge      {isolated:,} (each a component of one)")
        out(f"coauthor edges              {len(a):,}")
        out(f"components (2+ researchers) {len(sizes):,}")
        if sizes:
            share = sizes[0] / len(ids) if len(ids) else 0
            out(
                f"largest component           {sizes[0]:,} researchers ({share:.1%} of the connected)"
            )
            out(f"next largest                {', '.join(f'{s:,}' for s in sizes[1:6]) or '-'}")
            out(
                f"degree                      mean {degrees.mean():.2f}, median "
                f"{int(np.median(degrees))}, max {int(degrees.max()):,}"
            )
            out("degree distribution (coauthors per researcher):")
            for low, high in _BUCKETS:
                selected = degrees >= low if high is None else (degrees >= low) & (degrees <= high)
                label = (
                    f"{low}+" if high is None else (f"{low}" if low == high else f"{low}-{high}")
                )
                out(f"  {label:>8}  {int(selected.sum()):>12,}")
        out(f"computed with rustworkx {rx.__version__} in {time.monotonic() - started:.1f}s")
