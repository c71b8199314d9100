from __future__ import annotations

import pytest

from tests.factories import (
    AuthorshipFactory,
    ResearcherFactory,
    TopicFactory,
    WorkFactory,
    WorkTopicFactory,
)


@pytest.fixture
def researcher_with_works():
    """A researcher with n works, each with two coauthors and a topic."""

    def build(n: int, **researcher_fields):
        researcher = ResearcherFactory(**researcher_fields)
        topics = [TopicFactory(code=f"cs.T{i}") for i in range(3)]
        for index in range(n):
            work = WorkFactory(
                cited_by_count=index % 7, publication_year=2000 + index % 20, type="article"
            )
            AuthorshipFactory(work=work, researcher=researcher, position=1)
            AuthorshipFactory(work=work, position=2)
            AuthorshipFactory(work=work, position=3, researcher=None, raw_name="Unlinked Person")
            WorkTopicFactory(work=work, topic=topics[index % 3])
        researcher.works_count = n
        researcher.save(update_fields=["works_count"])
        return researcher

    return build
