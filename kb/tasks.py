"""Background ingestion: one task per uploaded file, run by `kb_worker` (django-tasks queue on
PostgreSQL). A job carries its tenant schema; it is idempotent (a finished job does nothing, an
unchanged file is a no-op) and crash-safe (the document is written in one transaction, so a
worker killed mid-job leaves the previous version or nothing; the job is then requeued)."""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.utils import timezone
from django_tasks import task
from django_tenants.utils import get_tenant_model, schema_context

from kb.curation import AuditContext, ChangeSource
from kb.embeddings import Embedder, EmbeddingError, active_embedder
from kb.ingestion.ocr import ocr_progress
from kb.models import Document, IngestJob, JobState
from kb.services import document_ingest

logger = logging.getLogger(__name__)
PROGRESS_INTERVAL_SECONDS = 0.5  # at most two progress writes a second per job
INTERNAL_ERROR = (
    "internal error: the file could not be ingested; the operators' log has the details "
    "(upload it again, or ask them)"
)


class ProgressEmbedder:
    """Wraps the embedder: embeds in batches and records 'embedding n/m' on the job."""

    def __init__(self, inner: Embedder, job: IngestJob) -> None:
        self.inner = inner
        self.job = job
        self.name = inner.name
        self.dimensions = inner.dimensions
        self._last_write = 0.0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        batch = max(1, int(settings.KB["EMBEDDING_BATCH_SIZE"]))
        vectors: list[list[float]] = []
        self._progress(0, len(texts), force=True)
        for start in range(0, len(texts), batch):
            vectors.extend(self.inner.embed_documents(texts[start : start + batch]))
            self._progress(len(vectors), len(texts), force=len(vectors) == len(texts))
        return vectors

    def embed_query(self, text: str) -> list[float]:
        return self.inner.embed_query(text)

    def _progress(self, done: int, total: int, *, force: bool) -> None:
        now = time.monotonic()
        if not force and now - self._last_write < PROGRESS_INTERVAL_SECONDS:
            return
        self._last_write = now
        _set(self.job, state=JobState.EMBEDDING, progress_done=done, progress_total=total)


class OcrProgress:
    """Records 'extracting: OCR, page n/m' on the job while scanned pages are read."""

    def __init__(self, job: IngestJob) -> None:
        self.job = job

    def __call__(self, done: int, total: int) -> None:
        _set(self.job, progress_done=done, progress_total=total)


def _set(job: IngestJob, **fields: Any) -> None:
    for name, value in fields.items():
        setattr(job, name, value)
    # outside any transaction: the page polls these rows while the job runs
    IngestJob.objects.filter(pk=job.pk).update(**fields, updated_at=timezone.now())


@task()
def ingest_job(*, schema_name: str, job_id: int) -> dict[str, Any]:
    """Ingest one uploaded file into its tenant's project."""
    if not get_tenant_model().objects.filter(schema_name=schema_name).exists():
        # the tenant was dropped after the upload: nothing left to ingest into
        logger.warning("skipping job %s: tenant schema %r no longer exists", job_id, schema_name)
        return {"job_id": job_id, "state": "tenant_gone"}
    with schema_context(schema_name):
        return run_ingest_job(job_id=job_id)


def run_ingest_job(*, job_id: int, embedder: Embedder | None = None) -> dict[str, Any]:
    """The job's work in the current schema; returns its final state."""
    job = IngestJob.objects.select_related("project").filter(pk=job_id).first()
    if job is None:
        return {"job_id": job_id, "state": "missing"}
    if job.is_finished:
        return {"job_id": job.pk, "state": job.state}  # a repeated delivery: nothing to do
    max_attempts = int(settings.KB["INGEST_JOB_MAX_ATTEMPTS"])
    if job.attempts >= max_attempts:
        _finish(
            job,
            state=JobState.FAILED,
            error=(
                f"the worker stopped during this job {job.attempts} times (out of memory or "
                "killed?); upload the file again or split it"
            ),
        )
        return {"job_id": job.pk, "state": job.state}
    _set(
        job,
        state=JobState.EXTRACTING,
        attempts=job.attempts + 1,
        progress_done=0,
        progress_total=0,
        error="",
    )
    if job.force:
        # re-index: forget the stored hash so the unchanged bytes are embedded again; the
        # rewrite below is still one transaction, so the document is never half-indexed
        Document.objects.filter(
            project=job.project, source_path=job.source_path, deleted_at__isnull=True
        ).update(content_hash="")
    try:
        # the tenant's active space, so a kb_reembed switch before the write is noticed
        progress: ProgressEmbedder | None = None
        space = None
        try:
            space, inner = (None, embedder) if embedder is not None else active_embedder()
            progress = ProgressEmbedder(inner, job)
        except EmbeddingError:
            pass  # document_ingest meets it again and reports it on the job, as any failure
        with ocr_progress(OcrProgress(job)):
            outcome = document_ingest(
                project=job.project,
                source_path=job.source_path,
                content=bytes(job.content),
                source_type=job.source_type,
                embedder=progress,
                origin=AuditContext(actor=job.uploaded_by, source=ChangeSource.SERVICE),
                space=space,
            )
    except Exception:
        # the details (exception, paths, SQL) are for the operators' log, not the editor's page
        logger.exception("ingest job %s failed", job.pk)
        _finish(job, state=JobState.FAILED, error=INTERNAL_ERROR)
        raise
    if outcome.status == "failed" or outcome.document is None:
        reason = outcome.error or "; ".join(outcome.warnings) or "nothing could be ingested"
        _finish(
            job,
            state=JobState.FAILED,
            outcome=outcome.status,
            error=reason.removeprefix("skipped: "),
            warnings=outcome.warnings,
        )
    else:
        chunks = outcome.chunks
        _finish(
            job,
            state=JobState.DONE,
            outcome=outcome.status,
            document=outcome.document,
            warnings=outcome.warnings,
            progress_done=chunks,
            progress_total=chunks,
        )
    return {"job_id": job.pk, "state": job.state, "outcome": job.outcome, "error": job.error}


def _finish(job: IngestJob, **fields: Any) -> None:
    _set(job, finished_at=timezone.now(), **fields)
