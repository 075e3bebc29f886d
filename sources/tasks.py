"""Background tasks of sources (run by `kb_worker`): one sync job per source and run, and
the periodic check that queues the due ones (PERIODIC_TASKS)."""

from __future__ import annotations

import logging
from typing import Any

from django_tasks import task
from django_tenants.utils import get_tenant_model, schema_context

from portal.tenants.selectors import tenant_schema_names
from sources.services import sources_enqueue_due
from sources.sync import source_sync

logger = logging.getLogger(__name__)


@task()
def source_sync_job(*, schema_name: str, source_id: int, manual: bool = False) -> dict[str, Any]:
    """Sync one source of one tenant (a scheduled run skips a paused source)."""
    if not get_tenant_model().objects.filter(schema_name=schema_name).exists():
        return {"source_id": source_id, "state": "tenant_gone"}
    with schema_context(schema_name):
        return source_sync(source_id=source_id, manual=manual).as_dict()


@task()
def sources_sync_due() -> dict[str, int]:
    """Queue the due sources of every tenant."""
    queued: dict[str, int] = {}
    for schema in tenant_schema_names():
        with schema_context(schema):
            queued[schema] = sources_enqueue_due()
        if queued[schema]:
            logger.info("queued %s source syncs in %s", queued[schema], schema)
    return queued
