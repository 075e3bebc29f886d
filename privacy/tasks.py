"""Background tasks of the privacy app (run by `kb_worker`; scheduled via PERIODIC_TASKS)."""

from __future__ import annotations

import logging

from django_tasks import task
from django_tenants.utils import schema_context

from portal.tenants.selectors import tenant_schema_names
from privacy.retention import retention_purge

logger = logging.getLogger(__name__)


@task()
def retention_purge_all() -> dict[str, dict[str, int]]:
    """The retention purge in every tenant (what `retention_purge` does without --tenant)."""
    reports: dict[str, dict[str, int]] = {}
    for schema in tenant_schema_names():
        with schema_context(schema):
            reports[schema] = retention_purge()
        if any(reports[schema].values()):
            logger.info("retention purge in %s: %s", schema, reports[schema])
    return reports
