"""Access administration in the editors' console: memberships scoped to the projects one administers."""

from __future__ import annotations

import pytest

from portal.access.models import Membership, Project
from portal.access.services import project_ensure
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_for(alpha):
    def build(user):
        client = alpha.client()
        client.force_login(user)
        return client

    return build


def test_project_admin_manages_memberships_of_their_projects_only(alpha, client_for):
    with alpha.scope():
        project_ensure(key="adm-a")
        project_ensure(key="adm-b")
    boss = make_user(alpha, "boss", projects={"adm-a": "admin"})
    make_user(alpha, "someone-b", projects={"adm-b": "editor"})
    client = client_for(boss)
    body = client.get("/admin/access/membership/").content.decode()
    assert "someone-b" not in body and "boss" in body
    other = client.get("/admin/access/project/").content.decode()
    assert "adm-a" in other and "adm-b" not in other
    with alpha.scope():
        theirs = Membership.objects.get(user__username="someone-b")
        mine = Membership.objects.get(user__username="boss")
    assert client.get(f"/admin/access/membership/{theirs.pk}/change/").status_code == 404
    assert client.get(f"/admin/access/membership/{mine.pk}/change/").status_code == 200
    # Project admins add members only to projects they administer.
    add_page = client.get("/admin/access/membership/add/").content.decode()
    assert ">adm-a</option>" in add_page and ">adm-b</option>" not in add_page


def test_administered_by_is_the_admin_role_or_superuser(alpha):
    with alpha.scope():
        project_ensure(key="adm-a")
        project_ensure(key="adm-b")
    boss = make_user(alpha, "boss2", projects={"adm-a": "admin", "adm-b": "editor"})
    root = make_user(alpha, "root2", superuser=True)
    with alpha.scope():
        assert list(Project.objects.administered_by(boss).values_list("key", flat=True)) == [
            "adm-a"
        ]
        assert Project.objects.administered_by(root).count() == Project.objects.count()
