"""Serve the MCP tools over stdin/stdout, for desktop clients that start a local process."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from django.core.management.base import BaseCommand, CommandError, CommandParser
from rest_framework.exceptions import AuthenticationFailed, PermissionDenied

from integrations.server import CALLER, mcp
from portal.access.models import KeyScope
from portal.authentication import key_scope_check, token_authenticate
from portal.commands import command_tenant


class Command(BaseCommand):
    help = (
        "Serve Groundwork's MCP tools on stdin/stdout as the user of an API token (or a key "
        "with the MCP scope) of one tenant (same tools and visibility as /mcp/). Logs go to "
        "stderr."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant schema name")
        parser.add_argument(
            "--token", required=True, help="the user's API token or key of that tenant"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        with command_tenant(options["tenant"]):
            try:
                # the API's own rules (unknown, expired, inactive; a key's scopes), as for
                # every request to /mcp/
                user, credential = token_authenticate(options["token"])
                key_scope_check(credential, KeyScope.MCP)
            except (AuthenticationFailed, PermissionDenied) as exc:
                detail = exc.detail.get("detail") if isinstance(exc.detail, dict) else exc.detail
                raise CommandError(f"Token refused: {detail}") from exc
            CALLER.set(user)
            # async_to_sync keeps this thread (and its tenant connection) for the tools'
            # thread-sensitive database work while the protocol runs on an event loop.
            async_to_sync(mcp.run_stdio_async)()
