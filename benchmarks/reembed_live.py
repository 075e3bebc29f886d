"""Re-embedding without downtime: `kb_reembed` on a tenant while searches keep running.

    ./dev manage demo_setup       # once: the demo tenant with its handbook
    DEBUG=1 OMP_NUM_THREADS=1 .venv/bin/python benchmarks/reembed_live.py [--tenant demo]

This process plays a server: one thread searches the tenant (the retrieval pipeline, query
embedding included, as a request would) every --interval ms, cycling through the demo gold
set's questions. It searches for --warmup seconds first ("before"), then starts
`manage.py kb_reembed` as a separate process (as an operator would) and keeps searching
until it exits ("during"), then --after seconds more ("after"). With --kill-after N the first
run is SIGKILLed after N seconds and started again (it resumes: "already_done"). Each phase reports answered
and failed searches and p50/p95 latency; "after" also checks that every process embeds in the
new space (this one learns of the switch by its space lookup, as another server would).

The target is the model folder given by --model-path (default: the packaged all-MiniLM-L6-v2
folder, addressed by path: the only sentence-transformers model on this offline machine, so
the vectors come out equal but every chunk is embedded, indexed and switched for real). With
--restore (default) a second run moves the tenant back to the packaged model, measured the
same way.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
os.environ.setdefault("DEBUG", "1")

GOLD = ROOT / "kb" / "demo_corpus" / "ANSWERS.jsonl"


def percentile(values: list[float], share: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 1)


class Searcher:
    """Searches every `interval` seconds on its own thread; latencies and failures per phase."""

    def __init__(self, *, schema: str, username: str, questions: list[str], interval: float):
        self.schema, self.username, self.questions = schema, username, questions
        self.interval = interval
        self.phase = "before"
        self.results: dict[str, dict[str, list]] = {}
        self.spaces: dict[str, set[str]] = {}
        self.stop = threading.Event()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db import connection
        from django_tenants.utils import schema_context

        from kb.embeddings.spaces import active_space
        from kb.retrieval import search

        with schema_context(self.schema):
            user = get_user_model().objects.get(username=self.username)
            search(user=user, query=self.questions[0])  # model load, untimed
            self.ready.set()
            count = 0
            while not self.stop.is_set():
                phase = self.phase
                bucket = self.results.setdefault(phase, {"ms": [], "failed": [], "empty": []})
                question = self.questions[count % len(self.questions)]
                count += 1
                started = time.perf_counter()
                try:
                    result = search(user=user, query=question)
                    bucket["ms"].append((time.perf_counter() - started) * 1000)
                    if not result.primary:
                        bucket["empty"].append(question)
                    self.spaces.setdefault(phase, set()).add(active_space().spec.label)
                except Exception as exc:  # noqa: BLE001 - counted: the point is that none occur
                    bucket["failed"].append(f"{type(exc).__name__}: {exc}")
                self.stop.wait(self.interval)
        connection.close()

    def report(self) -> dict[str, dict]:
        out = {}
        for phase, bucket in self.results.items():
            out[phase] = {
                "answered": len(bucket["ms"]),
                "failed": len(bucket["failed"]),
                "failures": bucket["failed"][:3],
                "without_hits": len(bucket["empty"]),
                "p50_ms": percentile(bucket["ms"], 0.50),
                "p95_ms": percentile(bucket["ms"], 0.95),
                "mean_ms": round(statistics.fmean(bucket["ms"]), 1) if bucket["ms"] else None,
                "spaces_seen": sorted(self.spaces.get(phase, ())),
            }
        return out


def reembed_live(
    *,
    schema: str,
    username: str,
    target: list[str],
    args: argparse.Namespace,
    kill_after: float = 0,
) -> dict:
    questions = [json.loads(line)["q"] for line in GOLD.read_text().splitlines() if line.strip()]
    searcher = Searcher(
        schema=schema, username=username, questions=questions, interval=args.interval / 1000
    )
    searcher.thread.start()
    searcher.ready.wait()
    time.sleep(args.warmup)
    searcher.phase = "during"
    command = [sys.executable, "manage.py", "kb_reembed", "--tenant", schema, *target]
    command += ["--batch", str(args.batch), "--json"]
    started = time.perf_counter()
    killed = None
    if kill_after:
        # SIGKILL mid-run (no cleanup at all), then the same command again: it resumes
        victim = subprocess.Popen(
            command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(kill_after)
        victim.kill()
        victim.wait()
        killed = round(time.perf_counter() - started, 1)
    process = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    searcher.phase = "after"
    time.sleep(args.after)
    searcher.stop.set()
    searcher.thread.join()
    if process.returncode != 0:
        raise SystemExit(f"kb_reembed failed:\n{process.stderr[-3000:]}")
    return {
        "command": " ".join(["manage.py", *command[2:]]),
        "report": json.loads(process.stdout),
        "killed_after_seconds": killed,
        "reembed_seconds": round(seconds, 1),
        "searches": searcher.report(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tenant", default="demo")
    parser.add_argument("--user", default="demo", help="the searching user")
    parser.add_argument("--model-path", help="target model folder (default: packaged, by path)")
    parser.add_argument("--batch", type=int, default=64, help="kb_reembed --batch")
    parser.add_argument("--interval", type=float, default=50.0, help="ms between searches")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds searched before")
    parser.add_argument("--after", type=float, default=5.0, help="seconds searched after")
    parser.add_argument("--no-restore", dest="restore", action="store_false")
    parser.add_argument(
        "--kill-after", type=float, default=0, help="SIGKILL the first run after N s, rerun it"
    )
    args = parser.parse_args()

    import django

    django.setup()
    from django.db import connection
    from django_tenants.utils import schema_context

    from kb.embeddings.local import packaged_model_path
    from kb.models import Chunk

    with schema_context(args.tenant):
        chunks = Chunk.objects.count()
    connection.close()
    model_path = args.model_path or str(packaged_model_path())
    runs = [
        reembed_live(
            schema=args.tenant,
            username=args.user,
            target=["--model-path", model_path],
            args=args,
            kill_after=args.kill_after,
        )
    ]
    if args.restore:
        runs.append(
            reembed_live(
                schema=args.tenant, username=args.user, target=["--provider", "local"], args=args
            )
        )
    print(
        json.dumps(
            {"tenant": args.tenant, "chunks": chunks, "cpus": os.cpu_count(), "runs": runs},
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
