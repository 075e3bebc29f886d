"""conflicts_check: find the conflicts of every document of a project (the queue does it per
document as they change; this runs it over a whole project, e.g. after an import)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from chat.conflicts.services import conflicts_check_project
from chat.models import Conflict, ConflictState
from portal.access.models import Project
from portal.commands import command_tenant


class Command(BaseCommand):
    help = (
        "Compare every document of a project with the rest (an accepted record against every "
        "live document) and keep the conflicts found; prints the open ones."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant schema")
        parser.add_argument("--project", required=True, help="project key")
        parser.add_argument("--json", action="store_true", help="print JSON lines")

    def handle(self, *args: object, **options: object) -> None:
        with command_tenant(str(options["tenant"])):
            project = Project.objects.filter(key=str(options["project"])).first()
            if project is None:
                raise CommandError(f"No project {options['project']!r} in this tenant.")
            totals = conflicts_check_project(project_id=project.pk)
            rows = Conflict.objects.filter(project=project, state=ConflictState.OPEN)
            for row in rows.select_related("record", "other").order_by("record__slug", "pk"):
                line = {
                    "record": row.record.slug,
                    "other": row.other.slug,
                    "record_value": row.record_value,
                    "other_value": row.other_value,
                    "kind": row.kind,
                    "subject": row.subject,
                    "record_passage": row.record_passage,
                    "other_passage": row.other_passage,
                }
                if options["json"]:
                    self.stdout.write(json.dumps(line, ensure_ascii=False))
                else:
                    self.stdout.write(
                        f"{row.record.slug}: {row.record_value or 'rule'!s} | "
                        f"{row.other.slug}: {row.other_value or 'opposite rule'!s}\n"
                        f"    {row.record_passage}\n    {row.other_passage}"
                    )
            summary = f"raised {totals['raised']}, seen {totals['seen']}, gone {totals['gone']}"
            self.stderr.write(f"{project.key}: {summary}; open {rows.count()}")
