"""The bare HNSW walk on several PostgreSQL servers holding the same tenant, interleaved.

    .venv/bin/python benchmarks/hnsw_walk.py --schema bench100k --ef 100 URL [URL ...]

Each URL is a server with a copy of the same tenant schema (e.g. the embedded server and a
restored or copied data folder run by other binaries). The statement is the semantic arm's
core with nothing around it: `SELECT id FROM kb_chunk ORDER BY embedding <=> q LIMIT 24` at
`hnsw.ef_search` --ef, serial. Queries are --queries stored vectors plus Gaussian noise
(sigma 0.08 per dimension, as retrieval_bench.py --synthetic), the same on every server.
Every server gets 50 warm-up queries, then --rounds rounds of all queries; the servers take
turns --passes times, so a drift of the machine's speed hits them alike. Prints, per server
and pass, the median wall time of each round (client round trip included).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import psycopg
from psycopg import sql

STATEMENT = "SELECT id FROM kb_chunk ORDER BY embedding <=> %s::vector LIMIT 24"


def query_literals(url: str, schema: str, count: int, seed: int) -> list[str]:
    with psycopg.connect(url, autocommit=True) as conn:
        rows = conn.execute(
            sql.SQL(
                "SELECT embedding::text FROM {}.kb_chunk WHERE embedding IS NOT NULL ORDER BY id"
            ).format(sql.Identifier(schema))
        ).fetchall()
    if not rows:
        raise SystemExit(f"{schema}.kb_chunk has no embedded chunks")
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(rows), size=count)
    vectors = np.array([[float(x) for x in rows[i][0][1:-1].split(",")] for i in picks])
    vectors += 0.08 * rng.standard_normal(vectors.shape)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return ["[" + ",".join(f"{value:.7g}" for value in vector) + "]" for vector in vectors]


def walk(
    url: str, schema: str, ef: int, literals: list[str], rounds: int
) -> tuple[str, list[float]]:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path TO {}, public").format(sql.Identifier(schema)))
        conn.execute(f"SET hnsw.ef_search = {int(ef)}")
        conn.execute("SET max_parallel_workers_per_gather = 0")
        row = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
        if row is None:
            raise SystemExit(f"{url}: the vector extension is not installed")
        version = row[0]
        label = f"PostgreSQL {conn.info.server_version // 10000}.{conn.info.server_version % 10000}, pgvector {version}"
        for literal in literals[:50]:
            conn.execute(STATEMENT, (literal,)).fetchall()
        medians = []
        for _ in range(rounds):
            times = []
            for literal in literals:
                start = time.perf_counter()
                conn.execute(STATEMENT, (literal,)).fetchall()
                times.append((time.perf_counter() - start) * 1000)
            medians.append(statistics.median(times))
    return label, medians


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("urls", nargs="+", help="PostgreSQL URLs, each holding the schema")
    parser.add_argument("--schema", default="bench100k")
    parser.add_argument("--ef", type=int, default=100)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    literals = query_literals(args.urls[0], args.schema, args.queries, args.seed)
    per_server: dict[str, list[float]] = {}
    for number in range(1, args.passes + 1):
        for url in args.urls:
            label, medians = walk(url, args.schema, args.ef, literals, args.rounds)
            per_server.setdefault(label, []).extend(medians)
            print(
                f"pass {number}  {label}  ef_search {args.ef}: "
                + ", ".join(f"{m:.2f}" for m in medians)
                + " ms",
                flush=True,
            )
    for label, medians in per_server.items():
        print(
            f"{label}: median of {len(medians)} round medians {statistics.median(medians):.2f} ms"
        )


if __name__ == "__main__":
    main()
