"""Erase one user's personal data from a tenant (GDPR art. 17), in one transaction."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from portal.commands import command_tenant
from privacy.services import user_erase


class Command(BaseCommand):
    help = (
        "Delete a user's account, conversations and chat log, and name their audit rows "
        "'erased user'. Asks for --yes: there is no undo."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant schema name")
        parser.add_argument("--username", required=True)
        parser.add_argument("--yes", action="store_true", help="confirm: this cannot be undone")

    def handle(self, *args: Any, **options: Any) -> None:
        if not options["yes"]:
            raise CommandError("Erasure cannot be undone: run again with --yes to confirm.")
        with command_tenant(options["tenant"]):
            user = get_user_model().objects.filter(username=options["username"]).first()
            if user is None:
                raise CommandError(f"No user {options['username']!r} in this tenant.")
            counts = user_erase(user=user)
        summary = ", ".join(f"{n} {key}" for key, n in counts.items())
        self.stdout.write(f"Erased {options['username']}: {summary}")
