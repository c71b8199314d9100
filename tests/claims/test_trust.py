"""The trust score: docs/trust.md's weights reproduce the stored breakdown; the seed's L1
record reads "Trust 13 - Unverified"; the score is recomputed when an input changes."""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from claims import services, trust
from claims.templatetags.claims_tags import trust_band
from researchers.models import Researcher, VerificationLevel
from tests.conftest import REPO_ROOT
from tests.factories import AuthorshipFactory, ResearcherFactory, WorkFactory
from tests.support.people import approved_claimant, make_member

from .conftest import coauthored

pytestmark = pytest.mark.django_db

DOCS = REPO_ROOT / "docs" / "trust.md"


def documented_weights() -> dict[str, dict[str, int | None]]:
    """The weight table of docs/trust.md: | `key` | input | points | cap |."""
    weights = {}
    for line in DOCS.read_text().splitlines():
        match = re.match(r"^\|\s*`(\w+)`\s*\|[^|]*\|([^|]+)\|([^|]+)\|", line)
        if not match:
            continue
        key, points, cap = match.groups()
        numbers = [int(n.replace("−", "-")) for n in re.findall(r"[−-]?\d+", points)]
        cap_numbers = re.findall(r"\d+", cap)
        weights[key] = {"points": numbers, "cap": int(cap_numbers[0]) if cap_numbers else None}
    return weights


def expected_breakdown(
    *, level, openalex, orcid, other_ids, dois, verified_coauthors, age_days, disputes
):
    w = documented_weights()
    level_points = dict(zip(range(5), w["verification"]["points"], strict=True))[level]
    openalex_points, orcid_points, other_points = w["identifiers"]["points"]
    identifiers = min(
        w["identifiers"]["cap"],
        openalex_points * openalex + orcid_points * orcid + other_points * other_ids,
    )
    works = min(w["works_with_doi"]["cap"], w["works_with_doi"]["points"][0] * dois)
    coauthors = min(
        w["verified_coauthors"]["cap"], w["verified_coauthors"]["points"][0] * verified_coauthors
    )
    age = (
        0
        if age_days is None
        else min(w["account_age"]["cap"], w["account_age"]["points"][0] * (age_days // 30))
    )
    dispute_points = w["open_disputes"]["points"][0] * disputes
    points = {
        "verification": level_points,
        "identifiers": identifiers,
        "works_with_doi": works,
        "verified_coauthors": coauthors,
        "account_age": age,
        "open_disputes": dispute_points,
    }
    return points, max(0, min(100, sum(points.values())))


def stored_points(researcher: Researcher) -> dict[str, int]:
    return {key: value["points"] for key, value in researcher.trust_breakdown["components"].items()}


def test_the_documented_weights_are_the_ones_in_the_code():
    w = documented_weights()
    assert w["verification"]["points"] == [trust.LEVEL_POINTS[level] for level in range(5)]
    assert w["identifiers"]["points"] == [
        trust.OPENALEX_ID_POINTS,
        trust.ORCID_POINTS,
        trust.OTHER_ID_POINTS,
    ]
    assert w["identifiers"]["cap"] == trust.IDENTIFIERS_CAP
    assert w["works_with_doi"] == {"points": [trust.DOI_WORK_POINTS], "cap": trust.DOI_WORKS_CAP}
    assert w["verified_coauthors"] == {
        "points": [trust.VERIFIED_COAUTHOR_POINTS],
        "cap": trust.VERIFIED_COAUTHORS_CAP,
    }
    assert w["account_age"] == {
        "points": [trust.ACCOUNT_AGE_POINTS_PER_MONTH],
        "cap": trust.ACCOUNT_AGE_CAP,
    }
    assert w["open_disputes"]["points"] == [trust.OPEN_DISPUTE_POINTS]


def test_the_documented_weights_reproduce_an_unclaimed_record_with_two_doi_works():
    researcher = ResearcherFactory()
    AuthorshipFactory(researcher=researcher)
    AuthorshipFactory(researcher=researcher)
    AuthorshipFactory(researcher=researcher, work=WorkFactory(doi=None))
    trust.researchers_trust_refresh(researcher_ids=[researcher.pk])
    researcher.refresh_from_db()
    points, score = expected_breakdown(
        level=1,
        openalex=1,
        orcid=0,
        other_ids=0,
        dois=2,
        verified_coauthors=0,
        age_days=None,
        disputes=0,
    )
    assert stored_points(researcher) == points
    assert researcher.trust_score == score == 13
    assert researcher.trust_breakdown["components"]["works_with_doi"]["input"] == 2


def test_the_documented_weights_reproduce_a_claimed_record_with_every_signal():
    owner = make_member("owner@example.org", display_name="Owner")
    owner.date_joined = timezone.now() - datetime.timedelta(days=95)
    owner.save()
    researcher = ResearcherFactory(orcid="0000-0002-1825-0097", dblp_id="d/Owner", scholar_id="abc")
    for _ in range(12):  # over the cap
        AuthorshipFactory(researcher=researcher)
    for _ in range(2):
        peer = ResearcherFactory(verification_level=VerificationLevel.MODERATOR_VERIFIED)
        coauthored(researcher, peer)
    coauthored(researcher, ResearcherFactory())  # an unverified coauthor counts for nothing
    approved_claimant(owner, researcher, level=4)
    trust.researchers_trust_refresh(researcher_ids=[researcher.pk])
    researcher.refresh_from_db()
    points, score = expected_breakdown(
        level=4,
        openalex=1,
        orcid=1,
        other_ids=2,
        dois=15,
        verified_coauthors=2,
        age_days=95,
        disputes=0,
    )
    assert stored_points(researcher) == points
    assert researcher.trust_score == score
    assert researcher.trust_breakdown["components"]["account_age"]["input"] == 95


def test_the_documented_weights_reproduce_a_disputed_record_and_clamp_at_zero(alice, bob):
    researcher = ResearcherFactory(openalex_id=None, verification_level=0)
    approved_claimant(alice, researcher, level=3)
    services.report_submit(
        reporter=bob, researcher=researcher, reason="Not the real person at all."
    )
    trust.researchers_trust_refresh(researcher_ids=[researcher.pk])
    researcher.refresh_from_db()
    points, score = expected_breakdown(
        level=3,
        openalex=0,
        orcid=0,
        other_ids=0,
        dois=0,
        verified_coauthors=0,
        age_days=0,
        disputes=1,
    )
    assert stored_points(researcher) == points
    assert researcher.trust_score == score == 10
    services.report_submit(
        reporter=make_member("x@example.org"), researcher=researcher, reason="Me too, not him."
    )
    trust.researchers_trust_refresh(researcher_ids=[researcher.pk])
    researcher.refresh_from_db()
    assert researcher.trust_score == 0  # 30 - 40 clamps at 0


def test_the_same_inputs_give_the_same_breakdown_and_no_rewrite():
    researcher = ResearcherFactory()
    AuthorshipFactory(researcher=researcher)
    assert trust.researchers_trust_refresh(researcher_ids=[researcher.pk]) == 1
    first = Researcher.objects.get(pk=researcher.pk).trust_breakdown
    assert trust.researchers_trust_refresh(researcher_ids=[researcher.pk]) == 0
    assert Researcher.objects.get(pk=researcher.pk).trust_breakdown == first


def test_it_scores_many_researchers_in_one_statement(django_assert_num_queries):
    researchers = [ResearcherFactory() for _ in range(30)]
    for researcher in researchers:
        AuthorshipFactory(researcher=researcher)
    with django_assert_num_queries(1):
        changed = trust.researchers_trust_refresh(researcher_ids=[r.pk for r in researchers])
    assert changed == 30
    assert set(
        Researcher.objects.filter(pk__in=[r.pk for r in researchers]).values_list(
            "trust_score", flat=True
        )
    ) == {11}


@pytest.mark.django_db(transaction=True)
def test_the_seed_person_reads_trust_13_unverified_after_the_demo_import(run_import, client):
    run_import(REPO_ROOT / "demo" / "openalex")
    zhong = Researcher.objects.get(display_name="Zhizhen Zhong")
    assert zhong.verification_level == VerificationLevel.IDENTIFIED
    assert zhong.claimed_by_id is None
    assert zhong.works_count == 2
    assert f"Trust {zhong.trust_score} - {trust_band(zhong.trust_score)}" == "Trust 13 - Unverified"
    response = client.get(reverse("claims:trust-explain", args=[zhong.slug]))
    assert response.status_code == 200
    assert "Trust 13 - Unverified" in response.content.decode()


def test_approving_a_claim_raises_the_trust_of_the_record_and_of_its_coauthors(
    alice, moderator, commit
):
    record = ResearcherFactory(display_name="Alice Liddell")
    AuthorshipFactory(researcher=record)
    peer = ResearcherFactory()
    coauthored(record, peer)
    trust.researchers_trust_refresh(researcher_ids=[record.pk, peer.pk])
    record.refresh_from_db()
    peer.refresh_from_db()
    before_record, before_peer = record.trust_score, peer.trust_score
    with commit():
        approved_claimant(alice, record, level=4, moderator=moderator)
    record.refresh_from_db()
    peer.refresh_from_db()
    assert record.trust_score == before_record + 35  # L1 5 -> L4 40
    assert peer.trust_score == before_peer + trust.VERIFIED_COAUTHOR_POINTS


def test_the_explanation_page_lists_every_component(client):
    researcher = ResearcherFactory()
    AuthorshipFactory(researcher=researcher)
    trust.researchers_trust_refresh(researcher_ids=[researcher.pk])
    response = client.get(reverse("claims:trust-explain", args=[researcher.slug]))
    page = response.content.decode()
    for component in trust.COMPONENTS:
        assert component.label in page
    assert "Trust 11 - Unverified" in page


def test_the_explanation_page_of_a_merged_record_redirects_permanently(client):
    survivor = ResearcherFactory()
    merged = ResearcherFactory(merged_into=survivor)
    response = client.get(reverse("claims:trust-explain", args=[merged.slug]))
    assert response.status_code == 301
    assert response["Location"] == reverse("claims:trust-explain", args=[survivor.slug])


def test_the_explanation_page_answers_get_only(client):
    researcher = ResearcherFactory()
    assert client.post(reverse("claims:trust-explain", args=[researcher.slug])).status_code == 405


@pytest.mark.parametrize(
    ("score", "band"),
    [
        (0, "Unverified"),
        (13, "Unverified"),
        (34, "Unverified"),
        (35, "Emerging"),
        (59, "Emerging"),
        (60, "Trusted"),
        (79, "Trusted"),
        (80, "Highly trusted"),
        (100, "Highly trusted"),
    ],
)
def test_the_bands(score, band):
    assert trust_band(score) == band
