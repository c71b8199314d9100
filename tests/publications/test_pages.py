"""Work, topic, institution and home pages; imported text is escaped on every page."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.urls import reverse

from publications.models import WorkListedBy
from publications.templatetags.scholarly import latex
from tests.factories import (
    AuthorshipFactory,
    InstitutionFactory,
    ResearcherFactory,
    TopicFactory,
    WorkFactory,
    WorkTopicFactory,
)

HOSTILE_TITLE = 'Robust <script>alert("title")</script> <b>bold</b> $O(n^2)$ bounds'
HOSTILE_ABSTRACT = "We show <img src=x onerror=alert(1)> that it works\\emph{well}."


@pytest.fixture
def hostile_work():
    institution = InstitutionFactory(name="Institute <i>of</i> Tests")
    researcher = ResearcherFactory(
        display_name="Mallory <script>x</script>", last_known_institution=institution
    )
    topic = TopicFactory(name="Topic <u>underlined</u>", code="cs.XX")
    work = WorkFactory(title=HOSTILE_TITLE, abstract=HOSTILE_ABSTRACT)
    AuthorshipFactory(
        work=work,
        researcher=researcher,
        position=1,
        raw_name="Mallory <script>x</script>",
        institution_ids=[institution.pk],
    )
    WorkTopicFactory(work=work, topic=topic)
    return work, researcher, topic, institution


def _pages(work, researcher, topic, institution) -> list[str]:
    return [
        reverse("publications:work-detail", args=[work.pk]),
        reverse("researcher-profile", args=[researcher.slug]),
        reverse("publications:topic-detail", args=[topic.pk]),
        reverse("institution-detail", args=[institution.pk]),
        reverse("home"),
    ]


@pytest.mark.django_db
def test_imported_html_and_script_show_as_text_on_every_page(client, hostile_work):
    for url in _pages(*hostile_work):
        html = client.get(url).content.decode()
        assert "<script>alert" not in html, url
        assert "<img src=x" not in html, url
        assert "<b>bold</b>" not in html, url
        assert "&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt;" in html, url
        assert "O(n<sup>2</sup>)" in html, url  # the LaTeX still reads well


@pytest.mark.django_db
def test_the_work_page_shows_authors_in_order_identifiers_and_topics(client):
    work = WorkFactory(doi="10.1234/abc", arxiv_id="2401.00001", code_url="https://github.com/x/y")
    second = AuthorshipFactory(work=work, position=2, raw_name="Bea Second")
    first = AuthorshipFactory(work=work, position=1, raw_name="Al First")
    WorkTopicFactory(work=work, topic=TopicFactory(code="cs.NI"))

    html = client.get(reverse("publications:work-detail", args=[work.pk])).content.decode()

    assert html.index("Al First") < html.index("Bea Second")
    assert (
        f'href="/researchers/{first.researcher.slug}/"' in html and second.researcher.slug in html
    )
    assert 'href="https://doi.org/10.1234/abc"' in html
    assert 'href="https://arxiv.org/abs/2401.00001"' in html
    assert "cs.NI" in html
    jsonld = re.search(
        r'<script type="application/ld\+json">(.*?)</script>', html, flags=re.S
    ).group(1)
    assert '"@type":"ScholarlyArticle"' in jsonld and '"value":"10.1234/abc"' in jsonld


@pytest.mark.django_db
def test_pages_have_titles_and_descriptions(client, hostile_work):
    for url in _pages(*hostile_work):
        html = client.get(url).content.decode()
        title = re.search(r"<title>(.*?)</title>", html, flags=re.S).group(1)
        description = re.search(
            r'<meta name="description" content="(.*?)">', html, flags=re.S
        ).group(1)
        assert title.strip().endswith("· bzpeer") and len(title) > 12, url
        assert len(description) > 20, url


@pytest.mark.django_db
def test_unknown_work_topic_and_institution_get_a_friendly_404(client):
    for url, what in [
        ("/works/999999/", "work"),
        ("/topics/999999/", "topic"),
        ("/institutions/999999/", "institution"),
    ]:
        response = client.get(url)
        assert response.status_code == 404
        assert f"We could not find that {what}" in response.content.decode()


@pytest.mark.django_db
def test_the_institution_page_lists_its_researchers_and_works(client, hostile_work):
    work, researcher, _, institution = hostile_work
    other = WorkFactory(title="Unrelated work")
    AuthorshipFactory(work=other)

    response = client.get(reverse("institution-detail", args=[institution.pk]))

    assert [w.pk for w in response.context["works_page"].object_list] == [work.pk]
    assert list(response.context["researchers"]) == [researcher]


@pytest.mark.django_db
def test_the_topic_page_lists_its_researchers_and_recent_works(client, hostile_work):
    work, researcher, topic, _ = hostile_work

    response = client.get(reverse("publications:topic-detail", args=[topic.pk]))

    assert [w.pk for w in response.context["works_page"].object_list] == [work.pk]
    assert list(response.context["researchers"]) == [researcher]


@pytest.mark.django_db
def test_the_home_page_shows_counts_recent_works_and_most_followed(client, hostile_work):
    work, researcher, _, _ = hostile_work
    researcher.followers_count = 3
    researcher.save()
    from django.core.cache import cache

    cache.delete("site-counts")
    response = client.get(reverse("home"))

    assert response.context["counts"]["works"] == 1
    assert [listed.pk for listed in response.context["recent_works"]] == [work.pk]
    assert list(response.context["most_followed"])[0] == researcher


@pytest.mark.django_db
def test_the_sitemap_lists_profiles_and_works(client, hostile_work):
    work, researcher, _, _ = hostile_work

    index = client.get("/sitemap.xml").content.decode()
    researchers = client.get("/sitemap-researchers.xml").content.decode()
    works = client.get("/sitemap-works.xml").content.decode()

    assert "sitemap-researchers.xml" in index and "sitemap-works.xml" in index
    assert f"/researchers/{researcher.slug}/" in researchers
    assert f"/works/{work.pk}/" in works


@pytest.mark.parametrize(
    ("raw", "html"),
    [
        ("a 1.36$\\times$ increase", 'a 1.36<span class="math">×</span> increase'),
        ("$O(n^2)$ time", '<span class="math">O(n<sup>2</sup>)</span> time'),
        ("up to 43\\% of memory", "up to 43% of memory"),
        ("\\emph{Deep} nets", "<em>Deep</em> nets"),
        ("$\\alpha_{i}$", '<span class="math">α<sub>i</sub></span>'),
        ("R\\&D <b>", "R&amp;D &lt;b&gt;"),
        ("costs $5 and $6", "costs $5 and $6"),
    ],
)
def test_latex_fragments_render_readably_and_safely(raw, html):
    assert latex(raw) == html


def _work_page(client, work) -> str:
    return client.get(reverse("publications:work-detail", args=[work.pk])).content.decode()


def _listed_by(work, researcher, position=None):
    return WorkListedBy.objects.create(
        work=work,
        researcher=researcher,
        origin="orcid",
        origin_id=f"{researcher.orcid or '0000-0002-1825-0097'}:1",
        position=position,
    )


@pytest.mark.django_db
def test_the_work_page_says_who_lists_the_work_without_a_byline_slot(client):
    work = WorkFactory()
    AuthorshipFactory(work=work, position=1, raw_name="Al First")
    owner = ResearcherFactory(display_name="Orla Owner")
    _listed_by(work, owner)

    html = _work_page(client, work)

    assert (
        f'Listed by <a href="/researchers/{owner.slug}/">Orla Owner</a> in their ORCID record.'
        in html
    )


@pytest.mark.django_db
def test_the_work_page_does_not_say_listed_by_for_a_listing_with_a_slot(client):
    work = WorkFactory()
    slot = AuthorshipFactory(work=work, position=1, raw_name="Orla Owner")
    _listed_by(work, slot.researcher, position=1)
    # Listed without a slot, but on the byline anyway (a link made elsewhere): already shown.
    also_on_byline = AuthorshipFactory(work=work, position=2, raw_name="Bea Second")
    _listed_by(work, also_on_byline.researcher)

    assert "Listed by" not in _work_page(client, work)


@pytest.mark.django_db
def test_the_listed_by_line_escapes_a_hostile_name(client):
    work = WorkFactory()
    _listed_by(work, ResearcherFactory(display_name='Mallory <script>alert("x")</script>'))

    html = _work_page(client, work)

    assert "<script>alert" not in html
    # The link shows the name as written, every markup character of it escaped (the entity
    # chosen for a quote, &quot; or &#34;, is the template engine's).
    shown = re.search(r'<p class="muted work-listed-by">Listed by <a href="[^"]+">(.*?)</a>', html)
    assert shown is not None
    assert not set(shown.group(1)) & set('<>"')
    assert unescape(shown.group(1)) == 'Mallory <script>alert("x")</script>'


@pytest.mark.django_db
def test_the_work_page_runs_the_same_queries_however_many_authors_and_listers(
    client, django_assert_num_queries
):
    work = WorkFactory()
    for position in range(1, 21):
        AuthorshipFactory(work=work, position=position)
    WorkTopicFactory.create_batch(3, work=work)
    # The ETag's, the work with its byline, topics and listers, one page of each citation list.
    with django_assert_num_queries(3):
        _work_page(client, work)
    for _ in range(5):
        _listed_by(work, ResearcherFactory())

    with django_assert_num_queries(3):
        html = _work_page(client, work)
    assert html.count("Listed by") == 1 and "and <a href" in html


@pytest.mark.django_db
def test_a_new_listing_gives_the_work_page_a_new_etag(client):
    work = WorkFactory()
    url = reverse("publications:work-detail", args=[work.pk])
    etag = client.get(url)["ETag"]
    _listed_by(work, ResearcherFactory())

    assert client.get(url, HTTP_IF_NONE_MATCH=etag).status_code == 200
