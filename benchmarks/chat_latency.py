"""The latency of a full chat turn (retrieval, answer, storing) at a corpus size (issue #32
part 4).

    OMP_NUM_THREADS=1 DEBUG=1 .venv/bin/python benchmarks/chat_latency.py --tenant bench100k \
        --questions scifact --scifact ../shared/bench/scifact [--count 100]
    OMP_NUM_THREADS=1 DEBUG=1 .venv/bin/python benchmarks/chat_latency.py --tenant demo \
        --questions kb/demo_corpus/ANSWERS.jsonl

Every question goes through `chat.services.message_send`, the function the chat page and the
API call, as a plain reader of every project of the tenant (a throwaway user), each as the
first turn of a new conversation; everything the run writes is rolled back. Questions are
SciFact claims (for the synthetic corpora of benchmarks/million_bench.py, whose chunks are
SciFact sentences) or the "q" of a gold-set JSONL. The first 5 turns warm up (model loaded,
caches filled) and are not counted. Prints p50/p95/max in ms and how many turns answered.
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
from django.db import transaction  # noqa: E402
from django_tenants.utils import schema_context  # noqa: E402
from million_bench import scifact_text  # noqa: E402

from chat.evaluation import reader_of_every_project  # noqa: E402
from chat.services import message_send  # noqa: E402
from kb.evaluation.metrics import latency_summary  # noqa: E402

WARM_UP = 5


class _Rollback(Exception):
    pass


def questions_of(source: str, scifact: Path) -> list[str]:
    if source == "scifact":
        return scifact_text(scifact)[2]
    path = Path(source)
    if not path.is_file():
        raise SystemExit(f"no such gold set: {source}")
    return [json.loads(line)["q"] for line in path.read_text().splitlines() if line.strip()]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tenant", required=True)
    parser.add_argument("--questions", required=True, help="'scifact' or a gold-set JSONL")
    parser.add_argument("--scifact", type=Path, default=Path("../shared/bench/scifact"))
    parser.add_argument("--count", type=int, default=100, help="measured turns")
    args = parser.parse_args()
    questions = questions_of(args.questions, args.scifact)[: args.count + WARM_UP]
    took: list[float] = []
    refused = 0
    with schema_context(args.tenant):
        try:
            with transaction.atomic():
                user = reader_of_every_project("chat-latency-bench")
                for i, question in enumerate(questions):
                    started = time.perf_counter()
                    turn = message_send(user=user, question=question, conversation=None)
                    elapsed = (time.perf_counter() - started) * 1000
                    if i >= WARM_UP:
                        took.append(elapsed)
                        refused += turn.refusal_reason is not None
                raise _Rollback
        except _Rollback:
            pass
    report = {
        "tenant": args.tenant,
        "questions": args.questions,
        "turns": len(took),
        "refused": refused,
        **latency_summary(took),
        "max_ms": round(max(took), 1),
    }
    print(json.dumps(report, indent=2))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
