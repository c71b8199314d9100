"""Our own rate limits (claims/ratelimit.py): a sliding window, so no span of the period ever
holds more than the limit; a refusal says when the next attempt is let through, and both the
HTML and the API answers carry it as Retry-After. Vouches are limited by the monthly cap only."""

from __future__ import annotations

import threading
import time

import pytest
from django.urls import reverse

from claims import services
from claims.models import Claim, Report, Vouch
from claims.ratelimit import RateLimited, rate_limit_check
from tests.factories import ResearcherFactory
from tests.support.people import approved_claimant, client_for, make_member, submit

from .conftest import coauthored

CLAIM_POST = {
    "claimant_name": "Alice Liddell",
    "statement": "I wrote these papers during my PhD at this institution.",
    "presented_email": "alice@example.org",
}


def limit(settings, action: str, rate: str) -> None:
    settings.CLAIMS_RATE_LIMITS = {**settings.CLAIMS_RATE_LIMITS, action: rate}


def attempts_let_through(
    count: int, *, action: str = "claim_submit", key: str = "user:1", at_ms: int | None = None
) -> int:
    passed = 0
    for _ in range(count):
        try:
            rate_limit_check(action=action, key=key, at_ms=at_ms)
        except RateLimited:
            continue
        passed += 1
    return passed


def clock_ms(*, into_period: float = 0.0, period: int = 2) -> int:
    """A time near now, `into_period` seconds past a multiple of `period` seconds (the
    limiter's clock is moved to it instead of sleeping until then)."""
    now_ms = int(time.time() * 1000)
    return now_ms - now_ms % (period * 1000) + int(into_period * 1000)


def test_no_more_than_the_limit_pass_across_a_window_boundary(settings):
    limit(settings, "claim_submit", "3/2s")
    # Three just before a clock boundary of the period and three just after it: a window that
    # starts on the clock's boundaries let all six through.
    boundary_ms = clock_ms(period=2) + 2000
    before = attempts_let_through(3, at_ms=boundary_ms - 400)
    after = attempts_let_through(3, at_ms=boundary_ms + 100)
    assert (before, after) == (3, 0)


def test_a_refusal_says_when_the_next_attempt_is_let_through(settings):
    limit(settings, "claim_submit", "2/2s")
    started_ms = clock_ms(into_period=0.3)
    assert attempts_let_through(2, at_ms=started_ms) == 2
    with pytest.raises(RateLimited) as refused:
        rate_limit_check(action="claim_submit", key="user:1", at_ms=started_ms + 250)
    assert 1 <= refused.value.retry_after <= 2
    waited_ms = started_ms + 250 + refused.value.retry_after * 1000
    rate_limit_check(action="claim_submit", key="user:1", at_ms=waited_ms)


def test_refused_attempts_do_not_push_the_next_one_back(settings):
    limit(settings, "claim_submit", "1/2s")
    started_ms = clock_ms(into_period=0.5)
    assert attempts_let_through(1, at_ms=started_ms) == 1
    assert attempts_let_through(20, at_ms=started_ms + 1000) == 0
    assert attempts_let_through(1, at_ms=started_ms + 2050) == 1


def test_each_user_has_a_budget_of_their_own(settings):
    limit(settings, "report_submit", "2/h")
    assert attempts_let_through(3, action="report_submit", key="user:1") == 2
    assert attempts_let_through(3, action="report_submit", key="user:2") == 2


def test_concurrent_attempts_cannot_slip_past_the_limit(settings):
    limit(settings, "claim_submit", "3/h")
    passed: list[bool] = []
    start = threading.Barrier(12)

    def attempt() -> None:
        start.wait()
        try:
            rate_limit_check(action="claim_submit", key="user:7")
        except RateLimited:
            passed.append(False)
        else:
            passed.append(True)

    threads = [threading.Thread(target=attempt) for _ in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert passed.count(True) == 3


@pytest.mark.django_db
def test_the_claim_form_answers_429_with_retry_after(settings, alice, alice_client):
    limit(settings, "claim_submit", "1/h")
    records = [ResearcherFactory() for _ in range(2)]
    answers = [
        alice_client.post(reverse("claims:claim-start", args=[record.slug]), CLAIM_POST)
        for record in records
    ]
    assert [answer.status_code for answer in answers] == [302, 429]
    assert "Retry-After" not in answers[0]
    assert 3590 <= int(answers[1]["Retry-After"]) <= 3600
    assert Claim.objects.filter(user=alice).count() == 1


@pytest.mark.django_db
def test_the_report_form_answers_429_with_retry_after(settings, moderator):
    limit(settings, "report_submit", "1/10m")
    reporter = client_for(make_member("reporter@example.org"))
    codes, answers = [], []
    for index in range(2):
        record = ResearcherFactory()
        approved_claimant(make_member(f"owner{index}@example.org"), record, moderator=moderator)
        answer = reporter.post(
            reverse("claims:report", args=[record.slug]), {"reason": "Not this person."}
        )
        codes.append(answer.status_code)
        answers.append(answer)
    assert codes == [302, 429]
    assert 590 <= int(answers[1]["Retry-After"]) <= 600
    assert Report.objects.count() == 1


@pytest.mark.django_db
def test_the_api_429_says_when_to_retry(settings, alice, alice_client):
    limit(settings, "claim_submit", "1/30m")
    answers = [
        alice_client.post(
            reverse("api:claim-list"),
            {**CLAIM_POST, "researcher": ResearcherFactory().slug},
            content_type="application/json",
        )
        for _ in range(2)
    ]
    assert [answer.status_code for answer in answers] == [201, 429]
    assert 1790 <= int(answers[1]["Retry-After"]) <= 1800


@pytest.mark.django_db
def test_vouches_are_limited_by_the_monthly_cap_alone(settings, moderator):
    # With the monthly cap raised, nothing else stops a burst of vouches: the old hourly limit
    # (20 an hour, above a cap of 5 a month) could never be the one that refused.
    settings.CLAIMS_VOUCHES_PER_MONTH = 22
    voucher = make_member("busy@example.org")
    own = ResearcherFactory()
    approved_claimant(voucher, own, moderator=moderator)
    for index in range(22):
        record = ResearcherFactory()
        coauthored(own, record)
        services.vouch_submit(
            voucher=voucher, claim=submit(make_member(f"c{index}@example.org"), record)
        )
    assert Vouch.objects.filter(voucher=voucher).count() == 22
    assert "vouch_submit" not in settings.CLAIMS_RATE_LIMITS


def test_retry_after_is_whole_seconds_rounded_up(settings):
    limit(settings, "split_request", "1/90s")
    attempts_let_through(1, action="split_request")
    with pytest.raises(RateLimited) as refused:
        rate_limit_check(action="split_request", key="user:1")
    assert isinstance(refused.value.retry_after, int)
    assert 89 <= refused.value.retry_after <= 90
