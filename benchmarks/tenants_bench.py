"""Hundreds of tenants on one database: creation, migration, catalog, connections, latency.

    EMBEDDED_DB_DIR=/tmp/gw-tenants/pg DEBUG=1 nice -n 10 .venv/bin/python \
        benchmarks/tenants_bench.py [--tenants 300] [--docs 20] [--cleanup]

Creates N tenants (schemas PREFIX001..PREFIXnnn, hosts PREFIX001.localhost ...) through the
product's path (`tenant_create`: CREATE SCHEMA + every tenant migration), each with one
reader (`user_upsert`, an API token) and the first --docs files of the demo handbook ingested
by the bulk ingest service (`documents_ingest_many`). Vectors are the real local model's:
each chunk text is embedded once and the same vector reused for every tenant (same corpus
everywhere), so the run measures the database, not the model N times.

Measures, in order:
  1. search latency (in process, query vectors up front, hybrid) for tenant 1 while it is
     the only tenant, then again for the same tenant among N, and for a random tenant per
     query among N (a connection touching every schema's catalog entries), each on a fresh
     connection whose catalog-cache memory is reported after the searches;
  2. tenant creation time p50/p95/max and its growth with N (first vs last tenth);
  3. catalog size (pg_class, pg_attribute rows, catalog and database bytes) at 1 and N;
  4. `manage.py migrate_schemas --tenant` over N schemas: a no-op run, and a run applying a
     small new release migration (a column and an index on kb_document) to every schema, then
     its reversal; the migration lives in a temporary migrations package (MIGRATION_MODULES in
     a temporary settings module), never in the source tree;
  5. connection use: gunicorn (production settings) serving every tenant, --clients threads
     posting /api/kb/search for a random tenant each request for --load-seconds; the sampler
     records the peak number of client backends in pg_stat_activity and the distinct ones.
--clone K additionally times K tenants created by cloning a template schema (django-tenants'
TENANT_BASE_SCHEMA + TENANT_CREATION_FAKES_MIGRATIONS) and compares their catalog with a
migrated tenant's. The tenants are kept: --reuse measures search (and, unless skipped, the
migrations and the load, --load-tenants K hitting only the first K) on an earlier run's
tenants without creating them again. --cleanup drops the benchmark's tenants at the end (and
leftovers of an earlier run at the start); --cleanup-only just drops them. Prints JSON.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import io
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import DatabaseError, connection  # noqa: E402
from django_tenants.utils import get_public_schema_name, schema_context  # noqa: E402

from kb.embeddings import get_embedder  # noqa: E402
from kb.evaluation.metrics import percentile  # noqa: E402
from kb.retrieval import parallel, search  # noqa: E402
from kb.services import IngestItem, documents_ingest_many, ingest_summary  # noqa: E402
from portal.access.services import user_upsert  # noqa: E402
from portal.access.tokens import token_issue  # noqa: E402
from portal.tenants.models import Tenant  # noqa: E402
from portal.tenants.services import tenant_create  # noqa: E402

HANDBOOK = ROOT / "kb" / "demo_corpus" / "handbook"
QUESTIONS = ROOT / "kb" / "demo_corpus" / "QUESTIONS.jsonl"
PROJECT = "handbook"
READER = "bench-reader"
PREFIXES = ("", "Quick question: ", "Can you tell me: ", "I need to know ", "Remind me, ")
RELEASE_COLUMN = "bench_release_note"


def ms_summary(samples: list[float]) -> dict[str, float]:
    """p50 / p95 / max of millisecond samples, rounded."""
    if not samples:
        return {"n": 0}
    return {
        "n": len(samples),
        "p50_ms": round(statistics.median(samples), 2),
        "p95_ms": round(percentile(samples, 95), 2),
        "max_ms": round(max(samples), 2),
    }


class MemoEmbedder:
    """The real embedder, each distinct text embedded once: every tenant has the same corpus."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.dimensions = inner.dimensions
        self.memo: dict[str, list[float]] = {}

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self.memo]
        if missing:
            self.memo.update(zip(missing, self.inner.embed_documents(missing), strict=True))
        return [self.memo[t] for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)


def schema_of(prefix: str, index: int) -> str:
    return f"{prefix}{index:03d}"


def bench_schemas(prefix: str) -> list[str]:
    return list(
        Tenant.objects.filter(schema_name__regex=rf"^{prefix}[0-9]+$")
        .order_by("schema_name")
        .values_list("schema_name", flat=True)
    )


def drop_tenants(schemas: list[str]) -> float:
    """Drop the tenants' rows, host names and schemas; seconds taken."""
    started = time.perf_counter()
    for tenant in Tenant.objects.filter(schema_name__in=schemas):
        tenant.delete(force_drop=True)
    return time.perf_counter() - started


def corpus(docs: int) -> list[tuple[str, str]]:
    files = sorted(HANDBOOK.glob("*.md"))[:docs]
    return [(f"handbook/{f.name}", f.read_text(encoding="utf-8")) for f in files]


def populate(schema: str, items: list[tuple[str, str]], embedder: MemoEmbedder) -> dict:
    """A reader of project handbook with a token, and the corpus ingested; ingest seconds."""
    with schema_context(schema):
        user, _ = user_upsert(
            username=READER, password="bench-reader-pw", project_roles=[(PROJECT, "reader")]
        )
        token = token_issue(user=user).key
        from portal.access.models import Project

        project = Project.objects.get(key=PROJECT)
        started = time.perf_counter()
        outcomes = documents_ingest_many(
            project=project,
            items=(IngestItem(source_path=p, content=c) for p, c in items),
            embedder=embedder,
        )
        seconds = time.perf_counter() - started
        summary = ingest_summary(outcomes)
        if summary["failed"]:
            raise SystemExit(f"{schema}: ingest failed: {summary['failed']}")
    return {"token": token, "ingest_seconds": seconds, "chunks": summary["chunks"]}


def questions(rng: random.Random, n: int) -> list[str]:
    gold = [json.loads(line)["q"] for line in QUESTIONS.read_text().splitlines() if line.strip()]
    return [
        f"{rng.choice(PREFIXES)}{rng.choice(gold)} (ticket {rng.randint(1, 99999)})"
        for _ in range(n)
    ]


def search_latency(
    schemas: list[str], texts: list[str], vectors: list[list[float]], rng: random.Random
) -> list[float]:
    """Hybrid search as the tenant's reader, one schema per query (picked from `schemas`)."""
    samples: list[float] = []
    readers: dict[str, Any] = {}
    for text, vector in zip(texts, vectors, strict=True):
        schema = rng.choice(schemas)
        with schema_context(schema):
            if schema not in readers:
                readers[schema] = get_user_model().objects.get(username=READER)
            started = time.perf_counter()
            search(user=readers[schema], query=text, query_vector=vector)
            samples.append((time.perf_counter() - started) * 1000)
    return samples


def measure_search(
    label: str, schemas: list[str], texts: list[str], vectors: list[list[float]], seed: int
) -> dict:
    """Warm-up pass (not counted), then the measured pass."""
    search_latency(schemas, texts, vectors, random.Random(seed))
    samples = search_latency(schemas, texts, vectors, random.Random(seed + 1))
    return {
        "label": label,
        "tenants_in_database": tenant_count(),
        **ms_summary(samples),
        "backend_catalog_cache_mib": backend_cache_mib(),
    }


def backend_cache_mib() -> float:
    """Memory of this backend's relation and catalog caches (grows with the schemas it read)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT sum(total_bytes) FROM pg_backend_memory_contexts"
            " WHERE name = 'CacheMemoryContext' OR parent = 'CacheMemoryContext'"
        )
        return round(int(cursor.fetchone()[0] or 0) / 2**20, 1)


def tenant_count() -> int:
    return Tenant.objects.exclude(schema_name=get_public_schema_name()).count()


def catalog() -> dict:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT (SELECT count(*) FROM pg_class), (SELECT count(*) FROM pg_attribute),"
            " (SELECT count(*) FROM pg_namespace),"
            " (SELECT sum(pg_total_relation_size(oid)) FROM pg_class"
            "   WHERE relnamespace = 'pg_catalog'::regnamespace AND relkind = 'r'),"
            " pg_database_size(current_database())"
        )
        pg_class, pg_attribute, schemas, catalog_bytes, db_bytes = cursor.fetchone()
    return {
        "pg_class_rows": pg_class,
        "pg_attribute_rows": pg_attribute,
        "schemas": schemas,
        "catalog_mib": round(int(catalog_bytes) / 2**20, 1),
        "database_mib": round(db_bytes / 2**20, 1),
    }


def relations_in(schema: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = %s",
            [schema],
        )
        return int(cursor.fetchone()[0])


def creation_growth(seconds: list[float]) -> dict:
    ms = [s * 1000 for s in seconds]
    tenth = max(1, len(ms) // 10)
    out: dict[str, Any] = {"all": ms_summary(ms)}
    if len(ms) >= 20:
        out["first_tenth_p50_ms"] = round(statistics.median(ms[:tenth]), 1)
        out["last_tenth_p50_ms"] = round(statistics.median(ms[-tenth:]), 1)
    return out


# --- migrate_schemas -------------------------------------------------------------------------


RELEASE_MIGRATION = '''"""Benchmark-only release migration (written to a temporary folder, never committed)."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("kb", "{leaf}")]
    operations = [
        migrations.RunSQL(
            "ALTER TABLE kb_document ADD COLUMN {column} text NOT NULL DEFAULT '';"
            " CREATE INDEX kb_document_{column}_idx ON kb_document ({column});",
            "DROP INDEX kb_document_{column}_idx; ALTER TABLE kb_document DROP COLUMN {column};",
        )
    ]
'''


def kb_leaf() -> str:
    from django.db.migrations.loader import MigrationLoader

    leaves = MigrationLoader(None, ignore_no_migrations=True).graph.leaf_nodes("kb")
    if len(leaves) != 1:
        raise SystemExit(f"kb has {len(leaves)} leaf migrations; expected one")
    return leaves[0][1]


def release_settings(tmp: Path, leaf: str) -> str:
    """A settings module = portal.settings + kb's migrations plus one new release migration."""
    package = tmp / "gw_bench_kb_migrations"
    package.mkdir()
    for source in (ROOT / "kb" / "migrations").glob("*.py"):
        shutil.copy(source, package / source.name)
    (package / "9999_bench_release.py").write_text(
        RELEASE_MIGRATION.format(leaf=leaf, column=RELEASE_COLUMN)
    )
    (tmp / "gw_bench_settings.py").write_text(
        "from portal.settings import *  # noqa: F403\n"
        "MIGRATION_MODULES = {'kb': 'gw_bench_kb_migrations'}\n"
    )
    return "gw_bench_settings"


def migrate(*extra: str, settings_module: str = "portal.settings", pythonpath: str = "") -> float:
    """Wall seconds of `manage.py migrate_schemas --tenant` (process start included)."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": settings_module,
        "DATABASE_URL": settings.DATABASE_URL,  # the running (embedded) server, not a new one
        "PYTHONPATH": os.pathsep.join(p for p in (pythonpath, str(ROOT)) if p),
    }
    command = [sys.executable, "manage.py", "migrate_schemas", "--tenant", "--verbosity", "0"]
    started = time.perf_counter()
    subprocess.run([*command, *extra], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def schemas_with_release_column(schemas: list[str]) -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM information_schema.columns WHERE table_name = 'kb_document'"
            " AND column_name = %s AND table_schema = ANY(%s)",
            [RELEASE_COLUMN, schemas],
        )
        return int(cursor.fetchone()[0])


def bench_migrations(schemas: list[str], executors: list[str]) -> dict:
    connection.close()  # the subprocesses take the locks; hold nothing open meanwhile
    out: dict[str, Any] = {"tenant_schemas": tenant_count()}  # every tenant, not only ours
    out["noop_seconds"] = round(migrate(), 1)
    leaf = kb_leaf()
    with tempfile.TemporaryDirectory(prefix="gw-bench-release-") as tmp:
        module = release_settings(Path(tmp), leaf)
        for executor in executors:
            apply_s = migrate("--executor", executor, settings_module=module, pythonpath=tmp)
            applied = schemas_with_release_column(schemas)
            revert_s = migrate(
                "--executor", executor, "kb", leaf, settings_module=module, pythonpath=tmp
            )
            out[executor] = {
                "apply_seconds": round(apply_s, 1),
                "schemas_with_new_column": applied,
                "revert_seconds": round(revert_s, 1),
                "schemas_with_new_column_after_revert": schemas_with_release_column(schemas),
            }
    return out


# --- connection use under load ---------------------------------------------------------------


def sample_backends(stop: threading.Event, out: dict) -> None:
    """Peak concurrent client backends of this database and every backend pid seen."""
    peak, pids = 0, set[int]()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        own = cursor.fetchone()[0]
        while not stop.is_set():
            cursor.execute(
                "SELECT pid, state FROM pg_stat_activity WHERE datname = current_database()"
                " AND backend_type = 'client backend' AND pid <> %s",
                [own],
            )
            rows = cursor.fetchall()
            peak = max(peak, len(rows))
            out["active_peak"] = max(out.get("active_peak", 0), sum(s == "active" for _, s in rows))
            pids.update(pid for pid, _ in rows)
            time.sleep(0.05)
    connection.close()
    out["peak_backends"] = peak
    out["distinct_backends"] = len(pids)


def client(port: int, tenants: dict[str, str], texts: list[str], until: float, out: list) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    rng = random.Random(threading.get_ident())
    while time.monotonic() < until:
        schema = rng.choice(list(tenants))
        body = json.dumps({"query": rng.choice(texts), "top": 8})
        headers = {
            "Host": f"{schema}.localhost",
            "Authorization": f"Token {tenants[schema]}",
            "Content-Type": "application/json",
        }
        started = time.perf_counter()
        try:
            conn.request("POST", "/api/kb/search", body=body, headers=headers)
            response = conn.getresponse()
            response.read()
            status = response.status
        except (OSError, http.client.HTTPException):
            conn.close()
            status = 0
        out.append((status, (time.perf_counter() - started) * 1000))


def bench_load(args: argparse.Namespace, tenants: dict[str, str], texts: list[str]) -> dict:
    """gunicorn with production settings; --clients threads search random tenants."""
    port = args.port
    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": f"tenants-bench-{time.time()}-0123456789abcdefghijklmnopqrstuvwxyz",
        "ALLOWED_HOSTS": ".localhost",
        "SECURE_SSL_REDIRECT": "0",
        "LOG_LEVEL": "WARNING",
        "OMP_NUM_THREADS": "1",
        "API_SEARCH_RATE": "100000/min",
        "DATABASE_URL": settings.DATABASE_URL,
    }
    command = [
        str(Path(sys.executable).parent / "gunicorn"),
        "portal.wsgi",
        "-w", str(args.workers),
        "--threads", str(args.threads),
        "-b", f"127.0.0.1:{port}",
        "--preload",
        "--log-level", "warning",
    ]  # fmt: skip
    # the sampler counts every backend but its own: close this process's connections first
    # (this thread's and the parallel search arm's, opened by the in-process searches)
    connection.close()
    parallel.close_connections()
    server = subprocess.Popen([sys.executable, *command], cwd=ROOT, env=env)
    try:
        first = next(iter(tenants))
        for _ in range(180):
            try:
                probe = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
                probe.request("GET", "/healthz", headers={"Host": f"{first}.localhost"})
                if probe.getresponse().status == 200:
                    break
            except OSError:
                pass
            time.sleep(1)
        else:
            raise SystemExit("gunicorn did not come up")
        # warm-up: every worker loads the model and opens its connections (not measured)
        warm: list = []
        threads = [
            threading.Thread(
                target=client, args=(port, tenants, texts, time.monotonic() + args.warmup, warm)
            )
            for _ in range(args.clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        samples: dict[str, Any] = {}
        stop = threading.Event()
        sampler = threading.Thread(target=sample_backends, args=(stop, samples))
        sampler.start()
        results: list = []
        until = time.monotonic() + args.load_seconds
        threads = [
            threading.Thread(target=client, args=(port, tenants, texts, until, results))
            for _ in range(args.clients)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        stop.set()
        sampler.join()
    finally:
        server.terminate()
        server.wait(timeout=60)
    ok = [ms for status, ms in results if status == 200]
    return {
        "workers": args.workers,
        "threads": args.threads,
        "clients": args.clients,
        "seconds": args.load_seconds,
        "tenants_hit": len(tenants),
        "requests": len(results),
        "errors": len(results) - len(ok),
        "req_per_s": round(len(results) / args.load_seconds, 1),
        "search": ms_summary(ok),
        **samples,
    }


# --- template cloning -------------------------------------------------------------------------


CATALOG_SIGNATURE = """
SELECT 'col ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
       || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
 WHERE c.relnamespace = %(s)s::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
UNION ALL
SELECT 'idx ' || replace(pg_get_indexdef(i.indexrelid), %(s)s || '.', '')
  FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = %(s)s::regnamespace
UNION ALL
SELECT 'con ' || conname || ' ' || replace(pg_get_constraintdef(oid), %(s)s || '.', '')
  FROM pg_constraint WHERE connamespace = %(s)s::regnamespace
UNION ALL
SELECT 'trg ' || tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
 WHERE c.relnamespace = %(s)s::regnamespace AND NOT t.tgisinternal
"""


def signature(schema: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(CATALOG_SIGNATURE, {"s": schema})
        return {row[0].replace(f"{schema}.", "") for row in cursor.fetchall()}


def root_cause(exc: BaseException) -> str:
    """The first error of a chain (django-tenants' rollback raises a second one over it)."""
    while exc.__context__ is not None:
        exc = exc.__context__
    text = " ".join(str(exc).split())
    found = re.search(r"XX\d{3}\. ([^.]+)", text)
    return found.group(1) if found else text[:300]


def bench_clone(prefix: str, count: int, reference_schema: str) -> dict:
    """K tenants cloned from a template schema vs the migrated reference; catalog diff."""
    template = f"{prefix}_template"
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE SCHEMA IF NOT EXISTS "{template}"')
    call_command(
        "migrate_schemas", tenant=True, schema_name=template, verbosity=0, interactive=False
    )
    overrides = {"TENANT_BASE_SCHEMA": template, "TENANT_CREATION_FAKES_MIGRATIONS": True}
    from django.test import override_settings

    seconds, schemas = [], []
    out: dict[str, Any] = {"tenants": count}
    try:
        with override_settings(**overrides):
            for i in range(count):
                schema = f"{prefix}c{i:03d}"
                started = time.perf_counter()
                with contextlib.redirect_stdout(io.StringIO()):
                    tenant_create(schema_name=schema, domain=f"{schema}.localhost")
                seconds.append(time.perf_counter() - started)
                schemas.append(schema)
    except DatabaseError as exc:
        # tenant_create is atomic: a failed clone leaves no tenant and no schema behind
        out["error"] = root_cause(exc)
    if schemas:
        reference = signature(reference_schema)
        cloned = signature(schemas[0])
        out["creation"] = ms_summary([s * 1000 for s in seconds])
        out["missing_in_clone"] = sorted(reference - cloned)[:20]
        out["extra_in_clone"] = sorted(cloned - reference)[:20]
    drop_tenants(schemas)
    with connection.cursor() as cursor:
        cursor.execute(f'DROP SCHEMA "{template}" CASCADE')
    return out


# --- main -----------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenants", type=int, default=300)
    parser.add_argument("--docs", type=int, default=20, help="handbook files per tenant")
    parser.add_argument("--prefix", default="tb")
    parser.add_argument("--queries", type=int, default=200, help="measured searches per case")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    parser.add_argument("--threads", type=int, default=2, help="threads per gunicorn worker")
    parser.add_argument("--clients", type=int, default=8, help="concurrent HTTP clients")
    parser.add_argument("--load-seconds", type=int, default=30)
    parser.add_argument(
        "--load-tenants", type=int, default=0, help="search only the first K tenants (0: all)"
    )
    parser.add_argument("--warmup", type=int, default=10, help="seconds of unmeasured load first")
    parser.add_argument("--port", type=int, default=8771)
    parser.add_argument("--executors", default="standard,multiprocessing")
    parser.add_argument("--clone", type=int, default=0, help="also time K template clones")
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--skip-search", action="store_true", help="no in-process latency")
    parser.add_argument("--skip-migrate", action="store_true")
    parser.add_argument("--cleanup", action="store_true", help="drop the tenants at the end")
    parser.add_argument("--cleanup-only", action="store_true")
    parser.add_argument(
        "--reuse", action="store_true", help="measure the tenants of an earlier run (kept)"
    )
    args = parser.parse_args()
    if not args.prefix.isalpha() or not args.prefix.islower():
        raise SystemExit("--prefix: lowercase letters only")

    call_command("migrate_schemas", shared=True, verbosity=0, interactive=False)
    leftovers = bench_schemas(args.prefix)
    if args.cleanup_only or (leftovers and args.cleanup):
        print(f"dropping {len(leftovers)} tenants", file=sys.stderr)
        drop_tenants(leftovers)
        leftovers = []
        if args.cleanup_only:
            return
    elif leftovers and not args.reuse:
        raise SystemExit(f"{len(leftovers)} {args.prefix}NNN tenants exist: run with --cleanup")
    # The readers only authenticate with tokens: a fast hasher keeps 300 PBKDF2 runs out.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

    items = corpus(args.docs)
    embedder = MemoEmbedder(get_embedder())
    rng = random.Random(14)
    texts = questions(rng, args.queries)
    vectors = [embedder.embed_query(t) for t in texts]
    report: dict[str, Any] = {"tenants": args.tenants, "docs_per_tenant": len(items)}

    creation: list[float] = []
    ingest: list[float] = []
    tokens: dict[str, str] = {}

    def add_tenant(index: int) -> None:
        schema = schema_of(args.prefix, index)
        started = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()):  # migrate's per-migration lines
            tenant_create(schema_name=schema, domain=f"{schema}.localhost", name=f"Bench {index}")
        creation.append(time.perf_counter() - started)
        filled = populate(schema, items, embedder)
        ingest.append(filled["ingest_seconds"])
        tokens[schema] = filled["token"]
        report.setdefault("chunks_per_tenant", filled["chunks"])

    first = schema_of(args.prefix, 1)
    if args.reuse and leftovers:
        # an earlier run's tenants: new tokens for their readers, no creation measured
        for schema in leftovers:
            with schema_context(schema):
                reader = get_user_model().objects.get(username=READER)
                tokens[schema] = token_issue(user=reader).key
        report["tenants"] = len(tokens)
    else:
        total_started = time.perf_counter()
        add_tenant(1)
        report["relations_per_tenant_schema"] = relations_in(first)
        report["catalog_at_1"] = catalog()
        report["search_one_of_1"] = measure_search("tenant 1, alone", [first], texts, vectors, 1)
        for index in range(2, args.tenants + 1):
            add_tenant(index)
            if index % 25 == 0:
                print(
                    f"{index} tenants, last creation {creation[-1] * 1000:.0f} ms",
                    file=sys.stderr,
                    flush=True,
                )
        report["setup_seconds"] = round(time.perf_counter() - total_started, 1)
        report["creation"] = creation_growth(creation)
        # the first tenant's ingest embedded the corpus with the model; the others reuse the vectors
        report["ingest_first_tenant_seconds"] = round(ingest[0], 1)
        report["ingest_other_tenants"] = ms_summary([s * 1000 for s in ingest[1:]])
    report["catalog_at_n"] = catalog()
    schemas = list(tokens)
    if not args.skip_search:
        # a fresh backend: its catalog caches then hold only what the searches below read
        connection.close()
        report["search_one_of_n"] = measure_search(
            f"tenant 1 among {len(schemas)}", [first], texts, vectors, 1
        )
        report["search_random_of_n"] = measure_search(
            f"a random tenant of {len(schemas)} per query", schemas, texts, vectors, 1
        )
    if "search_one_of_1" in report and "search_one_of_n" in report:
        report["search_ratio_p50"] = round(
            report["search_one_of_n"]["p50_ms"] / report["search_one_of_1"]["p50_ms"], 3
        )
    if args.clone:
        report["clone"] = bench_clone(args.prefix, args.clone, first)
    if not args.skip_migrate:
        report["migrate_schemas"] = bench_migrations(schemas, args.executors.split(","))
    if not args.skip_load:
        hit = dict(list(tokens.items())[: args.load_tenants or None])
        report["load"] = bench_load(args, hit, texts)
    if args.cleanup:
        report["drop_seconds"] = round(drop_tenants(schemas), 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
