"""Worker recovery rules on the real queue table: orphaned tasks are requeued, live workers'
tasks are not, and a job that keeps killing its worker fails with the reason."""

from __future__ import annotations

from django.db import connection
from django_tasks_db.models import DBTaskResult
from django_tenants.utils import schema_context

from kb.models import IngestJob
from kb.tasks import run_ingest_job
from kb.uploads import UploadFile, ingest_jobs_enqueue
from kb.worker import LOCK_NAMESPACE, liveness_lock_key, requeue_orphaned_tasks, worker_alive
from portal.access.services import project_ensure

NOTE = b"# Note\n\nA line.\n"


def _queued(alpha, name: str) -> tuple[IngestJob, DBTaskResult]:
    [job] = ingest_jobs_enqueue(
        project=project_ensure(key="ops"), user=None, files=[UploadFile(name=name, data=NOTE)]
    )
    return job, DBTaskResult.objects.get(pk=job.task_id)


def test_a_running_task_of_a_dead_worker_is_requeued_and_a_live_ones_is_not(alpha):
    _, orphan = _queued(alpha, "a.md")
    _, busy = _queued(alpha, "b.md")
    orphan.claim("kb-dead-worker")
    busy.claim("kb-live-worker")
    with connection.cursor() as cursor:  # this session plays the live worker
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s, %s)",
            [LOCK_NAMESPACE, liveness_lock_key("kb-live-worker")],
        )
    assert worker_alive("kb-live-worker") and not worker_alive("kb-dead-worker")
    with schema_context("public"):
        assert requeue_orphaned_tasks() == 1
    orphan.refresh_from_db()
    busy.refresh_from_db()
    assert (orphan.status, busy.status) == ("READY", "RUNNING")
    assert orphan.worker_ids == ["kb-dead-worker"]  # the history of attempts stays


def test_a_job_that_keeps_killing_its_worker_fails_with_the_reason(alpha, settings):
    job, _ = _queued(alpha, "c.md")
    IngestJob.objects.filter(pk=job.pk).update(
        attempts=settings.KB["INGEST_JOB_MAX_ATTEMPTS"], state="embedding"
    )
    assert run_ingest_job(job_id=job.pk)["state"] == "failed"
    job.refresh_from_db()
    assert "the worker stopped during this job 3 times" in job.error


def test_a_repeated_delivery_of_a_finished_job_does_nothing(alpha):
    job, _ = _queued(alpha, "d.md")
    assert run_ingest_job(job_id=job.pk)["state"] == "done"
    job.refresh_from_db()
    finished_at = job.finished_at
    assert run_ingest_job(job_id=job.pk) == {"job_id": job.pk, "state": "done"}
    job.refresh_from_db()
    assert (job.attempts, job.finished_at) == (1, finished_at)


def test_a_job_of_a_dropped_tenant_is_skipped_not_crashed(alpha):
    from kb.tasks import ingest_job

    with schema_context("public"):
        ingest_job.enqueue(schema_name="gone_tenant", job_id=1)
        from kb.worker import run_queued_tasks

        assert run_queued_tasks() == 1
        result = DBTaskResult.objects.get(args_kwargs__kwargs__schema_name="gone_tenant")
    assert result.status == "SUCCESSFUL"
    assert result.return_value == {"job_id": 1, "state": "tenant_gone"}


class _BrokenEmbedder:
    """An embedder that fails in a way nobody planned for (not an EmbeddingError)."""

    name = "broken"
    dimensions = 384

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise RuntimeError("connection to /srv/models/secret.sock refused")

    def embed_query(self, text: str) -> list[float]:
        raise RuntimeError("unused")


def test_an_unexpected_failure_tells_the_editor_without_internal_details(alpha, caplog):
    job, _ = _queued(alpha, "e.md")
    try:
        run_ingest_job(job_id=job.pk, embedder=_BrokenEmbedder())
    except RuntimeError:
        pass  # re-raised for the queue's own record
    job.refresh_from_db()
    assert job.state == "failed"
    assert "internal error" in job.error
    assert "RuntimeError" not in job.error and "secret.sock" not in job.error
    assert "secret.sock" in caplog.text  # the operators' log has it
