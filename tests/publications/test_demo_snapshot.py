"""The demo snapshot that `make run` loads: the seed people, as the seed pages show them."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from publications.models import Authorship, Work
from researchers.models import Researcher
from tests.conftest import REPO_ROOT

DEMO = REPO_ROOT / "demo" / "openalex"
DEMO_DATA = REPO_ROOT / "demo" / "data"
BUILDER = REPO_ROOT / "demo" / "build_demo_snapshot.py"
EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.]+")
PHONE = re.compile(r"(?:\+\d{1,3}[\s.-]?)?\(?\d{2,4}\)?[\s.-]\d{3,4}[\s.-]\d{3,4}")


@pytest.fixture
def demo(run_import):
    run = run_import(DEMO)
    assert run.failed_count == 0
    return run


@pytest.mark.django_db(transaction=True)
def test_zhizhen_zhong_has_exactly_the_two_works_of_the_reference_page(demo):
    zhong = Researcher.objects.get(display_name="Zhizhen Zhong")

    titles = set(Work.objects.filter(authorships__researcher=zhong).values_list("title", flat=True))
    assert titles == {
        "Analyzing Communication Predictability in LLM Training",
        "Netcast: Low-Power Edge Computing with WDM-defined Optical Neural Networks",
    }
    assert (zhong.works_count, zhong.topics_count) == (2, 3)
    assert zhong.last_known_institution is None
    coauthors = (
        Authorship.objects.filter(work__authorships__researcher=zhong)
        .exclude(researcher=zhong)
        .values("researcher")
        .distinct()
    )
    assert coauthors.count() == 4


@pytest.mark.django_db(transaction=True)
def test_the_other_seed_people_have_works_coauthors_and_institutions(demo):
    for name in ("Zhenhua Zhu", "Zhuang Wang", "Zhongzhu Zhou"):
        person = Researcher.objects.get(display_name=name)
        assert person.works_count >= 8, name
        assert person.last_known_institution is not None, name
        assert person.affiliations.exists(), name
    assert Researcher.objects.get(display_name="Zhenhua Zhu").cited_by_count == 63


@pytest.mark.django_db(transaction=True)
def test_the_demo_reimports_without_changes(demo, run_import):
    again = run_import(DEMO)
    assert (again.created_count, again.updated_count) == (0, 0)


def test_the_demo_snapshot_carries_no_contact_data():
    files = list(DEMO.rglob("part_*"))
    assert len(files) == 4
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not EMAIL.search(text), path
        assert not PHONE.search(text), (path, PHONE.search(text))
        assert "mailto" not in text and "tel:" not in text


def test_the_demo_data_files_carry_no_contact_data():
    files = list(DEMO_DATA.rglob("*.toml"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert not EMAIL.search(text), path
        assert not PHONE.search(text), (path, PHONE.search(text))
        assert "mailto" not in text and "tel:" not in text


def test_the_committed_snapshot_is_what_the_builder_makes_from_the_data_files(tmp_path):
    subprocess.run(
        [sys.executable, str(BUILDER), "--output-dir", str(tmp_path)], check=True, cwd=REPO_ROOT
    )

    built = sorted(path.relative_to(tmp_path) for path in tmp_path.rglob("part_*"))
    committed = sorted(path.relative_to(DEMO) for path in DEMO.rglob("part_*"))
    assert built == committed
    for relative in committed:
        assert (tmp_path / relative).read_bytes() == (DEMO / relative).read_bytes(), relative
