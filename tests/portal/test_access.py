"""The one visibility rule and roles, as querysets."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import AnonymousUser

from portal.access.models import Project
from portal.access.selectors import project_roles_for, user_can_edit
from portal.access.services import AccessError, parse_project_role
from tests.conftest import make_user

pytestmark = pytest.mark.django_db


def test_members_see_their_projects_only(alpha):
    reader = make_user(alpha, "r1", projects={"p-one": "reader"})
    make_user(alpha, "e1", projects={"p-two": "editor", "p-one": "admin"})
    assert set(Project.objects.visible_to(reader).values_list("key", flat=True)) == {"p-one"}


def test_superuser_sees_every_project(alpha):
    make_user(alpha, "x", projects={"p-a": "reader", "p-b": "reader"})
    root = make_user(alpha, "root", superuser=True)
    assert {"p-a", "p-b"} <= set(Project.objects.visible_to(root).values_list("key", flat=True))


def test_anonymous_and_inactive_users_see_nothing(alpha):
    make_user(alpha, "someone", projects={"p-a": "reader"})
    assert not Project.objects.visible_to(AnonymousUser()).exists()
    inactive = make_user(alpha, "gone", projects={"p-a": "admin"})
    inactive.is_active = False
    inactive.save(update_fields=["is_active"])
    assert not Project.objects.visible_to(inactive).exists()


def test_roles_decide_who_may_edit(alpha):
    reader = make_user(alpha, "rd", projects={"p-a": "reader"})
    editor = make_user(alpha, "ed", projects={"p-a": "editor", "p-b": "reader"})
    p_a, p_b = Project.objects.get(key="p-a"), Project.objects.get(key="p-b")
    assert project_roles_for(user=reader) == [("p-a", "reader")]
    assert not user_can_edit(user=reader, project=p_a)
    assert user_can_edit(user=editor, project=p_a)
    assert not user_can_edit(user=editor, project=p_b)
    assert list(Project.objects.editable_by(editor).values_list("key", flat=True)) == ["p-a"]
    assert project_roles_for(user=editor) == [("p-a", "editor"), ("p-b", "reader")]


def test_rerunning_user_upsert_updates_password_and_memberships(alpha):
    user = make_user(alpha, "dana", password="first-pw-1", projects={"p-a": "reader"})
    user = make_user(alpha, "dana", password="second-pw-2", projects={"p-a": "editor"})
    assert user.check_password("second-pw-2")
    assert project_roles_for(user=user) == [("p-a", "editor")]


@pytest.mark.parametrize("spec", ["Bad Key:reader", "ok:owner", ":reader"])
def test_invalid_project_role_specs_are_rejected(spec):
    with pytest.raises(AccessError):
        parse_project_role(spec)


def test_project_role_defaults_to_reader():
    assert parse_project_role("handbook") == ("handbook", "reader")
