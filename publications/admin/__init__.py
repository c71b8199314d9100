"""Admin of the publications app, one module per responsibility.

- works: works and their venues, topics and authorships
- import_runs: import runs, chunks and issues, with a running import's live counts
- provenance: what each source said about a work, its versions, name-only authors

Importing the package registers every admin (Django's autodiscover imports publications.admin).
"""

from __future__ import annotations

from .import_runs import (
    ImportChunkAdmin,
    ImportIssueAdmin,
    ImportRunAdmin,
    import_run_progress,
)
from .provenance import NameOnlyAuthorAdmin, WorkSourceAdmin, WorkVersionAdmin
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
    "NameOnlyAuthorAdmin",
    "SourceAdmin",
    "TopicAdmin",
    "WorkAdmin",
    "WorkSourceAdmin",
    "WorkTopicAdmin",
    "WorkVersionAdmin",
    "import_run_progress",
    "work_identifier_q",
]
