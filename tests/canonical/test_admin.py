"""The editors' console at /admin/: scope, list editing, actions, the record page, audit."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from canonical import services
from canonical.models import RecordChange
from kb.curation import AuditContext
from kb.models import Chunk, Document, Edge
from tests.canonical.conftest import make_doc
from tests.conftest import make_user

pytestmark = pytest.mark.django_db

LIST_URL = "/admin/canonical/canonicalrecord/"


def change_url(doc: Document) -> str:
    return f"{LIST_URL}{doc.pk}/change/"


@pytest.fixture
def editor(alpha):
    return make_user(alpha, "ed-a", projects={"adm-a": "editor", "adm-b": "reader"})


@pytest.fixture
def client_for(alpha):
    def build(user):
        client = alpha.client()
        client.force_login(user)
        return client

    return build


@pytest.fixture
def records(alpha):
    return {
        "a1": make_doc("adm-a", "use-kafka", title="Use Kafka for events"),
        "a2": make_doc("adm-a", "use-nats", title="Use NATS for events", status="review"),
        "b1": make_doc("adm-b", "b-secret-plan", title="Project B plan"),
    }


def test_editor_lists_only_records_of_projects_they_edit(client_for, editor, records):
    response = client_for(editor).get(LIST_URL)
    assert response.status_code == 200
    body = response.content.decode()
    assert "Use Kafka for events" in body and "Use NATS for events" in body
    assert "Project B plan" not in body
    # The project filter offers only projects the editor curates.
    assert "?project=adm-a" in body and "?project=adm-b" not in body


def test_out_of_scope_record_urls_are_404(client_for, editor, records):
    client = client_for(editor)
    b1 = records["b1"]
    assert client.get(change_url(b1)).status_code == 404
    assert client.get(f"{LIST_URL}{b1.pk}/history/").status_code == 404
    assert client.post(f"{LIST_URL}{b1.pk}/edges/add/", {}).status_code == 404
    assert client.get(f"{LIST_URL}999999/change/").status_code == 404
    # A bulk action naming a project-B id changes nothing.
    client.post(LIST_URL, {"action": "deprecate_records", "_selected_action": [b1.pk]})
    assert Document.objects.get(pk=b1.pk).canonical_status == "accepted"
    assert not RecordChange.objects.filter(document=b1).exists()


def test_reader_has_no_admin(alpha, client_for, records):
    reader = make_user(alpha, "rd-only", projects={"adm-a": "reader"})
    client = client_for(reader)
    for url in ["/admin/", LIST_URL, change_url(records["a1"])]:
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/admin/login/")


def test_anonymous_is_sent_to_login(alpha, records):
    response = alpha.client().get(LIST_URL)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def list_edit_post(doc: Document, **values) -> dict[str, str]:
    data = {
        "form-TOTAL_FORMS": "1",
        "form-INITIAL_FORMS": "1",
        "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "1000",
        "form-0-id": str(doc.pk),
        "form-0-retrieval_priority": str(doc.retrieval_priority),
        "_save": "Save",
    }
    data.update({f"form-0-{key}": str(value) for key, value in values.items()})
    return data


def test_list_editing_goes_through_the_workflow_and_audits(client_for, editor, records):
    client = client_for(editor)
    a1 = records["a1"]
    listing = client.get(f"{LIST_URL}?q=use-kafka").content.decode()
    # the status needs a reason, which a list row cannot give: it is not editable there
    assert 'name="form-0-retrieval_priority"' in listing
    assert 'name="form-0-canonical_status"' not in listing
    response = client.post(
        f"{LIST_URL}?q=use-kafka",
        list_edit_post(a1, canonical_status="deprecated", retrieval_priority=80),
    )
    assert response.status_code == 302
    a1.refresh_from_db()
    assert (a1.canonical_status, a1.retrieval_priority) == ("accepted", 80)
    rows = set(
        RecordChange.objects.filter(document=a1).values_list(
            "field", "from_value", "to_value", "source", "actor_name"
        )
    )
    assert rows == {("retrieval_priority", "50", "80", "admin", "ed-a")}


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"retrieval_priority": 101}, "between 0 and 100"),
    ],
)
def test_invalid_list_edits_are_form_errors_and_change_nothing(
    client_for, editor, records, values, message
):
    a1 = records["a1"]
    response = client_for(editor).post(f"{LIST_URL}?q=use-kafka", list_edit_post(a1, **values))
    assert response.status_code == 200
    assert message in response.content.decode(), re.findall(
        r"errorlist.{0,300}", response.content.decode()
    )
    a1.refresh_from_db()
    assert (a1.canonical_status, a1.retrieval_priority) == ("accepted", 50)
    assert not RecordChange.objects.filter(document=a1).exists()


def test_bulk_status_changes_confirm_with_a_reason_first(client_for, editor, records):
    client = client_for(editor)
    a1, a2 = records["a1"], records["a2"]
    page = client.post(LIST_URL, {"action": "archive_records", "_selected_action": [a1.pk, a2.pk]})
    body = page.content.decode()
    assert page.status_code == 200 and "Archive 2 record(s)?" in body
    assert "use-kafka" in body and "use-nats" in body and 'name="reason"' in body
    assert 'value="Yes, archive them"' in body
    assert not RecordChange.objects.exists()  # nothing happens before the confirmation
    blank = client.post(
        LIST_URL,
        {"action": "archive_records", "_selected_action": [a1.pk], "apply": "1", "reason": " "},
    )
    assert "Give a reason" in blank.content.decode()
    assert Document.objects.get(pk=a1.pk).canonical_status == "accepted"
    client.post(
        LIST_URL,
        {
            "action": "archive_records",
            "_selected_action": [a1.pk],
            "apply": "1",
            "reason": "Kafka is gone",
        },
    )
    change = RecordChange.objects.get(document=a1, field="canonical_status")
    assert (change.to_value, change.reason) == ("archived", "Kafka is gone")
    history = client.get("/admin/canonical/recordchange/").content.decode()
    assert "Kafka is gone" in history and "column-reason" in history


def test_bulk_actions_report_what_could_not_change(client_for, editor, records):
    client = client_for(editor)
    a1, a2 = records["a1"], records["a2"]
    why = {"apply": "1", "reason": "cleanup"}
    response = client.post(
        LIST_URL,
        {"action": "archive_records", "_selected_action": [a1.pk, a2.pk], **why},
        follow=True,
    )
    assert "Archived 2 record(s)." in response.content.decode()
    response = client.post(
        LIST_URL,
        {"action": "deprecate_records", "_selected_action": [a1.pk], **why},
        follow=True,
    )
    assert "Not deprecated: use-kafka: Cannot change status from archived" in (
        response.content.decode()
    )
    assert RecordChange.objects.filter(source="admin", field="canonical_status").count() == 2


def test_supersede_action_asks_for_a_successor_of_the_same_project(client_for, editor, records):
    client = client_for(editor)
    a1, a2, b1 = records["a1"], records["a2"], records["b1"]
    page = client.post(LIST_URL, {"action": "supersede_records", "_selected_action": [a1.pk]})
    assert page.status_code == 200
    body = page.content.decode()
    assert f'<option value="{a2.pk}"' in body
    assert f'<option value="{b1.pk}"' not in body and f'<option value="{a1.pk}"' not in body

    done = client.post(
        LIST_URL,
        {
            "action": "supersede_records",
            "_selected_action": [a1.pk],
            "apply": "1",
            "successor": a2.pk,
            "reason": "NATS is simpler",
        },
        follow=True,
    )
    assert "Superseded 1 record(s) by use-nats." in done.content.decode()
    a1.refresh_from_db()
    assert a1.canonical_status == "superseded"
    assert Edge.objects.filter(from_document=a2, to_document=a1, edge_type="supersedes").exists()
    change = RecordChange.objects.get(document=a1, field="canonical_status")
    assert (change.source, change.reason) == ("admin", "NATS is simpler")

    # A successor from another project is refused by the form, nothing changes.
    a3 = make_doc("adm-a", "use-rabbit")
    client.post(
        LIST_URL,
        {
            "action": "supersede_records",
            "_selected_action": [a3.pk],
            "apply": "1",
            "successor": b1.pk,
        },
    )
    assert Document.objects.get(pk=a3.pk).canonical_status == "accepted"


def test_record_page_shows_sanitised_content_edges_graph_and_history(client_for, editor, records):
    a1, a2 = records["a1"], records["a2"]
    first = (
        "# Use Kafka\n\nWe <script>alert(1)</script> decided.\n\n"
        "[click](javascript:alert(2)) [pic](data:text/html;base64,xx) "
        '<a href="javascript:alert(3)" onclick="x()">raw</a>\n\nWe stream events. '
    )
    Chunk.objects.create(document=a1, chunk_order=0, text=first)
    overlap = "We stream events. "
    Chunk.objects.create(
        document=a1, chunk_order=1, text=overlap + "Then more.", overlap_chars=len(overlap)
    )
    Edge.objects.create(from_document=a1, to_document=a2, to_slug=a2.slug, edge_type="related_to")
    Edge.objects.create(from_document=a1, to_slug="not-yet-here", edge_type="depends_on")
    hidden = make_doc("adm-c", "c-hidden", title="Hidden C plan")
    Edge.objects.create(from_document=hidden, to_document=a1, to_slug=a1.slug, edge_type="uses")
    # Project B is readable by the editor: its edge shows, without an edit link.
    b1 = records["b1"]
    Edge.objects.create(from_document=b1, to_document=a1, to_slug=a1.slug, edge_type="affects")
    client = client_for(editor)
    client.post(
        LIST_URL,
        {
            "action": "deprecate_records",
            "_selected_action": [a1.pk],
            "apply": "1",
            "reason": "Replaced by NATS",
        },
        follow=True,
    )

    body = client.get(change_url(a1)).content.decode()
    content = body.split('id="record-content"')[1].split('id="record-history"')[0]
    assert "<h1>Use Kafka</h1>" in content
    assert "<script" not in content and 'onclick="' not in content
    assert 'href="javascript:' not in content and 'href="data:' not in content
    assert "We stream events. Then more." in content
    assert content.count("We stream events.") == 1
    graph = body.split('id="record-graph"')[1].split('id="record-edges"')[0]
    assert "<svg" in graph and "Use NATS for events" in graph and "not-yet-here" in graph
    assert "Hidden C plan" not in body  # an edge from an invisible record stays hidden
    assert "Project B plan" in graph and change_url(b1) not in body
    history = body.split('id="record-history"')[1]
    assert "deprecated" in history and "ed-a" in history and "Admin console" in history
    assert "Replaced by NATS" in history


def test_change_form_saves_through_services_with_reason(client_for, editor, records):
    a1 = records["a1"]
    client = client_for(editor)
    form = {
        "title": "Use Kafka for all events",
        "summary": "",
        "tags": "events, streaming",
        "owners": "",
        "canonical_type": "decision",
        "canonical_status": "deprecated",
        "retrieval_priority": "50",
        "reason": "Superseded by the platform review",
        "_save": "Save",
    }
    response = client.post(change_url(a1), form)
    assert response.status_code == 302, response.content.decode()[:2000]
    a1.refresh_from_db()
    assert (a1.title, a1.canonical_status, a1.tags) == (
        "Use Kafka for all events",
        "deprecated",
        ["events", "streaming"],
    )
    fields = set(RecordChange.objects.filter(document=a1).values_list("field", "reason"))
    assert fields == {
        ("title", "Superseded by the platform review"),
        ("tags", "Superseded by the platform review"),
        ("canonical_status", "Superseded by the platform review"),
    }
    # A status change without a reason is refused; the reason given on the next save is kept.
    form.update(canonical_status="archived", reason="")
    refused = client.post(change_url(a1), form)
    assert refused.status_code == 200 and "Give a reason" in refused.content.decode()
    assert Document.objects.get(pk=a1.pk).canonical_status == "deprecated"
    form.update(reason="Nobody uses Kafka now")
    assert client.post(change_url(a1), form).status_code == 302
    archived = RecordChange.objects.get(document=a1, field="canonical_status", to_value="archived")
    assert archived.reason == "Nobody uses Kafka now"
    # An invalid transition is a form error and nothing is saved.
    form.update(canonical_status="review", title="Changed again", reason="try review")
    response = client.post(change_url(a1), form)
    assert response.status_code == 200
    assert "Cannot change status from archived to review" in response.content.decode()
    assert Document.objects.get(pk=a1.pk).title == "Use Kafka for all events"


def test_edges_are_added_and_removed_from_the_record_page(client_for, editor, records):
    a1, a2, b1 = records["a1"], records["a2"], records["b1"]
    client = client_for(editor)
    client.post(f"{LIST_URL}{a1.pk}/edges/add/", {"edge_type": "depends_on", "target": a2.pk})
    edge = Edge.objects.get(from_document=a1, edge_type="depends_on")
    assert edge.to_document == a2
    # A target in another project is not a valid choice.
    client.post(f"{LIST_URL}{a1.pk}/edges/add/", {"edge_type": "uses", "target": b1.pk})
    assert not Edge.objects.filter(from_document=a1, edge_type="uses").exists()
    client.post(f"{LIST_URL}{a1.pk}/edges/{edge.pk}/remove/")
    assert not Edge.objects.filter(pk=edge.pk).exists()
    assert list(
        RecordChange.objects.filter(document=a1, field="edge")
        .order_by("id")
        .values_list("to_value", "source")
    ) == [("depends_on -> use-nats", "admin"), ("", "admin")]


def test_superuser_sees_all_projects_and_user_admin(alpha, client_for, records):
    root = make_user(alpha, "root-adm", superuser=True)
    client = client_for(root)
    body = client.get(LIST_URL).content.decode()
    assert "Project B plan" in body and "Use Kafka for events" in body
    assert client.get("/admin/auth/user/").status_code == 200


def test_editor_has_no_user_group_or_project_admin(client_for, editor, records):
    client = client_for(editor)
    index = client.get("/admin/").content.decode()
    assert "Canonical records" in index
    assert "/admin/auth/user/" not in index and "/admin/access/project/" not in index
    assert client.get("/admin/auth/user/").status_code == 403
    assert client.get("/admin/access/membership/").status_code == 403


def test_audit_admin_is_read_only_and_scoped(client_for, editor, records):
    services.record_deprecate(
        document=records["a1"], by=AuditContext(actor=None, actor_name="seed", reason="old")
    )
    services.record_deprecate(
        document=records["b1"], by=AuditContext(actor=None, actor_name="seed", reason="old")
    )
    mine = RecordChange.objects.get(document=records["a1"])
    theirs = RecordChange.objects.get(document=records["b1"])
    client = client_for(editor)
    listing = client.get("/admin/canonical/recordchange/").content.decode()
    assert "use-kafka" in listing and "b-secret-plan" not in listing
    assert client.get(f"/admin/canonical/recordchange/{theirs.pk}/change/").status_code == 404
    page = client.get(f"/admin/canonical/recordchange/{mine.pk}/change/")
    assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
    assert client.post(f"/admin/canonical/recordchange/{mine.pk}/delete/").status_code == 403
    assert RecordChange.objects.filter(pk=mine.pk).exists()


def test_editor_deprecates_a_decision_and_finds_it_in_history(alpha, records):
    """The acceptance path: log in, deprecate from the record page, read the history."""
    make_user(alpha, "ed-login", password="pw-secret-123", projects={"adm-a": "editor"})
    client = alpha.client()
    login = client.post("/login/", {"username": "ed-login", "password": "pw-secret-123"})
    assert login.status_code == 302
    a1 = records["a1"]
    assert client.get(LIST_URL).status_code == 200
    page = client.get(change_url(a1))
    assert page.status_code == 200
    client.post(
        LIST_URL,
        {
            "action": "deprecate_records",
            "_selected_action": [a1.pk],
            "apply": "1",
            "reason": "Replaced by NATS",
        },
        follow=True,
    )
    history = client.get(change_url(a1)).content.decode().split('id="record-history"')[1]
    assert re.search(
        r"<td>ed-login</td>\s*<td>canonical_status</td>\s*<td>accepted</td>"
        r"\s*<td>deprecated</td>",
        history,
    )


def test_record_page_says_who_can_see_it(alpha, client_for, editor, records):
    make_user(alpha, "adm-reader-1", projects={"adm-a": "reader"})
    make_user(alpha, "adm-outsider", projects={"adm-b": "reader"})
    make_user(alpha, "adm-root", superuser=True)
    body = client_for(editor).get(change_url(records["a1"])).content.decode()
    panel = body.split('id="record-readers"')[1].split("</section>")[0]
    assert "Who can see this" in panel
    assert re.search(r"<td>Reader</td><td>[^<]*adm-reader-1", panel)
    assert re.search(r"<td>Editor</td><td>[^<]*ed-a", panel)
    assert re.search(r"<td>Superuser</td><td>[^<]*adm-root", panel)
    assert "adm-outsider" not in panel


def test_review_due_lists_accepted_records_nobody_curated_for_months(
    client_for, editor, records, settings
):
    settings.CURATION_STALE_AFTER_MONTHS = 6
    a1, a2 = records["a1"], records["a2"]
    old = timezone.now() - timedelta(days=200)
    Document.objects.filter(pk__in=[a1.pk, a2.pk]).update(created_at=old)
    fresh = make_doc("adm-a", "use-redis", title="Use Redis")
    client = client_for(editor)
    listing = client.get(f"{LIST_URL}?review=due").content.decode()
    assert "not reviewed for 6+ months" in listing
    assert "use-kafka" in listing  # accepted, untouched for 200 days
    assert "use-nats" not in listing  # in review, not accepted
    assert fresh.slug not in listing  # accepted yesterday
    services.record_set_priority(document=a1, priority=60, by=AuditContext(actor=editor))
    assert "use-kafka" not in client.get(f"{LIST_URL}?review=due").content.decode()
