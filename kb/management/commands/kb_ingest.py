"""kb_ingest: ingest files and folders (recursively) into a project of a tenant."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from kb.curation import AuditContext, ChangeSource
from kb.embeddings import EmbeddingError
from kb.ingestion.extract import detect_source_type
from kb.ingestion.prepare import SourceTooLarge
from kb.services import IngestItem, IngestOutcome, documents_ingest_many, ingest_summary
from portal.access.services import AccessError, project_ensure
from portal.commands import command_tenant

CLI_ORIGIN = AuditContext(actor=None, source=ChangeSource.CLI)


def _loader(path: Path) -> Callable[[], bytes]:
    def load() -> bytes:
        limit = int(settings.KB["INGEST_MAX_FILE_BYTES"])
        size = path.stat().st_size
        if size > limit:
            # refuse before reading a huge file into memory
            raise SourceTooLarge(
                f"source is {size} bytes; the limit is {limit} bytes (KB_INGEST_MAX_FILE_BYTES)"
            )
        return path.read_bytes()

    return load


def collect_sources(paths: list[str]) -> tuple[list[tuple[Path, str]], list[dict[str, str]]]:
    """(file, stored source_path) for every file under `paths`, and the paths that are missing.

    Folders contribute their supported files (hidden entries skipped), stored relative to the
    folder's parent so a re-run from anywhere hits the same documents; files keep their name.
    """
    found: list[tuple[Path, str]] = []
    missing: list[dict[str, str]] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.is_file():
            found.append((path, path.name))
        elif path.is_dir():
            root = path.resolve()
            for dirpath, dirnames, filenames in os.walk(root):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for name in sorted(filenames):
                    if name.startswith(".") or detect_source_type(name) is None:
                        continue
                    file = Path(dirpath) / name
                    found.append((file, file.relative_to(root.parent).as_posix()))
        else:
            missing.append({"path": raw, "error": "no such file or directory"})
    return found, missing


class Command(BaseCommand):
    help = "Ingest Markdown/text/HTML files or folders into a project (unchanged files skip)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
        parser.add_argument("--tenant", required=True, help="tenant schema name")
        parser.add_argument("--project", required=True, help="project key (created if missing)")
        parser.add_argument("--json", action="store_true", help="print the JSON summary only")
        parser.add_argument("--quiet", action="store_true", help="print failures only")

    def handle(self, *args: Any, **options: Any) -> None:
        as_json, quiet = bool(options["json"]), bool(options["quiet"])
        sources, missing = collect_sources(list(options["paths"]))
        try:
            with command_tenant(str(options["tenant"])):
                project = project_ensure(key=str(options["project"]))
                outcomes = self._ingest(project, sources, show_progress=not (as_json or quiet))
                orphaned = not project.memberships.exists()
        except (AccessError, EmbeddingError, ImproperlyConfigured) as exc:
            raise CommandError(str(exc)) from exc
        summary = ingest_summary(outcomes)
        summary["failed"] = missing + summary["failed"]
        self._report(summary, as_json=as_json, quiet=quiet)
        if orphaned and not quiet:
            # on stderr even with --json: the documents are invisible to everyone but superusers
            self.stderr.write(
                f"warning: project {project.key!r} has no members, so only tenant superusers can "
                f"see its documents. Add one with: ./dev manage user_create NAME --tenant "
                f"{options['tenant']} --password PASSWORD --project {project.key}:editor "
                "(or add a Membership in the admin console at /admin/)"
            )
        if summary["failed"]:
            raise CommandError(f"{len(summary['failed'])} file(s) failed", returncode=1)

    def _ingest(
        self, project: Any, sources: list[tuple[Path, str]], *, show_progress: bool
    ) -> list[IngestOutcome]:
        progress = None
        if show_progress and sys.stderr.isatty():
            progress = tqdm(total=len(sources), unit="file", desc="ingest", file=sys.stderr)

        def items() -> Iterator[IngestItem]:
            for path, source_path in sources:
                yield IngestItem(source_path=source_path, content=_loader(path))

        def tick(outcome: IngestOutcome) -> None:
            if progress is not None:
                progress.update(1)

        try:
            return documents_ingest_many(
                project=project, items=items(), on_outcome=tick, origin=CLI_ORIGIN
            )
        finally:
            if progress is not None:
                progress.close()

    def _report(self, summary: dict[str, Any], *, as_json: bool, quiet: bool) -> None:
        if as_json:
            self.stdout.write(json.dumps(summary, indent=2))
            return
        for failure in summary["failed"]:
            self.stderr.write(f"FAILED {failure['path']}: {failure['error']}")
        if quiet:
            return
        for warning in summary["warnings"]:
            self.stderr.write(f"warning: {warning}")
        self.stdout.write(
            f"{summary['documents']} documents ({summary['created']} created, "
            f"{summary['updated']} updated, {summary['skipped']} skipped, "
            f"{len(summary['failed'])} failed), {summary['chunks']} chunks"
        )
