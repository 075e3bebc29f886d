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


def test_a_project_admin_creates_a_project_and_administers_it(alpha, client_for):
    with alpha.scope():
        project_ensure(key="adm-c")
    boss = make_user(alpha, "boss3", projects={"adm-c": "admin"})
    editor = make_user(alpha, "editor3", projects={"adm-c": "editor"})
    response = client_for(boss).post(
        "/admin/access/project/add/", {"key": "adm-new", "name": "New team"}
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    with alpha.scope():
        created = Project.objects.get(key="adm-new")
        assert Membership.objects.get(project=created).user == boss
        assert Membership.objects.get(project=created).role == "admin"
    # the creator can now add members to it
    add_page = client_for(boss).get("/admin/access/membership/add/").content.decode()
    assert ">adm-new</option>" in add_page
    # editors (no admin role anywhere) cannot create projects
    assert client_for(editor).post(
        "/admin/access/project/add/", {"key": "adm-nope", "name": "x"}
    ).status_code in (403, 404)
    with alpha.scope():
        assert not Project.objects.filter(key="adm-nope").exists()
