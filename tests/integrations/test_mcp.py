"""The MCP server, driven by the MCP SDK's own client against a live test server.

Django's LiveServerThread serves the portal (as in tests/chat/test_browser.py: pytest-django's
`live_server` would flush the shared tenant tables); the data is committed by the module
fixture and removed afterwards. The client connects to 127.0.0.1 with the tenant's Host
header, exactly as a client behind DNS would.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest
from django.contrib.auth import get_user_model
from mcp import Client, MCPError
from mcp.client.streamable_http import streamable_http_client
from rest_framework.throttling import ScopedRateThrottle

from canonical.models import AuditContext, ChangeSource
from canonical.services import record_set_priority
from chat.models import ChatLog, ContentGap, Conversation
from kb.models import Document
from kb.services import document_ingest
from portal.access.models import Project
from tests.chat.conftest import project_remove
from tests.conftest import make_user, token_for
from tests.live import ROOT, live_server, server_process, subprocess_env

pytestmark = pytest.mark.django_db

OWN, FOREIGN = "mcp-own", "mcp-foreign"
OLD_CACHE = """---
type: decision
status: superseded
slug: cache-memcached
superseded_by: cache-redis
---

# Cache layer: Memcached

We used Memcached as the shared cache layer for session data until 2025.
"""
NEW_CACHE = """---
type: decision
status: accepted
slug: cache-redis
supersedes: cache-memcached
---

# Cache layer: Redis Cluster

Redis Cluster is the standard cache layer for session data and rate limits.
<script>alert("x")</script>
"""
SECRET = """---
type: decision
status: accepted
slug: payroll-vendor
---

# Payroll vendor

The payroll vendor is Zorblax Payroll, chosen for its audit exports.
"""


@dataclass(frozen=True)
class Live:
    base: str  # http://127.0.0.1:port
    host: str  # the tenant's Host header
    tokens: dict[str, str]
    docs: dict[str, int]


@pytest.fixture(scope="module")
def live(tenants, django_db_blocker) -> Iterator[Live]:
    alpha, beta = tenants["alpha"], tenants["beta"]
    with django_db_blocker.unblock():
        with alpha.scope():
            own, _ = Project.objects.get_or_create(key=OWN, defaults={"name": "Platform"})
            foreign, _ = Project.objects.get_or_create(key=FOREIGN, defaults={"name": "Finance"})
            document_ingest(project=own, source_path="old.md", content=OLD_CACHE)
            document_ingest(project=own, source_path="new.md", content=NEW_CACHE)
            document_ingest(project=foreign, source_path="pay.md", content=SECRET)
            docs = dict(
                Document.objects.filter(project__key__in=[OWN, FOREIGN]).values_list("slug", "pk")
            )
            last_log = ChatLog.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
            last_gap = ContentGap.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        reader = make_user(alpha, "mcp-reader", projects={OWN: "reader"})
        editor = make_user(alpha, "mcp-editor", projects={OWN: "editor"})
        outsider = make_user(beta, "mcp-reader", projects={OWN: "reader"})
        with alpha.scope():
            record_set_priority(
                document=Document.objects.get(pk=docs["cache-redis"]),
                priority=80,
                by=AuditContext(actor=editor, source=ChangeSource.API, reason="the standard"),
            )
        tokens = {
            "reader": token_for(alpha, reader),
            "editor": token_for(alpha, editor),
            "beta": token_for(beta, outsider),
        }
        with live_server() as port:
            try:
                yield Live(
                    base=f"http://127.0.0.1:{port}",
                    host=f"{alpha.host}:{port}",
                    tokens=tokens,
                    docs=docs,
                )
            finally:
                with alpha.scope():
                    ChatLog.objects.filter(pk__gt=last_log).delete()
                    ContentGap.objects.filter(pk__gt=last_gap).delete()
                    Conversation.objects.filter(user__username__startswith="mcp-").delete()
                    get_user_model().objects.filter(username__startswith="mcp-").delete()
                    project_remove(OWN)
                    project_remove(FOREIGN)
                with beta.scope():
                    get_user_model().objects.filter(username__startswith="mcp-").delete()
                    project_remove(OWN)


def run_session(live: Live, token: str, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    """Connect with the SDK client, list the tools, make the calls; return (tools, results)."""

    async def main() -> Any:
        headers = {"Authorization": f"Token {token}", "Host": live.host}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            transport = streamable_http_client(f"{live.base}/mcp/", http_client=http)
            async with Client(transport) as client:
                listed = await client.list_tools()
                results = [await client.call_tool(name, args) for name, args in calls]
                return sorted(tool.name for tool in listed.tools), results

    return asyncio.run(main())


def payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return json.loads(result.content[0].text)


def error_text(result: Any) -> str:
    assert result.is_error
    return result.content[0].text


def test_every_tool_answers_within_the_callers_projects(live):
    doc = live.docs
    tools, (found, answered, document, projects, denied) = run_session(
        live,
        live.tokens["reader"],
        [
            ("search", {"query": "Redis Cluster cache layer", "top": 5}),
            ("ask", {"question": "What is the standard cache layer?", "project_key": OWN}),
            ("get_document", {"document_id": doc["cache-redis"]}),
            ("list_projects", {}),
            ("record_status", {"document_id": doc["cache-redis"]}),
        ],
    )
    assert tools == ["ask", "get_document", "list_projects", "record_status", "search"]

    hits = payload(found)["hits"]
    assert hits and {hit["project_key"] for hit in hits} == {OWN}
    top = next(hit for hit in hits if hit["slug"] == "cache-redis")
    assert top["title"] == "Cache layer: Redis Cluster"
    assert top["canonical_status"] == "accepted"
    assert "Redis Cluster" in top["snippet"]
    assert top["preview_url"] == f"/api/kb/documents/{doc['cache-redis']}/preview"

    answer = payload(answered)
    assert answer["refusal_reason"] is None, answer
    assert "Redis" in answer["answer"]
    assert {c["document_id"] for c in answer["citations"]} <= {
        doc["cache-redis"],
        doc["cache-memcached"],
    }
    assert answer["citations"] and answer["citations"][0]["n"] == 1

    text = payload(document)
    assert text["title"] == "Cache layer: Redis Cluster"
    assert text["canonical_status"] == "accepted"
    assert "Redis Cluster is the standard cache layer" in text["content"]
    assert "<script" not in text["content_html"]
    assert [link["slug"] for link in text["supersedes"]] == ["cache-memcached"]
    assert text["superseded_by"] == []

    assert payload(projects)["projects"] == [{"key": OWN, "name": "Platform", "role": "reader"}]
    # a reader sees the record but may not read its curation state
    assert "Only editors and admins" in error_text(denied)


def test_editor_reads_record_status_and_history(live):
    _, (status, older) = run_session(
        live,
        live.tokens["editor"],
        [
            ("record_status", {"document_id": live.docs["cache-redis"]}),
            ("get_document", {"document_id": live.docs["cache-memcached"]}),
        ],
    )
    record = payload(status)
    assert (record["canonical_status"], record["retrieval_priority"]) == ("accepted", 80)
    assert [
        (h["field"], h["from_value"], h["to_value"], h["actor"]) for h in record["history"]
    ] == [("retrieval_priority", "50", "80", "mcp-editor")]
    assert [link["slug"] for link in payload(older)["superseded_by"]] == ["cache-redis"]


def test_a_foreign_projects_document_answers_like_a_missing_one(live):
    _, (foreign, missing, foreign_status, found) = run_session(
        live,
        live.tokens["editor"],
        [
            ("get_document", {"document_id": live.docs["payroll-vendor"]}),
            ("get_document", {"document_id": 987654321}),
            ("record_status", {"document_id": live.docs["payroll-vendor"]}),
            ("search", {"query": "Zorblax payroll vendor audit exports"}),
        ],
    )
    assert error_text(foreign) == error_text(missing)
    assert error_text(foreign).endswith(": Not found.")
    assert error_text(foreign_status).endswith(": Not found.")
    assert all(hit["project_key"] == OWN for hit in payload(found)["hits"])


def test_bad_arguments_are_tool_errors_and_the_session_goes_on(live):
    _, results = run_session(
        live,
        live.tokens["reader"],
        [
            ("search", {"query": ""}),
            ("search", {"query": "cache", "top": 0}),
            ("search", {"query": "cache", "filters": {"colour": ["red"]}}),
            ("get_document", {"document_id": "seven"}),
            ("ask", {"question": "x" * 20_000}),
            ("no_such_tool", {}),
            ("list_projects", {}),
        ],
    )
    *bad, still_fine = results
    messages = [error_text(result) for result in bad]
    assert "query" in messages[0] and "top" in messages[1] and "colour" in messages[2]
    assert "document_id" in messages[3] and "question" in messages[4]
    assert "no_such_tool" in messages[5]
    assert payload(still_fine)["projects"][0]["key"] == OWN


def test_a_token_of_another_tenant_is_refused(live):
    with pytest.raises(ExceptionGroup) as refused:
        run_session(live, live.tokens["beta"], [("list_projects", {})])
    assert refused.group_contains(MCPError)
    # the same token, raw: a 401 from the token authentication, before any MCP handling
    response = httpx2.post(
        f"{live.base}/mcp/",
        headers={"Host": live.host, "Authorization": f"Token {live.tokens['beta']}"},
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )
    assert (response.status_code, response.json()) == (401, {"detail": "Invalid token."})


def test_no_token_is_refused_with_401(live):
    response = httpx2.post(
        f"{live.base}/mcp/",
        headers={"Host": live.host},
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )
    assert response.status_code == 401


def test_get_and_delete_are_refused_at_once(live):
    """A stateless server offers no event stream to GET and no session to DELETE: 405 at once
    (a GET used to hold a server thread and its connection for good)."""
    for method in ("GET", "DELETE"):
        response = httpx2.request(
            method,
            f"{live.base}/mcp/",
            headers={
                "Host": live.host,
                "Authorization": f"Token {live.tokens['reader']}",
                "Accept": "application/json, text/event-stream",
            },
            timeout=10,
        )
        assert response.status_code == 405, response.text
        assert response.json() == {"detail": f'Method "{method}" not allowed.'}
        assert "POST" in response.headers["Allow"] and method not in response.headers["Allow"]


def stdio_session(live: Live, tenant: str, token: str, calls: list[tuple[str, dict]]) -> Any:
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_stdio", "--tenant", tenant, "--token", token],
        cwd=str(ROOT),
        env=subprocess_env(),
    )

    async def main() -> Any:
        async with Client(params) as client:
            return [await client.call_tool(name, args) for name, args in calls]

    return asyncio.run(main())


def test_the_stdio_entry_point_serves_the_same_tools(live):
    foreign, own = stdio_session(
        live,
        "alpha",
        live.tokens["reader"],
        [
            ("get_document", {"document_id": live.docs["payroll-vendor"]}),
            ("get_document", {"document_id": live.docs["cache-redis"]}),
        ],
    )
    assert error_text(foreign).endswith(": Not found.")
    assert payload(own)["slug"] == "cache-redis"


def test_the_stdio_entry_point_refuses_a_token_of_another_tenant(live):
    result = subprocess.run(
        [sys.executable, "manage.py", "mcp_stdio", "--tenant", "alpha"]
        + ["--token", live.tokens["beta"]],
        cwd=ROOT,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1
    assert "Token refused: Invalid token." in result.stderr


def test_ask_is_throttled_like_the_chat_api(live, monkeypatch):
    monkeypatch.setattr(
        ScopedRateThrottle, "THROTTLE_RATES", {"chat": "1/min", "search": "100/min"}
    )

    def call(name: str, arguments: dict) -> httpx2.Response:
        return httpx2.post(
            f"{live.base}/mcp/",
            headers={
                "Host": live.host,
                "Authorization": f"Token {live.tokens['editor']}",
                "Accept": "application/json, text/event-stream",
            },
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": name, "arguments": arguments},
            },
            timeout=60,
        )

    first = call("ask", {"question": "What is the standard cache layer?"})
    assert first.status_code == 200, first.text
    assert call("ask", {"question": "And the old one?"}).status_code == 429
    listed = call("list_projects", {})
    assert listed.status_code == 200
    assert json.loads(listed.json()["result"]["content"][0]["text"])["projects"][0]["key"] == OWN


def test_a_malformed_request_is_a_protocol_error_not_a_crash(live):
    response = httpx2.post(
        f"{live.base}/mcp/",
        headers={
            "Host": live.host,
            "Authorization": f"Token {live.tokens['reader']}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
        content=b"{not json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == -32700  # JSON-RPC parse error


@pytest.fixture(scope="module")
def asgi_server(live) -> Iterator[str]:
    """The same portal under an ASGI server (uvicorn serving portal.asgi), on the test data."""
    command = [sys.executable, "-m", "uvicorn", "portal.asgi:application"]
    command += ["--host", "127.0.0.1", "--port", "{port}", "--lifespan", "off"]
    with server_process(command, host=live.host, env=subprocess_env()) as base:
        yield base


def test_the_same_endpoint_serves_under_asgi(live, asgi_server):
    under_asgi = Live(base=asgi_server, host=live.host, tokens=live.tokens, docs=live.docs)
    tools, (own, foreign) = run_session(
        under_asgi,
        live.tokens["reader"],
        [
            ("get_document", {"document_id": live.docs["cache-redis"]}),
            ("get_document", {"document_id": live.docs["payroll-vendor"]}),
        ],
    )
    assert "search" in tools
    assert payload(own)["slug"] == "cache-redis"
    assert error_text(foreign).endswith(": Not found.")
