"""kb_health: a project's knowledge health (chat.health): records due for review, open
conflicts and proposals, content gaps by how often they were asked, and the fact check run
now (one generated question per accepted record through the chat, rolled back)."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from chat.health import fact_check, health_report
from portal.access.models import Project
from portal.commands import acting_user, command_tenant


class Command(BaseCommand):
    help = (
        "Run the knowledge-health check of a project and print its health: review-due "
        "records, open conflicts and proposals, content gaps, records the chat does not answer."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant schema")
        parser.add_argument("--project", required=True, help="project key")
        parser.add_argument("--json", action="store_true", help="print one JSON object")

    def handle(self, *args: object, **options: object) -> None:
        with command_tenant(str(options["tenant"])):
            project = Project.objects.filter(key=str(options["project"])).first()
            if project is None:
                raise CommandError(f"No project {options['project']!r} in this tenant.")
            fact_check(project=project)
            # the operator reads what a superuser reads (every row of the project)
            report = health_report(user=acting_user(None), project=project).to_dict()
            if options["json"]:
                self.stdout.write(json.dumps(report, ensure_ascii=False))
                return
            self._print(report)

    def _print(self, report: dict) -> None:
        write = self.stdout.write
        write(f"Knowledge health of {report['project']}")
        write(f"\nReview due ({len(report['review_due'])})")
        for row in report["review_due"]:
            write(f"  {row['slug']}: {row['title']}")
        write(f"\nOpen conflicts ({len(report['conflicts'])})")
        for row in report["conflicts"]:
            write(
                f"  {row['record']}: {row['record_value']} | {row['other']}: {row['other_value']}"
            )
        write(f"\nOpen proposals ({len(report['proposals'])})")
        for row in report["proposals"]:
            write(f"  {row['kind']} {row['document'] or ''}: {row['question']}")
        write(f"\nContent gaps ({len(report['gaps'])})")
        for row in report["gaps"]:
            write(f"  {row['count']:>4}  {row['question']}")
        check = report["check"] or {"records": 0, "failing": []}
        write(
            f"\nFact check: {len(check['failing'])} of {check['records']} records not answered right"
        )
        for row in check["failing"]:
            write(
                f"  {row['slug']} ({row['status']}): {row['question']} -> expected {row['value']}"
            )
