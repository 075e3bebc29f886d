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

from canonical.services import record_set_priority
from chat.models import ChatLog, ContentGap, Conversation
from kb.curation import AuditContext, ChangeSource
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


def test_get_document_reads_an_older_version_for_editors(live):
    """cache-redis has two versions: its ingest, then the fixture's priority change."""
    doc = live.docs["cache-redis"]
    _, (first, current, missing) = run_session(
        live,
        live.tokens["editor"],
        [
            ("get_document", {"document_id": doc, "version": 1}),
            ("get_document", {"document_id": doc}),
            ("get_document", {"document_id": doc, "version": 9}),
        ],
    )
    old = payload(first)
    assert (old["version"], old["current_version"], old["pinned"]) == (1, 2, True)
    assert "Redis Cluster is the standard cache layer" in old["content"]
    assert (payload(current)["version"], payload(current)["pinned"]) == (2, False)
    assert error_text(missing).endswith(": Not found.")
    # a reader reads the versions their own answers cited, not this one
    _, (denied,) = run_session(
        live, live.tokens["reader"], [("get_document", {"document_id": doc, "version": 1})]
    )
    assert error_text(denied).endswith(": Not found.")


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


def mcp_post(live: Live, token: str, body: bytes | dict[str, Any]) -> httpx2.Response:
    """One raw POST to /mcp/ (a dict is sent as JSON)."""
    headers = {
        "Host": live.host,
        "Authorization": f"Token {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
    }
    content = json.dumps(body).encode() if isinstance(body, dict) else body
    return httpx2.post(f"{live.base}/mcp/", headers=headers, content=content, timeout=60)


def tool_call(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": name, "arguments": arguments}
    return {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}


def _set_rates(settings, **rates: str) -> None:
    current = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**current, **rates},
    }


@pytest.fixture(scope="module")
def twins(live, tenants, django_db_blocker) -> Iterator[tuple[str, str]]:
    """Tokens of two users with the same id, one in alpha and one in beta (committed)."""
    from rest_framework.authtoken.models import Token

    users = get_user_model()
    with django_db_blocker.unblock():
        twin = make_user(tenants["alpha"], "mcp-twin", projects={OWN: "reader"})
        with tenants["beta"].scope():
            assert not users.objects.filter(pk=twin.pk).exists()
            other = users.objects.create_user("mcp-twin", password="pw-twin-1", id=twin.pk)
            other_key = Token.objects.create(user=other).key
        try:
            yield token_for(tenants["alpha"], twin), other_key
        finally:
            for info in (tenants["alpha"], tenants["beta"]):
                with info.scope():
                    Conversation.objects.filter(user__username="mcp-twin").delete()
                    users.objects.filter(username="mcp-twin").delete()


@pytest.fixture(scope="module")
def expired_token(live, tenants, django_db_blocker) -> Iterator[str]:
    """A token of alpha issued longer ago than API_TOKEN_TTL_DAYS (committed)."""
    from datetime import timedelta

    from django.conf import settings
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    with django_db_blocker.unblock():
        user = make_user(tenants["alpha"], "mcp-expired", projects={OWN: "reader"})
        key = token_for(tenants["alpha"], user)
        with tenants["alpha"].scope():
            issued = timezone.now() - timedelta(days=settings.API_TOKEN_TTL_DAYS + 1)
            Token.objects.filter(key=key).update(created=issued)
        yield key


def test_an_expired_token_is_refused_over_http_and_stdio(live, expired_token):
    """One function decides whether a token key authenticates, for every transport."""
    response = mcp_post(live, expired_token, tool_call("list_projects", {}))
    assert response.status_code == 401
    assert "expired" in response.json()["detail"]
    result = subprocess.run(
        [sys.executable, "manage.py", "mcp_stdio", "--tenant", "alpha"]
        + ["--token", expired_token],
        cwd=ROOT,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 1
    assert "Token refused: Token has expired" in result.stderr


def test_ask_counts_against_its_tenants_chat_rate_with_the_chat_api(live, twins, settings):
    """`ask` spends the caller's chat budget (shared with POST /api/kb/chat and the chat page),
    counted per tenant: a user of another tenant with the same id keeps a budget of its own."""
    _set_rates(settings, chat="2/min", search="100/min")
    alpha_key, beta_key = twins
    ask = tool_call("ask", {"question": "What is the standard cache layer?"})
    assert mcp_post(live, alpha_key, ask).status_code == 200
    chat_api = httpx2.post(
        f"{live.base}/api/kb/chat",
        headers={"Host": live.host, "Authorization": f"Token {alpha_key}"},
        json={"question": "Which cache layer did we use before Redis?"},
        timeout=60,
    )
    assert chat_api.status_code == 200, chat_api.text
    refused = mcp_post(live, alpha_key, ask)
    assert refused.status_code == 429
    assert "throttled" in refused.json()["detail"] and refused.headers["Retry-After"]
    # the rest of the tools count like search
    listed = mcp_post(live, alpha_key, tool_call("list_projects", {}))
    assert listed.status_code == 200
    assert json.loads(listed.json()["result"]["content"][0]["text"])["projects"][0]["key"] == OWN
    # the same user id in another tenant: a bucket of its own
    beta_host = live.host.replace("alpha.", "beta.")
    other = httpx2.post(
        f"{live.base}/mcp/",
        headers={
            "Host": beta_host,
            "Authorization": f"Token {beta_key}",
            "Accept": "application/json, text/event-stream",
        },
        json=ask,
        timeout=60,
    )
    assert other.status_code == 200, other.text


def test_bodies_meet_the_apis_size_and_depth_limits(live, settings):
    """The API's body rules: too deep is the API's 400, over API_MAX_BODY_BYTES its 413 (up to
    any size), before anything of the body reaches the MCP layer."""
    token = live.tokens["reader"]
    deep = b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": ' + (
        b"[" * 5000 + b"]" * 5000 + b"}"
    )
    nested = mcp_post(live, token, deep)
    assert nested.status_code == 400
    assert nested.json() == {"detail": "JSON parse error - the document is nested too deeply."}
    limit = settings.API_MAX_BODY_BYTES
    for size in (1_600_000, 3_200_000):
        padding = "x" * size
        large = mcp_post(live, token, tool_call("search", {"query": "cache", "pad": padding}))
        assert large.status_code == 413, large.text[:200]
        assert large.json() == {"detail": f"The request body is larger than {limit} bytes."}


def test_a_malformed_request_is_the_apis_400_not_a_crash(live):
    response = mcp_post(live, live.tokens["reader"], b"{not json")
    assert response.status_code == 400
    assert response.json()["detail"].startswith("JSON parse error")


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
