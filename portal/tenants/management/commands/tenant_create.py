from django.core.management.base import BaseCommand, CommandError, CommandParser

from portal.tenants.services import TenantError, tenant_create


class Command(BaseCommand):
    help = "Create a tenant: a PostgreSQL schema (migrated) reached at a host name."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("schema", help="schema name, e.g. acme")
        parser.add_argument("--domain", required=True, help="host name, e.g. acme.example.com")
        parser.add_argument("--name", default="", help="display name")

    def handle(self, *args: object, **options: object) -> None:
        try:
            tenant = tenant_create(
                schema_name=str(options["schema"]),
                domain=str(options["domain"]),
                name=str(options["name"]),
            )
        except TenantError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            self.style.SUCCESS(f"Created tenant {tenant.schema_name} at {options['domain']}")
        )
