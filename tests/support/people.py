"""The people of the tests, defined once for every folder (tests/conftest.py loads this module).

healthchecks' three users: alice owns, bob is another member, charlie has no access. Each is a
signed-up member with a verified email address. A folder whose people must be verified
researchers (collaboration: only an approved claimant may invite) overrides `person` with
`verified_person` in its conftest; the moderator's permissions come from the folder's
`moderator_permissions`.

Claims and verified researchers are made through the real claim services, never by writing
their rows, so no rule of a claim is skipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import pytest
from allauth.account.internal.flows.login import (
    _AUTHENTICATION_METHODS_USER_SESSION_KEY as AUTHENTICATION_METHODS_USER_SESSION_KEY,
)
from allauth.account.internal.flows.login import AUTHENTICATION_METHODS_SESSION_KEY
from allauth.account.models import EmailAddress
from allauth.mfa.totp.internal.auth import (
    TOTP,
    format_hotp_value,
    generate_totp_secret,
    hotp_value,
)
from django.contrib.auth.models import Permission
from django.db import connection, transaction
from django.test import Client

from bzpeer.users.models import User
from claims import services as claim_services
from claims.models import Claim
from researchers.models import Researcher
from tests.factories import (
    AuthorshipFactory,
    ResearcherFactory,
    TopicFactory,
    UserFactory,
    WorkTopicFactory,
)

from .snapshots import TableRows, snapshot_restore, snapshot_taken

# Name: (email, display name, the slug of their own record when they hold one).
PEOPLE = {
    "alice": ("alice@example.org", "Alice Liddell", "alice-liddell"),
    "bob": ("bob@example.org", "Bob Bobson", "bob-bobson"),
    "charlie": ("charlie@example.org", "Charlie Chaplin", "charlie-chaplin"),
}


def make_member(email: str, *, verified: bool = True, display_name: str = "", **extra: Any) -> User:
    """A signed-up user whose primary email address is `email` (verified unless told). Staff
    have two-factor authentication on, as the admin requires (bzpeer.middleware); its secret is
    on user.totp_secret, for codes."""
    user = UserFactory(
        email=email, username=email.split("@")[0], display_name=display_name, **extra
    )
    EmailAddress.objects.create(user=user, email=email, verified=verified, primary=True)
    if user.is_staff:
        user.totp_secret = two_factor_on(user)  # type: ignore[attr-defined]
    return user


def two_factor_on(user: User) -> str:
    """Turn on `user`'s TOTP authenticator through allauth; returns its secret (for codes)."""
    secret = generate_totp_secret()
    TOTP.activate(user, secret)
    return secret


def totp_code(secret: str, *, steps_back: int = 0) -> str:
    """The current code of a TOTP authenticator whose secret is `secret` (or the code of
    `steps_back` 30-second steps ago)."""
    counter = int(time.time()) // 30 - steps_back
    return format_hotp_value(hotp_value(secret, counter))


def reauthenticated(client: Client) -> Client:
    """Record in `client`'s session that its user confirmed their password just now, as allauth's
    reauthentication does: what cannot be undone then goes through without asking again."""
    session = client.session
    session[AUTHENTICATION_METHODS_SESSION_KEY] = [
        {"method": "password", "at": time.time(), "reauthenticated": True}
    ]
    # Whose records they are (allauth ignores another user's), as record_authentication writes.
    session[AUTHENTICATION_METHODS_USER_SESSION_KEY] = session["_auth_user_id"]
    session.save()
    return client


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def submit(
    user: User, researcher: Any, *, email: str | None = None, name: str | None = None, **extra: Any
) -> Claim:
    """`user`'s claim of `researcher`, through claims' own service."""
    return claim_services.claim_submit(
        user=user,
        researcher=researcher,
        claimant_name=name or user.display_name or "Someone",
        statement=extra.pop("statement", "I wrote these papers at Wonderland University."),
        presented_email=email or user.email,
        evidence_links=extra.pop("evidence_links", ["https://wonderland.example.edu/~alice"]),
    )


def approved_claimant(
    user: User, researcher: Any, *, level: int = 3, moderator: User | None = None
) -> Claim:
    """Make `user` the approved claimant of `researcher` through the real services."""
    claim = submit(user, researcher)
    claim.refresh_from_db()
    if claim.status != "approved":
        claim = claim_services.claim_approve(claim=claim, moderator=moderator, level=level)
    return claim


def verified_researcher(email: str, name: str, slug: str, *, level: int = 3) -> User:
    """A member with an approved claim (L3 or L4) on a record of their own with one work and
    one topic; the record is on `user.record`."""
    user = make_member(email, display_name=name)
    record = ResearcherFactory(display_name=name, slug=slug)
    authorship = AuthorshipFactory(researcher=record)
    WorkTopicFactory(work=authorship.work, topic=TopicFactory(name=f"Topic of {name}"))
    approved_claimant(user, record, level=level)
    record.refresh_from_db()
    user.record = record  # type: ignore[attr-defined]
    return user


@pytest.fixture
def person(db: None) -> Callable[[str], User]:
    """How this folder makes alice, bob and charlie: members with a verified email."""

    def make(name: str) -> User:
        email, display_name, _ = PEOPLE[name]
        return make_member(email, display_name=display_name)

    return make


@pytest.fixture(scope="session")
def verified_people_rows(
    django_db_setup: None, django_db_blocker: Any
) -> dict[str, list[TableRows]]:
    """alice, bob and charlie as verified researchers, each made once per test process through
    the claim services in a transaction that is rolled back (its after-commit work never runs,
    as in a test's own transaction), and kept as the rows that made."""
    rows: dict[str, list[TableRows]] = {}
    with django_db_blocker.unblock():
        for name, (email, display_name, slug) in PEOPLE.items():
            with transaction.atomic():
                verified_researcher(email, display_name, slug)
                rows[name] = snapshot_taken()
                transaction.set_rollback(True)
    return rows


@pytest.fixture
def verified_person(db: None, request: pytest.FixtureRequest) -> Callable[[str], User]:
    """alice, bob and charlie as verified researchers: an approved L3 claim on a record each.

    In a test's transaction their rows are copied in (tests/support/snapshots.py); a test with
    real transactions makes them through the services, so their after-commit work runs."""

    def make(name: str) -> User:
        email, _, slug = PEOPLE[name]
        if not connection.in_atomic_block:
            return verified_researcher(*PEOPLE[name])
        snapshot_restore(request.getfixturevalue("verified_people_rows")[name])
        user = User.objects.get(email=email)
        user.record = Researcher.objects.get(slug=slug)  # type: ignore[attr-defined]
        return user

    return make


@pytest.fixture
def alice(person: Callable[[str], User]) -> User:
    return person("alice")


@pytest.fixture
def bob(person: Callable[[str], User]) -> User:
    return person("bob")


@pytest.fixture
def charlie(person: Callable[[str], User]) -> User:
    return person("charlie")


@pytest.fixture
def alice_client(alice: User) -> Client:
    return client_for(alice)


@pytest.fixture
def bob_client(bob: User) -> Client:
    return client_for(bob)


@pytest.fixture
def charlie_client(charlie: User) -> Client:
    return client_for(charlie)


@pytest.fixture
def newcomer(db: None) -> User:
    """Signed up, email verified, no claim."""
    return make_member("newcomer@example.org", display_name="Nora Newcomer")


@pytest.fixture
def moderator_permissions() -> Iterable[str]:
    """The codenames of the permissions this folder's moderator holds."""
    return ()


@pytest.fixture
def moderator(db: None, moderator_permissions: Iterable[str]) -> User:
    """Staff, with the permissions the folder's `moderator_permissions` names."""
    user = make_member("mod@example.org", display_name="Mo Derator", is_staff=True)
    codenames = list(moderator_permissions)
    permissions = list(Permission.objects.filter(codename__in=codenames))
    assert len(permissions) == len(codenames), "a moderator permission is not known"
    user.user_permissions.add(*permissions)
    return user


@pytest.fixture
def moderator_client(moderator: User) -> Client:
    return client_for(moderator)
