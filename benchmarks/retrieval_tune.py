"""Train-split sweep of retrieval knobs (tune on train qrels only; report on test).

    EMBEDDED_DB_DIR=... DEBUG=1 .venv/bin/python benchmarks/retrieval_tune.py --tenant bench \
        --beir ../shared/bench/scifact --split train \
        '{}' '{"FUSION_METHOD": "rrf"}' '{"weights": {"keyword": 0.35}}'

Each JSON argument is a settings.KB override, with `weights` replacing fields of
kb.retrieval.weights.WEIGHTS for that run; prints hybrid ndcg@10 / recall@10 per config.
Run `kb_benchmark --beir` once first so the corpus is ingested.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django_tenants.utils import schema_context  # noqa: E402

from kb.evaluation.datasets import load_beir  # noqa: E402
from kb.evaluation.runner import embed_queries, run_modes  # noqa: E402
from kb.models import Document  # noqa: E402
from kb.retrieval import SearchFilters, weights  # noqa: E402
from portal.commands import acting_user  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tenant", required=True)
    parser.add_argument("--beir", type=Path, required=True)
    parser.add_argument("--split", default="train")
    parser.add_argument("--modes", default="hybrid")
    parser.add_argument("--k", type=int, default=10, help="search top (default 10)")
    parser.add_argument(
        "--min-similarity", type=float, default=None, help="request floor (default: none)"
    )
    parser.add_argument("configs", nargs="*", default=["{}"])
    args = parser.parse_args()
    dataset = load_beir(args.beir, split=args.split)
    base = dict(settings.KB)
    default_weights = weights.WEIGHTS
    with schema_context(args.tenant):
        user = acting_user(None)
        key = f"beir-{dataset.name}"
        id_map = {
            pk: path.removesuffix(".md")
            for pk, path in Document.objects.filter(project__key=key).values_list(
                "id", "source_path"
            )
        }
        vectors = embed_queries(dataset.queries)
        for config in args.configs:
            override = json.loads(config)
            weights.WEIGHTS = replace(default_weights, **override.pop("weights", {}))
            settings.KB = {**base, **override}
            results = run_modes(
                user=user,
                queries=dataset.queries,
                doc_key=lambda hit: id_map.get(hit.document_id, "?"),
                modes=tuple(args.modes.split(",")),
                filters=SearchFilters(project_keys=(key,)),
                k=args.k,
                min_similarity=args.min_similarity,
                deep_k=0,
                vectors=vectors,
            )
            for mode, metrics in results.items():
                print(
                    f"{config:<60} {mode:<8} ndcg@10={metrics['ndcg@10']:.4f} "
                    f"recall@10={metrics['recall@10']:.4f} mrr@10={metrics['mrr@10']:.4f} "
                    f"p50={metrics['p50_ms']}ms",
                    flush=True,
                )


if __name__ == "__main__":
    main()
