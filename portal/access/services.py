"""Writes on users, projects and memberships."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from portal.access.models import PROJECT_KEY_VALIDATOR, Membership, Project, Role

if TYPE_CHECKING:
    from django.contrib.auth.models import User


class AccessError(ValueError):
    """An access operation that cannot proceed, with a message an operator can act on."""


def parse_project_role(spec: str) -> tuple[str, str]:
    """Parse `KEY:ROLE` (role defaults to reader) and validate both parts."""
    key, _, role = spec.partition(":")
    key, role = key.strip(), (role.strip() or Role.READER)
    try:
        PROJECT_KEY_VALIDATOR(key)
    except ValidationError as exc:
        raise AccessError(f"Invalid project key {key!r}: {exc.messages[0]}") from exc
    if role not in Role.values:
        raise AccessError(
            f"Invalid role {role!r} for {key!r}: use one of {', '.join(Role.values)}."
        )
    return key, role


def project_ensure(*, key: str, name: str = "") -> Project:
    """Get or create the project with `key`."""
    try:
        PROJECT_KEY_VALIDATOR(key)
    except ValidationError as exc:
        raise AccessError(f"Invalid project key {key!r}: {exc.messages[0]}") from exc
    project, _ = Project.objects.get_or_create(key=key, defaults={"name": name or key})
    return project


def membership_set(*, user: User, project: Project, role: str) -> Membership:
    """Give `user` exactly `role` in `project`."""
    membership, _ = Membership.objects.update_or_create(
        user=user, project=project, defaults={"role": role}
    )
    return membership


@transaction.atomic
def user_upsert(
    *,
    username: str,
    password: str,
    project_roles: list[tuple[str, str]] | None = None,
    superuser: bool = False,
) -> tuple[User, bool]:
    """Create or update a user: password, superuser flag and the given memberships."""
    username = username.strip()
    if not username:
        raise AccessError("Username must not be empty.")
    if not password:
        raise AccessError("Password must not be empty.")
    user_model = get_user_model()
    user = user_model.objects.filter(username=username).first()
    created = user is None
    if user is None:
        user = user_model(username=username)
    if created or not user.check_password(password):
        # saved, a new password revokes the API tokens (RevokeTokensOnPasswordChange);
        # re-running with the same password keeps them
        user.set_password(password)
    user.is_active = True
    if superuser:
        user.is_superuser = True
        user.is_staff = True
    user.save()
    for key, role in project_roles or []:
        membership_set(user=user, project=project_ensure(key=key), role=role)
    return user, created
