"""Imported titles and abstracts are untrusted: on the search page they show as text, and the
only markup the highlighting adds is <mark>."""

from __future__ import annotations

import json

import pytest

from search.highlight import highlighted_html
from tests.factories import ResearcherFactory, WorkFactory

SEARCH_URL = "/search/"


def inverted_index(text: str) -> dict[str, list[int]]:
    index: dict[str, list[int]] = {}
    for position, word in enumerate(text.split(" ")):
        index.setdefault(word, []).append(position)
    return index


@pytest.mark.django_db(transaction=True)
def test_html_in_an_imported_title_and_abstract_shows_as_text_inside_the_highlights(
    client, run_import, testdata_dir, tmp_path
):
    record = json.loads(
        (testdata_dir / "openalex" / "api" / "works" / "bv_W2741809807.json").read_text()
    )
    title = '<script>alert("title")</script> The state of <b>OA</b>'
    record["title"] = record["display_name"] = title
    record["abstract_inverted_index"] = inverted_index(
        "Open <img src=x onerror=alert(1)> access <script>alert(2)</script> is in a good state"
    )
    path = tmp_path / "work_with_html.json"
    path.write_text(json.dumps(record))
    run_import(path)

    response = client.get(SEARCH_URL, {"q": "state", "tab": "works"})
    html = response.content.decode()

    assert len(response.context["results"].items) == 1
    assert (
        "&lt;script&gt;alert(&quot;title&quot;)&lt;/script&gt; The <mark>state</mark> of "
        "&lt;b&gt;OA&lt;/b&gt;"
    ) in html
    # In snippets ts_headline leaves out what its parser takes for tags (<script>); what it
    # keeps (the <img, split into words by the inverted index) is escaped.
    snippet = html[html.index('<p class="snippet">') :]
    snippet = snippet[: snippet.index("</p>")]
    assert snippet.startswith('<p class="snippet">Open &lt;img src=x onerror=alert(1)&gt; access')
    assert snippet.endswith("is in a good <mark>state</mark>")
    for raw in ("<script>alert", "<b>OA", "<img src=x"):
        assert raw not in html


@pytest.mark.django_db
def test_marker_characters_in_the_text_cannot_open_or_close_a_highlight(client):
    # ts_headline marks matches with two private-use characters; a title holding them must not
    # be able to produce a <mark> of its own or an unbalanced one.
    WorkFactory(title="Graph \ue001</mark><script>x</script>\ue000 theory \ue000")

    html = client.get(SEARCH_URL, {"q": "graph", "tab": "works"}).content.decode()

    assert "<mark>Graph</mark> &lt;/mark&gt;&lt;script&gt;x&lt;/script&gt; theory" in html
    assert "\ue000" not in html and "\ue001" not in html


@pytest.mark.django_db
def test_names_in_results_and_suggestions_are_escaped(client):
    ResearcherFactory(display_name="<b>Zhizhen</b> Zhong", slug="zhizhen-zhong")

    page = client.get(SEARCH_URL, {"q": "zhizhen"}).content.decode()
    suggestions = client.get("/search/suggest/", {"q": "zhizhen"}).content.decode()

    for html in (page, suggestions):
        assert "&lt;b&gt;Zhizhen&lt;/b&gt; Zhong" in html
        assert "<b>Zhizhen" not in html


@pytest.mark.parametrize(
    ("headline", "expected"),
    [
        ("a \ue000b\ue001 c", "a <mark>b</mark> c"),
        ("<i>\ue000x\ue001</i>", "&lt;i&gt;<mark>x</mark>&lt;/i&gt;"),
        ("\ue000open", "<mark>open</mark>"),
        ("close\ue001 \ue001", "close "),
        ("\ue000\ue000a\ue001", "<mark>a</mark>"),
        ("", ""),
    ],
)
def test_highlighted_html_escapes_and_keeps_marks_balanced(headline, expected):
    assert highlighted_html(headline) == expected
