"""Writes of the import pipeline: runs, chunks, batches and what follows a batch.

An import is an ImportRun split into ImportChunks (line ranges of input files). A chunk is
processed in batches; each batch is one transaction that writes the records, its issues,
the run's counts and the chunk's progress together, so a worker killed mid-batch loses
nothing and counts nothing twice: the chunk resumes at its last committed batch.

- runs.py: plan a run and its chunks; mark it running, finished, failed or stalled
- chunks.py: one chunk, batch by batch, parsed ahead in a thread
- batches.py: one batch's transaction
- follow_up.py: the researchers a batch touched (metrics, trust, edges, cached pages): now,
  or left pending for the drain that follows up many batches at once
- in_process.py: a whole run in this process (--sync), and an OpenAlex API query
"""

from __future__ import annotations

from .batches import batch_write, import_batch_commit, run_counts_add
from .chunks import ProgressCallback, import_chunk_process
from .citations import citations_resolve_waiting
from .follow_up import (
    researchers_follow_up,
    researchers_follow_up_drain,
    researchers_follow_up_drain_due,
    researchers_follow_up_in_slices,
    researchers_follow_up_slice,
)
from .in_process import (
    import_fetch_process,
    import_fetch_run_create,
    import_query_process,
    import_query_run_create,
    import_run_process,
    orcid_record_run_create,
)
from .runs import (
    import_run_create,
    import_run_fail,
    import_run_fetch_resend,
    import_run_finish_if_complete,
    import_run_mark_running,
    import_runs_claim_stalled,
    import_source_run_create,
)

__all__ = [
    "ProgressCallback",
    "batch_write",
    "citations_resolve_waiting",
    "import_batch_commit",
    "import_chunk_process",
    "import_fetch_process",
    "import_fetch_run_create",
    "import_query_process",
    "import_query_run_create",
    "import_run_create",
    "import_run_fail",
    "import_run_fetch_resend",
    "import_run_finish_if_complete",
    "import_run_mark_running",
    "import_run_process",
    "import_runs_claim_stalled",
    "orcid_record_run_create",
    "import_source_run_create",
    "researchers_follow_up",
    "researchers_follow_up_drain",
    "researchers_follow_up_drain_due",
    "researchers_follow_up_in_slices",
    "researchers_follow_up_slice",
    "run_counts_add",
]
