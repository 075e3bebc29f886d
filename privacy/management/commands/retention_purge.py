"""Delete chat logs, conversations and content gaps older than their retention settings."""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from portal.commands import command_tenant
from portal.tenants.selectors import tenant_schema_names
from privacy.retention import RETAINED, retention_purge


class Command(BaseCommand):
    help = (
        "Purge what is older than RETENTION_*_DAYS (chat log, conversations, content gaps) in "
        "one tenant, or in every tenant when --tenant is omitted. Kinds kept forever are skipped."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", help="tenant schema name (default: every tenant)")
        parser.add_argument("--dry-run", action="store_true", help="count, delete nothing")
        parser.add_argument("--json", action="store_true", help="machine output only")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["tenant"]:
            schemas = [options["tenant"]]
        else:
            schemas = tenant_schema_names()
        reports = {}
        for schema in schemas:
            with command_tenant(schema):
                reports[schema] = retention_purge(dry_run=options["dry_run"])
        if options["json"]:
            self.stdout.write(json.dumps({"dry_run": options["dry_run"], "tenants": reports}))
            return
        kept = [e.key for e in RETAINED if settings.RETENTION[e.setting] is None]
        if kept:
            self.stdout.write(f"Kept forever (no retention set): {', '.join(kept)}")
        verb = "would delete" if options["dry_run"] else "deleted"
        for schema, report in reports.items():
            if not report:
                self.stdout.write(f"{schema}: nothing to purge")
                continue
            counts = ", ".join(f"{n} {key}" for key, n in report.items())
            self.stdout.write(f"{schema}: {verb} {counts}")
