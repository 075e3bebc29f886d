"""Property: for any documents, projects and memberships, every read path returns exactly
what the visibility rule allows (and search never more)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.models import Document
from kb.retrieval import SearchFilters, search
from kb.selectors import document_list
from kb.services import document_ingest, document_soft_delete
from portal.access.services import project_ensure, user_upsert

pytestmark = pytest.mark.django_db

PROJECTS = ("prop-a", "prop-b", "prop-c")


@dataclass(frozen=True)
class DocSpec:
    project: str
    deleted: bool


doc_specs = st.lists(
    st.builds(DocSpec, project=st.sampled_from(PROJECTS), deleted=st.booleans()),
    min_size=1,
    max_size=6,
)
memberships = st.dictionaries(
    st.sampled_from(PROJECTS), st.sampled_from(["reader", "editor", "admin"]), max_size=3
)


class _Rollback(Exception):
    pass


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(docs=doc_specs, roles=memberships, superuser=st.booleans(), filter_projects=st.booleans())
def test_every_read_path_returns_exactly_the_visible_documents(
    alpha, docs, roles, superuser, filter_projects
):
    try:
        with transaction.atomic():
            user, _ = user_upsert(
                username="prop-user",
                password="prop-pw-1",
                project_roles=list(roles.items()),
                superuser=superuser,
            )
            expected: set[int] = set()
            for index, spec in enumerate(docs):
                outcome = document_ingest(
                    project=project_ensure(key=spec.project),
                    source_path=f"prop-{index}.md",
                    content=f"# Doc {index}\n\nzephyrine lattice report number {index}.\n",
                )
                document = outcome.document
                if spec.deleted:
                    document_soft_delete(document=document)
                elif superuser or spec.project in roles:
                    expected.add(document.pk)
            mine = Document.objects.filter(source_path__startswith="prop-")
            expected &= set(mine.values_list("pk", flat=True))

            listed = {d.pk for d in document_list(user=user) if d.source_path.startswith("prop-")}
            assert listed == expected

            filters = SearchFilters(project_keys=PROJECTS) if filter_projects else None
            result = search(
                user=user,
                query="zephyrine lattice report",
                limit=50,
                filters=filters,
                min_similarity=0.0,
            )
            found = {
                hit.document_id
                for hits in (result.primary, result.expanded, result.rejected, result.runner_up)
                for hit in hits
            }
            # Documents other tests committed may match too; they must obey the same rule.
            visible_anywhere = set(Document.objects.visible_to(user).values_list("pk", flat=True))
            assert found <= visible_anywhere
            found &= set(mine.values_list("pk", flat=True))
            assert found == expected  # every visible document of ours matches the shared words
            raise _Rollback
    except _Rollback:
        pass
