"""With DEBUG off, every error a tenant can meet is JSON (API, MCP) or the branded page (the
rest): never a traceback, a path of the checkout or a setting. Walks each failure of the
third hardening round, then the generic ones (a bug, a denial, a suspicious request, a
failed CSRF check, an oversized form, an unknown URL)."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from kb.models import Document
from kb.services import document_ingest
from portal.access.models import Membership
from portal.access.services import project_ensure
from tests.conftest import TenantInfo, make_user, token_for
from tests.kb.pdfs import raw_pdf, text_operators

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "tests" / "kb" / "samples"
BRAND = '<a class="brand" href="/">Groundwork</a>'
LEAKS = (
    "Traceback",
    'File "',
    str(ROOT),
    "site-packages",
    "DATA_UPLOAD_MAX",
    "SECRET_KEY",
    "DATABASES",
    "DataError",
    "RuntimeError",
    "psycopg",
    "internal reason",
)
MCP_ACCEPT = "application/json, text/event-stream"


def clean(response) -> object:
    """The response's body is JSON or the branded page, with nothing internal in it."""
    body = response.content.decode(errors="replace")
    for leak in LEAKS:
        assert leak not in body, (response.status_code, leak, body[:500])
    content_type = response["Content-Type"]
    if content_type.startswith("application/json"):
        return json.loads(body)
    assert content_type.startswith("text/html"), content_type
    assert BRAND in body, body[:500]
    return body


@pytest.fixture(autouse=True)
def _debug_off(settings):
    settings.DEBUG = False


def browser(info: TenantInfo, **extra) -> Client:
    return Client(HTTP_HOST=info.host, raise_request_exception=False, **extra)


def api(info: TenantInfo, key: str) -> Client:
    return browser(info, HTTP_AUTHORIZATION=f"Token {key}")


def mcp_post(client: Client, body: bytes):
    return client.post("/mcp/", body, content_type="application/json", HTTP_ACCEPT=MCP_ACCEPT)


def tool_call(name: str, arguments: dict, pad: str = "") -> bytes:
    params = {"name": name, "arguments": arguments}
    return json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params, "pad": pad}
    ).encode()


@pytest.fixture
def reader(alpha):
    project_ensure(key="walk")
    return make_user(alpha, "walk-reader", password="walk-pw-123", projects={"walk": "editor"})


def test_mcp_failures(alpha, reader, settings):
    client = api(alpha, token_for(alpha, reader))
    assert clean(client.get("/mcp/", HTTP_ACCEPT=MCP_ACCEPT)) == {
        "detail": 'Method "GET" not allowed.'
    }
    deep = b'{"jsonrpc": "2.0", "id": 1, "params": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    response = mcp_post(client, deep)
    assert response.status_code == 400 and "nested too deeply" in clean(response)["detail"]
    for size in (1_600_000, 3_200_000):
        response = mcp_post(client, tool_call("search", {"query": "x"}, pad="p" * size))
        assert response.status_code == 413 and "larger than" in clean(response)["detail"]
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "chat": "1/min",
        },
    }
    ask = tool_call("ask", {"question": "Which cache layer do we use?"})
    assert mcp_post(client, ask).status_code == 200
    throttled = mcp_post(client, ask)
    assert throttled.status_code == 429 and "throttled" in clean(throttled)["detail"]


def test_token_failures(alpha, reader, settings):
    key = token_for(alpha, reader)
    Token.objects.filter(key=key).update(
        created=timezone.now() - timedelta(days=settings.API_TOKEN_TTL_DAYS + 1)
    )
    expired = mcp_post(api(alpha, key), tool_call("list_projects", {}))
    assert expired.status_code == 401 and "expired" in clean(expired)["detail"]
    fresh = token_for(alpha, make_user(alpha, "walk-reader", password="walk-pw-456"))
    changed = api(alpha, key).get("/api/auth/me")
    assert changed.status_code == 401 and clean(changed)
    assert fresh != key


def _small_docx_bomb() -> bytes:
    out = io.BytesIO()
    source = zipfile.ZipFile(SAMPLES / "incident-guide.docx")
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb:
        for item in source.infolist():
            bomb.writestr(item, source.read(item))
        bomb.writestr("word/media/image1.png", bytes(8 * 1024 * 1024))  # ~1000x
    return out.getvalue()


def test_upload_failures(alpha, reader):
    client = api(alpha, token_for(alpha, reader))

    def upload(*files):
        return client.post("/api/kb/documents", {"project_key": "walk", "files": list(files)})

    note = b"# Note\n\nA line.\n"
    many = upload(*[SimpleUploadedFile(f"n{i}.md", note) for i in range(101)])
    assert many.status_code == 400 and clean(many)["files"] == []
    bomb = upload(SimpleUploadedFile("bomb.docx", _small_docx_bomb()))
    assert bomb.status_code == 422
    assert clean(bomb)["files"][0]["code"] == "decompression_bomb"
    nul = raw_pdf(text_operators(b"Failover drill."), info=b"/Title (Evil\\000Title)")
    queued = upload(SimpleUploadedFile("evil.pdf", nul))
    assert queued.status_code == 202
    from kb.worker import run_queued_tasks

    run_queued_tasks()
    job = clean(client.get(queued.json()["jobs"][0]["url"]))
    assert (job["state"], job["error"]) == ("done", "")


def test_the_export_after_access_ended(alpha, reader):
    from chat.services import message_send
    from kb.filters import SearchFilters

    project = project_ensure(key="walk-gone")
    document_ingest(
        project=project,
        source_path="gone.md",
        content="# Gone\n\nThe gone team deploys on Fridays after lunch.\n",
    )
    Membership.objects.create(user=reader, project=project, role="reader")
    message_send(
        user=reader,
        question="When does the gone team deploy after lunch?",
        filters=SearchFilters(project_keys=("walk-gone",)),
    )
    Membership.objects.filter(user=reader, project=project).delete()
    export = clean(api(alpha, token_for(alpha, reader)).get("/api/auth/me/export"))
    assert "Fridays" not in json.dumps(export)
    assert Document.objects.filter(project=project).exists()


def test_docs_pages_render(alpha):
    for url in ("/api/docs/", "/api/redoc/"):
        response = browser(alpha).get(url)
        assert response.status_code == 200
        assert "Traceback" not in response.content.decode()


@pytest.fixture
def failing_urls(settings):
    settings.ROOT_URLCONF = "tests.portal.error_urls"


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/boom/", 500),
        ("/api/boom", 500),
        ("/denied/", 403),
        ("/api/denied", 403),
        ("/suspicious/", 400),
        ("/api/suspicious", 400),
        ("/no-such-page/", 404),
        ("/api/no-such-endpoint", 404),
    ],
)
def test_generic_failures(alpha, failing_urls, path, status):
    response = browser(alpha).get(path)
    assert response.status_code == status
    body = clean(response)
    if path.startswith("/api/"):
        assert isinstance(body, dict) and body["detail"]


def test_a_failed_csrf_check_and_an_oversized_form(alpha, reader):
    forged = browser(alpha, enforce_csrf_checks=True).post(
        "/login/", {"username": "walk-reader", "password": "walk-pw-123"}
    )
    assert forged.status_code == 403
    clean(forged)
    oversized = browser(alpha).post("/login/", {"username": "x", "password": "p" * 3_000_000})
    assert oversized.status_code == 400
    clean(oversized)
