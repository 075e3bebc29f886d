"""Reads about access. Every read of tenant data goes through the visibility rule here."""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.http import Http404

from portal.access.models import (
    EDITING_ROLES,
    AnyUser,
    Membership,
    Project,
    Role,
    sees_every_project,
)


def project_list_visible(*, user: AnyUser) -> list[Project]:
    """Projects the user may read, ordered by key."""
    return list(Project.objects.visible_to(user).order_by("key"))


def project_get_visible(*, user: AnyUser, key: str) -> Project:
    """The project with `key` if the user may read it; Http404 otherwise."""
    project = Project.objects.visible_to(user).filter(key=key).first()
    if project is None:
        raise Http404
    return project


def project_get_editable(*, user: AnyUser, key: str) -> Project:
    """The project if the user edits it; Http404 for readers and strangers alike."""
    project = Project.objects.editable_by(user).filter(key=key).first()
    if project is None:
        raise Http404
    return project


def project_first_editable(*, user: AnyUser) -> Project:
    """The first project (by key) the user edits: where an editor's page opens; Http404 for
    users who edit none."""
    project = Project.objects.editable_by(user).order_by("key").first()
    if project is None:
        raise Http404
    return project


def user_can_edit(*, user: AnyUser, project: Project) -> bool:
    """Whether the user may curate documents of `project`."""
    return Project.objects.editable_by(user).filter(pk=project.pk).exists()


def project_roles_for(*, user: AnyUser) -> list[tuple[str, str]]:
    """(project key, role) for every project the user may read; superusers are admin of all."""
    if isinstance(user, AnonymousUser):
        return []
    if sees_every_project(user):
        return [(key, Role.ADMIN) for key in Project.objects.values_list("key", flat=True)]
    return list(
        Membership.objects.filter(user_id=user.pk)
        .order_by("project__key")
        .values_list("project__key", "role")
    )


def project_curators(*, project_keys: list[str]) -> dict[str, list[str]]:
    """{project key: the names of its editors and admins} (whom a reader asks about missing
    or wrong knowledge); full name when set, else user name, sorted."""
    rows = (
        Membership.objects.filter(
            project__key__in=project_keys, role__in=EDITING_ROLES, user__is_active=True
        )
        .select_related("user", "project")
        .order_by("project__key", "user__username")
    )
    curators: dict[str, list[str]] = {}
    for membership in rows:
        user = membership.user
        name = user.get_full_name().strip() or user.get_username()
        curators.setdefault(membership.project.key, []).append(name)
    return curators
