"""API fuzzing: schemathesis drives every operation of /api/schema/, authenticated.

No input may produce a 5xx, and every documented response must match the schema.
"""

from __future__ import annotations

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from rest_framework.throttling import SimpleRateThrottle
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
)

from kb.services import document_ingest
from portal.access.services import project_ensure
from tests.conftest import make_user, token_for

FUZZ_EXAMPLES = 20


@pytest.fixture
def api_schema(alpha, monkeypatch):
    """The tenant's live OpenAPI document, bound to the WSGI app, with throttling off."""
    monkeypatch.setattr(SimpleRateThrottle, "allow_request", lambda self, request, view: True)
    user = make_user(alpha, "fuzzer", projects={"fuzz": "editor"})
    document_ingest(
        project=project_ensure(key="fuzz"),
        source_path="fuzz.md",
        content="---\ntype: decision\nstatus: accepted\nslug: fuzz-doc\n---\n# Fuzz\n\nText.\n",
    )
    token = token_for(alpha, user)
    raw = alpha.client().get("/api/schema/?format=json", HTTP_AUTHORIZATION=f"Token {token}")
    assert raw.status_code == 200
    schema = schemathesis.openapi.from_dict(raw.json())
    schema.app = WSGIHandler()
    schema._fuzz_headers = {"Authorization": f"Token {token}"}
    # As Django's test client does: keep the test's connection (and transaction) open.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield schema
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.mark.django_db
def test_api_never_errors_and_matches_its_schema(api_schema, alpha):
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 10, [f"{op.method} {op.path}" for op in operations]
    headers = dict(api_schema._fuzz_headers)
    failures: list[str] = []
    statuses: list[int] = []
    for operation in operations:

        @hypothesis_settings(
            max_examples=FUZZ_EXAMPLES,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        @given(case=operation.as_strategy())
        def fuzz(case) -> None:
            response = case.call_and_validate(
                base_url=f"http://{alpha.host}",
                headers=headers,
                checks=[not_a_server_error, response_schema_conformance, content_type_conformance],
            )
            statuses.append(response.status_code)

        try:
            fuzz()
        except Exception as exc:  # collect every operation's failure, then report them all
            failures.append(f"{operation.method.upper()} {operation.path}: {exc}")
    assert not failures, "\n\n".join(failures)
    # The fuzzer really reached the API: many calls, and both accepted and rejected inputs.
    assert len(statuses) >= 5 * len(operations)
    assert any(200 <= code < 300 for code in statuses)
    assert any(400 <= code < 500 for code in statuses)
