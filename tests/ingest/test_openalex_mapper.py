"""The OpenAlex mapper, field by field, on real records from the shared corpus (2021, 2023 and
2025 schemas) and on small records of our own."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from ingest.openalex import mapper
from ingest.records import MappingError


def _load(testdata_dir: Path, relative: str) -> dict:
    return json.loads((testdata_dir / "openalex" / relative).read_text(encoding="utf-8"))


def _first_line(testdata_dir: Path, relative: str) -> dict:
    path = testdata_dir / "openalex" / relative
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return json.loads(handle.readline())


AUTHORS_OF_W2741809807 = [
    ("Heather Piwowar", "A5048491430"),
    ("Jason Priem", "A5023888391"),
    ("Vincent Larivière", "A5068542997"),
    ("Juan Pablo Alperin", "A5085171399"),
    ("Lisa Matthias", "A5066880338"),
    ("Bree Norlander", "A5015414792"),
    ("Ashley Farley", "A5062989025"),
    ("Jevin West", "A5046879461"),
    ("Stefanie Haustein", "A5014077037"),
]


def test_a_2025_work_maps_field_by_field(testdata_dir):
    work = mapper.map_work(_load(testdata_dir, "api/works/bv_W2741809807.json"))

    assert work.openalex_id == "W2741809807"
    assert work.doi == "10.7717/peerj.4375"
    assert work.arxiv_id is None
    assert work.title.startswith("The state of OA: a large-scale analysis")
    assert work.type == "article"
    assert (work.publication_year, work.publication_date) == (2018, "2018-02-13")
    assert work.source.name == "PeerJ" and work.source.openalex_id == "S1983995261"
    assert [(a.position, a.raw_name, a.author.openalex_id) for a in work.authorships] == [
        (position, name, author_id)
        for position, (name, author_id) in enumerate(AUTHORS_OF_W2741809807, start=1)
    ]
    assert work.authorships[0].author.orcid == "0000-0003-1613-5981"
    assert [i.name for i in work.authorships[2].institutions] == [
        "Université de Montréal",
        "Université du Québec à Montréal",
    ]
    assert work.authorships[0].institutions[0].ror == "05ppvf150"
    assert work.abstract.startswith(
        "Despite growing interest in Open Access (OA) to scholarly literature,"
    )
    assert work.abstract.endswith("as a way to inform OA policy and practice.")
    assert [(t.topic.external_id, t.score) for t in work.topics] == [
        ("T10102", 0.9969),
        ("T13607", 0.9807),
        ("T11937", 0.9185),
    ]
    first = work.topics[0]
    assert first.topic.name == "scientometrics and bibliometrics research"
    assert [(a.external_id, a.level) for a in first.ancestors] == [
        ("domains/2", "domain"),
        ("fields/18", "field"),
        ("subfields/1804", "subfield"),
    ]
    assert first.topic.parent_external_id == "subfields/1804"
    assert work.cited_by_count > 0 and (2024, 118) in work.counts_by_year


def test_the_same_work_in_the_2023_schema_maps_to_the_same_identity(testdata_dir):
    old = mapper.map_work(_load(testdata_dir, "api/works/go_W2741809807_2023schema.json"))
    new = mapper.map_work(_load(testdata_dir, "api/works/bv_W2741809807.json"))

    assert (old.openalex_id, old.doi, old.title, old.source.name) == (
        new.openalex_id,
        new.doi,
        new.title,
        new.source.name,
    )
    assert [a.raw_name for a in old.authorships] == [a.raw_name for a in new.authorships]
    # OpenAlex re-disambiguated the fourth author between the two snapshots; ids follow the record.
    old_ids = [a.author.openalex_id for a in old.authorships]
    new_ids = [a.author.openalex_id for a in new.authorships]
    assert [i for i, (a, b) in enumerate(zip(old_ids, new_ids, strict=True)) if a != b] == [3]
    assert old.abstract == new.abstract
    assert old.type == "article"  # "journal-article" in the 2023 schema
    assert old.topics == ()  # that schema had concepts, not topics
    assert old.source_updated_at < new.source_updated_at


def test_a_2021_snapshot_work_reads_the_legacy_venue_and_abstract(testdata_dir):
    work = mapper.map_work(
        _first_line(testdata_dir, "snapshot/works/updated_date=2021-11-03/part_000")
    )

    assert work.openalex_id == "W1612067013"
    assert work.source.name == "Healthcare quarterly (Toronto)"
    assert work.doi == "10.12927/hcq.2008.19503"
    assert [a.raw_name for a in work.authorships] == [
        "Kevin J. Leonard",
        "Mark Casselman",
        "David Wiljer",
    ]
    assert work.authorships[0].institutions[0].name == "University of Toronto"


def test_an_arxiv_preprint_gets_its_arxiv_id_from_the_datacite_doi(testdata_dir):
    page = _load(testdata_dir, "api/works/pqa_search_title_paperqa_arxiv.json")
    work = mapper.map_work(page["results"][0])

    assert work.doi == "10.48550/arxiv.2312.07559"
    assert work.arxiv_id == "2312.07559"
    assert work.type == "preprint"
    assert work.source.name == "arXiv (Cornell University)"
    assert [a.raw_name for a in work.authorships][:2] == ["Lála, Jakub", "O'Donoghue, Odhran"]


def test_a_work_without_an_arxiv_doi_finds_the_id_in_its_locations(testdata_dir):
    works = {
        w["id"]: w for w in _load(testdata_dir, "api/works/oap_openalex_ids_page_2.json")["results"]
    }
    arxiv_only = mapper.map_work(works["https://openalex.org/W3045921891"])
    published = mapper.map_work(works["https://openalex.org/W3046863325"])

    assert arxiv_only.arxiv_id == "2007.14454"
    assert published.arxiv_id is None and published.doi == "10.1145/3383583.3398584"


def test_a_work_with_no_authorships_maps_with_an_empty_byline(testdata_dir):
    work = mapper.map_work(
        _load(testdata_dir, "api/works/pqa_work_doi_10.1007_s40278-023-41815-2.json")
    )

    assert work.authorships == ()
    assert work.doi == "10.1007/s40278-023-41815-2"


def test_authors_in_both_schemas_map_to_the_same_person(testdata_dir):
    old = mapper.map_author(_load(testdata_dir, "api/authors/go_A5023888391_2023schema.json"))
    new = mapper.map_author(_load(testdata_dir, "api/authors/bv_A5023888391.json"))

    assert (old.openalex_id, old.display_name, old.orcid) == (
        new.openalex_id,
        new.display_name,
        new.orcid,
    )
    assert new.orcid == "0000-0001-6187-6610"
    assert old.last_known_institution.name == new.last_known_institution.name == "OurResearch"
    assert "Priem Jason" in new.alternate_names
    johns_hopkins = next(
        a for a in new.affiliations if a.institution.name == "Johns Hopkins University"
    )
    assert (johns_hopkins.start_year, johns_hopkins.end_year) == (2020, 2020)
    assert old.affiliations == ()  # the 2023 schema had no affiliation history


def test_an_institution_gets_its_email_domain_from_its_homepage(testdata_dir):
    institution = mapper.map_institution(_load(testdata_dir, "api/institutions/bv_I27837315.json"))

    assert (institution.openalex_id, institution.name) == ("I27837315", "University of Michigan")
    assert institution.ror == "00jmfr291"
    assert institution.country_code == "US"
    assert institution.email_domains == ("umich.edu",)


def test_a_topic_maps_with_its_hierarchy(testdata_dir):
    mapped = mapper.map_topic(_load(testdata_dir, "api/topics/bv_T11636.json"))
    topic, ancestors = mapped.topic, mapped.ancestors

    assert (topic.external_id, topic.name) == (
        "T11636",
        "Artificial Intelligence in Healthcare and Education",
    )
    assert topic.description.startswith("This cluster of papers")
    assert [a.name for a in ancestors] == ["Health Sciences", "Medicine", "Health Informatics"]


def test_a_source_keeps_its_short_name(testdata_dir):
    source = mapper.map_source(_load(testdata_dir, "api/sources/bv_S137773608.json"))

    assert (source.openalex_id, source.name, source.issn_l) == ("S137773608", "Nature", "0028-0836")


# --- records of our own ------------------------------------------------------------------------


def test_our_fixture_work_keeps_code_url_and_escapes_nothing(fixtures_dir):
    lines = (fixtures_dir / "openalex/works_good.jsonl").read_text(encoding="utf-8").splitlines()
    first, _, third = (mapper.map_work(json.loads(line)) for line in lines)

    assert first.doi == "10.99998/example.1"  # normalised: lower case, no URL prefix
    assert first.code_url == "https://github.com/example/optics"
    assert (
        first.abstract
        == "We study optical interconnects. Code is available at https://github.com/example/optics."
    )
    assert (
        third.title == "A note on $O(n^2)$ <script>alert(1)</script> bounds"
    )  # stored as is, escaped on output


@pytest.mark.parametrize(
    ("record", "reason"),
    [
        ({"title": "no id"}, "record has no id"),
        ({"id": "https://openalex.org/A123", "title": "x"}, "id A123 is not a work id"),
        (
            {"id": "https://openalex.org/W1", "title": 5},
            "field 'title' is a number, expected a string",
        ),
        (
            {"id": "https://openalex.org/W1", "title": "x", "publication_year": "2020"},
            "field 'publication_year' is a string, expected a number",
        ),
        (
            {"id": "https://openalex.org/W1", "title": "x", "authorships": [3]},
            "authorship 1 is a number, expected an object",
        ),
        ({"id": "https://openalex.org/W1", "title": "  "}, "work has no title"),
        (
            {"id": "https://openalex.org/W1", "title": "x", "abstract_inverted_index": "text"},
            "field 'abstract_inverted_index' is a string, expected an object",
        ),
    ],
)
def test_unusable_works_are_rejected_with_a_reason(record, reason):
    with pytest.raises(MappingError) as error:
        mapper.map_work(record)
    assert str(error.value) == reason


@pytest.mark.parametrize(
    ("raw", "doi"),
    [
        ("https://doi.org/10.1023/A:1007154515475", "10.1023/a:1007154515475"),
        ("http://dx.doi.org/10.1000/XYZ", "10.1000/xyz"),
        ("doi:10.1000/abc", "10.1000/abc"),
        ("not a doi", None),
        (None, None),
    ],
)
def test_dois_are_normalised(raw, doi):
    assert mapper.normalize_doi(raw) == doi


def test_the_abstract_is_rebuilt_in_word_order():
    index = {"world": [1, 3], "hello": [0], "again,": [2]}
    assert mapper.abstract_from_inverted_index(index) == "hello world again, world"
