from django.core.management.base import BaseCommand, CommandError, CommandParser
from django_tenants.utils import schema_context

from portal.access.services import AccessError, parse_project_role, user_upsert
from portal.tenants.models import Tenant


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

    def handle(self, *args: object, **options: object) -> None:
        schema = str(options["tenant"])
        if schema == "public" or not Tenant.objects.filter(schema_name=schema).exists():
            raise CommandError(f"No tenant with schema {schema!r}. Create it with tenant_create.")
        try:
            roles = [parse_project_role(spec) for spec in options["project"]]  # type: ignore[union-attr]
            with schema_context(schema):
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
