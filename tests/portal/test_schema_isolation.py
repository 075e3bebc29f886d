"""Every query Groundwork issues stays inside one tenant schema (the Citus precondition).

Schema-per-tenant maps onto schema-based sharding in a distributed PostgreSQL (Citus
`citus.enable_schema_based_sharding`): each tenant schema lives whole on one node, and the
public schema's shared tables stay on the coordinator (or become reference tables). That only
works if no statement spans two tenant schemas and no statement joins a tenant table with a
shared table that is not a reference table. These tests record every SQL statement of a
representative flow in tenant alpha (upload through the queue and the worker, JSON ingest,
documents API, curation with audit, search, chat, history, the admin lists, data export) and
check it; a static check covers raw SQL in the code; a catalog check covers foreign keys.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from kb.worker import run_queued_tasks
from portal.access.services import project_ensure
from portal.tenants.models import Tenant
from tests.conftest import make_user, token_for

ROOT = Path(__file__).resolve().parents[2]
PRODUCT_PACKAGES = ("portal", "kb", "canonical", "chat", "integrations", "privacy", "sources")

# What lives in the public schema, and what Citus would make of it (README, "Many tenants").
PUBLIC_TABLES = {
    # tenants and their host names: read by every request (host -> schema) before any
    # tenant query -> reference table (small, read-mostly, needed on every node)
    "tenants_tenant": "reference",
    "tenants_domain": "reference",
    # the ingestion queue; every row names its tenant schema -> coordinator-local table
    "django_tasks_database_dbtaskresult": "local",
    # rate-limit counters (the database cache) -> coordinator-local table (or CACHE_URL=redis)
    "groundwork_cache": "local",
    # Django's own bookkeeping of the public schema (shared apps are also installed there)
    "django_migrations": "local",
    "django_content_type": "local",
    "auth_group": "local",
    "auth_group_permissions": "local",
    "auth_permission": "local",
    "auth_user": "local",
    "auth_user_groups": "local",
    "auth_user_user_permissions": "local",
    "django_session": "local",
}

RECORD = """---
type: decision
status: accepted
slug: dec-isolation
tags: [storage]
---

# Keep tenants apart

Every tenant has its own schema; the pager rotation is weekly.
"""


def public_tables() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        return {row[0] for row in cursor.fetchall()}


def schema_tables(schema: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = %s", [schema])
        return {row[0] for row in cursor.fetchall()}


class StatementLog:
    """Each statement run on the connection, with the schema it was routed to."""

    def __init__(self) -> None:
        self.statements: list[tuple[str, str]] = []

    def __call__(self, execute: Callable, sql: str, params: Any, many: bool, context: Any):
        self.statements.append((getattr(connection, "schema_name", "?"), str(sql)))
        return execute(sql, params, many, context)


def run_flow(alpha) -> StatementLog:
    """A working day in tenant alpha, over HTTP like users and integrations do."""
    project_ensure(key="iso")
    editor = make_user(alpha, "iso-editor", projects={"iso": "editor"})
    admin = make_user(alpha, "iso-admin", superuser=True)
    api = alpha.client(HTTP_AUTHORIZATION=f"Token {token_for(alpha, editor)}")
    browser = alpha.client()
    browser.force_login(admin)
    log = StatementLog()
    with connection.execute_wrapper(log):
        note = SimpleUploadedFile("pager.md", b"# Pager\n\nThe pager rotates every Monday.\n")
        response = api.post("/api/kb/documents", {"project_key": "iso", "files": [note]})
        assert response.status_code == 202, response.content
        job = response.json()["jobs"][0]["id"]
        assert run_queued_tasks() == 1  # the worker: public queue row -> tenant schema
        assert api.get(f"/api/kb/jobs/{job}").json()["state"] == "done"
        body = {"project_key": "iso", "source_path": "dec-isolation.md", "content": RECORD}
        response = api.post("/api/kb/documents", json.dumps(body), content_type="application/json")
        assert response.status_code in (200, 201), response.content
        record = response.json()["document_id"]
        assert api.get("/api/kb/documents").json()["count"] == 2
        assert api.get(f"/api/kb/documents/{record}").status_code == 200
        response = api.patch(
            f"/api/kb/documents/{record}",
            json.dumps({"retrieval_priority": 80, "reason": "isolation check"}),
            content_type="application/json",
        )
        assert response.status_code == 200, response.content
        history = api.get(f"/api/kb/documents/{record}/history").json()
        assert history, "the priority change is audited"
        response = api.post(
            "/api/kb/search",
            json.dumps({"query": "when does the pager rotate?"}),
            content_type="application/json",
        )
        assert response.status_code == 200 and response.json()["primary"], response.content
        response = api.post(
            "/api/kb/chat",
            json.dumps({"question": "When does the pager rotate?"}),
            content_type="application/json",
        )
        assert response.status_code == 200, response.content
        assert api.get("/api/auth/me/export").status_code == 200
        for url in (
            "/admin/canonical/canonicalrecord/",
            "/admin/canonical/recordchange/",
            "/admin/chat/chatlog/",
            "/search/?q=pager",
        ):
            assert browser.get(url).status_code == 200, url
    return log


def test_a_tenant_flow_stays_in_its_schema_and_joins_no_shared_table(alpha, beta):
    log = run_flow(alpha)
    own, shared = schema_tables(alpha.schema), public_tables()
    others = set(
        Tenant.objects.exclude(schema_name__in=["public", alpha.schema]).values_list(
            "schema_name", flat=True
        )
    )
    assert beta.schema in others
    touched_tenant: set[str] = set()
    touched_public: set[str] = set()
    for schema, sql in log.statements:
        # routed to this tenant or to the public schema (host lookup, queue, counters) only
        assert schema in (alpha.schema, "public"), (schema, sql)
        for other in others:
            assert not re.search(rf'(?<![\w.])"?{other}"?\.', sql), (other, sql)
        names = set(re.findall(r'"(\w+)"', sql)) | set(re.findall(r"\b([a-z_][a-z0-9_]*)\b", sql))
        if schema == alpha.schema:
            # search_path is "alpha, public": a name resolves to the tenant's table first
            tenant_side = names & own
            public_side = (names & shared) - own
        else:
            tenant_side, public_side = set(), names & shared
        touched_tenant |= tenant_side
        touched_public |= public_side
        assert not (tenant_side and public_side), (
            f"joins tenant tables {sorted(tenant_side)} with shared {sorted(public_side)}: {sql}"
        )
    # the flow really went through the tenant's data and the shared tables
    assert {"kb_document", "kb_chunk", "canonical_recordchange", "chat_chatlog"} <= touched_tenant
    assert {"tenants_domain", "django_tasks_database_dbtaskresult"} <= touched_public
    assert len(log.statements) > 100


def test_no_tenant_table_has_a_foreign_key_out_of_its_schema(alpha):
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint c"
            " JOIN pg_class r ON r.oid = c.conrelid JOIN pg_class f ON f.oid = c.confrelid"
            " WHERE c.contype = 'f' AND r.relnamespace = %s::regnamespace"
            " AND f.relnamespace <> r.relnamespace",
            [alpha.schema],
        )
        crossing = cursor.fetchall()
        cursor.execute(
            "SELECT count(*) FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid"
            " WHERE c.contype = 'f' AND r.relnamespace = %s::regnamespace",
            [alpha.schema],
        )
        total = cursor.fetchone()[0]
    assert total > 10  # the tenant's tables do reference each other
    assert crossing == []


def test_the_public_schema_holds_only_the_documented_shared_tables(tenants, db):
    assert public_tables() == set(PUBLIC_TABLES)


SCHEMA_QUALIFIED = re.compile(r'(?<![\w."])"?([a-z_][a-z0-9_]*)"?\."?[a-z_][a-z0-9_]*"?', re.I)
SQL_WORDS = re.compile(r"\b(select|insert|update|delete|from|join|create|alter|drop)\b", re.I)
# schema-qualified names the code may use: extension objects installed in public
ALLOWED_QUALIFIED = {"public.pg_prewarm"}


def sql_literals(path: Path) -> list[tuple[int, str]]:
    """String literals (f-string parts joined, placeholders as {}) that read like SQL."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.JoinedStr):
            text = "".join(
                str(part.value) if isinstance(part, ast.Constant) else "{}" for part in node.values
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        else:
            continue
        if SQL_WORDS.search(text) and re.search(r"\b(from|into|update|table)\b", text, re.I):
            found.append((node.lineno, text))
    return found


def test_raw_sql_in_the_code_hard_codes_no_schema():
    offenders, checked = [], 0
    for package in PRODUCT_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for line, text in sql_literals(path):
                checked += 1
                for match in SCHEMA_QUALIFIED.finditer(text):
                    qualifier = match.group(1).lower()
                    whole = match.group(0).replace('"', "").lower()
                    # table aliases (c.id, d.project_id) are not schemas; placeholders ({}.x)
                    # and the schemas' names are
                    if qualifier in {"public", "pg_catalog"} or qualifier.endswith("schema"):
                        if whole not in ALLOWED_QUALIFIED:
                            offenders.append(f"{path.relative_to(ROOT)}:{line}: {whole}")
                if re.search(r'\{\}\."?[a-z_]', text) or "search_path" in text.lower():
                    offenders.append(f"{path.relative_to(ROOT)}:{line}: {text.strip()[:80]}")
    assert checked > 20  # the scan does see the raw SQL of the retrieval arms and commands
    assert offenders == []
