"""The keyword arm with and without top-k pruning (issue #32 part 1): latency and equality.

    DEBUG=1 .venv/bin/python benchmarks/pruning_bench.py --tenant bench1m --chunks 1000000 \
        --scifact ../shared/bench/scifact [--queries 200]

On a project loaded by benchmarks/million_bench.py (structured-N), runs every SciFact claim
through `kb.retrieval.arms.keyword_arm` twice, pruned and exhaustive (`prune=False`), in
alternating order, as a plain member of the project would search it (visibility scope, top
24 = the pipeline's candidate count for 8 results). Reports p50/p95 of both, how many
queries were pruned (and how many fell back to the exhaustive statement, and why), the
share of the query's postings the pruned statement read, and whether every ranking and
score was identical. Exits non-zero if any differed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

# first: retrieval_bench (beside this script) sets up Django
import retrieval_bench  # noqa: F401

# isort: split
from django.db import connection  # noqa: E402
from django_tenants.utils import schema_context  # noqa: E402
from million_bench import scifact_text  # noqa: E402

from kb.evaluation.metrics import latency_summary  # noqa: E402
from kb.models import Document  # noqa: E402
from kb.retrieval import SearchFilters, arms, pruning  # noqa: E402
from kb.retrieval.frequencies import document_frequencies  # noqa: E402
from kb.retrieval.sql import Scope  # noqa: E402
from kb.retrieval.weights import CANDIDATE_MULTIPLIER  # noqa: E402
from portal.access.models import Project  # noqa: E402
from portal.commands import acting_user  # noqa: E402


class Recorder:
    """Wraps pruning.split_terms to see what the pruned path decided, per query."""

    def __init__(self) -> None:
        self.split = pruning.split_terms
        self.last: tuple | None = None
        self.called = False

    def __call__(self, terms, selecting, bounds, theta):
        result = self.split(terms, selecting, bounds, theta)
        self.called, self.last = True, (list(terms), result)
        return result

    def reset(self) -> None:
        self.called, self.last = False, None


def postings(lexemes: list[str]) -> dict[str, int]:
    """Each lexeme's postings (its document frequency, as the keyword arm counts it)."""
    with connection.cursor() as cursor:
        return document_frequencies(cursor, lexemes)[1]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tenant", required=True)
    parser.add_argument("--chunks", type=int, required=True)
    parser.add_argument("--scifact", type=Path, default=Path("../shared/bench/scifact"))
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--min-postings",
        type=int,
        default=pruning.PRUNE_MIN_POSTINGS,
        help="prune queries reading at least this many postings (default: the arm's)",
    )
    args = parser.parse_args()
    pruning.PRUNE_MIN_POSTINGS = args.min_postings
    _, _, claims = scifact_text(args.scifact)
    claims = claims[: args.queries]
    recorder = Recorder()
    pruning.split_terms = recorder
    k = CANDIDATE_MULTIPLIER * 8
    with schema_context(args.tenant):
        user = acting_user(None)
        project = Project.objects.get(key=f"structured-{args.chunks}")
        filters = SearchFilters(project_keys=(project.key,))
        scope = Scope.for_documents(Document.objects.visible_filtered(user, filters))
        took: dict[str, list[float]] = {"pruned": [], "exhaustive": []}
        outcome = {"pruned": 0, "below_threshold_or_too_few": 0, "nothing_to_prune": 0}
        # per outcome: (pruned ms, exhaustive ms) of each measured query
        by_outcome: dict[str, dict[str, list[float]]] = {
            name: {"pruned": [], "exhaustive": []} for name in outcome
        }
        read_share: list[float] = []
        differ: list[str] = []
        for i, claim in enumerate(claims):
            results: dict[str, list] = {}
            decided = None
            order = ["pruned", "exhaustive"] if i % 2 == 0 else ["exhaustive", "pruned"]
            for way in order:
                recorder.reset()
                started = time.perf_counter()
                found = arms.keyword_arm(
                    query=claim, scope=scope, k=k, language="english", prune=way == "pruned"
                )
                elapsed = (time.perf_counter() - started) * 1000
                if i >= 5:
                    took[way].append(elapsed)
                results[way] = [(c.chunk_id, c.keyword_score) for c in found]
                if way == "pruned":
                    decided = recorder.last
            if results["pruned"] != results["exhaustive"]:
                differ.append(claim)
            if decided is None:
                name = "below_threshold_or_too_few"
            elif decided[1] is None:
                name = "nothing_to_prune"
            else:
                name = "pruned"
            outcome[name] += 1
            if i >= 5:
                for way in took:
                    by_outcome[name][way].append(took[way][-1])
            if decided is not None and decided[1] is not None:
                terms, (essential, _, _) = decided
                counts = postings(terms)
                read_share.append(sum(counts[t] for t in essential) / max(1, sum(counts.values())))
        read_share.sort()
        report = {
            "tenant": args.tenant,
            "chunks": args.chunks,
            "queries": len(claims),
            "k": k,
            "min_postings": args.min_postings,
            "latency_ms": {way: latency_summary(values) for way, values in took.items()},
            "outcome": outcome,
            "latency_ms_by_outcome": {
                name: {way: latency_summary(values) for way, values in ways.items() if values}
                for name, ways in by_outcome.items()
            },
            "essential_postings_share_when_pruned": {
                "p50": round(read_share[len(read_share) // 2], 3) if read_share else None,
                "mean": round(sum(read_share) / len(read_share), 3) if read_share else None,
            },
            "identical_rankings": len(claims) - len(differ),
            "differing": differ[:5],
        }
    print(json.dumps(report, indent=2))
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
