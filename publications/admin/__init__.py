"""Admin of the publications app, one module per responsibility.

- works: works and their venues, topics and authorships
- import_runs: import runs, chunks and issues, with a running import's live counts

Importing the package registers every admin (Django's autodiscover imports publications.admin).
"""

from __future__ import annotations

from .import_runs import (
    ImportChunkAdmin,
    ImportIssueAdmin,
    ImportRunAdmin,
    import_run_progress,
)
from .works import (
    AuthorshipAdmin,
    SourceAdmin,
    TopicAdmin,
    WorkAdmin,
    WorkTopicAdmin,
    work_identifier_q,
)

__all__ = [
    "AuthorshipAdmin",
    "ImportChunkAdmin",
    "ImportIssueAdmin",
    "ImportRunAdmin",
    "SourceAdmin",
    "TopicAdmin",
    "WorkAdmin",
    "WorkTopicAdmin",
    "import_run_progress",
    "work_identifier_q",
]
