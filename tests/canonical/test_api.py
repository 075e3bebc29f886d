"""Curation over the REST API: PATCH with the workflow, supersede, history; scope and errors."""

from __future__ import annotations

import pytest

from canonical.models import RecordChange
from kb.models import Document, Edge
from tests.canonical.conftest import make_doc
from tests.conftest import make_user, token_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(alpha):
    editor = make_user(alpha, "api-ed", projects={"api-a": "editor", "api-b": "reader"})
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, editor)}")
    return client


@pytest.fixture
def docs(alpha):
    return {
        "a1": make_doc("api-a", "auth-jwt"),
        "a2": make_doc("api-a", "auth-sessions", status="review"),
        "b1": make_doc("api-b", "b-only"),
        "c1": make_doc("api-c", "c-hidden"),
    }


def url(doc: Document, suffix: str = "") -> str:
    return f"/api/kb/documents/{doc.pk}{suffix}"


def patch(client, doc: Document, body: dict):
    return client.patch(url(doc), body, content_type="application/json")


def test_patch_status_priority_type_tags_with_audit(api, docs):
    a1 = docs["a1"]
    response = patch(
        api,
        a1,
        {
            "canonical_status": "deprecated",
            "retrieval_priority": 10,
            "tags": ["Auth", "security"],
            "title": "JWT for service auth",
            "reason": "moving to sessions",
        },
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["canonical_status"], body["retrieval_priority"], body["title"]) == (
        "deprecated",
        10,
        "JWT for service auth",
    )
    rows = set(RecordChange.objects.filter(document=a1).values_list("field", "source", "reason"))
    assert rows == {
        (field, "api", "moving to sessions")
        for field in ("canonical_status", "retrieval_priority", "tags", "title")
    }


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"canonical_status": "done"}, "canonical_status", "not a valid choice"),
        ({"canonical_status": "draft"}, "canonical_status", "Cannot change status from accepted"),
        ({"canonical_status": "superseded"}, "canonical_status", "naming its successor"),
        ({"retrieval_priority": 101}, "retrieval_priority", "less than or equal to 100"),
        ({"retrieval_priority": -1}, "retrieval_priority", "greater than or equal to 0"),
        ({"canonical_type": "memo"}, "canonical_type", "not a valid choice"),
        ({"colour": "red"}, "colour", "Unknown field"),
        ({"canonical_status": "deprecated"}, "reason", "Give a reason"),
        ({"canonical_status": "deprecated", "reason": "  "}, "reason", "Give a reason"),
    ],
)
def test_invalid_patches_are_400_with_field_errors_and_change_nothing(
    api, docs, body, field, message
):
    a1 = docs["a1"]
    response = patch(api, a1, {**body, "title": "Should not stick"})
    assert response.status_code == 400
    assert message in " ".join(response.json()[field])
    a1.refresh_from_db()
    assert (a1.title, a1.canonical_status, a1.retrieval_priority) == ("Auth Jwt", "accepted", 50)
    assert not RecordChange.objects.filter(document=a1).exists()


def test_reader_gets_403_and_outsider_404(api, docs):
    assert patch(api, docs["b1"], {"canonical_status": "deprecated"}).status_code == 403
    missing = patch(api, docs["c1"], {"canonical_status": "deprecated"})
    assert (missing.status_code, missing.json()) == (404, {"detail": "Not found."})
    assert api.get(url(docs["c1"], "/history")).status_code == 404
    supersede = api.post(
        url(docs["c1"], "/supersede"), {"successor_id": docs["a1"].pk}, "application/json"
    )
    assert supersede.status_code == 404
    assert Document.objects.get(pk=docs["b1"].pk).canonical_status == "accepted"


def test_get_and_delete_are_still_served(api, docs):
    assert api.get(url(docs["a1"])).json()["slug"] == "auth-jwt"
    assert api.delete(url(docs["a2"])).status_code == 204
    assert api.get(url(docs["a2"])).status_code == 404


def test_supersede_and_history_over_the_api(api, docs):
    a1, a2 = docs["a1"], docs["a2"]
    response = api.post(
        url(a1, "/supersede"),
        {"successor_id": a2.pk, "reason": "sessions are simpler"},
        "application/json",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["canonical_status"] == "superseded"
    assert Edge.objects.filter(from_document=a1, to_document=a2, edge_type="invalidated_by")
    history = api.get(url(a1, "/history")).json()
    assert history["count"] >= 2
    latest_status = [row for row in history["results"] if row["field"] == "canonical_status"]
    assert latest_status[0] | {"at": None, "id": None} == {
        "id": None,
        "at": None,
        "actor": "api-ed",
        "field": "canonical_status",
        "from_value": "accepted",
        "to_value": "superseded",
        "reason": "sessions are simpler",
        "source": "api",
    }
    again = api.post(url(a1, "/supersede"), {"successor_id": a2.pk}, "application/json")
    assert again.status_code == 400 and "already superseded" in again.json()["successor_id"][0]


def test_supersede_needs_a_reason(api, docs):
    a1, a2 = docs["a1"], docs["a2"]
    response = api.post(url(a1, "/supersede"), {"successor_id": a2.pk}, "application/json")
    assert response.status_code == 400
    assert "Give a reason" in response.json()["reason"][0]
    assert Document.objects.get(pk=a1.pk).canonical_status == "accepted"


@pytest.mark.parametrize(
    ("successor", "message"),
    [("self", "itself"), ("b1", "same project"), ("c1", "No visible record"), (None, "required")],
)
def test_supersede_rejects_bad_successors(api, docs, successor, message):
    body = (
        {}
        if successor is None
        else {"successor_id": (docs["a1"] if successor == "self" else docs[successor]).pk}
    )
    response = api.post(url(docs["a1"], "/supersede"), body, "application/json")
    assert response.status_code == 400
    assert message in response.json()["successor_id"][0]
    assert Document.objects.get(pk=docs["a1"].pk).canonical_status == "accepted"


def test_other_tenant_token_is_rejected(alpha, beta, docs):
    outsider = make_user(beta, "api-ed")
    client = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(beta, outsider)}")
    assert patch(client, docs["a1"], {"canonical_status": "deprecated"}).status_code == 401
