"""The lock order rule (docs/architecture.md, "Lock order"), proved with threads on real
PostgreSQL connections: transactions that lock the same researcher rows run against each other
at the moment that used to deadlock (issue 24, item 3), and every one of them finishes, with
no deadlock, no retry and the right final state.

Each test makes the dangerous interleaving happen for sure rather than by luck: one side is
held at the step that matters (by a row another connection holds, or by waiting until the
other side is blocked, seen in pg_stat_activity) before the other side moves.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction

from claims import services as claim_services
from claims.trust import researchers_trust_refresh
from collaboration import services as collaboration_services
from feed.services.follower_counts import follower_counts_recompute
from ingest.services.follow_up import researchers_follow_up
from publications.models import Authorship
from researchers.models import Follow, Researcher
from researchers.services import follow_create
from tests.factories import AuthorshipFactory, ResearcherFactory, UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

DEADLINE = 20.0


class Side(threading.Thread):
    """One transaction on its own connection; keeps its result or exception and its backend
    pid (to see from outside whether it waits on a lock)."""

    def __init__(self, call: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self.call = call
        self.pid: int | None = None
        self.result: Any = None
        self.error: BaseException | None = None
        self.started_up = threading.Event()

    def run(self) -> None:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                self.pid = cursor.fetchone()[0]
            self.started_up.set()
            self.result = self.call()
        except BaseException as error:  # the outcome under test
            self.error = error
        finally:
            self.started_up.set()
            connection.close()

    def begin(self) -> Side:
        self.start()
        assert self.started_up.wait(DEADLINE)
        return self

    def finish(self) -> Any:
        self.join(DEADLINE)
        assert not self.is_alive(), "still running: a lock wait that never ended"
        if self.error is not None:
            raise self.error
        return self.result


def waiting_on_a_lock(pid: int | None) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return row is not None and row[0] == "Lock"


def until_blocked_or_done(side: Side) -> bool:
    """Wait until `side` waits on a lock (True) or has finished (False)."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if not side.is_alive():
            return False
        if waiting_on_a_lock(side.pid):
            return True
        time.sleep(0.02)
    raise AssertionError("neither blocked nor done")


class _Retries(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.fixture
def no_lock_conflicts():
    """Fails the test if any service had to retry a deadlock or serialization failure: the
    order must make them impossible, not merely survivable. A handler on bzpeer.db's own
    logger: the root logger's handlers are replaced when the app configures logging."""
    retries = _Retries()
    logger = logging.getLogger("bzpeer.db")
    logger.addHandler(retries)
    try:
        yield
    finally:
        logger.removeHandler(retries)
    assert not retries.messages, retries.messages


def test_an_import_follow_up_and_a_trust_refresh_lock_their_researchers_without_deadlock(
    no_lock_conflicts,
):
    """The import's follow-up in the batch's transaction (a small import: the ORCID record a
    claimant's approval fetches) against the trust refresh task the approval queued for the
    record and its coauthors. The batch's byline insert holds FOR KEY SHARE on a record (the
    foreign key check) before its follow-up locks records in id order; the trust refresh took
    FOR UPDATE in id order, so it held the lower record while it waited for the higher one,
    which the batch held, while the batch waited for the lower one."""
    lower, higher = ResearcherFactory(), ResearcherFactory()
    assert lower.pk < higher.pk
    byline_written = threading.Event()
    refresh_seen = threading.Event()

    def import_batch() -> None:
        with transaction.atomic():
            AuthorshipFactory(researcher=higher)  # FOR KEY SHARE on `higher`
            byline_written.set()
            assert refresh_seen.wait(DEADLINE)
            researchers_follow_up(researcher_ids=[lower.pk, higher.pk])

    def trust_refresh() -> int:
        assert byline_written.wait(DEADLINE)
        return researchers_trust_refresh(researcher_ids=[lower.pk, higher.pk])

    batch = Side(import_batch).begin()
    refresh = Side(trust_refresh).begin()
    # Before the fix the refresh blocks here, holding `lower`; after it, it does not wait.
    until_blocked_or_done(refresh)
    refresh_seen.set()
    batch.finish()
    refresh.finish()

    higher.refresh_from_db()
    assert higher.works_count == 1
    assert higher.trust_breakdown and Researcher.objects.get(pk=lower.pk).trust_breakdown


def test_an_invitation_and_a_trust_refresh_of_both_records_do_not_deadlock(
    alice, bob, no_lock_conflicts
):
    """Sending (or accepting) an invitation writes rows that point at both people's records;
    their foreign keys are checked at commit (Django's are deferred), taking FOR KEY SHARE on
    the recipient's record, then the sender's (the order of the constraints' triggers). The
    trust refresh a claim approval queues scores both records, locking them in id order: with
    FOR UPDATE it held the sender's (lower) and waited for the recipient's, which the
    committing invitation held while it waited for the sender's: "deadlock detected". With FOR
    NO KEY UPDATE neither waits for the other.

    A third connection holding FOR KEY SHARE on the recipient's record (as another committing
    write would) stops the refresh between its two rows, so the commit lands in that gap."""
    from collaboration.models import Invitation
    from tests.support.people import approved_claimant

    alice.record = ResearcherFactory()  # the sender's record: the lower id
    bob.record = ResearcherFactory()
    assert alice.record.pk < bob.record.pk
    for user in (alice, bob):
        AuthorshipFactory(researcher=user.record)
        approved_claimant(user, user.record, level=3)
        user.record.refresh_from_db()
    gate_held, open_gate = threading.Event(), threading.Event()

    def gate() -> None:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT id FROM researchers_researcher WHERE id = %s FOR KEY SHARE",
                [bob.record.pk],
            )
            gate_held.set()
            assert open_gate.wait(DEADLINE)

    def send() -> Invitation:
        return collaboration_services.invitation_send(
            sender=alice,
            recipient_researcher=bob.record,
            kind="coauthor",
            purpose="A joint paper on optical interconnects for training clusters, soon.",
        )

    held = Side(gate).begin()
    assert gate_held.wait(DEADLINE)
    refresh = Side(
        lambda: researchers_trust_refresh(researcher_ids=[alice.record.pk, bob.record.pk])
    ).begin()
    until_blocked_or_done(refresh)  # before the fix: holds alice's record, waits for bob's
    sender = Side(send).begin()
    until_blocked_or_done(sender)  # before the fix: its commit waits for alice's record
    open_gate.set()
    held.finish()
    refresh.finish()
    sender.finish()
    assert Invitation.objects.filter(sender=alice).count() == 1
    assert all(
        r.trust_breakdown
        for r in Researcher.objects.filter(pk__in=[alice.record.pk, bob.record.pk])
    )


def test_a_follow_during_a_merge_waits_for_it_instead_of_deadlocking(moderator, no_lock_conflicts):
    """A merge locks both records, then moves their follows; a follow of the survivor by a
    user who follows the source, at that moment. The follow used to insert its row first and
    then lock the record (for the count): the merge, moving the user's follow onto the
    survivor, waited for that uncommitted row while the follow waited for the merge's record
    lock. Now the follow locks the record first, so it waits before writing anything."""
    source, survivor = ResearcherFactory(), ResearcherFactory()
    AuthorshipFactory(researcher=source)
    user = UserFactory()
    assert follow_create(user=user, researcher=source)
    gate_held, open_gate = threading.Event(), threading.Event()

    def gate() -> None:
        # Holds the source's byline: the merge stops at its first step, its locks held.
        with transaction.atomic():
            Authorship.objects.select_for_update().filter(researcher=source).get()
            gate_held.set()
            assert open_gate.wait(DEADLINE)

    def merge() -> Researcher:
        return claim_services.researcher_merge(
            source=source, survivor=survivor, moderator=moderator, reason="Same person."
        )

    held = Side(gate).begin()
    assert gate_held.wait(DEADLINE)
    merging = Side(merge).begin()
    assert until_blocked_or_done(merging)
    following = Side(lambda: follow_create(user=user, researcher=survivor)).begin()
    assert until_blocked_or_done(following)
    open_gate.set()
    held.finish()
    merging.finish()
    assert following.finish() is False  # the merge had already moved their follow

    assert list(Follow.objects.values_list("user_id", "researcher_id")) == [(user.pk, survivor.pk)]
    assert Researcher.objects.get(pk=survivor.pk).followers_count == 1
    assert follower_counts_recompute(fix=False).total_off == 0


def test_an_import_batch_writing_researchers_and_a_trust_refresh_do_not_deadlock(
    no_lock_conflicts,
):
    """The writer's upsert of researchers (an import batch, e.g. the claimant's ORCID record an
    approval fetches) against the trust refresh the approval queued. The upsert locked the
    existing rows in OpenAlex id order, FOR UPDATE (it may set an ORCID iD, a key); the
    refresh locks in id order: each held one record the other wanted. The writer now locks
    the existing rows in id order before its upsert.

    A third connection holding FOR KEY SHARE on the lower record (as a committing follow of it
    would) stops the batch at that record, so the refresh comes in between."""
    from ingest.records import ResearcherRecord
    from ingest.writer import write_researchers

    lower = ResearcherFactory(openalex_id="A900")  # the lower id, the later OpenAlex id
    higher = ResearcherFactory(openalex_id="A100")
    assert lower.pk < higher.pk
    gate_held, open_gate = threading.Event(), threading.Event()

    def gate() -> None:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(
                "SELECT id FROM researchers_researcher WHERE id = %s FOR KEY SHARE", [lower.pk]
            )
            gate_held.set()
            assert open_gate.wait(DEADLINE)

    def import_batch() -> None:
        with transaction.atomic(), connection.cursor() as cursor:
            write_researchers(
                cursor.cursor,
                [
                    ResearcherRecord(openalex_id="A100", display_name="Ada Renamed"),
                    ResearcherRecord(openalex_id="A900", display_name="Bea Renamed"),
                ],
            )

    held = Side(gate).begin()
    assert gate_held.wait(DEADLINE)
    batch = Side(import_batch).begin()
    assert until_blocked_or_done(batch)  # waits for the lower record
    refresh = Side(lambda: researchers_trust_refresh(researcher_ids=[lower.pk, higher.pk])).begin()
    until_blocked_or_done(refresh)  # before the fix: holds the lower, waits for the higher
    open_gate.set()
    held.finish()
    batch.finish()
    refresh.finish()
    assert sorted(Researcher.objects.values_list("display_name", flat=True)) == [
        "Ada Renamed",
        "Bea Renamed",
    ]


def test_an_account_deleted_during_a_merge_waits_for_it_and_leaves_exact_counts(
    moderator, no_lock_conflicts
):
    """Account deletion takes back the follows of every record the user followed. It locks
    those records first, in id order, so against a merge of two of them (which holds both and
    then moves their follows) it waits before touching a follow row, and the survivor's count
    comes out right whichever commits first."""
    source, survivor = ResearcherFactory(), ResearcherFactory()
    AuthorshipFactory(researcher=source)
    leaving, staying = UserFactory(), UserFactory()
    for user in (leaving, staying):
        assert follow_create(user=user, researcher=source)
    assert follow_create(user=leaving, researcher=survivor)
    gate_held, open_gate = threading.Event(), threading.Event()

    def gate() -> None:
        with transaction.atomic():
            Authorship.objects.select_for_update().filter(researcher=source).get()
            gate_held.set()
            assert open_gate.wait(DEADLINE)

    held = Side(gate).begin()
    assert gate_held.wait(DEADLINE)
    merging = Side(
        lambda: claim_services.researcher_merge(
            source=source, survivor=survivor, moderator=moderator, reason="Same person."
        )
    ).begin()
    assert until_blocked_or_done(merging)
    deleting = Side(lambda: collaboration_services.account_delete(user=leaving)).begin()
    assert until_blocked_or_done(deleting)
    open_gate.set()
    held.finish()
    merging.finish()
    deleting.finish()

    assert list(Follow.objects.values_list("user_id", "researcher_id")) == [
        (staying.pk, survivor.pk)
    ]
    assert Researcher.objects.get(pk=survivor.pk).followers_count == 1
    assert follower_counts_recompute(fix=False).total_off == 0


def test_messages_sent_while_claims_are_approved_and_trust_is_refreshed_all_go_through(
    alice, bob, no_lock_conflicts
):
    """The reported failure: messages sent right after claim approvals, while the approvals'
    trust refreshes score the people's records and their coauthors. A message writes no row
    that points at a record, so it never waits for them; the approvals and refreshes lock the
    records in id order. A few rounds, all at the same instant."""
    from collaboration.models import ConversationParticipant
    from tests.collaboration.factories import accepted_conversation
    from tests.support.people import make_member, submit

    for user in (alice, bob):
        user.record = ResearcherFactory()
        AuthorshipFactory(researcher=user.record)
        claim_services.claim_approve(claim=submit(user, user.record), moderator=None, level=3)
        user.record.refresh_from_db()
    conversation = accepted_conversation(alice, bob)
    newcomers = [make_member(f"newcomer{i}@example.org") for i in range(3)]
    records = [ResearcherFactory() for _ in newcomers]
    everyone = [alice.record.pk, bob.record.pk, *(record.pk for record in records)]
    claims = [submit(user, record) for user, record in zip(newcomers, records, strict=True)]

    for claim in claims:
        barrier = threading.Barrier(4)

        def together(call: Callable[[], Any], barrier: threading.Barrier = barrier) -> Any:
            barrier.wait(DEADLINE)
            return call()

        sides = [
            Side(
                lambda c=claim: together(
                    lambda: claim_services.claim_approve(claim=c, moderator=None, level=3)
                )
            ),
            Side(lambda: together(lambda: researchers_trust_refresh(researcher_ids=everyone))),
            Side(
                lambda: together(
                    lambda: collaboration_services.message_send(
                        author=alice, conversation_id=conversation.pk, body="Hello after approvals"
                    )
                )
            ),
            Side(
                lambda: together(
                    lambda: collaboration_services.message_send(
                        author=bob, conversation_id=conversation.pk, body="And back"
                    )
                )
            ),
        ]
        for side in sides:
            side.start()
        for side in sides:
            side.finish()

    assert (
        ConversationParticipant.objects.get(conversation=conversation, user=bob).unread_count == 3
    )
    assert all(r.claimed_by_id for r in Researcher.objects.filter(pk__in=[r.pk for r in records]))
