"""'How are we connected?' and the conflict-of-interest check, on the demo data."""

from __future__ import annotations

from datetime import date

import pytest
from django.urls import reverse

from graph.selectors import collaboration_path, conflicts_of_interest
from publications.models import Authorship
from researchers.models import Researcher

# The demo graph is copied into each test's transaction; tests that import commit their own.
pytestmark = pytest.mark.django_db

ZHONG, ZHU, WANG, ZHOU = "A9900000001", "A9900000002", "A9900000003", "A9900000004"
QUN_XIA, HAOJUN_XIA, LEON_SONG = "A9900000081", "A9900000093", "A9900000100"


def _r(openalex_id: str) -> Researcher:
    return Researcher.objects.get(openalex_id=openalex_id)


def _joint_work_ids(a: int, b: int) -> set[int]:
    mine = set(Authorship.objects.filter(researcher_id=a).values_list("work_id", flat=True))
    return mine & set(Authorship.objects.filter(researcher_id=b).values_list("work_id", flat=True))


def test_the_shortest_path_between_two_coauthors_of_a_coauthor(client, demo_graph):
    source, target = _r(QUN_XIA), _r(HAOJUN_XIA)
    assert not _joint_work_ids(source.id, target.id)  # no direct edge: the path needs a hop

    response = client.get(reverse("api:graph-path"), {"source": source.slug, "target": target.slug})

    assert response.status_code == 200
    body = response.json()
    assert body["found"] is True
    people = [p["slug"] for p in body["researchers"]]
    assert len(people) == 3 and people[0] == source.slug and people[-1] == target.slug
    assert people[1] == _r(ZHOU).slug
    assert len(body["hops"]) == 2
    for hop in body["hops"]:
        a, b = int(hop["source"][2:]), int(hop["target"][2:])
        joint = _joint_work_ids(a, b)
        assert hop["works"] and {int(w["id"][2:]) for w in hop["works"]} <= joint
        assert hop["joint_works"] == len(joint)
    titles = [w["title"] for w in body["hops"][0]["works"]]
    assert any(title.startswith("JSIdentify") for title in titles)


def test_researchers_in_separate_components_have_no_path(demo_graph):
    result = collaboration_path(_r(ZHONG), _r(ZHU))

    assert result["found"] is False
    assert result["researchers"] == [] and result["hops"] == []
    assert "not connected" in result["reason"]


def test_a_direct_collaboration_is_one_hop(demo_graph):
    result = collaboration_path(_r(ZHONG), _r("A9900000005"))

    assert [p["name"] for p in result["researchers"]] == ["Zhizhen Zhong", "Wenxue Li"]
    assert len(result["hops"]) == 1 and result["hops"][0]["works"]


def test_the_path_api_wants_both_people(client, demo_graph):
    response = client.get(reverse("api:graph-path"), {"source": _r(ZHOU).slug})

    assert response.status_code == 400
    assert "target" in response.json()


def test_the_path_api_says_404_for_an_unknown_person(client, demo_graph):
    response = client.get(reverse("api:graph-path"), {"source": _r(ZHOU).slug, "target": "nobody"})

    assert response.status_code == 404


def test_the_path_api_refuses_post(client, db):
    assert client.post(reverse("api:graph-path")).status_code == 405


# --- Conflicts of interest ------------------------------------------------------------------


def test_coi_finds_recent_coauthors_and_a_shared_current_institution(demo_graph):
    people = [_r(ZHOU), _r(LEON_SONG), _r(WANG), _r(ZHU)]

    result = conflicts_of_interest(people, years=3, today=date(2026, 6, 1))

    assert result["since_year"] == 2023
    assert len(result["conflicts"]) == 1
    pair = result["conflicts"][0]
    assert {p["name"] for p in pair["researchers"]} == {"Zhongzhu Zhou", "Shuaiwen Leon Song"}
    assert pair["reasons"] == ["coauthor", "institution"]
    assert [i["name"] for i in pair["institutions"]] == ["Together AI"]
    joint = _joint_work_ids(people[0].id, people[1].id)
    assert pair["joint_works_count"] == len(joint) > 0
    assert all(w["year"] >= 2023 for w in pair["works"])


def test_coi_counts_only_works_inside_the_window(demo_graph):
    zhou, qun_xia = _r(ZHOU), _r(QUN_XIA)  # one joint work, in 2020

    recent = conflicts_of_interest([zhou, qun_xia], years=3, today=date(2026, 6, 1))
    wide = conflicts_of_interest([zhou, qun_xia], years=6, today=date(2026, 6, 1))

    assert recent["conflicts"] == []
    assert [p["reasons"] for p in wide["conflicts"]] == [["coauthor"]]
    assert wide["conflicts"][0]["works"][0]["year"] == 2020


def test_coi_api_returns_pairs_with_their_evidence(client, demo_graph):
    slugs = [_r(ZHOU).slug, _r(LEON_SONG).slug, _r(ZHONG).slug]

    response = client.get(reverse("api:coi"), {"researchers": ",".join(slugs), "years": 50})

    assert response.status_code == 200
    body = response.json()
    assert body["years"] == 50
    assert [sorted(p["name"] for p in c["researchers"]) for c in body["conflicts"]] == [
        ["Shuaiwen Leon Song", "Zhongzhu Zhou"]
    ]
    assert body["conflicts"][0]["works"][0]["url"].startswith("/works/")


def test_coi_api_defaults_to_three_years(client, demo_graph):
    response = client.get(reverse("api:coi"), {"researchers": f"{_r(ZHOU).slug},{_r(ZHU).slug}"})

    assert response.status_code == 200
    assert response.json()["years"] == 3


def test_coi_api_names_unknown_slugs(client, demo_graph):
    response = client.get(reverse("api:coi"), {"researchers": f"{_r(ZHOU).slug},nobody-at-all"})

    assert response.status_code == 400
    assert "nobody-at-all" in str(response.json())


def test_coi_api_wants_at_least_two_people(client, demo_graph):
    response = client.get(reverse("api:coi"), {"researchers": _r(ZHOU).slug})

    assert response.status_code == 400


def test_coi_api_refuses_post(client, db):
    assert client.post(reverse("api:coi")).status_code == 405


def test_the_coi_page_resolves_names_and_orcids(client, demo_graph):
    Researcher.objects.filter(openalex_id=LEON_SONG).update(orcid="0000-0002-1825-0097")
    pasted = "Zhongzhu Zhou\nhttps://orcid.org/0000-0002-1825-0097, Nobody Whatsoever Xyzzy"

    response = client.get(reverse("graph:coi-check"), {"q": pasted, "years": "50"})

    assert response.status_code == 200
    html = response.content.decode()
    assert "1 conflict found" in html
    assert "(by ORCID iD)" in html and "(by name)" in html
    assert "Nobody Whatsoever Xyzzy" in html and "not found" in html
    assert "Together AI" in html


def test_the_coi_page_says_when_there_is_no_conflict(client, demo_graph):
    response = client.get(reverse("graph:coi-check"), {"q": "Zhizhen Zhong\nZhenhua Zhu"})

    assert response.status_code == 200
    assert "No conflicts found" in response.content.decode()


def test_the_coi_page_rejects_a_bad_number_of_years(client, demo_graph):
    response = client.get(reverse("graph:coi-check"), {"q": "Zhizhen Zhong", "years": "x"})

    assert "Years must be a whole number" in response.content.decode()


def test_the_coi_page_refuses_post(client, db):
    assert client.post(reverse("graph:coi-check")).status_code == 405
