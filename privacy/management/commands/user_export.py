"""Write everything a tenant holds about one user as JSON (GDPR art. 15)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from portal.commands import command_tenant
from privacy.services import user_data_export


class Command(BaseCommand):
    help = "Print (or write to --output) the personal data export of one user of a tenant."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant schema name")
        parser.add_argument("--username", required=True)
        parser.add_argument("--output", help="write the JSON to this file instead of stdout")

    def handle(self, *args: Any, **options: Any) -> None:
        with command_tenant(options["tenant"]):
            user = get_user_model().objects.filter(username=options["username"]).first()
            if user is None:
                raise CommandError(f"No user {options['username']!r} in this tenant.")
            text = json.dumps(user_data_export(user=user), indent=2, ensure_ascii=False)
        if options["output"]:
            with open(options["output"], "w", encoding="utf-8") as handle:
                handle.write(text + "\n")
            self.stderr.write(f"Wrote {options['output']}")
        else:
            self.stdout.write(text)
