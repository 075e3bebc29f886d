"""kb_reembed: move a tenant to another embedding model while search keeps answering."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from kb.embeddings import PROVIDERS, EmbeddingError, SpaceSpec
from kb.embeddings.spaces import configured_spec
from kb.reembed import ReembedError, reembed_abort, tenant_reembed
from portal.commands import command_tenant


def target_spec(options: dict[str, Any]) -> SpaceSpec:
    """The space the options name; without any, the one the settings configure."""
    dimensions = int(options.get("dimensions") or 0)
    if options.get("model_path"):
        return SpaceSpec(provider="local", model=options["model_path"], dimensions=dimensions)
    provider = options.get("provider")
    if not provider:
        return configured_spec()
    spec = configured_spec(provider)
    if provider == "local":
        return SpaceSpec(provider="local", model="", dimensions=dimensions)
    if provider == "openai":
        return SpaceSpec(
            provider="openai",
            model=options.get("model") or spec.model,
            base_url=options.get("base_url") or spec.base_url,
            dimensions=dimensions,
        )
    return SpaceSpec(provider=provider, model=options.get("model") or "", dimensions=dimensions)


class Command(BaseCommand):
    help = (
        "Re-embed a tenant's chunks with another model into a new vector column while search "
        "keeps using the old one, build its HNSW index concurrently, then switch in one short "
        "transaction. Resumes an interrupted run. Target: --model-path DIR (a local "
        "sentence-transformers folder), --provider openai [--model --base-url --dimensions], "
        "or, without options, the model the settings configure."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant schema name")
        parser.add_argument("--model-path", help="sentence-transformers model folder on disk")
        parser.add_argument("--provider", choices=PROVIDERS, help="embedding provider")
        parser.add_argument("--model", help="model name (openai provider)")
        parser.add_argument("--base-url", help="OpenAI-compatible endpoint (openai provider)")
        parser.add_argument(
            "--dimensions", type=int, default=0, help="vector size (checked; 0: the model's own)"
        )
        parser.add_argument(
            "--batch",
            type=int,
            default=None,
            help="chunks per batch (default KB_REEMBED_BATCH_SIZE)",
        )
        parser.add_argument(
            "--abort", action="store_true", help="drop an unfinished re-embed instead"
        )
        parser.add_argument("--json", action="store_true", help="print JSON only")

    def handle(self, *args: Any, **options: Any) -> None:
        batch = options["batch"] or int(settings.KB["REEMBED_BATCH_SIZE"])
        if batch < 1:
            raise CommandError("--batch must be at least 1.")
        if options["dimensions"] < 0:
            raise CommandError("--dimensions must be positive.")
        with command_tenant(str(options["tenant"])):
            if options["abort"]:
                self._abort(options)
                return
            bar: tqdm | None = None

            def start(total: int, done: int) -> None:
                nonlocal bar
                bar = tqdm(
                    total=total,
                    initial=done,
                    unit="chunk",
                    desc="re-embedding",
                    disable=options["json"],
                    file=sys.stderr,
                )

            def advance(count: int) -> None:
                if bar is not None:
                    bar.update(count)

            try:
                report = tenant_reembed(
                    target=target_spec(options), batch_size=batch, on_start=start, on_batch=advance
                )
            except (ReembedError, EmbeddingError, ImproperlyConfigured) as exc:
                raise CommandError(str(exc)) from exc
            finally:
                if bar is not None:
                    bar.close()
        if options["json"]:
            self.stdout.write(json.dumps(asdict(report), indent=2))
            return
        self.stdout.write(
            f"tenant {report.schema}: {report.source} -> {report.target} "
            f"({report.chunks} chunks; {report.embedded} embedded now, {report.already_done} "
            f"by an earlier run, {report.embedded_at_switch} at the switch; fill "
            f"{report.fill_seconds:.1f} s, index {report.index_seconds:.1f} s, switch "
            f"{report.switch_seconds * 1000:.0f} ms)"
        )
        self.stdout.write(self.style.SUCCESS("switched"))

    def _abort(self, options: dict[str, Any]) -> None:
        try:
            found = reembed_abort()
        except ReembedError as exc:
            raise CommandError(str(exc)) from exc
        message = "unfinished re-embed dropped" if found else "no re-embed in progress"
        if options["json"]:
            self.stdout.write(json.dumps({"tenant": options["tenant"], "aborted": found}))
        else:
            self.stdout.write(message)
