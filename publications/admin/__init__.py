"""Admin of the publications app, one module per responsibility.

- works: works and their venues, topics and authorships
- provenance: what each source said about a work, its versions, name-only authors

Importing the package registers every admin (Django's autodiscover imports publications.admin).
"""

from __future__ import annotations

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
    "NameOnlyAuthorAdmin",
    "SourceAdmin",
    "TopicAdmin",
    "WorkAdmin",
    "WorkSourceAdmin",
    "WorkTopicAdmin",
    "WorkVersionAdmin",
    "work_identifier_q",
]
