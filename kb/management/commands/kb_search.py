"""kb_search: run the retrieval pipeline from the command line.

Without --as-user the search runs as a superuser-equivalent (an unsaved superuser: every
project of the tenant is visible); pass --as-user to see exactly what one user would.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from kb.retrieval import MODES, InvalidSearchRequest, SearchFilters, search
from kb.retrieval.types import SearchHit
from portal.commands import acting_user, command_tenant


def _row(index: int | str, hit: SearchHit) -> str:
    status = hit.canonical_status or "-"
    cosine = "-" if hit.cosine is None else f"{hit.cosine:.3f}"
    excerpt = textwrap.shorten(" ".join(hit.text.split()), width=60, placeholder="…")
    return (
        f"{index!s:>3} {hit.score:>7.3f} {hit.quality_score:>5.2f} {cosine:>6} "
        f"{hit.slug[:28]:<28} {status:<10} {hit.heading_path[:30]:<30} {excerpt}"
    )


class Command(BaseCommand):
    help = (
        "Search a tenant's knowledge base. Without --as-user, searches as a "
        "superuser-equivalent (all projects)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("query", help="the question or keywords")
        parser.add_argument("--tenant", required=True, help="tenant schema")
        parser.add_argument("--top", type=int, default=None, help="primary hits (default 8)")
        parser.add_argument("--project", action="append", help="project key (repeatable)")
        parser.add_argument("--mode", choices=MODES, default="hybrid")
        parser.add_argument("--min-similarity", type=float, default=None)
        parser.add_argument("--as-user", dest="as_user", help="search as this user")
        parser.add_argument("--json", action="store_true", help="print the SearchResult JSON")

    def handle(self, *args: Any, **options: Any) -> None:
        with command_tenant(options["tenant"]):
            user = acting_user(options["as_user"])
            try:
                result = search(
                    user=user,
                    query=options["query"],
                    limit=options["top"],
                    filters=SearchFilters(project_keys=tuple(options["project"] or ())),
                    min_similarity=options["min_similarity"],
                    mode=options["mode"],
                )
            except InvalidSearchRequest as exc:
                raise CommandError(str(exc)) from exc
        if options["json"]:
            self.stdout.write(json.dumps(result.to_dict(), indent=2, default=str))
            return
        meta = result.meta
        strategy = meta["search_strategy"]
        self.stdout.write(
            f"{meta['primary_count']} hits in {meta['retrieval_ms']} ms "
            f"(mode {meta['mode']}, fusion {strategy['fusion_method']}, "
            f"relevance {meta['relevance_level']})"
        )
        for note in meta["degraded"]:
            self.stdout.write(self.style.WARNING(f"degraded: {note}"))
        header = (
            f"{'#':>3} {'score':>7} {'qual':>5} {'cos':>6} {'slug':<28} {'status':<10} "
            f"{'heading':<30} text"
        )
        sections = [
            ("primary", result.primary),
            ("related (graph expansion)", result.expanded),
            ("rejected approaches", result.rejected),
            ("runner-ups", result.runner_up),
        ]
        for title, hits in sections:
            if not hits:
                continue
            self.stdout.write(f"\n{title}")
            self.stdout.write(header)
            for index, hit in enumerate(hits, start=1):
                self.stdout.write(_row(index, hit))
