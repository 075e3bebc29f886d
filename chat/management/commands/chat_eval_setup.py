"""chat_eval_setup: a gold set's corpus in a tenant, uploaded through the ingestion queue.

The answer harness (`chat_benchmark`) measures what a person would meet: documents uploaded
the way editors upload them (Markdown, text, HTML, PDF and Word files through the queue and
the worker), and questions asked by a plain reader of the project, not a superuser.
"""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import schema_context

from kb.ingestion.extract import detect_source_type
from kb.models import Document, IngestJob
from kb.uploads import UploadFile, ingest_jobs_enqueue
from kb.worker import run_queued_tasks
from portal.access.services import project_ensure, user_upsert
from portal.tenants.models import Tenant
from portal.tenants.services import public_tenant_ensure, tenant_create

EDITOR = "eval-editor"
READER = "eval-reader"


class Command(BaseCommand):
    help = (
        "Upload a gold set's corpus folder into a tenant's project through the ingestion queue "
        "(created if missing), run the queue to the end, and make a reader to ask as "
        f"({READER}). Unchanged files are skipped on a rerun."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant schema (created if missing)")
        parser.add_argument("--project", required=True, help="project key (created if missing)")
        parser.add_argument("corpus", type=Path, help="folder of documents to upload")
        parser.add_argument(
            "--fresh",
            action="store_true",
            help="delete the project's documents first (re-chunk everything after an upgrade)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        folder: Path = options["corpus"]
        files = sorted(
            path for path in folder.rglob("*") if path.is_file() and detect_source_type(path.name)
        )
        if not files:
            raise CommandError(f"No documents to upload in {folder}.")
        schema = options["tenant"]
        public_tenant_ensure(domains=["localhost", "127.0.0.1"])
        if not Tenant.objects.filter(schema_name=schema).exists():
            tenant_create(schema_name=schema, domain=f"{schema}.localhost", name=schema.title())
        with schema_context(schema):
            key = options["project"]
            project = project_ensure(key=key)
            if options["fresh"]:
                Document.objects.filter(project=project).delete()
            # Nobody signs in as these two: a random password each run.
            editor, _ = user_upsert(
                username=EDITOR, password=secrets.token_urlsafe(), project_roles=[(key, "editor")]
            )
            user_upsert(
                username=READER, password=secrets.token_urlsafe(), project_roles=[(key, "reader")]
            )
            jobs = ingest_jobs_enqueue(
                project=project,
                user=editor,
                files=[UploadFile(name=path.name, data=path.read_bytes()) for path in files],
            )
            run_queued_tasks()
            states = {
                job.source_path: (job.state, job.error)
                for job in IngestJob.objects.filter(pk__in=[j.pk for j in jobs])
            }
        failed = {name: error for name, (state, error) in states.items() if state != "done"}
        self.stdout.write(
            f"{len(files)} files uploaded to {schema}/{key}: "
            f"{len(files) - len(failed)} done, {len(failed)} failed; ask as {READER}"
        )
        if failed:
            raise CommandError(
                "Not ingested: " + "; ".join(f"{name}: {error}" for name, error in failed.items())
            )
