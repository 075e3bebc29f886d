"""The OpenAPI document: every operation has a human summary (Redoc and Swagger UI show it
instead of an operation id such as "api_auth_me_retrieve")."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db

METHODS = {"get", "post", "put", "patch", "delete"}


def _operations(alpha) -> list[tuple[str, str, dict]]:
    response = alpha.client().get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    return [
        (method.upper(), path, operation)
        for path, item in response.json()["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


def test_every_operation_has_a_human_summary(alpha):
    operations = _operations(alpha)
    assert len(operations) >= 15  # the whole API, not an empty document
    missing = [f"{m} {p}" for m, p, op in operations if not (op.get("summary") or "").strip()]
    assert missing == []
    for method, path, operation in operations:
        summary = operation["summary"]
        # words for people: not an identifier, starts with a capital, no full stop at the end
        assert not re.fullmatch(r"[a-z0-9_]+", summary), (method, path, summary)
        assert summary[0].isupper() and not summary.endswith("."), (method, path, summary)
        assert len(summary) <= 80, (method, path, summary)
    summaries = [operation["summary"] for _, _, operation in operations]
    assert len(set(summaries)) == len(summaries)  # each names its own operation
