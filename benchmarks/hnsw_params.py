"""HNSW build parameters: recall and walk time per (m, ef_construction) and hnsw.ef_search.

    DEBUG=1 .venv/bin/python benchmarks/hnsw_params.py --tenant bench --project beir-scifact \\
        --scifact ../shared/bench/scifact [--builds 16/64,16/128,16/200] [--efs 40,64,80,100]

Three sets of vectors, each copied into a scratch schema (`hnsw_params`, dropped at the end)
once per build, so every build has its own table and index:
- real: the chunk vectors of --project in --tenant (SciFact, all-MiniLM-L6-v2), queried with
  the SciFact test claims embedded by the tenant's model;
- clustered: 100k unit vectors around 200 centres (noise 0.045 per dimension, as
  million_bench.py), queried with stored vectors plus noise 0.03;
- random: 100k random unit vectors, queried with stored vectors plus noise 0.08 (as
  retrieval_bench.py --synthetic: a worst case, where the true neighbours are barely nearer
  than the rest).
For each build: its time (maintenance_work_mem and parallel workers of the server), then per
ef_search the mean recall@24 against exact search (numpy), the share of queries that found
none of their true 24, and the median wall time of `ORDER BY embedding <=> q LIMIT 24`. Times
are measured in --passes passes over every (build, ef_search), interleaved, so a drift of
the machine's speed hits all alike; the figure is the median of the passes' medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")

import django  # noqa: E402

django.setup()

import numpy as np  # noqa: E402
from django.db import connection  # noqa: E402
from django_tenants.utils import schema_context  # noqa: E402

from kb.evaluation.datasets import load_beir  # noqa: E402
from kb.evaluation.runner import embed_queries  # noqa: E402
from kb.models import Chunk  # noqa: E402
from kb.retrieval.sql import vector_literal  # noqa: E402
from portal.access.models import Project  # noqa: E402

SCHEMA = "hnsw_params"
K = 24
DIM = 384


def unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def real_set(tenant: str, project_key: str, scifact: Path) -> tuple[np.ndarray, np.ndarray]:
    with schema_context(tenant):
        project = Project.objects.get(key=project_key)
        vectors = Chunk.objects.filter(document__project=project, embedding__isnull=False)
        stored = np.array(
            [list(v) for v in vectors.values_list("embedding", flat=True) if v is not None]
        )
        queries = load_beir(scifact, split="test").queries
        embedded = embed_queries(queries)
    return unit(stored.astype(np.float32)), unit(
        np.array([embedded[q.qid] for q in queries if embedded[q.qid] is not None], np.float32)
    )


def clustered_set(n: int = 100_000, clusters: int = 200) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(14)
    centres = unit(rng.standard_normal((clusters, DIM)).astype(np.float32))
    weights = rng.lognormal(0.0, 1.0, clusters)
    labels = rng.choice(clusters, size=n, p=weights / weights.sum())
    stored = unit(centres[labels] + 0.045 * rng.standard_normal((n, DIM)).astype(np.float32))
    picks = np.random.default_rng(11).integers(0, n, size=300)
    noise = 0.03 * np.random.default_rng(12).standard_normal((300, DIM)).astype(np.float32)
    return stored, unit(stored[picks] + noise)


def random_set(n: int = 100_000) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    stored = unit(rng.standard_normal((n, DIM)).astype(np.float32))
    picks = rng.integers(0, n, size=300)
    return stored, unit(stored[picks] + 0.08 * rng.standard_normal((300, DIM)).astype(np.float32))


def load_table(cursor, table: str, stored: np.ndarray) -> None:
    cursor.execute(f"CREATE TABLE {table} (id integer PRIMARY KEY, embedding vector({DIM}))")
    with cursor.cursor.copy(f"COPY {table} (id, embedding) FROM STDIN") as copy:
        for number, vector in enumerate(stored):
            copy.write_row((number, vector_literal(vector.tolist())))
    cursor.execute(f"ANALYZE {table}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tenant", required=True, help="tenant holding the real vectors")
    parser.add_argument("--project", default="beir-scifact")
    parser.add_argument("--scifact", type=Path, required=True)
    parser.add_argument("--builds", default="16/64,16/128,16/200", help="m/ef_construction,...")
    parser.add_argument("--efs", default="40,64,80,100")
    parser.add_argument("--sets", default="real,clustered,random")
    parser.add_argument("--queries", type=int, default=200, help="timed queries per pass")
    parser.add_argument("--passes", type=int, default=3)
    args = parser.parse_args()
    builds = [tuple(int(x) for x in b.split("/")) for b in args.builds.split(",")]
    efs = [int(e) for e in args.efs.split(",")]
    makers = {
        "real": lambda: real_set(args.tenant, args.project, args.scifact),
        "clustered": clustered_set,
        "random": random_set,
    }
    report: dict = {"k": K, "sets": {}}
    with connection.cursor() as cursor:
        cursor.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
        cursor.execute(f"CREATE SCHEMA {SCHEMA}")
        cursor.execute("SET max_parallel_workers_per_gather = 0")
        try:
            cases = []
            for name in args.sets.split(","):
                stored, queries = makers[name]()
                exact = np.argsort(-(queries @ stored.T), axis=1)[:, :K]
                literals = [vector_literal(q.tolist()) for q in queries]
                report["sets"][name] = {"vectors": len(stored), "queries": len(queries)}
                for m, efc in builds:
                    table = f"{SCHEMA}.{name}_{m}_{efc}"
                    load_table(cursor, table, stored)
                    started = time.perf_counter()
                    cursor.execute(
                        f"CREATE INDEX ON {table} USING hnsw (embedding vector_cosine_ops) "
                        f"WITH (m = {m}, ef_construction = {efc})"
                    )
                    build_s = round(time.perf_counter() - started, 1)
                    print(
                        f"{name} m={m} ef_construction={efc}: built in {build_s} s", file=sys.stderr
                    )
                    for ef in efs:
                        cursor.execute(f"SET hnsw.ef_search = {ef}")
                        found = []
                        for literal, truth in zip(literals, exact, strict=True):
                            cursor.execute(
                                f"SELECT id FROM {table} ORDER BY embedding <=> %s::vector LIMIT {K}",
                                [literal],
                            )
                            found.append(
                                len({row[0] for row in cursor.fetchall()} & set(truth.tolist()))
                            )
                        cases.append(
                            {
                                "set": name, "m": m, "ef_construction": efc, "build_s": build_s,
                                "ef_search": ef, "table": table, "literals": literals,
                                f"recall@{K}": round(float(np.mean(found)) / K, 4),
                                "queries_with_none_found": round(float(np.mean([f == 0 for f in found])), 3),
                                "pass_medians_ms": [],
                            }
                        )  # fmt: skip
            for _ in range(args.passes):
                for case in cases:
                    cursor.execute(f"SET hnsw.ef_search = {case['ef_search']}")
                    times = []
                    for literal in case["literals"][: args.queries]:
                        started = time.perf_counter()
                        cursor.execute(
                            f"SELECT id FROM {case['table']} ORDER BY embedding <=> %s::vector LIMIT {K}",
                            [literal],
                        )
                        cursor.fetchall()
                        times.append((time.perf_counter() - started) * 1000)
                    case["pass_medians_ms"].append(round(statistics.median(times), 2))
        finally:
            cursor.execute(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE")
    for case in cases:
        case["walk_ms"] = statistics.median(case["pass_medians_ms"])
        del case["table"], case["literals"]
    report["cases"] = cases
    print(json.dumps(report, indent=2))
    for case in cases:
        print(
            f"{case['set']:9} m {case['m']} ef_construction {case['ef_construction']:3} "
            f"({case['build_s']:6.1f} s)  ef_search {case['ef_search']:3}: "
            f"recall@{K} {case[f'recall@{K}']:.3f}, none found {case['queries_with_none_found']:.3f}, "
            f"walk {case['walk_ms']:.2f} ms",
            file=sys.stderr,
        )


if __name__ == "__main__":
    main()
