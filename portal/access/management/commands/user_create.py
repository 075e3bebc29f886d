from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from portal.access.services import AccessError, parse_project_role, user_upsert
from portal.commands import command_tenant


class Command(BaseCommand):
    help = "Create or update a user of a tenant, with project memberships."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--tenant", required=True, help="tenant schema name")
        parser.add_argument("--password", required=True)
        parser.add_argument(
            "--project",
            action="append",
            default=[],
            metavar="KEY:ROLE",
            help="membership (role reader|editor|admin, default reader); repeatable",
        )
        parser.add_argument("--superuser", action="store_true", help="tenant superuser")

    def handle(self, *args: Any, **options: Any) -> None:
        schema = str(options["tenant"])
        try:
            roles = [parse_project_role(spec) for spec in options["project"]]
            with command_tenant(schema):
                user, created = user_upsert(
                    username=str(options["username"]),
                    password=str(options["password"]),
                    project_roles=roles,
                    superuser=bool(options["superuser"]),
                )
        except AccessError as exc:
            raise CommandError(str(exc)) from exc
        verb = "Created" if created else "Updated"
        self.stdout.write(self.style.SUCCESS(f"{verb} user {user.username} in tenant {schema}"))
