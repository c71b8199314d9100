"""The claimant's BibTeX upload (ingest.services.bibtex_upload): preview, confirm, attach to the
record, re-upload, limits. Real files of ../shared/testdata, read where they lie."""

from __future__ import annotations

import pytest

from bzpeer.errors import InvalidRequest
from ingest.models import ImportIssue, ImportRun
from ingest.services.bibtex_upload import (
    MAX_BYTES,
    MAX_ENTRIES,
    PreviewExpired,
    UploadTooLarge,
    bibtex_upload_confirm,
    bibtex_upload_decode,
    bibtex_upload_preview,
)
from publications.models import Authorship, NameOnlyAuthor, Work
from researchers.models import Researcher
from tests.factories import AuthorshipFactory, ResearcherFactory, WorkFactory
from tests.support.people import make_member

pytestmark = pytest.mark.django_db


def _read(testdata_dir, relative: str) -> bytes:
    path = testdata_dir / relative
    assert path.exists(), f"test data missing: {path}"
    return path.read_bytes()


def _upload(user, researcher, raw: bytes, name: str = "mine.bib"):
    token, plan = bibtex_upload_preview(user=user, researcher=researcher, raw=raw, file_name=name)
    return token, plan


def test_ley_bib_previews_nine_new_works_and_writes_them_on_his_record(alice, testdata_dir):
    ley = ResearcherFactory(display_name="Michael Ley", slug="michael-ley")
    raw = _read(testdata_dir, "dblp/ley.bib")
    token, plan = _upload(alice, ley, raw, "ley.bib")
    assert len(plan.new) == 9
    assert plan.matched == [] and plan.rejected == []
    assert Work.objects.count() == 0, "the preview writes nothing"

    result = bibtex_upload_confirm(user=alice, researcher=ley, token=token)

    assert result.created == 9
    assert Work.objects.count() == 9
    assert Authorship.objects.filter(researcher=ley).count() == 9
    run = ImportRun.objects.get()
    assert (run.source, run.status, run.read_count) == ("bibtex", "succeeded", 9)
    ley.refresh_from_db()
    assert ley.works_count == 9, "the record's metrics are refreshed with the confirm"
    # No L0 record was made for his name: his slots are his record.
    assert not Researcher.objects.filter(display_name="Michael Ley").exclude(pk=ley.pk).exists()


def test_the_same_file_again_adds_nothing(alice, testdata_dir):
    ley = ResearcherFactory(display_name="Michael Ley", slug="michael-ley")
    raw = _read(testdata_dir, "dblp/ley.bib")
    bibtex_upload_confirm(user=alice, researcher=ley, token=_upload(alice, ley, raw)[0])
    researchers = Researcher.objects.count()

    token, plan = _upload(alice, ley, raw)
    assert plan.new == []
    assert len(plan.matched) == 9 and all(entry.on_record for entry in plan.matched)
    result = bibtex_upload_confirm(user=alice, researcher=ley, token=token)

    assert (result.created, result.updated, result.unchanged) == (0, 0, 9)
    assert Work.objects.count() == 9
    assert Researcher.objects.count() == researchers


def test_a_name_written_differently_is_still_the_claimant(alice, testdata_dir):
    # 'Radim {\v R}eh{\r u}{\v r}ek' in the file; the record spells it plainly.
    radim = ResearcherFactory(display_name="Radim Rehurek", slug="radim")
    raw = _read(testdata_dir, "bibtex/better-bibtex/Wrong_ring-above_import_issue1115.bib")
    token, plan = _upload(alice, radim, raw)
    assert [entry.claimant_as for entry in plan.new] == ["Radim Řehůřek"]
    bibtex_upload_confirm(user=alice, researcher=radim, token=token)

    authorship = Authorship.objects.get(researcher=radim)
    assert (authorship.position, authorship.raw_name) == (1, "Radim Řehůřek")
    # The coauthor went through the writer's name resolution: a new L0 record of their own.
    other = Authorship.objects.get(position=2)
    assert other.researcher is not None and other.researcher != radim
    assert other.researcher.verification_level == 0


def test_initials_are_the_claimant_and_the_other_authors_are_not(alice, testdata_dir):
    olga = ResearcherFactory(display_name="Olga Perisic", slug="olga")
    raw = _read(testdata_dir, "bibtex/crossref-transform/Burke_2012_10.1073_pnas.1205508109.bib")
    token, plan = _upload(alice, olga, raw)
    assert plan.new[0].claimant_as == "Perisic, Olga"
    bibtex_upload_confirm(user=alice, researcher=olga, token=token)
    assert Authorship.objects.get(researcher=olga).position == 2
    assert NameOnlyAuthor.objects.get(researcher=olga).origin == "bibtex"


def test_an_entry_without_the_claimant_is_rejected_with_the_reason(alice, testdata_dir):
    someone = ResearcherFactory(display_name="Alice Liddell", slug="alice-liddell")
    raw = _read(testdata_dir, "bibtex/crossref-transform/Burke_2012_10.1073_pnas.1205508109.bib")
    token, plan = _upload(alice, someone, raw)
    assert plan.new == [] and len(plan.rejected) == 1
    assert "can be Alice Liddell" in plan.rejected[0].reason
    assert plan.rejected[0].key == "Burke_2012"
    result = bibtex_upload_confirm(user=alice, researcher=someone, token=token)
    assert result.created == 0 and result.rejected == 1
    issue = ImportIssue.objects.get()
    assert issue.severity == ImportIssue.Severity.ERROR and issue.run == result.run


def test_the_parsers_reasons_are_kept_per_entry(alice, testdata_dir):
    somebody = ResearcherFactory(display_name="Wrong Correct", slug="wc")
    raw = _read(testdata_dir, "bibtex/bibtexparser/wrong.bib")
    token, plan = _upload(alice, somebody, raw)
    assert plan.new == []
    assert {entry.key for entry in plan.rejected} == {"foo", "bar"}
    assert all("no title" in entry.reason for entry in plan.rejected)
    result = bibtex_upload_confirm(user=alice, researcher=somebody, token=token)
    assert ImportIssue.objects.filter(run=result.run).count() == 2


def test_an_existing_work_is_matched_by_doi_and_attached(alice, testdata_dir):
    olga = ResearcherFactory(display_name="Olga Perisic", slug="olga")
    work = WorkFactory(doi="10.1073/pnas.1205508109", title="Oncogenic mutations")
    AuthorshipFactory(work=work, researcher=None, position=2, raw_name="O. Perisic")
    token, plan = _upload(
        alice,
        olga,
        _read(testdata_dir, "bibtex/crossref-transform/Burke_2012_10.1073_pnas.1205508109.bib"),
    )
    assert plan.new == []
    [entry] = plan.matched
    assert (entry.work_id, entry.matched_by, entry.on_record) == (work.pk, "DOI", False)

    result = bibtex_upload_confirm(user=alice, researcher=olga, token=token)

    assert Work.objects.count() == 1
    assert result.not_attached == []
    assert Authorship.objects.filter(work=work, researcher=olga).exists()


def test_a_matched_work_that_names_another_identified_person_is_not_taken(alice, testdata_dir):
    olga = ResearcherFactory(display_name="Olga Perisic", slug="olga")
    other = ResearcherFactory(display_name="Olga Perisic", slug="other-olga")
    work = WorkFactory(doi="10.1073/pnas.1205508109")
    AuthorshipFactory(work=work, researcher=other, position=2, raw_name="Olga Perisic")
    token, _plan = _upload(
        alice,
        olga,
        _read(testdata_dir, "bibtex/crossref-transform/Burke_2012_10.1073_pnas.1205508109.bib"),
    )
    result = bibtex_upload_confirm(user=alice, researcher=olga, token=token)
    assert result.not_attached == [work.title]
    assert Authorship.objects.get(work=work, position=2).researcher == other
    warning = ImportIssue.objects.get(run=result.run)
    assert "other-olga" in warning.reason


def test_a_confirm_is_used_once_and_only_by_its_user_for_its_record(alice, testdata_dir):
    ley = ResearcherFactory(display_name="Michael Ley", slug="michael-ley")
    bob = make_member("bob@example.org", display_name="Bob")
    token, _plan = _upload(alice, ley, _read(testdata_dir, "dblp/ley.bib"))
    with pytest.raises(PreviewExpired):
        bibtex_upload_confirm(user=bob, researcher=ley, token=token)
    with pytest.raises(PreviewExpired):
        bibtex_upload_confirm(user=alice, researcher=ResearcherFactory(), token=token)
    bibtex_upload_confirm(user=alice, researcher=ley, token=token)
    with pytest.raises(PreviewExpired):
        bibtex_upload_confirm(user=alice, researcher=ley, token=token)
    with pytest.raises(PreviewExpired):
        bibtex_upload_confirm(user=alice, researcher=ley, token="")


def test_a_file_of_more_entries_than_the_cap_is_refused(alice, testdata_dir):
    raw = _read(testdata_dir, "bibtex/better-bibtex/Unabbreviate_on_import_issue1436-1.bib")
    with pytest.raises(UploadTooLarge, match=f"at most {MAX_ENTRIES}"):
        _upload(alice, ResearcherFactory(), raw)


def test_a_file_over_the_size_cap_is_refused():
    with pytest.raises(UploadTooLarge, match="larger than 2 MB"):
        bibtex_upload_decode(b"%" * (MAX_BYTES + 1))


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"   \n",
        "@article{k, title={x}}".encode("utf-16"),
        b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,
    ],
    ids=["empty", "blank", "utf-16", "png"],
)
def test_what_is_not_a_text_file_is_refused_clearly(raw):
    with pytest.raises(InvalidRequest):
        bibtex_upload_decode(raw)


def test_latin_1_is_read(alice):
    record = ResearcherFactory(display_name="Jürgen Müller", slug="jm")
    raw = "@article{m1, title={Über Dinge}, author={M\u00fcller, J\u00fcrgen}, year=2001}".encode(
        "latin-1"
    )
    _token, plan = _upload(alice, record, raw)
    assert [entry.title for entry in plan.new] == ["Über Dinge"]


def test_text_without_entries_is_refused(alice):
    with pytest.raises(InvalidRequest, match="No BibTeX entries"):
        _upload(alice, ResearcherFactory(), b"This is a letter, not a bibliography.\n")
