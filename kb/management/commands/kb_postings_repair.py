"""kb_postings_repair: bring a tenant's keyword postings back in step with its chunks."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from kb.postings import PostingsError, postings_repair, postings_state
from portal.commands import command_tenant


class Command(BaseCommand):
    help = (
        "Repair a tenant's keyword postings (kb_chunkterm) after writes made with their "
        "triggers off: enables the triggers, removes stale postings and adds missing ones in "
        "one transaction. Chunk writes wait meanwhile; searches go on."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant schema name")

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.perf_counter()
        with command_tenant(str(options["tenant"])):
            try:
                repair = postings_repair()
            except PostingsError as exc:
                raise CommandError(str(exc)) from exc
            state = postings_state()
        if repair.enabled_triggers:
            self.stdout.write(f"enabled triggers: {', '.join(repair.enabled_triggers)}")
        self.stdout.write(
            f"{options['tenant']}: {repair.removed} stale postings removed, {repair.added} "
            f"added, {repair.raised_bounds} term bounds raised; {state.stored} postings for {state.expected} chunk lexemes "
            f"({time.perf_counter() - started:.1f} s)"
        )
        if state.problems:  # another session wrote with the triggers off since the commit
            raise CommandError("; ".join(state.problems), returncode=1)
