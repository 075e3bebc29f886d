"""kb_benchmark: retrieval quality and latency per mode on a BEIR dataset or a gold set."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from kb.evaluation.datasets import BeirDataset, load_beir, load_goldset
from kb.evaluation.runner import EVAL_MODES, run_modes
from kb.models import Document
from kb.retrieval import SearchFilters
from kb.retrieval.types import SearchHit
from kb.services import IngestItem, documents_ingest_many
from portal.access.models import Project
from portal.commands import acting_user, command_tenant


def ingest_beir(dataset: BeirDataset, *, quiet: bool) -> tuple[Project, dict[int, str]]:
    """Load the corpus into project beir-<name> through the bulk ingest service (once)."""
    project, _ = Project.objects.get_or_create(
        key=f"beir-{dataset.name}".lower()[:63], defaults={"name": f"BEIR {dataset.name}"}
    )
    total = dataset.corpus_size()
    items = (
        IngestItem(
            source_path=f"{record['_id']}.md",
            content=f"# {(record.get('title') or '').strip() or record['_id']}\n\n{record['text']}\n",
            source_type="markdown",
        )
        for record in dataset.corpus()
    )
    failed: list[str] = []
    with tqdm(
        total=total, desc=f"ingest {dataset.name}", unit="doc", file=sys.stderr, disable=quiet
    ) as bar:

        def on_outcome(outcome: Any) -> None:
            if outcome.status == "failed":
                failed.append(f"{outcome.source_path}: {outcome.error}")
            bar.update(1)

        documents_ingest_many(project=project, items=items, on_outcome=on_outcome)
    if failed:
        sys.stderr.write(f"{len(failed)} documents failed, e.g. {failed[0]}\n")
    id_map = {
        doc_id: path.removesuffix(".md")
        for doc_id, path in Document.objects.filter(project=project).values_list(
            "id", "source_path"
        )
    }
    return project, id_map


class Command(BaseCommand):
    help = (
        "Measure retrieval per mode (hybrid/dense/keyword): ndcg@10, mrr@10, recall@10, "
        "recall@100, hit@8, p50/p95 latency excluding the query embedding."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--tenant", required=True, help="tenant schema")
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--beir", type=Path, help="BEIR folder (corpus/queries/qrels)")
        source.add_argument("--goldset", type=Path, help="gold-set JSONL {q, slugs|doc_ids}")
        parser.add_argument("--split", default="test", help="BEIR qrels split (default test)")
        parser.add_argument("--k", type=int, default=10, help="search top (default 10)")
        parser.add_argument("--as-user", dest="as_user", help="search as this user")
        parser.add_argument("--project", help="restrict a gold-set run to one project key")
        parser.add_argument("--mode", action="append", choices=EVAL_MODES, help="repeatable")
        parser.add_argument("--min-similarity", type=float, default=None)
        parser.add_argument("--limit-queries", type=int, default=None)
        parser.add_argument("--json", action="store_true", help="machine output only")

    def handle(self, *args: Any, **options: Any) -> None:
        quiet = options["json"]
        with command_tenant(options["tenant"]):
            user = acting_user(options["as_user"])
            filters = None
            if options["beir"]:
                root = options["beir"]
                if not (root / "corpus.jsonl").is_file():
                    raise CommandError(f"{root} is not a BEIR folder (no corpus.jsonl).")
                try:
                    dataset = load_beir(root, split=options["split"])
                except FileNotFoundError as exc:
                    raise CommandError(str(exc)) from exc
                project, id_map = ingest_beir(dataset, quiet=quiet)
                filters = SearchFilters(project_keys=(project.key,))
                queries = dataset.queries
                name = f"{dataset.name}/{options['split']}"

                def doc_key(hit: SearchHit) -> str:
                    return id_map.get(hit.document_id, f"id:{hit.document_id}")

            else:
                if not options["goldset"].is_file():
                    raise CommandError(f"No such gold set: {options['goldset']}")
                queries = load_goldset(options["goldset"])
                if options["project"]:
                    filters = SearchFilters(project_keys=(options["project"],))
                name = options["goldset"].name
                by_id = any(key.startswith("id:") for q in queries for key in q.relevant)

                def doc_key(hit: SearchHit) -> str:
                    return f"id:{hit.document_id}" if by_id else hit.slug

            if options["limit_queries"]:
                queries = queries[: options["limit_queries"]]
            if not queries:
                raise CommandError("No queries to run.")
            modes = tuple(options["mode"] or EVAL_MODES)
            results = run_modes(
                user=user,
                queries=queries,
                doc_key=doc_key,
                k=options["k"],
                modes=modes,
                filters=filters,
                min_similarity=options["min_similarity"],
            )
        report = {"dataset": name, "queries": len(queries), "modes": results}
        if options["json"]:
            self.stdout.write(json.dumps(report, indent=2))
            return
        self.stdout.write(f"{name}: {len(queries)} queries, top {options['k']}")
        columns = ["ndcg@10", "mrr@10", "recall@10", "recall@100", "hit@8", "p50_ms", "p95_ms"]
        self.stdout.write(f"{'mode':<8}" + "".join(f"{c:>11}" for c in columns))
        for mode, metrics in results.items():
            self.stdout.write(f"{mode:<8}" + "".join(f"{metrics[c]:>11}" for c in columns))
