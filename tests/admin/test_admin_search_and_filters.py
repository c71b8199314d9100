"""Search boxes and filters of the admin changelists return the right rows."""

from __future__ import annotations

import pytest
from django.urls import reverse

from ingest.models import ImportIssue
from researchers.models import VerificationLevel

from . import builders

pytestmark = pytest.mark.django_db


def listed(response) -> list:
    assert response.status_code == 200
    return list(response.context["cl"].result_list)


def changelist(app_model: str) -> str:
    return reverse(f"admin:{app_model}_changelist")


def test_researcher_search_finds_part_of_a_name_whatever_its_accents(admin_client):
    wanted = builders.researcher("Zhízhen Zhong")
    builders.researcher("Ada Lovelace")
    response = admin_client.get(changelist("researchers_researcher"), {"q": "zhizhen"})
    assert listed(response) == [wanted]


def test_researcher_search_finds_an_orcid_pasted_as_a_url(admin_client):
    wanted = builders.researcher(orcid="0000-0002-1825-0097")
    builders.researcher(orcid="0000-0001-5109-3700")
    response = admin_client.get(
        changelist("researchers_researcher"), {"q": "https://orcid.org/0000-0002-1825-0097"}
    )
    assert listed(response) == [wanted]


def test_researcher_search_finds_an_openalex_id_and_a_slug(admin_client):
    by_id = builders.researcher(openalex_id="A5023888391")
    by_slug = builders.researcher(slug="grace-hopper")
    assert listed(admin_client.get(changelist("researchers_researcher"), {"q": "a5023888391"})) == [
        by_id
    ]
    assert listed(
        admin_client.get(changelist("researchers_researcher"), {"q": "grace-hopper"})
    ) == [by_slug]


def test_researcher_filters_pick_claimed_merged_and_level(admin_client, django_user_model):
    owner = django_user_model.objects.create_user(username="alice", email="alice@example.org")
    claimed = builders.researcher(claimed_by=owner, verification_level=VerificationLevel.CLAIMED)
    survivor = builders.researcher(verification_level=VerificationLevel.IDENTIFIED)
    merged = builders.researcher(merged_into=survivor)
    url = changelist("researchers_researcher")

    # Django's EmptyFieldListFilter: isempty=0 is "claimed" / "merged", isempty=1 is "not".
    assert listed(admin_client.get(url, {"claimed_by__isempty": "0"})) == [claimed]
    assert set(listed(admin_client.get(url, {"claimed_by__isempty": "1"}))) == {survivor, merged}
    assert listed(admin_client.get(url, {"merged_into__isempty": "0"})) == [merged]
    assert set(listed(admin_client.get(url, {"merged_into__isempty": "1"}))) == {
        claimed,
        survivor,
    }
    assert listed(admin_client.get(url, {"verification_level__exact": "1"})) == [survivor]


def filter_choices(response, title: str) -> list[str]:
    changelist = response.context["cl"]
    spec = next(spec for spec in changelist.filter_specs if spec.title == title)
    return [choice["display"] for choice in spec.choices(changelist)]


def test_the_yes_no_filters_keep_their_titles_and_answers(admin_client):
    builders.researcher(merged_into=builders.researcher())
    researchers = admin_client.get(changelist("researchers_researcher"))
    assert filter_choices(researchers, "claimed") == ["All", "Claimed by a user", "Not claimed"]
    assert filter_choices(researchers, "merged") == [
        "All",
        "Merged into another record",
        "Not merged",
    ]
    authorships = admin_client.get(changelist("publications_authorship"))
    assert filter_choices(authorships, "linked to a researcher") == ["All", "Linked", "Name only"]
    # With facets shown, each answer carries its count.
    with_counts = admin_client.get(changelist("researchers_researcher"), {"_facets": "True"})
    assert filter_choices(with_counts, "merged") == [
        "All",
        "Merged into another record (1)",
        "Not merged (1)",
    ]


def test_authorship_filter_picks_authors_linked_to_a_researcher_or_named_only(admin_client):
    work = builders.work(authors=(builders.researcher("Linked Author"),))
    name_only = work.authorships.create(position=2, raw_name="Name Only")
    linked = work.authorships.get(position=1)
    url = changelist("publications_authorship")
    assert listed(admin_client.get(url, {"researcher__isempty": "0"})) == [linked]
    assert listed(admin_client.get(url, {"researcher__isempty": "1"})) == [name_only]


def test_the_researcher_changelist_shows_works_citations_and_h_index(admin_client):
    builders.researcher("Cited Person", works_count=321, cited_by_count=65432, h_index=47)
    content = admin_client.get(changelist("researchers_researcher")).content.decode()
    assert "321" in content
    assert "65432" in content
    assert "47" in content


def test_institution_search_and_country_filter(admin_client):
    paris = builders.institution(
        "Sorbonne Université", country_code="FR", ror="https://ror.org/02en5vm52"
    )
    builders.institution("University of Oxford", country_code="GB")
    url = changelist("researchers_institution")
    assert listed(admin_client.get(url, {"q": "sorbonne"})) == [paris]
    assert listed(admin_client.get(url, {"q": "02en5vm52"})) == [paris]
    assert listed(admin_client.get(url, {"country_code": "FR"})) == [paris]


def test_affiliation_search_finds_a_researcher_or_an_institution_name(admin_client):
    from researchers.models import Affiliation

    wanted = Affiliation.objects.create(
        researcher=builders.researcher("Wanted Person"),
        institution=builders.institution("Far Away Lab"),
    )
    Affiliation.objects.create(researcher=builders.researcher(), institution=builders.institution())
    url = changelist("researchers_affiliation")
    assert listed(admin_client.get(url, {"q": "wanted person"})) == [wanted]
    assert listed(admin_client.get(url, {"q": "far away"})) == [wanted]


def test_work_search_finds_title_words_and_identifiers(admin_client):
    wanted = builders.work(
        "Graph neural networks for citation analysis", doi="10.1234/gnn.2021", arxiv_id="2101.00001"
    )
    builders.work("A survey of protein folding")
    url = changelist("publications_work")
    assert listed(admin_client.get(url, {"q": "neural network"})) == [wanted]
    assert listed(admin_client.get(url, {"q": "https://doi.org/10.1234/GNN.2021"})) == [wanted]
    assert listed(admin_client.get(url, {"q": "arXiv:2101.00001"})) == [wanted]
    assert listed(admin_client.get(url, {"q": wanted.openalex_id})) == [wanted]


def test_work_filters_pick_type_and_year(admin_client):
    preprint = builders.work(type="preprint", publication_year=2021)
    old_article = builders.work(type="article", publication_year=1995)
    undated = builders.work(type="article")
    url = changelist("publications_work")
    assert listed(admin_client.get(url, {"type": "preprint"})) == [preprint]
    assert listed(admin_client.get(url, {"year": "1990-1999"})) == [old_article]
    assert listed(admin_client.get(url, {"year": "unknown"})) == [undated]
    assert listed(admin_client.get(url, {"year": "nonsense"})) == []


def test_authorship_search_finds_the_authors_of_a_work_and_the_works_of_an_author(admin_client):
    author = builders.researcher(orcid="0000-0002-1825-0097")
    other = builders.researcher()
    first = builders.work(authors=(author, other))
    builders.work(authors=(other,))
    url = changelist("publications_authorship")
    assert {a.researcher for a in listed(admin_client.get(url, {"q": first.openalex_id}))} == {
        author,
        other,
    }
    assert [a.work for a in listed(admin_client.get(url, {"q": "0000-0002-1825-0097"}))] == [first]
    assert len(listed(admin_client.get(url, {"work__id__exact": first.pk}))) == 2


def test_topic_filter_picks_a_level(admin_client):
    field = builders.topic("Computer science", level="field")
    builders.topic("Computer vision", level="topic", parent=field)
    url = changelist("publications_topic")
    assert listed(admin_client.get(url, {"level__exact": "field"})) == [field]
    assert len(listed(admin_client.get(url, {"q": "computer"}))) == 2


def test_import_issue_filters_pick_severity_entity_and_run(admin_client):
    run, other_run = builders.import_run(), builders.import_run()
    rejected = builders.import_issue(run, severity=ImportIssue.Severity.ERROR, entity="work")
    warned = builders.import_issue(run, severity=ImportIssue.Severity.WARNING, entity="author")
    elsewhere = builders.import_issue(other_run)
    url = changelist("ingest_importissue")
    assert listed(
        admin_client.get(url, {"severity__exact": "error", "run__id__exact": run.pk})
    ) == [rejected]
    assert listed(admin_client.get(url, {"entity": "author"})) == [warned]
    assert listed(admin_client.get(url, {"run__id__exact": other_run.pk})) == [elsewhere]
    assert listed(admin_client.get(url, {"q": warned.external_id})) == [warned]


def test_the_author_autocomplete_of_a_work_finds_researchers_by_name(admin_client):
    wanted = builders.researcher("Zhízhen Zhong")
    builders.researcher("Ada Lovelace")
    response = admin_client.get(
        reverse("admin:autocomplete"),
        {
            "app_label": "publications",
            "model_name": "authorship",
            "field_name": "researcher",
            "term": "zhong",
        },
    )
    assert response.status_code == 200
    assert [result["id"] for result in response.json()["results"]] == [str(wanted.pk)]
