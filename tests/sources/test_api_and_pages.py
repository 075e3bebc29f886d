"""Sources through the API and the Sources page: editors add, edit, pause, run now and delete;
secrets are never shown back; a reader or another tenant's user gets the same 404 as for a
missing source; the queue runs the syncs (run now and the schedule)."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from kb.models import Document
from kb.worker import enqueue_due_periodic_tasks, run_queued_tasks
from portal.access.services import project_ensure
from sources.models import Source, SyncState
from sources.services import source_create
from tests.conftest import make_user, token_for

HTMX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "source-list"}
TOKEN = "ghp_very-secret-token-123"


@pytest.fixture
def people(alpha, beta):
    project_ensure(key="handbook")
    project_ensure(key="other")
    editor = make_user(alpha, "src-editor", projects={"handbook": "editor", "other": "reader"})
    reader = make_user(alpha, "src-reader", projects={"handbook": "reader"})
    stranger = make_user(beta, "src-stranger", superuser=True)
    return {
        "editor": token_for(alpha, editor),
        "reader": token_for(alpha, reader),
        "stranger": token_for(beta, stranger),
    }


def api(info, token, method, path, body=None):
    client = info.client(HTTP_AUTHORIZATION=f"Token {token}")
    call = getattr(client, method)
    if body is None:
        return call(path)
    return call(path, data=json.dumps(body), content_type="application/json")


def test_api_add_list_edit_pause_run_and_delete(alpha, people, repo, settings):
    repo.write("docs/a.md", "# A\n\nThe first page.\n")
    repo.commit()
    body = {
        "project_key": "handbook",
        "name": "Handbook repo",
        "kind": "git",
        "settings": {"url": str(repo.path), "branch": "main", "token": TOKEN},
        "interval_minutes": 30,
    }
    created = api(alpha, people["editor"], "post", "/api/sources", body)
    assert created.status_code == 201, created.content
    data = created.json()
    assert data["settings"] == {
        "url": str(repo.path),
        "branch": "main",
        "paths": data["settings"]["paths"],
    }
    assert data["secrets_set"] == ["token"] and data["state"] == "queued"
    assert TOKEN not in created.content.decode()
    source = Source.objects.get(pk=data["id"])
    assert TOKEN not in json.dumps(source.secrets)  # encrypted at rest

    run_queued_tasks()  # the first sync, queued by the add
    detail = api(alpha, people["editor"], "get", f"/api/sources/{source.pk}").json()
    assert (detail["state"], detail["added"], detail["last_error"]) == ("ok", 1, "")
    assert TOKEN not in json.dumps(detail)
    assert Document.objects.filter(project__key="handbook", deleted_at__isnull=True).count() == 1

    # an edit that leaves the secret out keeps it
    edited = api(
        alpha,
        people["editor"],
        "patch",
        f"/api/sources/{source.pk}",
        {
            "settings": {"url": str(repo.path), "branch": "main", "paths": ["docs/*.md"]},
            "paused": True,
        },
    )
    assert edited.status_code == 200
    assert edited.json()["secrets_set"] == ["token"] and edited.json()["paused"] is True
    source.refresh_from_db()
    assert set(source.secrets) == {"token"} and source.next_run_at is None

    repo.write("docs/b.md", "# B\n\nThe second page.\n")
    repo.commit()
    assert api(alpha, people["editor"], "post", f"/api/sources/{source.pk}/run").status_code == 202
    run_queued_tasks()
    assert api(alpha, people["editor"], "get", f"/api/sources/{source.pk}").json()["added"] == 1
    assert Document.objects.filter(project__key="handbook", deleted_at__isnull=True).count() == 2

    bad = api(
        alpha, people["editor"], "patch", f"/api/sources/{source.pk}", {"interval_minutes": 1}
    )
    assert bad.status_code == 400 and "interval_minutes" in bad.json()
    bad = api(
        alpha, people["editor"], "patch", f"/api/sources/{source.pk}", {"settings": {"branch": "x"}}
    )
    assert bad.status_code == 400 and bad.json() == {"settings.url": ["This field is required."]}

    assert api(alpha, people["editor"], "delete", f"/api/sources/{source.pk}").status_code == 204
    assert not Source.objects.filter(pk=source.pk).exists()
    assert Document.objects.filter(project__key="handbook", deleted_at__isnull=True).count() == 0


def test_api_bad_input_is_a_clear_400(alpha, people, local_roots):
    body = {"project_key": "handbook", "name": "x", "kind": "svn", "settings": {}}
    response = api(alpha, people["editor"], "post", "/api/sources", body)
    assert response.status_code == 400 and "kind" in response.json()
    body = {"project_key": "handbook", "name": "x", "kind": "folder", "settings": {"path": "/etc"}}
    response = api(alpha, people["editor"], "post", "/api/sources", body)
    assert response.status_code == 400 and "settings.path" in response.json()
    folder = local_roots / "f"
    folder.mkdir()
    body = {
        "project_key": "handbook",
        "name": "x",
        "kind": "folder",
        "settings": {"path": str(folder)},
    }
    assert api(alpha, people["editor"], "post", "/api/sources", body).status_code == 201
    again = api(alpha, people["editor"], "post", "/api/sources", body)
    assert again.status_code == 400 and again.json() == {
        "name": ["The project has a source of this name."]
    }


def test_readers_and_other_tenants_get_404_and_readers_cannot_add(alpha, beta, people, local_roots):
    folder = local_roots / "f"
    folder.mkdir()
    with alpha.scope():
        source = source_create(
            project=project_ensure(key="handbook"),
            name="share",
            kind="folder",
            settings={"path": str(folder)},
            paused=True,
        )
    missing = api(alpha, people["editor"], "get", "/api/sources/999999")
    assert missing.status_code == 404
    for who, info in (("reader", alpha), ("stranger", beta)):
        for method in ("get", "patch", "delete"):
            response = api(
                info,
                people[who],
                method,
                f"/api/sources/{source.pk}",
                {} if method == "patch" else None,
            )
            assert (response.status_code, response.json()) == (404, missing.json()), (who, method)
        assert api(info, people[who], "post", f"/api/sources/{source.pk}/run").status_code == 404
        assert api(info, people[who], "get", "/api/sources").json() == []
    body = {
        "project_key": "handbook",
        "name": "y",
        "kind": "folder",
        "settings": {"path": str(folder)},
    }
    assert api(alpha, people["reader"], "post", "/api/sources", body).status_code == 403
    assert api(beta, people["stranger"], "post", "/api/sources", body).status_code == 404
    with alpha.scope():
        assert Source.objects.filter(pk=source.pk).exists()


def test_the_schedule_queues_due_sources_once(alpha, people, repo, settings):
    repo.write("a.md", "# A\n\ntext\n")
    repo.commit()
    project = project_ensure(key="handbook")
    source = source_create(project=project, name="r", kind="git", settings={"url": str(repo.path)})
    run_queued_tasks()
    source.refresh_from_db()
    assert source.state == SyncState.OK and source.last_added == 1
    paused = source_create(
        project=project, name="p", kind="git", settings={"url": str(repo.path)}, paused=True
    )
    # due: its next run has come
    Source.objects.filter(pk=source.pk).update(next_run_at=timezone.now())
    settings.PERIODIC_TASKS = {"sources.tasks.sources_sync_due": 60}
    assert enqueue_due_periodic_tasks(now=10_000_000.0) == ["sources.tasks.sources_sync_due"]
    repo.write("a.md", "# A\n\nnew text\n")
    repo.commit()
    run_queued_tasks()  # the check, then the sync it queued
    source.refresh_from_db()
    paused.refresh_from_db()
    assert (source.last_changed, source.state) == (1, SyncState.OK)
    assert source.next_run_at > timezone.now()
    assert paused.last_run_at is None  # a paused source is left alone


# --- the page ----------------------------------------------------------------------------


@pytest.fixture
def editor_client(alpha, people):
    client = alpha.client()
    client.login(username="src-editor", password="pw-secret-123")
    return client


def test_page_add_edit_pause_run_delete(alpha, editor_client, repo):
    repo.write("docs/a.md", "# A\n\nThe first page.\n")
    repo.commit()
    page = editor_client.get("/sources/handbook/")
    assert page.status_code == 200 and b"No sources yet" in page.content

    bad = editor_client.post(
        "/sources/handbook/add",
        {"kind": "git", "name": "", "setting-url": "ext::sh", "interval_minutes": "1"},
    )
    assert bad.status_code == 400
    html = bad.content.decode()
    assert "Give the source a name." in html and "Give an https:// URL" in html
    assert "Between 5 and 10080 minutes" in html

    added = editor_client.post(
        "/sources/handbook/add",
        {
            "kind": "git",
            "name": "Handbook",
            "setting-url": str(repo.path),
            "setting-branch": "main",
            "setting-paths": "docs/*.md\n*.pdf",
            "setting-token": TOKEN,
            "interval_minutes": "30",
        },
    )
    assert added.status_code == 302
    source = Source.objects.get(name="Handbook")
    assert source.settings["paths"] == ["docs/*.md", "*.pdf"]
    run_queued_tasks()
    page = editor_client.get("/sources/handbook/").content.decode()
    assert "Handbook" in page and 'data-testid="added">1<' in page and TOKEN not in page

    edit = editor_client.get(f"/sources/handbook/{source.pk}/edit").content.decode()
    assert TOKEN not in edit and "A value is stored; it is never shown." in edit
    saved = editor_client.post(
        f"/sources/handbook/{source.pk}/edit",
        {"name": "Handbook repo", "setting-url": str(repo.path), "setting-branch": "main",
         "setting-paths": "docs/*.md", "setting-token": "", "interval_minutes": "45"},
    )  # fmt: skip
    assert saved.status_code == 302
    source.refresh_from_db()
    assert (source.name, source.interval_minutes, set(source.secrets)) == (
        "Handbook repo",
        45,
        {"token"},
    )

    paused = editor_client.post(f"/sources/handbook/{source.pk}/pause", {"paused": "1"}, **HTMX)
    fragment = paused.content.decode()
    assert "<html" not in fragment and 'id="source-list"' in fragment and "Paused" in fragment
    ran = editor_client.post(f"/sources/handbook/{source.pk}/run", **HTMX).content.decode()
    assert "is queued" in ran and 'hx-trigger="every 2s"' in ran  # the list refreshes itself
    run_queued_tasks()
    listing = editor_client.get("/sources/handbook/list", **HTMX).content.decode()
    assert "every 2s" not in listing

    gone = editor_client.post(f"/sources/handbook/{source.pk}/delete", **HTMX).content.decode()
    assert "deleted" in gone and "No sources yet" in gone


def test_page_is_404_for_readers_and_other_projects_sources(
    alpha, beta, editor_client, local_roots
):
    folder = local_roots / "f"
    folder.mkdir()
    other = source_create(
        project=project_ensure(key="other"), name="o", kind="folder", settings={"path": str(folder)}
    )
    assert editor_client.get("/sources/other/").status_code == 404  # a reader there
    assert editor_client.post(f"/sources/other/{other.pk}/run").status_code == 404
    # a source of another project, named under a project the editor edits
    assert editor_client.post(f"/sources/handbook/{other.pk}/delete").status_code == 404
    assert editor_client.get(f"/sources/handbook/{other.pk}/edit").status_code == 404
    assert Source.objects.filter(pk=other.pk).exists()
    stranger = beta.client()
    assert stranger.get("/sources/handbook/").status_code in (302, 404)


def test_a_synced_document_links_to_its_file_at_the_commit(alpha, editor_client):
    from kb.services import IngestItem, documents_ingest_many

    url = "https://git.example.com/acme/handbook/blob/0123456789abcdef/docs/a.md"
    [outcome] = documents_ingest_many(
        project=project_ensure(key="handbook"),
        items=[
            IngestItem(
                source_path="git-1/docs/a.md",
                content="# A\n\nThe first page.\n",
                metadata={"source": {"kind": "git", "url": url, "revision": "0123456789abcdef"}},
            )
        ],
    )
    assert outcome.document.metadata["source"]["url"] == url
    for path in (
        f"/chat/documents/{outcome.document.pk}/",
        f"/chat/preview/{outcome.document.pk}/",
    ):
        html = editor_client.get(path).content.decode()
        assert f'href="{url}"' in html and "at 0123456" in html, path
    # a link that is not a web address is never shown
    outcome.document.metadata["source"]["url"] = "javascript:alert(1)"
    outcome.document.save(update_fields=["metadata"])
    html = editor_client.get(f"/chat/documents/{outcome.document.pk}/").content.decode()
    assert "javascript:" not in html and "preview-source" not in html
