"""kb_record: curate one canonical record from the command line (audited with source "cli")."""

from __future__ import annotations

import json
import os
import pwd
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from canonical import services
from canonical.transitions import CurationError
from kb.curation import AuditContext, ChangeSource
from kb.models import Document
from portal.commands import command_tenant


def _default_actor() -> str:
    try:
        return f"cli:{pwd.getpwuid(os.getuid()).pw_name}"
    except KeyError:
        return "cli"


class Command(BaseCommand):
    help = "Change a record's status or priority, or supersede it by another record."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="slug of the record to change")
        parser.add_argument("--tenant", required=True, help="tenant schema name")
        parser.add_argument("--project", required=True, help="project key of the record")
        action = parser.add_mutually_exclusive_group(required=True)
        action.add_argument("--status", help="new status (draft, review, accepted, ...)")
        action.add_argument("--priority", type=int, help="new retrieval priority, 0-100")
        action.add_argument("--supersede-by", metavar="SLUG", help="slug of the successor")
        action.add_argument("--restore", action="store_true", help="back to its live status")
        parser.add_argument("--reason", default="", help="why; kept in the record's history")
        parser.add_argument("--actor", default="", help="name recorded as the actor")
        parser.add_argument("--json", action="store_true", help="print the record as JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        slug, project = str(options["slug"]), str(options["project"])
        by = AuditContext(
            actor=None,
            actor_name=str(options["actor"] or _default_actor()),
            reason=str(options["reason"] or ""),
            source=ChangeSource.CLI,
        )
        try:
            with command_tenant(str(options["tenant"])):
                document = self._record(project, slug)
                if options["status"]:
                    services.record_set_status(
                        document=document, status=str(options["status"]), by=by
                    )
                elif options["priority"] is not None:
                    services.record_set_priority(
                        document=document, priority=int(options["priority"]), by=by
                    )
                elif options["supersede_by"]:
                    successor = self._record(project, str(options["supersede_by"]))
                    services.record_supersede(old=document, new=successor, by=by)
                else:
                    services.record_restore(document=document, by=by)
                document.refresh_from_db()
        except CurationError as exc:
            raise CommandError(str(exc)) from exc
        state = {
            "id": document.pk,
            "project_key": project,
            "slug": document.slug,
            "canonical_status": document.canonical_status,
            "retrieval_priority": document.retrieval_priority,
        }
        if options["json"]:
            self.stdout.write(json.dumps(state))
        else:
            self.stdout.write(
                f"{project}/{document.slug}: status {document.canonical_status or '-'}, "
                f"priority {document.retrieval_priority}"
            )

    def _record(self, project: str, slug: str) -> Document:
        document = Document.objects.alive().filter(project__key=project, slug=slug).first()
        if document is None:
            raise CommandError(f"No record {slug!r} in project {project!r}.")
        return document
