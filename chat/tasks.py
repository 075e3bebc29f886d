"""Background tasks of the chat app (run by `kb_worker`, queued by `chat.drift`)."""

from __future__ import annotations

import logging

from django_tasks import task
from django_tenants.utils import get_tenant_model, schema_context

from chat.drift import answer_drifts_mark

logger = logging.getLogger(__name__)


@task()
def answer_drift_check(*, schema_name: str, document_id: int) -> dict[str, int]:
    """Mark the answers of one tenant that cite a changed document (idempotent)."""
    if not get_tenant_model().objects.filter(schema_name=schema_name).exists():
        logger.warning("skipping drift check of %s: tenant %r is gone", document_id, schema_name)
        return {}
    with schema_context(schema_name):
        marked = answer_drifts_mark(document_id=document_id)
    if any(marked.values()):
        logger.info("answer drift in %s, document %s: %s", schema_name, document_id, marked)
    return marked


@task()
def conflicts_check_task(*, schema_name: str, document_id: int) -> dict[str, int]:
    """Find the conflicts of one changed document with the rest of its project (idempotent)."""
    from chat.conflicts.services import conflicts_check

    if not get_tenant_model().objects.filter(schema_name=schema_name).exists():
        logger.warning("skipping conflicts of %s: tenant %r is gone", document_id, schema_name)
        return {}
    with schema_context(schema_name):
        found = conflicts_check(document_id=document_id)
    if found.get("raised"):
        logger.info("conflicts in %s, document %s: %s", schema_name, document_id, found)
    return found


@task()
def kb_health_task(*, schema_name: str, project_id: int) -> dict[str, int]:
    """Refresh the knowledge-health check of one project (chat.health.fact_check)."""
    from chat.health import fact_check
    from portal.access.models import Project

    if not get_tenant_model().objects.filter(schema_name=schema_name).exists():
        logger.warning("skipping health of %s: tenant %r is gone", project_id, schema_name)
        return {}
    with schema_context(schema_name):
        project = Project.objects.filter(pk=project_id).first()
        if project is None:
            return {}
        check = fact_check(project=project)
        failing = sum(1 for r in check.results if r["status"] in ("not_answered", "other_source"))
    return {"records": check.records, "failing": failing}


@task()
def kb_health_all() -> dict[str, int]:
    """Queue the health check of every project with accepted records, in every tenant (the
    periodic job, settings.PERIODIC_TASKS)."""
    from chat.health import projects_to_check
    from portal.tenants.selectors import tenant_schema_names

    queued: dict[str, int] = {}
    for schema in tenant_schema_names():
        with schema_context(schema):
            ids = list(projects_to_check().values_list("pk", flat=True))
        for project_id in ids:
            kb_health_task.enqueue(schema_name=schema, project_id=project_id)
        queued[schema] = len(ids)
    return queued
