"""POST /mcp/: the MCP server over streamable HTTP, inside the ordinary Django request cycle.

The tenant comes from the Host (django-tenants middleware), the caller from DRF's
authentication classes (the API token), the body from the API's one parser (its size and
depth limits and error bodies) and the rate from the product's tenant-keyed throttle: the
same as every other API view. The MCP SDK then serves the one JSON-RPC message of the request
(as parsed there) in its stateless JSON-response mode, so the portal keeps running under
gunicorn (WSGI); under ASGI the same view works unchanged.
"""

from __future__ import annotations

import json
from collections.abc import MutableMapping
from typing import Any

import anyio
from asgiref.sync import async_to_sync
from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from rest_framework.request import Request
from rest_framework.views import APIView

from integrations.server import CALLER, lowlevel_server
from portal.access.models import KeyScope
from portal.throttling import ScopedThrottle

# The response headers of the SDK worth passing on (hop-by-hop ones are the server's job).
PASSED_HEADERS = {"content-type", "mcp-session-id", "mcp-protocol-version", "allow"}
# Asking costs a chat turn, so it spends the chat rate (the bucket of POST /api/kb/chat and
# the chat page); the rest like search.
CHAT_TOOLS = {"ask"}


def _throttle_scope(message: Any) -> str:
    """The rate a parsed JSON-RPC message spends."""
    if isinstance(message, dict) and message.get("method") == "tools/call":
        params = message.get("params")
        if isinstance(params, dict) and params.get("name") in CHAT_TOOLS:
            return "chat"
    return "search"


def _asgi_scope(request: Request, body: bytes) -> dict[str, Any]:
    django_request = request._request
    headers = [
        (name.lower().encode("latin-1"), value.encode("latin-1"))
        for name, value in django_request.headers.items()
        if name.lower() != "content-length"
    ]
    headers.append((b"content-length", str(len(body)).encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": django_request.method,
        "scheme": django_request.scheme,
        "path": django_request.path,
        "raw_path": django_request.path.encode(),
        "root_path": "",
        "query_string": django_request.META.get("QUERY_STRING", "").encode("latin-1"),
        "headers": headers,
        "client": (django_request.META.get("REMOTE_ADDR", ""), 0),
        "server": (django_request.get_host(), 0),
    }


async def _serve(scope: dict[str, Any], body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
    """Run one request through a fresh stateless session manager; return status, headers, body.

    No SDK transport-security settings: Django has already checked the Host (ALLOWED_HOSTS,
    then the tenant's domain) and the caller; stateless means no session outlives the request.
    """
    manager = StreamableHTTPSessionManager(
        app=lowlevel_server(), json_response=True, stateless=True
    )
    status = 500
    headers: list[tuple[str, str]] = []
    chunks: list[bytes] = []
    finished = anyio.Event()
    body_sent = False

    async def receive() -> dict[str, Any]:
        nonlocal body_sent
        if not body_sent:
            body_sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await finished.wait()  # the client "disconnects" only once the answer is complete
        return {"type": "http.disconnect"}

    async def send(message: MutableMapping[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
            headers.extend(
                (name.decode("latin-1"), value.decode("latin-1"))
                for name, value in message.get("headers", [])
            )
        elif message["type"] == "http.response.body":
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                finished.set()

    async with manager.run():
        await manager.handle_request(scope, receive, send)
    finished.set()
    return status, headers, b"".join(chunks)


class McpApi(APIView):
    """The MCP endpoint (streamable HTTP, stateless, JSON responses); token-authenticated."""

    throttle_classes = [ScopedThrottle]
    key_scopes = {"POST": KeyScope.MCP}  # every tool, `ask` too

    @property
    def throttle_scope(self) -> str:
        """The rate of the call in this request (ScopedThrottle reads it from the view). The
        body is parsed here, by the API's parser: over the size limit a 413, too deep a 400."""
        return _throttle_scope(self.request.data)

    def _handle(self, request: Request) -> HttpResponse:
        # the message as the API's parser read it: the SDK never parses the raw bytes itself
        body = json.dumps(request.data).encode()
        token = CALLER.set(request.user)
        try:
            status, headers, content = async_to_sync(_serve)(_asgi_scope(request, body), body)
        finally:
            CALLER.reset(token)
        response = HttpResponse(content, status=status)
        for name, value in headers:
            if name.lower() in PASSED_HEADERS:
                response[name] = value
        return response

    # POST only. Stateless, the server has no event stream to offer a GET (the SDK would open
    # one that never ends, holding a server thread and its connection) and no session to end
    # with a DELETE: both are 405, as the transport's specification allows.
    @extend_schema(exclude=True)
    def post(self, request: Request) -> HttpResponse:
        return self._handle(request)
