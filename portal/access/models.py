"""Tenant-schema models: projects, who belongs to them, and their named API keys."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.contrib.postgres.fields import ArrayField
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone

# Who may be asking: a signed-in user (the tenant's user model) or an anonymous visitor.
if TYPE_CHECKING:
    from django.contrib.auth.models import User

    AnyUser: TypeAlias = User | AnonymousUser
else:
    from django.contrib.auth.models import AbstractBaseUser

    AnyUser = AbstractBaseUser | AnonymousUser

PROJECT_KEY_VALIDATOR = RegexValidator(
    r"^[a-z0-9][a-z0-9_-]{0,62}$",
    "Project keys are 1-63 lowercase letters, digits, '-' or '_'.",
)


class Role(models.TextChoices):
    READER = "reader", "Reader"
    EDITOR = "editor", "Editor"
    ADMIN = "admin", "Admin"


EDITING_ROLES = (Role.EDITOR, Role.ADMIN)


def sees_every_project(user: AnyUser) -> bool:
    """The one superuser rule: a signed-in, active superuser of the tenant reads, edits and
    administers every project (and the unscoped rows of the editor queues)."""
    return not isinstance(user, AnonymousUser) and user.is_active and user.is_superuser


class ProjectQuerySet(models.QuerySet["Project"]):
    def visible_to(self, user: AnyUser) -> ProjectQuerySet:
        """The one visibility rule for projects: members (any role) and tenant superusers."""
        if sees_every_project(user):
            return self.all()
        if isinstance(user, AnonymousUser) or not user.is_active:
            return self.none()
        return self.filter(memberships__user_id=user.pk).distinct()

    def editable_by(self, user: AnyUser) -> ProjectQuerySet:
        """Projects whose documents `user` may curate (editor or admin role, or superuser)."""
        if sees_every_project(user):
            return self.all()
        if isinstance(user, AnonymousUser) or not user.is_active:
            return self.none()
        return self.filter(
            memberships__user_id=user.pk, memberships__role__in=EDITING_ROLES
        ).distinct()

    def administered_by(self, user: AnyUser) -> ProjectQuerySet:
        """Projects whose members `user` may manage (admin role, or superuser)."""
        if sees_every_project(user):
            return self.all()
        if isinstance(user, AnonymousUser) or not user.is_active:
            return self.none()
        return self.filter(memberships__user_id=user.pk, memberships__role=Role.ADMIN).distinct()


class Project(models.Model):
    key = models.CharField(max_length=63, unique=True, validators=[PROJECT_KEY_VALIDATOR])
    name = models.CharField(max_length=200)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ProjectQuerySet.as_manager()

    class Meta:
        ordering = ["key"]

    def __str__(self) -> str:
        return self.key


class Membership(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.READER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "project"], name="membership_unique_user_project"
            )
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.project} as {self.role}"


class KeyScope(models.TextChoices):
    """What a named API key may be used for (`portal.authentication.KeyScopePermission`)."""

    READ = "read", "Read and search"
    CHAT = "chat", "Chat"
    MCP = "mcp", "MCP"


class ApiKey(models.Model):
    """A named API key of one user: its scopes, and a hash of its secret (never the secret).

    Lives in the tenant's schema, like the user: a key of one tenant means nothing at another.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_keys"
    )
    name = models.CharField(max_length=100)
    # the secret's first characters, to recognise a key in the list
    prefix = models.CharField(max_length=16)
    # SHA-256 of the whole secret: a random 256-bit secret needs no slow hash
    key_hash = models.CharField(max_length=64, unique=True)
    scopes = ArrayField(models.CharField(max_length=10, choices=KeyScope.choices))
    # named as DRF's Token.created: both expire by the one rule in portal.access.tokens
    created = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "name"], name="apikey_unique_user_name"),
            models.CheckConstraint(
                condition=models.Q(scopes__len__gte=1)
                & models.Q(scopes__contained_by=list(KeyScope.values)),
                name="apikey_scopes_known",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
