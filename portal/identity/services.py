"""Writes of enterprise sign-in: the provider's settings, signing a person in from verified
ID token claims (match, create, link), project roles from groups, and the audit events."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from portal import ratelimit
from portal.access.models import Membership, Role
from portal.access.services import membership_set
from portal.identity.models import (
    EventKind,
    EventSource,
    ExternalIdentity,
    GroupRoleMapping,
    IdentityEvent,
    IdentityProvider,
)
from portal.identity.oidc import SignInError
from portal.secrets import encrypt

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Roles from least to most: the highest a person's groups give wins.
ROLE_RANK = {role: rank for rank, role in enumerate(Role.values)}
USERNAME_MAX = 150


def event_record(
    *,
    kind: str,
    source: str,
    user: Any = None,
    username: str = "",
    detail: str = "",
    request: HttpRequest | None = None,
) -> IdentityEvent:
    """Append one audit event (who: the user row when there is one, and a name either way)."""
    if user is not None and user.pk is None:
        user = None
    return IdentityEvent.objects.create(
        kind=kind,
        source=source,
        user=user,
        username=(username or (user.get_username() if user is not None else ""))[:255],
        detail=detail,
        address=ratelimit.client_address(request) or None if request is not None else None,
    )


@transaction.atomic
def provider_save(
    *, provider: IdentityProvider, client_secret: str | None, actor: Any
) -> IdentityProvider:
    """Save the tenant's provider settings; a new `client_secret` is stored encrypted (None or
    empty keeps the current one)."""
    if client_secret:
        provider.client_secret_encrypted = encrypt(client_secret)
    if not provider.client_secret_encrypted:
        raise ValueError("An identity provider needs its client secret.")
    provider.save()
    event_record(
        kind=EventKind.SETTINGS_CHANGED,
        source=EventSource.CONSOLE,
        user=actor,
        detail=(
            f"provider {provider.name} ({provider.issuer}, client {provider.client_id}); "
            f"enabled={provider.enabled}, creation={provider.allow_user_creation}, "
            f"passwords={provider.passwords_allowed}"
            + ("; client secret replaced" if client_secret else "")
        ),
    )
    return provider


def roles_from_groups(*, user: User, groups: Iterable[str], source: str) -> list[str]:
    """Set `user`'s memberships of the mapped projects from `groups` (the highest mapped role
    per project; none of a mapped project's groups: no membership). Projects no mapping names
    keep their memberships. Returns the changes, as recorded in the audit."""
    group_set = set(groups)
    mappings = list(GroupRoleMapping.objects.select_related("project"))
    wanted: dict[int, tuple[Any, str]] = {}
    for mapping in mappings:
        if mapping.group not in group_set:
            continue
        current = wanted.get(mapping.project_id)
        if current is None or ROLE_RANK[mapping.role] > ROLE_RANK[current[1]]:
            wanted[mapping.project_id] = (mapping.project, mapping.role)
    mapped_ids = {mapping.project_id for mapping in mappings}
    held = {
        membership.project_id: membership
        for membership in Membership.objects.select_related("project").filter(
            user=user, project_id__in=mapped_ids
        )
    }
    changes = []
    for project_id, membership in held.items():
        if project_id not in wanted:
            membership.delete()
            changes.append(f"removed from {membership.project.key} (was {membership.role})")
            event_record(
                kind=EventKind.ROLE_REMOVED,
                source=source,
                user=user,
                detail=f"{membership.project.key}: {membership.role} removed (no mapped group)",
            )
    for project_id, (project, role) in wanted.items():
        before = held.get(project_id)
        if before is not None and before.role == role:
            continue
        membership_set(user=user, project=project, role=role)
        was = f" (was {before.role})" if before is not None else ""
        changes.append(f"{project.key}: {role}{was}")
        event_record(
            kind=EventKind.ROLE_SET,
            source=source,
            user=user,
            detail=f"{project.key}: {role}{was}, from groups {', '.join(sorted(group_set))}",
        )
    return changes


def _free_username(wanted: str) -> str:
    user_model = get_user_model()
    base = wanted[:USERNAME_MAX] or "user"
    candidate, n = base, 1
    while user_model.objects.filter(username__iexact=candidate).exists():
        n += 1
        suffix = f"-{n}"
        candidate = base[: USERNAME_MAX - len(suffix)] + suffix
    return candidate


def _claim_groups(claims: dict[str, Any], claim: str) -> list[str]:
    value = claims.get(claim, [])
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(group) for group in value]
    return []


@transaction.atomic
def oidc_sign_in(
    *, provider: IdentityProvider, claims: dict[str, Any], request: HttpRequest | None = None
) -> User:
    """The tenant's user for verified ID token `claims`: the one linked to the subject, else
    the one with the verified email (then linked), else a new one when the tenant allows it.
    Their mapped project roles follow the groups claim. SignInError when no one may sign in."""
    user_model = get_user_model()
    subject = str(claims["sub"])
    email = str(claims.get("email") or "").strip()
    verified_email = email if claims.get("email_verified") is True else ""
    link = ExternalIdentity.objects.select_related("user").filter(subject=subject).first()
    user = link.user if link is not None else None
    if user is None and verified_email:
        matches = list(user_model.objects.filter(email__iexact=verified_email)[:2])
        if len(matches) > 1:
            raise SignInError(
                "email_ambiguous",
                f"Several accounts here use {verified_email}; ask an administrator to fix them.",
            )
        if matches:
            user = matches[0]
            other = ExternalIdentity.objects.filter(user=user).first()
            if other is not None:
                raise SignInError(
                    "email_linked_elsewhere",
                    f"The account for {verified_email} is linked to another identity.",
                )
    created = False
    if user is None:
        if not provider.allow_user_creation:
            raise SignInError(
                "no_account",
                f"{email or 'This person'} has no account here, and this workspace does not "
                "create accounts at sign-in. Ask an administrator to add you.",
            )
        user = user_model(
            username=_free_username(
                verified_email or str(claims.get("preferred_username") or "") or subject
            ),
            email=verified_email,
            first_name=str(claims.get("given_name") or claims.get("name") or "")[:150],
            last_name=str(claims.get("family_name") or "")[:150],
        )
        user.set_unusable_password()
        user.save()
        created = True
        event_record(
            kind=EventKind.USER_CREATED,
            source=EventSource.OIDC,
            user=user,
            detail=f"at first sign-in, subject {subject}",
            request=request,
        )
    if not user.is_active:
        raise SignInError("inactive", "This account is deactivated.")
    if link is None:
        link = ExternalIdentity.objects.create(user=user, subject=subject)
        if not created:
            event_record(
                kind=EventKind.USER_UPDATED,
                source=EventSource.OIDC,
                user=user,
                detail=f"linked to subject {subject} by verified email",
                request=request,
            )
    link.last_sign_in_at = timezone.now()
    link.save(update_fields=["last_sign_in_at"])
    roles_from_groups(
        user=user, groups=_claim_groups(claims, provider.groups_claim), source=EventSource.OIDC
    )
    event_record(kind=EventKind.SIGN_IN, source=EventSource.OIDC, user=user, request=request)
    return user


def sign_in_failed(
    *, source: str, reason: str, username: str = "", request: HttpRequest | None = None
) -> None:
    """Record a failed sign-in (outside any transaction the failure rolled back)."""
    event_record(
        kind=EventKind.SIGN_IN_FAILED,
        source=source,
        username=username,
        detail=reason,
        request=request,
    )
