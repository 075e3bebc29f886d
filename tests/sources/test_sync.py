"""A source's full cycle on real Git repositories and folders: first sync, change, rename,
delete, a retry after a kill midway, curated fields, frontmatter, paused, bad settings, and
one sync per source at a time."""

from __future__ import annotations

import threading

import psycopg
import pytest
from django.db import connection
from django.test import TestCase

from canonical.models import RecordChange
from kb.models import Document
from kb.services import document_ingest
from sources.connectors.git import GitConnector
from sources.models import Source, SourceItem, SyncState
from sources.services import source_create, source_delete, source_update
from sources.sync import source_sync

ADR = """---
type: decision
status: review
slug: adr-cache
---

# Use Redis for the cache

We cache sessions in Redis.
"""


def live(project):
    return {
        doc.source_path: doc
        for doc in Document.objects.filter(project=project, deleted_at__isnull=True)
    }


def git_source(project, repo, **settings):
    return source_create(
        project=project,
        name="handbook",
        kind="git",
        settings={"url": str(repo.path), "branch": "main", **settings},
    )


def sync(source, **kwargs):
    report = source_sync(source_id=source.pk, **kwargs)
    source.refresh_from_db()
    return report


def test_git_first_sync_change_rename_delete(project, repo):
    repo.write("docs/runbook.md", "# Runbook\n\nRestart the cache with `make restart`.\n")
    repo.write("docs/adr/0001-cache.md", ADR)
    repo.write("src/app.py", "print('not a document')\n")
    first = repo.commit("first")
    source = git_source(project, repo)

    report = sync(source)
    prefix = source.path_prefix
    assert (report.state, report.added, report.changed, report.removed) == ("ok", 2, 0, 0)
    docs = live(project)
    assert sorted(docs) == [f"{prefix}docs/adr/0001-cache.md", f"{prefix}docs/runbook.md"]
    assert source.cursor == first and source.state == SyncState.OK
    assert source.last_run_at is not None and source.next_run_at > source.last_run_at
    runbook = docs[f"{prefix}docs/runbook.md"]
    assert runbook.metadata["source"] == {
        "kind": "git",
        "revision": first,
        "path": "docs/runbook.md",
        "url": "",
    }

    # a change, a rename and a delete in one commit
    repo.write("docs/runbook.md", "# Runbook\n\nRestart the cache with `make bounce`.\n")
    repo.move("docs/adr/0001-cache.md", "docs/decisions/0001-cache.md")
    repo.write("docs/faq.md", "# FAQ\n\nAsk in #docs.\n")
    second = repo.commit("second")
    report = sync(source)
    assert (report.added, report.changed, report.removed, report.failed) == (1, 2, 0, 0)
    docs = live(project)
    assert sorted(docs) == [
        f"{prefix}docs/decisions/0001-cache.md",
        f"{prefix}docs/faq.md",
        f"{prefix}docs/runbook.md",
    ]
    assert docs[f"{prefix}docs/runbook.md"].pk == runbook.pk  # the same document, changed
    assert "make bounce" in "".join(c.text for c in docs[f"{prefix}docs/runbook.md"].chunks.all())
    moved = docs[f"{prefix}docs/decisions/0001-cache.md"]
    assert moved.metadata["source"]["revision"] == second
    assert Document.objects.filter(project=project).count() == 3  # the rename kept its row

    repo.git("rm", "--quiet", "docs/faq.md")
    repo.commit("third")
    report = sync(source)
    assert (report.added, report.changed, report.removed) == (0, 0, 1)
    faq = Document.objects.get(project=project, source_path=f"{prefix}docs/faq.md")
    assert faq.deleted_at is not None
    audit = RecordChange.objects.filter(document=faq, field="deleted_at").get()
    assert (audit.source, audit.actor_name) == ("sync", "source handbook")
    assert SourceItem.objects.filter(source=source).count() == 2

    # nothing new upstream: nothing done
    report = sync(source)
    assert (report.added, report.changed, report.removed, report.state) == (0, 0, 0, "ok")


def test_deleting_a_git_source_removes_its_clone(project, repo, local_roots, settings):

    repo.write("a.md", "# A\n\ntext\n")
    repo.commit()
    source = git_source(project, repo)
    sync(source)
    clones = list((settings.SOURCES_CACHE_DIR / "git").iterdir())
    assert len(clones) == 1
    with TestCase.captureOnCommitCallbacks(execute=True):
        source_delete(source=source)
    assert list((settings.SOURCES_CACHE_DIR / "git").iterdir()) == []


def test_https_source_links_each_file_at_its_commit(project, repo):
    connector = GitConnector({"url": "https://git.example.com/acme/handbook.git"}, "x")
    assert connector.link("docs/run book.md", "abc123") == (
        "https://git.example.com/acme/handbook/blob/abc123/docs/run%20book.md"
    )


def test_globs_choose_the_files(project, repo):
    repo.write("docs/a.md", "# A\n\nalpha text\n")
    repo.write("notes/b.md", "# B\n\nbeta text\n")
    repo.commit()
    source = git_source(project, repo, paths="docs/*.md")
    assert sync(source).added == 1
    assert [path.split("/", 1)[1] for path in live(project)] == ["docs/a.md"]


def test_a_retry_after_a_kill_midway_adds_nothing_twice_and_loses_nothing(
    project, repo, monkeypatch
):
    for number in range(6):
        repo.write(f"docs/page-{number}.md", f"# Page {number}\n\nText number {number}.\n")
    head = repo.commit()
    source = git_source(project, repo)
    calls = {"n": 0}
    real_fetch = GitConnector.fetch

    def dying_fetch(self, change, cursor):
        calls["n"] += 1
        if calls["n"] == 4:
            raise KeyboardInterrupt  # the worker is killed in the middle of the sync
        return real_fetch(self, change, cursor)

    monkeypatch.setattr(GitConnector, "fetch", dying_fetch)
    with pytest.raises(KeyboardInterrupt):
        source_sync(source_id=source.pk)
    source.refresh_from_db()
    assert source.cursor == ""  # not moved: the next run starts from the beginning again
    monkeypatch.setattr(GitConnector, "fetch", real_fetch)
    report = sync(source)
    assert report.state == "ok" and source.cursor == head
    assert len(live(project)) == 6
    assert Document.objects.filter(project=project).count() == 6
    assert SourceItem.objects.filter(source=source).count() == 6
    # and again: every file is unchanged, nothing is added
    source_update(source=source, settings={"url": str(repo.path), "branch": "main"})
    assert sync(source).added == 0
    assert Document.objects.filter(project=project).count() == 6


def test_curated_fields_stay_unless_the_frontmatter_sets_them(project, repo):
    repo.write("docs/guide.md", "# Guide\n\nDeploy on Tuesdays.\n")
    repo.write("docs/adr.md", ADR)
    repo.commit()
    source = git_source(project, repo)
    sync(source)
    prefix = source.path_prefix
    guide = Document.objects.get(source_path=f"{prefix}docs/guide.md")
    adr = Document.objects.get(source_path=f"{prefix}docs/adr.md")
    assert (adr.canonical_type, adr.canonical_status) == ("decision", "review")
    # editors curate here
    Document.objects.filter(pk=guide.pk).update(
        canonical_type="runbook", canonical_status="accepted", retrieval_priority=90
    )
    Document.objects.filter(pk=adr.pk).update(canonical_status="accepted", retrieval_priority=80)

    repo.write("docs/guide.md", "# Guide\n\nDeploy on Wednesdays.\n")
    repo.write("docs/adr.md", ADR.replace("sessions", "sessions and pages"))
    repo.commit()
    sync(source)
    guide.refresh_from_db()
    adr.refresh_from_db()
    # the file says nothing about them: kept
    assert (guide.canonical_type, guide.canonical_status) == ("runbook", "accepted")
    assert (guide.retrieval_priority, guide.evidence_tier) == (90, "canonical")
    # the ADR's frontmatter names its status (the file wins) but not its priority (kept)
    assert (adr.canonical_status, adr.retrieval_priority) == ("review", 80)

    # the file's own frontmatter sets them: the source wins
    repo.write(
        "docs/adr.md", ADR.replace("status: review", "status: deprecated\nretrieval_priority: 10")
    )
    repo.commit()
    sync(source)
    adr.refresh_from_db()
    assert (adr.canonical_status, adr.retrieval_priority) == ("deprecated", 10)


def test_uploads_still_take_every_field_from_the_file(project):
    first = document_ingest(project=project, source_path="up/a.md", content="# A\n\ntext\n")
    Document.objects.filter(pk=first.document.pk).update(retrieval_priority=90)
    again = document_ingest(project=project, source_path="up/a.md", content="# A\n\nnew text\n")
    assert again.document.retrieval_priority == 50


def test_a_force_push_lists_everything_and_removes_what_is_gone(project, repo):
    repo.write("a.md", "# A\n\nfirst\n")
    repo.write("b.md", "# B\n\nsecond\n")
    repo.commit()
    source = git_source(project, repo)
    sync(source)
    # history rewritten: the synced commit is gone from the branch
    repo.git("checkout", "--quiet", "--orphan", "rewritten")
    repo.git("rm", "--quiet", "--cached", "b.md")
    (repo.path / "b.md").unlink()
    repo.commit("rewritten")
    repo.git("branch", "--quiet", "-M", "main")
    repo.git("gc", "--quiet", "--prune=now")
    Source.objects.filter(pk=source.pk).update(cursor="0" * 40)  # a commit the clone lacks
    report = sync(source)
    assert report.removed == 1 and report.state == "ok"
    assert [path.split("/", 1)[1] for path in live(project)] == ["a.md"]


def test_bad_url_or_branch_is_a_clear_error_on_the_source(project, repo, local_roots):
    repo.write("a.md", "# A\n\ntext\n")
    repo.commit()
    source = git_source(project, repo, branch="release")
    report = sync(source)
    assert report.state == "failed"
    assert source.last_error == "The repository has no branch 'release'."
    assert source.state == SyncState.FAILED and source.next_run_at is not None

    (local_roots / "empty").mkdir()
    other = source_create(
        project=project, name="other", kind="git", settings={"url": str(local_roots / "empty")}
    )
    sync(other)
    assert other.last_error.startswith("No Git repository at ")


def test_bad_credentials_are_a_clear_error(project, local_roots, monkeypatch):
    from sources.connectors import git

    def refused(*args, **kwargs):
        import subprocess

        return subprocess.CompletedProcess(
            args, 128, b"", b"fatal: Authentication failed for 'https://git.example.com/x.git/'\n"
        )

    source = source_create(
        project=project,
        name="private",
        kind="git",
        settings={"url": "https://git.example.com/x.git", "token": "wrong"},
    )
    monkeypatch.setattr(git.subprocess, "run", refused)
    sync(source)
    assert source.state == SyncState.FAILED
    assert source.last_error == (
        "The repository refused the credentials: check the token (https://git.example.com/x.git)."
    )
    assert "wrong" not in source.last_error


def test_a_paused_source_syncs_only_when_run_by_hand(project, repo):
    repo.write("a.md", "# A\n\ntext\n")
    repo.commit()
    source = git_source(project, repo)
    source_update(source=source, paused=True)
    assert source.next_run_at is None
    assert sync(source, manual=False).state == "paused"
    assert live(project) == {}
    assert sync(source, manual=True).added == 1


def test_one_sync_per_source_at_a_time(project, repo, alpha):
    repo.write("a.md", "# A\n\ntext\n")
    repo.commit()
    source = git_source(project, repo)
    dsn = connection.get_connection_params()
    held = threading.Event()
    release = threading.Event()

    def other_worker():
        params = {
            k: v for k, v in dsn.items() if k in ("host", "port", "user", "password", "dbname")
        }
        key = [f"sources:{alpha.schema}", source.pk]
        with psycopg.connect(**params, autocommit=True) as other:
            other.execute("SELECT pg_advisory_lock(hashtext(%s), %s)", key)
            held.set()
            release.wait(30)
            # unlocked before the session ends: its end reaches the server a moment later
            other.execute("SELECT pg_advisory_unlock(hashtext(%s), %s)", key)

    thread = threading.Thread(target=other_worker)
    thread.start()
    try:
        assert held.wait(30)
        assert sync(source).state == "busy"
        assert live(project) == {}
    finally:
        release.set()
        thread.join()
    assert sync(source).added == 1


def test_folder_source_full_cycle(project, local_roots):
    folder = local_roots / "share"
    (folder / "policies").mkdir(parents=True)
    (folder / "policies" / "leave.md").write_text("# Leave\n\n25 days a year.\n")
    (folder / "policies" / "travel.md").write_text("# Travel\n\nBook economy.\n")
    (folder / "image.png").write_bytes(b"\x89PNG")
    source = source_create(
        project=project, name="share", kind="folder", settings={"path": str(folder)}
    )
    report = sync(source)
    prefix = source.path_prefix
    assert (report.added, report.state) == (2, "ok")
    leave = live(project)[f"{prefix}policies/leave.md"]

    (folder / "policies" / "leave.md").write_text("# Leave\n\n30 days a year.\n")
    (folder / "policies" / "travel.md").rename(folder / "travel-policy.md")
    report = sync(source)
    assert (report.added, report.changed, report.removed) == (0, 2, 0)
    docs = live(project)
    assert sorted(docs) == [f"{prefix}policies/leave.md", f"{prefix}travel-policy.md"]
    assert docs[f"{prefix}policies/leave.md"].pk == leave.pk

    (folder / "travel-policy.md").unlink()
    report = sync(source)
    assert report.removed == 1
    assert sorted(live(project)) == [f"{prefix}policies/leave.md"]


def test_local_paths_outside_the_allowed_roots_are_refused(project, local_roots, settings):
    from sources.services import SourceError

    with pytest.raises(SourceError) as caught:
        source_create(project=project, name="etc", kind="folder", settings={"path": "/etc"})
    assert "outside the folders this server allows" in caught.value.errors["settings.path"][0]
    settings.SOURCES_LOCAL_ROOTS = []
    with pytest.raises(SourceError) as caught:
        source_create(project=project, name="etc", kind="git", settings={"url": "/etc"})
    assert "Local paths are off" in caught.value.errors["settings.url"][0]
    with pytest.raises(SourceError) as caught:
        source_create(project=project, name="x", kind="git", settings={"url": "ext::sh -c id"})
    assert caught.value.errors["settings.url"] == [
        "Give an https:// URL or an absolute local path."
    ]


class PagesConnector:
    """A connector whose items have stable ids and paths that change (a wiki's pages)."""

    def __init__(self, pages: dict[str, tuple[str, str]]) -> None:
        self.pages = pages  # id -> (path, text)

    def changes(self, cursor):
        from sources.connectors.base import Change, ChangeKind, ChangeSet

        return ChangeSet(
            changes=[
                Change(kind=ChangeKind.UPSERT, external_id=page_id, path=path)
                for page_id, (path, _) in self.pages.items()
            ],
            cursor=str(int(cursor or 0) + 1),
            full=True,
        )

    def fetch(self, change, cursor):
        from sources.connectors.base import Fetched

        return Fetched(content=self.pages[change.external_id][1].encode(), name=change.path)

    def close(self):
        pass


def test_an_item_with_a_stable_id_and_a_new_path_keeps_its_document(project, local_roots):
    (local_roots / "f").mkdir()
    source = source_create(
        project=project, name="wiki", kind="folder", settings={"path": str(local_roots / "f")}
    )
    pages = {"101": ("Onboarding.md", "# Onboarding\n\nGet a laptop.\n")}
    assert source_sync(source_id=source.pk, connector=PagesConnector(pages)).added == 1
    before = Document.objects.get(project=project)
    pages["101"] = ("Onboarding guide.md", "# Onboarding guide\n\nGet a laptop.\n")
    report = source_sync(source_id=source.pk, connector=PagesConnector(pages))
    assert (report.added, report.changed) == (0, 1)
    after = Document.objects.get(project=project)
    assert after.pk == before.pk and after.source_path == f"{source.path_prefix}Onboarding guide.md"
