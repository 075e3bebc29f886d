"""Background ingestion throughput: N mixed files (Markdown, PDF, Word) through the queue and a
`kb_worker` process, versus the bulk CLI (`kb_ingest`) on the same files.

    DEBUG=1 .venv/bin/python benchmarks/queue_throughput.py [--files 200] [--keep]

Builds the files from SciFact abstracts (half Markdown with one abstract, a quarter 3-page PDFs,
a quarter Word files with three headed sections; fpdf2 and python-docx write them, untimed),
creates a throwaway tenant, then times
  (1) the bulk CLI: `manage.py kb_ingest` over a folder of the files (one process, model load
      included), and
  (2) the queue: the files queued as upload jobs (as the upload API does), then one
      `manage.py kb_worker --batch` process working through them (model load included),
alternating which runs first across --rounds. Each arm's process is sampled for its peak
resident memory (VmHWM). The tenant is dropped at the end unless --keep.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
os.environ.setdefault("DEBUG", "1")

# the shared data sits beside the repository (../shared/)
CORPUS = ROOT.parent / "shared" / "bench" / "scifact" / "corpus.jsonl"


def abstracts(path: Path, count: int) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["title"].strip() and row["text"].strip():
                rows.append((row["title"].strip(), row["text"].strip()))
            if len(rows) >= count:
                break
    return rows


def _latin(text: str) -> str:
    # the core PDF fonts are Latin-1; the benchmark measures throughput, not typography
    return text.encode("latin-1", "replace").decode("latin-1")


def make_pdf(parts: list[tuple[str, str]]) -> bytes:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title(_latin(parts[0][0])[:100])
    for title, text in parts:
        pdf.add_page()
        pdf.set_font("Helvetica", style="B", size=13)
        pdf.multi_cell(0, 7, _latin(title), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(0, 5, _latin(text), new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def make_docx(parts: list[tuple[str, str]]) -> bytes:
    import docx

    document = docx.Document()
    document.add_heading(parts[0][0][:200], level=1)
    for title, text in parts:
        document.add_heading(title[:200], level=2)
        document.add_paragraph(text)
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()


def build_files(count: int) -> list[tuple[str, bytes]]:
    """count files: half Markdown (1 abstract), a quarter PDF and a quarter Word (3 each)."""
    markdown = count // 2
    pdfs = (count - markdown) // 2
    words = count - markdown - pdfs
    pool = abstracts(CORPUS, markdown + 3 * (pdfs + words))
    files: list[tuple[str, bytes]] = []
    for index in range(markdown):
        title, text = pool.pop()
        files.append((f"note-{index:04d}.md", f"# {title}\n\n{text}\n".encode()))
    for index in range(pdfs):
        files.append((f"paper-{index:04d}.pdf", make_pdf([pool.pop() for _ in range(3)])))
    for index in range(words):
        files.append((f"review-{index:04d}.docx", make_docx([pool.pop() for _ in range(3)])))
    return files


def run_sampled(
    command: list[str], env: dict[str, str], *, copies: int = 1
) -> tuple[float, float, str]:
    """(seconds until the last of `copies` identical processes ended, the largest peak RSS of
    any of them in MiB, stderr tail), sampling /proc for VmHWM."""
    started = time.perf_counter()
    processes = [
        subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(copies)
    ]
    peak_kib = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak_kib
        while not stop.is_set():
            for process in processes:
                try:
                    for line in Path(f"/proc/{process.pid}/status").read_text().splitlines():
                        if line.startswith("VmHWM:"):
                            peak_kib = max(peak_kib, int(line.split()[1]))
                except (OSError, ValueError):
                    pass
            stop.wait(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    outputs = [process.communicate()[1] for process in processes]
    seconds = time.perf_counter() - started
    stop.set()
    sampler.join()
    for process, stderr in zip(processes, outputs, strict=True):
        if process.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed:\n{stderr.decode()[-3000:]}")
    return seconds, peak_kib / 1024, outputs[-1].decode()[-500:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=1, help="A/B rounds (order alternates)")
    parser.add_argument("--workers", type=int, default=1, help="kb_worker processes (queue arm)")
    parser.add_argument(
        "--arms", default="cli,queue", help="which arms to run: cli, queue or both (default)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the benchmark tenant")
    args = parser.parse_args()
    wanted = {arm.strip() for arm in args.arms.split(",") if arm.strip()}

    import django

    django.setup()
    from django.conf import settings
    from django_tenants.utils import schema_context

    from kb.models import Chunk, Document, IngestJob
    from kb.uploads import UploadFile, ingest_jobs_enqueue
    from portal.access.services import project_ensure
    from portal.tenants.models import Tenant
    from portal.tenants.services import tenant_create

    files = build_files(args.files)
    kinds = {
        suffix: sum(1 for name, _ in files if name.endswith(suffix))
        for suffix in (".md", ".pdf", ".docx")
    }
    folder = Path(tempfile.mkdtemp(prefix="gw-queue-bench-")) / "files"
    folder.mkdir()
    for name, data in files:
        (folder / name).write_bytes(data)

    schema = f"bench_queue_{os.getpid()}"
    tenant = tenant_create(
        schema_name=schema, domain=f"{schema.replace('_', '-')}.localhost", name="Bench"
    )
    env = {**os.environ, "DATABASE_URL": settings.DATABASE_URL, "DEBUG": "1"}
    manage = [sys.executable, "manage.py"]
    results: dict[str, list[dict[str, float]]] = {"cli": [], "queue": []}

    def cli(round_: int) -> None:
        key = f"cli-{round_}"
        seconds, peak, _ = run_sampled(
            [*manage, "kb_ingest", "--tenant", schema, "--project", key, "--quiet", str(folder)],
            env,
        )
        results["cli"].append({"seconds": seconds, "peak_mib": peak, **counts(key)})

    def queue(round_: int) -> None:
        key = f"queue-{round_}"
        with schema_context(schema):
            project = project_ensure(key=key)
            started = time.perf_counter()
            ingest_jobs_enqueue(
                project=project,
                user=None,
                files=[UploadFile(name=name, data=data) for name, data in files],
            )
            enqueue_seconds = time.perf_counter() - started
        seconds, peak, _ = run_sampled([*manage, "kb_worker", "--batch"], env, copies=args.workers)
        with schema_context(schema):
            jobs = IngestJob.objects.filter(project__key=key)
            states = dict.fromkeys(("done", "failed"), 0)
            for state in jobs.values_list("state", flat=True):
                states[state] = states.get(state, 0) + 1
        results["queue"].append(
            {
                "seconds": enqueue_seconds + seconds,
                "enqueue_seconds": enqueue_seconds,
                "peak_mib": peak,
                "jobs_done": states["done"],
                "jobs_failed": states["failed"],
                **counts(key),
            }
        )

    def counts(key: str) -> dict[str, float]:
        with schema_context(schema):
            documents = Document.objects.filter(project__key=key)
            return {
                "documents": documents.count(),
                "chunks": Chunk.objects.filter(document__in=documents).count(),
            }

    try:
        for round_ in range(args.rounds):
            arms = (cli, queue) if round_ % 2 == 0 else (queue, cli)
            for arm in arms:
                if arm.__name__ in wanted:
                    arm(round_)
    finally:
        if not args.keep:
            Tenant.objects.filter(pk=tenant.pk).first().delete(force_drop=True)

    def total(arm: str, field: str) -> float:
        return sum(run[field] for run in results[arm])

    files_total = args.files * args.rounds
    summary: dict[str, object] = {
        "files": args.files,
        "mix": kinds,
        "rounds": args.rounds,
        "workers": args.workers,
    }
    for name in ("cli", "queue"):
        if results[name]:
            seconds = total(name, "seconds")
            summary[f"{name}_seconds"] = round(seconds, 1)
            summary[f"{name}_files_per_min"] = round(files_total / seconds * 60, 1)
            summary[f"{name}_peak_rss_mib"] = round(
                max(run["peak_mib"] for run in results[name]), 1
            )
            summary["chunks_per_round"] = results[name][0]["chunks"]
    if results["cli"] and results["queue"]:
        summary["queue_overhead_pct"] = round(
            (total("queue", "seconds") / total("cli", "seconds") - 1) * 100, 1
        )
    if results["queue"]:
        summary["queue_enqueue_seconds"] = round(total("queue", "enqueue_seconds"), 2)
        summary["queue_jobs_done"] = int(total("queue", "jobs_done"))
        summary["queue_jobs_failed"] = int(total("queue", "jobs_failed"))
    summary.update({"runs": results, "cpus": os.cpu_count(), "load_average": os.getloadavg()})
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
