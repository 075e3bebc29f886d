"""Tenant-schema models of enterprise sign-in: the tenant's OpenID Connect provider, the mapping
of its groups to project roles, and which provider subject each user is."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from portal.access.models import Project, Role


class IdentityProvider(models.Model):
    """The tenant's one OpenID Connect provider (at most one row per tenant schema).

    The client secret is stored encrypted (`portal.secrets`) and never shown back.
    """

    singleton = models.BooleanField(default=True, unique=True, editable=False)
    name = models.CharField(
        max_length=60, help_text="Shown on the sign-in page: “Sign in with <name>”."
    )
    issuer = models.URLField(
        max_length=500,
        help_text="The provider's issuer URL, exactly as its discovery document states it.",
    )
    client_id = models.CharField(max_length=255)
    client_secret_encrypted = models.TextField(editable=False)
    enabled = models.BooleanField(default=True)
    allow_user_creation = models.BooleanField(
        default=False,
        help_text="Create an account for someone the provider signs in who has none here.",
    )
    passwords_allowed = models.BooleanField(
        default=True,
        help_text="Off: only the provider signs people in (superusers keep their password, "
        "to repair a broken provider setting).",
    )
    groups_claim = models.CharField(
        max_length=100, default="groups", help_text="The ID token claim that lists the groups."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = "identity provider"

    def __str__(self) -> str:
        return self.name


class GroupRoleMapping(models.Model):
    """Members of the provider's `group` get `role` in `project` (the highest role wins when
    several of a person's groups map to one project). Memberships of a mapped project follow
    the groups at every sign-in; projects no mapping names are left as they are."""

    group = models.CharField(max_length=255)
    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="group_mappings")
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.READER)

    class Meta:
        ordering = ["group", "project__key"]
        constraints = [
            models.UniqueConstraint(fields=["group", "project"], name="groupmapping_unique")
        ]

    def __str__(self) -> str:
        return f"{self.group} -> {self.project}:{self.role}"


# The issuer of the links that keep a user's SCIM `externalId` (the provisioning client's own
# id of the person). Not a URL, so no OpenID Connect issuer is ever this: a SCIM externalId
# never signs anyone in as a subject.
SCIM_ISSUER = "urn:groundwork:scim"


class ExternalIdentity(models.Model):
    """A provider's subject (`sub`) of a user: how a returning person is recognised. A subject
    is unique only within its issuer: when the tenant moves to another provider, its subjects
    match nobody (people are matched again by verified email).

    The SCIM `externalId` of a user is such a link too, under the issuer `SCIM_ISSUER`: one per
    user, one user per externalId (the same two constraints)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="external_identities"
    )
    issuer = models.CharField(
        max_length=500,
        help_text=f"The OpenID Connect issuer; {SCIM_ISSUER} for the SCIM externalId.",
    )
    subject = models.CharField(
        max_length=255, help_text="The ID token's sub, or the SCIM externalId."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    last_sign_in_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name_plural = "external identities"
        constraints = [
            models.UniqueConstraint(
                fields=["issuer", "subject"], name="externalidentity_unique_subject"
            ),
            models.UniqueConstraint(fields=["issuer", "user"], name="externalidentity_unique_user"),
        ]

    def __str__(self) -> str:
        return self.subject


class EventKind(models.TextChoices):
    SIGN_IN = "sign_in", "Signed in"
    SIGN_IN_FAILED = "sign_in_failed", "Sign-in failed"
    USER_CREATED = "user_created", "Account created"
    USER_UPDATED = "user_updated", "Account updated"
    USER_DEACTIVATED = "user_deactivated", "Account deactivated"
    USER_REACTIVATED = "user_reactivated", "Account reactivated"
    ROLE_SET = "role_set", "Project role set"
    ROLE_REMOVED = "role_removed", "Project role removed"
    GROUP_CHANGED = "group_changed", "Provisioned group changed"
    PROVISIONING_REFUSED = "provisioning_refused", "Provisioning refused"
    SETTINGS_CHANGED = "settings_changed", "Sign-in settings changed"


class EventSource(models.TextChoices):
    PASSWORD = "password", "Password"
    OIDC = "oidc", "Identity provider sign-in"
    SCIM = "scim", "SCIM provisioning"
    CONSOLE = "console", "Console"


class IdentityEvent(models.Model):
    """The append-only audit of sign-ins, failed sign-ins, provisioning and role changes.

    `username` keeps who it was about when the user row is gone (or never existed: a failed
    sign-in names the username or subject that was tried)."""

    at = models.DateTimeField(auto_now_add=True, db_index=True)
    kind = models.CharField(max_length=20, choices=EventKind.choices)
    source = models.CharField(max_length=10, choices=EventSource.choices)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="identity_events",
    )
    username = models.CharField(max_length=255, blank=True)
    detail = models.TextField(blank=True)
    address = models.GenericIPAddressField(null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = "sign-in audit event"
        verbose_name_plural = "sign-in audit"
        indexes = [models.Index(fields=["user", "-at"], name="identityevent_user_at")]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.kind} {self.username}"


class ScimToken(models.Model):
    """The tenant's SCIM bearer token (at most one: creating another replaces it). Only a hash
    of its secret is stored, as for API keys."""

    singleton = models.BooleanField(default=True, unique=True, editable=False)
    prefix = models.CharField(max_length=16, editable=False)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        verbose_name = "SCIM token"

    def __str__(self) -> str:
        return f"{self.prefix}…"


class ScimGroup(models.Model):
    """A group the identity provider provisions over SCIM; its members get the project roles
    the mapping gives its display name (the same mapping as the ID token's groups)."""

    display_name = models.CharField(max_length=255, unique=True)
    external_id = models.CharField(max_length=255, blank=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="scim_groups", blank=True
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["display_name"]
        verbose_name = "SCIM group"

    def __str__(self) -> str:
        return self.display_name
