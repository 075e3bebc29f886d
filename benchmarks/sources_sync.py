"""A Git source of N Markdown files synced on the queue by a real `kb_worker`, versus the bulk
CLI (`kb_ingest`) on the same files.

    DEBUG=1 .venv/bin/python benchmarks/sources_sync.py [--files 5000] [--workers 1] [--keep]

Builds a real Git repository (`git init`, one commit) of N Markdown files, one SciFact abstract
each, spread over folders of 100, in a temporary folder, and a throwaway tenant
(bench_sync_<pid>). Then, in that order:
  (1) reference: `manage.py kb_ingest` over the repository's working tree (hidden `.git`
      skipped), one process, model load included;
  (2) first sync: the source is added with `sources.services.source_create` (what the
      Sources page and the API call: it queues the first sync), then `--workers` processes of
      `manage.py kb_worker` (what `./dev run` starts beside the server) are started; timed
      from the add until the sync job has finished, so worker start and model load count as
      in (1). When a quarter of the files are in, one small upload is queued as the upload API
      queues it (`kb.uploads.ingest_jobs_enqueue`): how long it waits says whether other jobs
      run during a sync;
  (3) incremental sync: one commit changes 50 files, renames 20, deletes 30; "Run now"
      (`sources.services.source_run_now`) on the same, warm workers; then checked: live
      documents == N - 30, none duplicated, renamed documents kept their ids, counts right;
  (4) a sync with nothing new (the same commit).
Each worker's peak resident memory (VmHWM) is sampled from /proc, the queue (ready and running
jobs) every 0.25 s. The workers run no periodic tasks (SOURCES_DUE_CHECK_SECONDS=0,
RETENTION_PURGE_EVERY_SECONDS=0), so they never touch another tenant; the run refuses to start
while other jobs are queued or another kb_worker is attached to the database. The tenant, its
queue rows and the temporary folder are removed at the end unless --keep.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "portal.settings")
os.environ.setdefault("DEBUG", "1")

# the shared data sits beside the repository (../shared/)
CORPUS = ROOT.parent / "shared" / "bench" / "scifact" / "corpus.jsonl"
FOLDER_SIZE = 100
CHANGED, RENAMED, DELETED = 50, 20, 30
POLL_SECONDS = 0.25
UPLOAD_AT = 0.25  # queue the probe upload when this share of the files is in
SYNC_TASK = "source_sync_job"
GIT_ENV = {
    "PATH": "/usr/bin:/bin",
    "GIT_AUTHOR_NAME": "Docs",
    "GIT_AUTHOR_EMAIL": "docs@example.com",
    "GIT_COMMITTER_NAME": "Docs",
    "GIT_COMMITTER_EMAIL": "docs@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


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


class Repo:
    """A real Git repository in a folder, committed with the `git` binary."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True)
        self.git("init", "--quiet", "--initial-branch=main")

    def git(self, *args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(self.path), *args],
            check=True,
            capture_output=True,
            text=True,
            env={**GIT_ENV, "HOME": str(self.path)},
        ).stdout.strip()

    def write(self, name: str, text: str) -> None:
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")

    def commit(self, message: str) -> str:
        self.git("add", "--all")
        self.git("commit", "--quiet", "-m", message)
        return self.git("rev-parse", "HEAD")


def build_repo(repo: Repo, count: int) -> tuple[list[str], list[tuple[str, str]]]:
    """count Markdown files (one abstract each) in folders of FOLDER_SIZE; their paths and
    the abstracts left over (for the changes)."""
    pool = abstracts(CORPUS, count + CHANGED)
    if len(pool) < count:
        raise SystemExit(f"the corpus has {len(pool)} usable abstracts; --files {count} is more")
    paths: list[str] = []
    for index in range(count):
        title, text = pool[index]
        path = f"docs/area-{index // FOLDER_SIZE:03d}/note-{index:05d}.md"
        repo.write(path, f"# {title}\n\n{text}\n")
        paths.append(path)
    return paths, pool[count:]


def change_commit(
    repo: Repo, paths: list[str], spare: list[tuple[str, str]]
) -> dict[str, list[str]]:
    """One commit: CHANGED files get a short new paragraph (an edit, not a rewrite), RENAMED
    move to docs/archive/ unchanged,
    DELETED go; picked evenly over the tree. Returns the paths of each kind (renames as
    'old -> new')."""
    picks = paths[:: max(1, len(paths) // (CHANGED + RENAMED + DELETED))]
    changed, renamed, deleted = (
        picks[:CHANGED],
        picks[CHANGED : CHANGED + RENAMED],
        picks[CHANGED + RENAMED : CHANGED + RENAMED + DELETED],
    )
    for index, path in enumerate(changed):
        text = spare[index][1] if index < len(spare) else "Reviewed again."
        with (repo.path / path).open("a", encoding="utf-8") as handle:
            handle.write(f"\nUpdate: {text[:300]}\n")
    moves = []
    for path in renamed:
        new = path.replace("docs/", "docs/archive/", 1)
        (repo.path / new).parent.mkdir(parents=True, exist_ok=True)
        repo.git("mv", path, new)
        moves.append(f"{path} -> {new}")
    for path in deleted:
        repo.git("rm", "--quiet", path)
    repo.commit("revise 50, archive 20, drop 30")
    return {"changed": changed, "renamed": moves, "deleted": deleted}


class Sampler(threading.Thread):
    """Samples the peak resident memory (VmHWM) of some processes every 0.2 s."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.pids: list[int] = []
        self.peak_kib: dict[int, int] = {}
        self.stopping = threading.Event()

    def run(self) -> None:
        while not self.stopping.is_set():
            for pid in list(self.pids):
                try:
                    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                        if line.startswith("VmHWM:"):
                            kib = int(line.split()[1])
                            self.peak_kib[pid] = max(self.peak_kib.get(pid, 0), kib)
                except (OSError, ValueError):
                    pass
            self.stopping.wait(0.2)

    def peak_mib(self, pids: list[int]) -> float:
        return max((self.peak_kib.get(pid, 0) for pid in pids), default=0) / 1024


@dataclass
class Phase:
    """What one sync did and how the queue looked meanwhile."""

    name: str
    seconds: float = 0.0
    enqueue_ms: float = 0.0  # the service call a page or API request makes
    job_wait_seconds: float = 0.0  # queued -> a worker took it
    job_run_seconds: float = 0.0  # taken -> finished
    report: dict[str, Any] = field(default_factory=dict)
    jobs_created: dict[str, int] = field(default_factory=dict)
    max_ready: int = 0
    max_running: int = 0
    worker_peak_mib: float = 0.0
    upload: dict[str, Any] = field(default_factory=dict)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=1, help="kb_worker processes (default 1)")
    parser.add_argument(
        "--provider", default="local", help="embedding provider (default: local, as shipped)"
    )
    parser.add_argument("--no-reference", action="store_true", help="skip the kb_ingest arm")
    parser.add_argument("--keep", action="store_true", help="keep the tenant and the repository")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()
    if args.files < CHANGED + RENAMED + DELETED:
        raise SystemExit(f"--files must be at least {CHANGED + RENAMED + DELETED}")

    folder = Path(tempfile.mkdtemp(prefix="gw-sync-bench-"))
    upstream = folder / "upstream"
    # read by portal/settings.py, here and in the subprocesses: the repository is a local
    # path editors may name, the clone goes to the temporary folder
    os.environ["SOURCES_LOCAL_ROOTS"] = str(upstream)
    os.environ["SOURCES_CACHE_DIR"] = str(folder / "cache")
    os.environ["KB_EMBEDDING_PROVIDER"] = args.provider
    os.environ.pop("GROUNDWORK_TESTING", None)

    import django

    django.setup()
    from django.conf import settings
    from django.db import connection
    from django_tasks_db.compat import TaskResultStatus
    from django_tasks_db.models import DBTaskResult
    from django_tenants.utils import schema_context

    from kb.models import Chunk, Document
    from kb.uploads import UploadFile, ingest_jobs_enqueue
    from kb.worker import LOCK_NAMESPACE
    from portal.access.services import project_ensure
    from portal.tenants.models import Tenant
    from portal.tenants.services import tenant_create
    from sources.models import Source, SourceItem
    from sources.services import source_create, source_run_now

    FINISHED = (TaskResultStatus.SUCCESSFUL, TaskResultStatus.FAILED)

    busy = DBTaskResult.objects.filter(
        status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING]
    ).count()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
            "AND classid = %s AND objsubid = 2 "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            [LOCK_NAMESPACE],
        )
        workers_attached = cursor.fetchone()[0]
    if busy or workers_attached:
        raise SystemExit(
            f"not measuring: {busy} jobs queued or running and {workers_attached} kb_worker(s) "
            "attached to this database; stop them (or let the queue drain) first"
        )

    started_build = time.perf_counter()
    repo = Repo(upstream / "handbook")
    paths, spare = build_repo(repo, args.files)
    head = repo.commit("handbook")
    build_seconds = time.perf_counter() - started_build

    schema = f"bench_sync_{os.getpid()}"
    with contextlib.redirect_stdout(io.StringIO()):  # the tenant's migrations, one a line
        tenant = tenant_create(
            schema_name=schema, domain=f"{schema.replace('_', '-')}.localhost", name="Bench"
        )
    env = {
        **os.environ,
        "DATABASE_URL": settings.DATABASE_URL,
        "DEBUG": "1",
        # the benchmark's workers run its jobs only: no due-source checks of other tenants
        "SOURCES_DUE_CHECK_SECONDS": "0",
        "RETENTION_PURGE_EVERY_SECONDS": "0",
    }
    manage = [sys.executable, "manage.py"]
    sampler = Sampler()
    sampler.start()
    workers: list[subprocess.Popen[bytes]] = []
    logs = folder / "logs"
    logs.mkdir()
    result: dict[str, Any] = {
        "files": args.files,
        "bytes": sum((repo.path / path).stat().st_size for path in paths),
        "workers": args.workers,
        "provider": args.provider,
        "repo_build_seconds": round(build_seconds, 1),
    }
    failures: list[str] = []

    def check(ok: bool, what: str) -> None:
        if not ok:
            failures.append(what)

    def ours() -> Any:
        return DBTaskResult.objects.filter(args_kwargs__kwargs__schema_name=schema)

    def sync_result(since: float) -> DBTaskResult | None:
        return (
            ours()
            .filter(task_path__endswith=SYNC_TASK, enqueued_at__gte=_at(since))
            .order_by("-enqueued_at")
            .first()
        )

    def run_phase(
        name: str, enqueue: Any, *, start_workers: bool = False, probe_upload: bool = False
    ) -> Phase:
        """Queue a sync (enqueue()), start workers if asked, wait for the job to finish while
        sampling the queue; probe_upload queues one upload a quarter of the way in."""
        phase = Phase(name=name)
        since = time.time()
        started = time.perf_counter()
        with schema_context(schema):
            source = enqueue()
        phase.enqueue_ms = (time.perf_counter() - started) * 1000
        if start_workers:
            for number in range(args.workers):
                log = (logs / f"worker-{number}.log").open("wb")
                worker = subprocess.Popen(
                    [*manage, "kb_worker", "--worker-id", f"{schema}-{number}"],
                    cwd=ROOT,
                    env=env,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
                workers.append(worker)
                sampler.pids.append(worker.pid)
        upload_job = None
        while True:
            time.sleep(POLL_SECONDS)
            for worker in workers:
                if worker.poll() is not None:
                    raise SystemExit(f"a kb_worker ended by itself; see {logs}")
            phase.max_ready = max(
                phase.max_ready, ours().filter(status=TaskResultStatus.READY).count()
            )
            phase.max_running = max(
                phase.max_running, ours().filter(status=TaskResultStatus.RUNNING).count()
            )
            job = sync_result(since)
            if probe_upload and upload_job is None:
                with schema_context(schema):
                    done = Document.objects.filter(
                        project=source.project, deleted_at__isnull=True
                    ).count()
                if done >= args.files * UPLOAD_AT:
                    with schema_context(schema):
                        upload_job = ingest_jobs_enqueue(
                            project=project_ensure(key="uploads"),
                            user=None,
                            files=[UploadFile(name="probe.md", data=PROBE)],
                        )[0]
                    phase.upload = {"queued_at_s": round(time.perf_counter() - started, 1)}
            if job is not None and job.status in FINISHED:
                break
        phase.seconds = time.perf_counter() - started
        assert job is not None and job.started_at and job.finished_at
        phase.job_wait_seconds = (job.started_at - job.enqueued_at).total_seconds()
        phase.job_run_seconds = (job.finished_at - job.started_at).total_seconds()
        phase.report = job.return_value or {"error": job.exception_class_path}
        created: dict[str, int] = {}
        for path in ours().filter(enqueued_at__gte=_at(since)).values_list("task_path", flat=True):
            created[path.rsplit(".", 1)[-1]] = created.get(path.rsplit(".", 1)[-1], 0) + 1
        phase.jobs_created = created
        if upload_job is not None:
            phase.upload |= _upload_timing(upload_job, job, started, schema)
        phase.worker_peak_mib = sampler.peak_mib([w.pid for w in workers])
        return phase

    try:
        with schema_context(schema):
            project = project_ensure(key="handbook")

        # (1) the reference: the bulk CLI over the same files
        if not args.no_reference:
            key = "bulk-cli"
            started = time.perf_counter()
            cli = subprocess.Popen(
                [*manage, "kb_ingest", "--tenant", schema, "--project", key, "--quiet"]
                + [str(repo.path)],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            sampler.pids.append(cli.pid)
            _, stderr = cli.communicate()
            cli_seconds = time.perf_counter() - started
            if cli.returncode != 0:
                raise SystemExit(f"kb_ingest failed:\n{stderr.decode()[-3000:]}")
            with schema_context(schema):
                cli_documents = Document.objects.filter(project__key=key).count()
                cli_chunks = Chunk.objects.filter(document__project__key=key).count()
            check(cli_documents == args.files, f"kb_ingest stored {cli_documents} documents")
            result["reference"] = {
                "seconds": round(cli_seconds, 1),
                "files_per_s": round(args.files / cli_seconds, 2),
                "peak_rss_mib": round(sampler.peak_mib([cli.pid]), 1),
                "documents": cli_documents,
                "chunks": cli_chunks,
            }

        # (2) the first sync: add the source as a user does, workers take the queued job
        def add() -> Source:
            return source_create(
                project=project,
                name="handbook",
                kind="git",
                settings={"url": str(repo.path), "branch": "main", "paths": ["docs/*.md"]},
            )

        first = run_phase("first sync", add, start_workers=True, probe_upload=True)
        with schema_context(schema):
            source = Source.objects.get(project=project, name="handbook")
            live_first = Document.objects.filter(project=project, deleted_at__isnull=True)
            check(first.report.get("state") == "ok", f"first sync: {first.report}")
            check(first.report.get("added") == args.files, f"first sync added {first.report}")
            check(live_first.count() == args.files, f"first sync: {live_first.count()} live")
            check(source.cursor == head, "first sync: the cursor is not the head commit")
            ids_by_path = dict(live_first.values_list("source_path", "pk"))
            result["chunks"] = Chunk.objects.filter(document__project=project).count()

        # (3) the incremental sync after one commit of changes, renames and deletions
        changes = change_commit(repo, paths, spare)
        second_head = repo.git("rev-parse", "HEAD")
        incremental = run_phase("incremental sync", lambda: source_run_now(source=source))
        with schema_context(schema):
            source.refresh_from_db()
            documents = Document.objects.filter(project=project)
            live = documents.filter(deleted_at__isnull=True)
            expected = args.files - DELETED
            report = incremental.report
            check(report.get("state") == "ok", f"incremental: {report}")
            check(
                (report.get("added"), report.get("changed"), report.get("removed"))
                == (0, CHANGED + RENAMED, DELETED),
                f"incremental counts {report}",
            )
            check(live.count() == expected, f"incremental: {live.count()} live, not {expected}")
            check(
                live.values("source_path").distinct().count() == live.count(),
                "incremental: a path is live twice",
            )
            check(documents.count() == args.files, f"{documents.count()} documents ever made")
            check(SourceItem.objects.filter(source=source).count() == expected, "source items")
            check(source.cursor == second_head, "incremental: the cursor is not the new head")
            prefix = source.path_prefix
            for move in changes["renamed"]:
                old, new = move.split(" -> ")
                moved = live.filter(source_path=prefix + new).values_list("pk", flat=True)
                check(
                    list(moved) == [ids_by_path[prefix + old]],
                    f"renamed {old} is not the same document",
                )
            gone = live.filter(source_path__in=[prefix + p for p in changes["deleted"]]).count()
            check(gone == 0, f"{gone} deleted files still live")
            for path in changes["changed"]:
                doc = live.get(source_path=prefix + path)
                check(doc.metadata["source"]["revision"] == second_head, f"{path} not updated")

        # (4) nothing new upstream
        idle = run_phase("sync, nothing new", lambda: source_run_now(source=source))
        check(
            (idle.report.get("added"), idle.report.get("changed"), idle.report.get("removed"))
            == (0, 0, 0),
            f"nothing-new sync: {idle.report}",
        )
        result["phases"] = [first, incremental, idle]
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGINT)  # Ctrl-C: the idle worker exits
        for worker in workers:
            try:
                worker.wait(timeout=60)
            except subprocess.TimeoutExpired:
                worker.kill()
        sampler.stopping.set()
        if not args.keep:
            ours().delete()
            Tenant.objects.filter(pk=tenant.pk).first().delete(force_drop=True)
            shutil.rmtree(folder, ignore_errors=True)

    result["bench_process_peak_rss_mib"] = round(
        resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1
    )
    result["cpus"] = os.cpu_count()
    result["load_average"] = [round(x, 2) for x in os.getloadavg()]
    result["checks_failed"] = failures
    if args.keep:
        result["kept"] = {"tenant": schema, "folder": str(folder)}
    if args.json:
        result["phases"] = [phase.__dict__ for phase in result["phases"]]
        print(json.dumps(result, indent=2, default=str))
    else:
        print(markdown(result))
    if failures:
        raise SystemExit("checks failed:\n" + "\n".join(failures))


PROBE = b"# Probe\n\nA small upload queued while a source syncs.\n"


def _at(epoch: float) -> Any:
    from datetime import UTC, datetime

    return datetime.fromtimestamp(epoch - 1, tz=UTC)  # a second of slack for clock rounding


def _upload_timing(upload_job: Any, sync_job: Any, started: float, schema: str) -> dict[str, Any]:
    """How long the probe upload waited for a worker, and whether it ran before the sync
    ended. Waits for the upload to finish."""
    from django_tasks_db.models import DBTaskResult
    from django_tenants.utils import schema_context

    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        task = DBTaskResult.objects.get(pk=upload_job.task_id)
        if task.status in ("SUCCESSFUL", "FAILED"):  # TaskResultStatus values
            break
        time.sleep(POLL_SECONDS)
    with schema_context(schema):
        upload_job.refresh_from_db()
    wait = (task.started_at - task.enqueued_at).total_seconds() if task.started_at else None
    return {
        "state": upload_job.state,
        "wait_seconds": round(wait, 1) if wait is not None else None,
        "done_seconds": round((task.finished_at - task.enqueued_at).total_seconds(), 1)
        if task.finished_at
        else None,
        "ran_during_sync": bool(task.started_at and task.started_at < sync_job.finished_at),
    }


def markdown(result: dict[str, Any]) -> str:
    phases: list[Phase] = result["phases"]
    first = phases[0]
    lines = [
        f"{result['files']} Markdown files ({result['bytes'] / 2**20:.1f} MiB, "
        f"{result.get('chunks')} chunks), "
        f"{result['workers']} kb_worker, provider {result['provider']}, "
        f"{result['cpus']} CPUs, load average at the end {result['load_average']}",
        "",
        "| measure | value |",
        "|---|---|",
    ]
    reference = result.get("reference")
    if reference:
        lines.append(
            f"| reference: bulk CLI `kb_ingest` | {reference['seconds']} s, "
            f"**{reference['files_per_s']} files/s**, peak RSS {reference['peak_rss_mib']} MiB |"
        )
    lines.append(
        f"| first sync (add -> done, worker start + model load included) | {first.seconds:.1f} s, "
        f"**{result['files'] / first.seconds:.2f} files/s** |"
    )
    if reference:
        lines.append(
            f"| **first sync / bulk CLI** | **{first.seconds / reference['seconds']:.2f}** |"
        )
    lines += [
        f"| first sync: job waited / ran | {first.job_wait_seconds:.1f} s / "
        f"{first.job_run_seconds:.1f} s |",
        f"| add source (the request's work: validate, save, queue) | {first.enqueue_ms:.0f} ms |",
    ]
    for phase in phases[1:]:
        report = phase.report
        lines.append(
            f"| {phase.name} (Run now -> done, warm worker) | {phase.seconds:.1f} s "
            f"(job ran {phase.job_run_seconds:.1f} s); added {report.get('added')}, "
            f"changed {report.get('changed')}, removed {report.get('removed')} |"
        )
    incremental = phases[1]
    reingested = CHANGED + RENAMED  # a rename is written again too (a new version)
    lines.append(
        f"| incremental: s per re-ingested file / first sync's s per file | "
        f"{incremental.job_run_seconds / reingested:.3f} / "
        f"{first.job_run_seconds / result['files']:.3f} = "
        f"**{incremental.job_run_seconds / reingested / (first.job_run_seconds / result['files']):.2f}** |"
    )
    lines.append(
        f"| worker peak RSS (largest of {result['workers']}) | "
        f"{max(p.worker_peak_mib for p in phases):.0f} MiB |"
    )
    for phase in phases:
        jobs = ", ".join(f"{count} {name}" for name, count in sorted(phase.jobs_created.items()))
        lines.append(
            f"| queue, {phase.name}: jobs created / max ready / max running | "
            f"{jobs} / {phase.max_ready} / {phase.max_running} |"
        )
    upload = first.upload
    if upload:
        ran = "ran during the sync" if upload["ran_during_sync"] else "waited for the sync"
        lines.append(
            f"| upload queued {upload['queued_at_s']} s into the first sync | waited "
            f"{upload['wait_seconds']} s for a worker, done after {upload['done_seconds']} s "
            f"({ran}; {upload['state']}) |"
        )
    checks = result["checks_failed"]
    lines.append(
        "| checks (counts, live == N - 30, no duplicate, renames keep their document) | "
        + ("all passed" if not checks else f"FAILED: {'; '.join(checks)}")
        + " |"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
