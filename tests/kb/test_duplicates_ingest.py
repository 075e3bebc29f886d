"""Near-duplicate documents found at ingest (issue 30 part 4): the ingest's warning, the groups
on the editors' Documents page, and one document per group cited in an answer."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from chat.models import Message
from chat.services import message_send
from kb.filters import SearchFilters
from kb.models import Document, IngestJob
from kb.selectors import duplicate_groups
from kb.services import document_ingest, document_soft_delete
from kb.worker import run_queued_tasks
from portal.access.services import project_ensure
from tests.conftest import make_user

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "document-list"}
POLICY = """# Backup retention policy

The Kestrel vault keeps every nightly backup for four hundred days, and the Osprey vault
keeps ninety days. Encryption keys rotate every forty five days; the on-call engineer approves
each rotation before nine in the morning. Restores are tested every quarter on a random two
percent of the snapshots, compared byte for byte with their checksums, and the results are
filed with the security officer.
"""
# the wiki's copy: its own heading and one sentence reworded
WIKI_COPY = POLICY.replace("# Backup retention policy", "# Backup retention (wiki)").replace(
    "before nine in the morning", "before ten in the morning"
)
CURATED = "---\ntype: standard\nstatus: accepted\nslug: backup-retention-standard\n---\n\n" + POLICY
PAGER = "# Pager duty\n\nThe pager rotates every Monday at nine; the week's engineer carries it.\n"
QUESTION = "How long does the Kestrel vault keep nightly backups?"


@pytest.fixture
def world(alpha, settings):
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.0}
    project = project_ensure(key="ops")
    project_ensure(key="other")
    editor = make_user(alpha, "dup-editor", projects={"ops": "editor", "other": "editor"})
    return {"project": project, "editor": editor}


def ingest(project, path: str, content: str):
    outcome = document_ingest(project=project, source_path=path, content=content)
    assert outcome.document is not None, outcome
    return outcome


def test_a_wiki_copy_is_found_at_ingest_and_named_in_the_warning(world):
    first = ingest(world["project"], "policies/backup.md", POLICY)
    assert not [w for w in first.warnings if "near-duplicate" in w]
    copy = ingest(world["project"], "wiki/backup-retention.md", WIKI_COPY)
    [warning] = [w for w in copy.warnings if "near-duplicate" in w]
    assert "'Backup retention policy' (policies/backup.md, similarity 0." in warning
    assert "an answer cites only one of them" in warning
    # another project (or tenant) is another world: no group across it
    elsewhere = ingest(project_ensure(key="other"), "backup.md", POLICY)
    assert not [w for w in elsewhere.warnings if "near-duplicate" in w]


def test_exact_copies_are_a_group_with_similarity_one_and_a_re_upload_stays_one_document(world):
    project = world["project"]
    ingest(project, "policies/backup.md", POLICY)
    again = ingest(project, "policies/backup.md", POLICY)
    assert again.status == "skipped" and not again.warnings  # the same file: as before
    copy = ingest(project, "copies/backup.md", POLICY)
    assert any("similarity 1.00" in w for w in copy.warnings)
    [group] = duplicate_groups(user=world["editor"], project_key="ops")
    assert [m.document.source_path for m in group.members] == [
        "copies/backup.md",  # the newest stands in
        "policies/backup.md",
    ]
    assert [m.similarity for m in group.members] == [1.0, 1.0]


def test_the_documents_page_shows_which_documents_are_near_duplicates_of_which(alpha, world):
    project = world["project"]
    ingest(project, "policies/backup.md", POLICY)
    copy = ingest(project, "wiki/backup-retention.md", WIKI_COPY).document
    ingest(project, "pager.md", PAGER)
    client = alpha.client()
    client.force_login(world["editor"])
    page = client.get("/documents/ops/").content.decode()
    assert "Near-duplicates (1 group)" in page
    groups = page[page.index('class="duplicate-groups"') :]
    assert "Pager duty" not in groups
    cited = re.search(r'<li data-document-id="(\d+)" data-stands-in>', groups)
    assert cited and int(cited.group(1)) == copy.pk  # the newest is the one cited
    assert re.search(r"Backup retention policy</span> <small[^>]*>policies/backup.md</small>\s*"
                     r'<span class="similarity">\d+% similar</span>', groups)  # fmt: skip

    fragment = client.get("/documents/ops/list", **HTMX).content.decode()
    assert "<html" not in fragment and "Near-duplicates (1 group)" in fragment
    # deleting the copy dissolves the group
    document_soft_delete(document=copy)
    assert "Near-duplicates" not in client.get("/documents/ops/list", **HTMX).content.decode()
    # a reader of the project does not get the page (as before): 404
    reader = make_user(alpha, "dup-reader", projects={"ops": "reader"})
    client.force_login(reader)
    assert client.get("/documents/ops/").status_code == 404


def test_uploads_through_the_queue_report_the_near_duplicate_on_the_job(alpha, world):
    client = alpha.client()
    client.force_login(world["editor"])
    for name, text in (("backup.md", POLICY), ("backup-copy.md", WIKI_COPY)):
        upload = SimpleUploadedFile(name, text.encode())
        client.post("/documents/ops/upload", {"files": [upload]}, HTTP_HX_REQUEST="true")
        run_queued_tasks()
    job = IngestJob.objects.get(source_path="backup-copy.md")
    assert job.state == "done"
    assert any("near-duplicate of 'Backup retention policy'" in w for w in job.warnings)


def ask(user) -> Message:
    turn = message_send(user=user, question=QUESTION, filters=SearchFilters(project_keys=("ops",)))
    assert turn.refusal_reason is None, turn
    return Message.objects.filter(conversation=turn.conversation, role="assistant").latest("id")


def cited_documents(answer: Message) -> set[int]:
    return {citation["document_id"] for citation in answer.citations}


def test_an_answer_in_two_near_duplicates_cites_only_the_newest(world):
    older = ingest(world["project"], "policies/backup.md", POLICY).document
    newer = ingest(world["project"], "wiki/backup-retention.md", WIKI_COPY).document
    answer = ask(world["editor"])
    assert "four hundred days" in answer.content
    assert cited_documents(answer) == {newer.pk}
    assert older.pk not in {c["document_id"] for c in answer.citations}


def test_an_answer_in_two_near_duplicates_cites_the_curated_record_even_if_older(world):
    record = ingest(world["project"], "standards/backup.md", CURATED).document
    assert record.canonical_type == "standard"
    ingest(world["project"], "wiki/backup-retention.md", WIKI_COPY)
    answer = ask(world["editor"])
    assert "four hundred days" in answer.content
    assert cited_documents(answer) == {record.pk}


def test_without_a_near_duplicate_both_documents_may_be_cited(world, settings):
    # the same two documents below the threshold are two sources, as before
    settings.KB = {**settings.KB, "DUPLICATE_THRESHOLD": 0.99}
    ingest(world["project"], "policies/backup.md", POLICY)
    ingest(world["project"], "wiki/backup-retention.md", WIKI_COPY)
    assert duplicate_groups(user=world["editor"], project_key="ops") == []
    assert len(Document.objects.filter(project__key="ops")) == 2


def test_the_migration_gives_documents_stored_before_it_their_signature(world):
    import importlib

    from django.apps import apps

    migration = importlib.import_module("kb.migrations.0008_document_minhash")
    document = ingest(world["project"], "policies/backup.md", POLICY).document
    at_ingest = Document.objects.values_list("minhash", "minhash_bands").get(pk=document.pk)
    assert at_ingest[0] and at_ingest[1]
    Document.objects.filter(pk=document.pk).update(minhash=[], minhash_bands=[])
    migration.backfill(apps, None)
    # the same signature as an ingest computes: old and new documents compare
    assert Document.objects.values_list("minhash", "minhash_bands").get(pk=document.pk) == (
        at_ingest
    )
