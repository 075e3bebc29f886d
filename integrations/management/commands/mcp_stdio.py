"""Serve the MCP tools over stdin/stdout, for desktop clients that start a local process."""

from __future__ import annotations

from typing import Any

from asgiref.sync import async_to_sync
from django.core.management.base import BaseCommand, CommandError, CommandParser
from rest_framework.exceptions import AuthenticationFailed

from integrations.server import CALLER, mcp
from portal.authentication import token_authenticate
from portal.commands import command_tenant


class Command(BaseCommand):
    help = (
        "Serve Groundwork's MCP tools on stdin/stdout as the user of an API token of one tenant "
        "(same tools and visibility as /mcp/). Logs go to stderr."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant schema name")
        parser.add_argument("--token", required=True, help="the user's API token of that tenant")

    def handle(self, *args: Any, **options: Any) -> None:
        with command_tenant(options["tenant"]):
            try:
                # the API's own rule (unknown, expired, inactive), as for every API request
                user, _ = token_authenticate(options["token"])
            except AuthenticationFailed as exc:
                raise CommandError(f"Token refused: {exc.detail}") from exc
            CALLER.set(user)
            # async_to_sync keeps this thread (and its tenant connection) for the tools'
            # thread-sensitive database work while the protocol runs on an event loop.
            async_to_sync(mcp.run_stdio_async)()
