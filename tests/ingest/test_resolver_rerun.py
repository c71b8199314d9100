"""The name resolver re-run over existing L0 records (issue 27, item 3): a name-only record
whose every byline the evidence now links is merged through claims' merge service; a dry run
writes nothing; a close call goes to the moderators' queue."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from claims.models import NameLink, SamePersonCandidate
from researchers.models import Researcher, VerificationLevel
from tests.factories import AuthorshipFactory, ResearcherFactory, WorkFactory
from tests.researchers.resolution_support import orcid

pytestmark = pytest.mark.django_db


@pytest.fixture
def john_and_a_stray_record():
    """John Smith (identified) wrote twice with Alice, Bob and Carol; an L0 "John Smith" record
    holds one more work with Alice and Bob (made before their records were known)."""
    john = ResearcherFactory(display_name="John Smith", openalex_id="A1")
    team = [
        ResearcherFactory(display_name=name, orcid=orcid(serial), openalex_id=None)
        for serial, name in ((11, "Alice Ames"), (12, "Bob Brown"), (13, "Carol Chen"))
    ]
    for _ in range(2):
        work = WorkFactory(authors_count=4)
        AuthorshipFactory(work=work, researcher=john, position=1, raw_name="John Smith")
        for position, member in enumerate(team, start=2):
            AuthorshipFactory(
                work=work, researcher=member, position=position, raw_name=member.display_name
            )
    stray = ResearcherFactory(
        display_name="John Smith", openalex_id=None, verification_level=VerificationLevel.NAME_ONLY
    )
    work = WorkFactory(authors_count=3)
    AuthorshipFactory(work=work, researcher=stray, position=1, raw_name="John Smith")
    for position, member in enumerate(team[:2], start=2):
        AuthorshipFactory(
            work=work, researcher=member, position=position, raw_name=member.display_name
        )
    return john, stray


def test_a_dry_run_reports_the_merge_and_writes_nothing(john_and_a_stray_record, capsys) -> None:
    john, stray = john_and_a_stray_record
    call_command("resolve_researchers", "--dry-run")
    assert f"#{stray.pk} -> #{john.pk}" in capsys.readouterr().out
    stray.refresh_from_db()
    assert stray.merged_into_id is None
    assert not NameLink.objects.exists()


def test_the_re_run_merges_a_record_every_byline_links_and_keeps_the_reasons(
    john_and_a_stray_record,
) -> None:
    john, stray = john_and_a_stray_record
    call_command("resolve_researchers")
    stray.refresh_from_db()
    assert stray.merged_into_id == john.pk
    assert john.authorships.count() == 3
    link = NameLink.objects.get(origin="rerun")
    assert link.researcher_id == john.pk
    assert link.evidence["rule"] == "independent evidence"


def test_one_coauthor_alone_is_proposed_to_the_moderators_not_merged() -> None:
    john = ResearcherFactory(display_name="John Smith", openalex_id="A1")
    alice = ResearcherFactory(display_name="Alice Ames", orcid=orcid(11), openalex_id=None)
    for _ in range(2):
        work = WorkFactory(authors_count=2)
        AuthorshipFactory(work=work, researcher=john, position=1, raw_name="John Smith")
        AuthorshipFactory(work=work, researcher=alice, position=2, raw_name="Alice Ames")
    stray = ResearcherFactory(
        display_name="John Smith", openalex_id=None, verification_level=VerificationLevel.NAME_ONLY
    )
    work = WorkFactory(authors_count=2)
    AuthorshipFactory(work=work, researcher=stray, position=1, raw_name="John Smith")
    AuthorshipFactory(work=work, researcher=alice, position=2, raw_name="Alice Ames")
    call_command("resolve_researchers")
    assert Researcher.objects.get(pk=stray.pk).merged_into_id is None
    pair = SamePersonCandidate.objects.get()
    assert {pair.record_id, pair.candidate_id} == {stray.pk, john.pk}
