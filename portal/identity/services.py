"""Writes of enterprise sign-in: the provider's settings, signing a person in from verified
ID token claims (match, create, link), project roles from groups, and the audit events."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from django.contrib.auth import SESSION_KEY, get_user_model
from django.contrib.sessions.models import Session
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from portal import ratelimit
from portal.access.models import Membership, Role
from portal.access.services import membership_set
from portal.access.tokens import LAST_USED_RESOLUTION, api_key_hash, tokens_revoke_all
from portal.identity.models import (
    SCIM_ISSUER,
    EventKind,
    EventSource,
    ExternalIdentity,
    GroupRoleMapping,
    IdentityEvent,
    IdentityProvider,
    ScimGroup,
    ScimToken,
)
from portal.identity.oidc import SignInError
from portal.identity.scim import GroupChange, ScimError, UserChange
from portal.secrets import encrypt

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# Roles from least to most: the highest a person's groups give wins.
ROLE_RANK = {role: rank for rank, role in enumerate(Role.values)}
USERNAME_MAX = 150
EXTERNAL_ID_MAX = 255  # ExternalIdentity.subject
# A SCIM token's secret starts with this marker (told apart from API keys, spotted by scanners).
SCIM_TOKEN_MARKER = "gws_"


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


def _claim_groups(claims: dict[str, Any], claim: str) -> list[str] | None:
    """The groups the ID token lists; None when it has no such claim (a provider not set up to
    send it), which must not read as "in no group" and strip everyone's mapped roles."""
    if claim not in claims:
        return None
    value = claims[claim]
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
    issuer = provider.issuer
    link = (
        ExternalIdentity.objects.select_related("user")
        .filter(issuer=issuer, subject=subject)
        .first()
    )
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
            other = ExternalIdentity.objects.filter(user=user, issuer=issuer).first()
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
        link = ExternalIdentity.objects.create(user=user, issuer=issuer, subject=subject)
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
    groups = _claim_groups(claims, provider.groups_claim)
    if groups is not None:
        roles_from_groups(user=user, groups=groups, source=EventSource.OIDC)
    event_record(
        kind=EventKind.SIGN_IN,
        source=EventSource.OIDC,
        user=user,
        detail="" if groups is not None else f"no {provider.groups_claim!r} claim: roles kept",
        request=request,
    )
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


# --- deprovisioning and SCIM -----------------------------------------------------------------


def user_sessions_end(*, user: User) -> int:
    """Delete every browser session of `user` (the session store is the tenant's table: each
    live session is decoded to find its user). Returns how many."""
    ended = 0
    for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator():
        if str(session.get_decoded().get(SESSION_KEY)) == str(user.pk):
            session.delete()
            ended += 1
    return ended


@transaction.atomic
def user_deactivate(*, user: User, source: str, request: HttpRequest | None = None) -> None:
    """Deactivate `user` at once: their sessions end and their API tokens and keys are revoked,
    so their next page, API or MCP request fails. Their data stays."""
    user.is_active = False
    user.save(update_fields=["is_active"])
    sessions = user_sessions_end(user=user)
    tokens_revoke_all(user=user)
    event_record(
        kind=EventKind.USER_DEACTIVATED,
        source=source,
        user=user,
        detail=f"{sessions} session(s) ended, API tokens and keys revoked",
        request=request,
    )


def scim_token_rotate(*, actor: Any) -> tuple[ScimToken, str]:
    """A new SCIM token for the tenant, replacing any; returns it with its secret, which is
    stored nowhere (only its hash) and cannot be shown again."""
    secret = SCIM_TOKEN_MARKER + secrets.token_urlsafe(32)
    with transaction.atomic():
        ScimToken.objects.all().delete()
        token = ScimToken.objects.create(
            prefix=secret[: len(SCIM_TOKEN_MARKER) + 8], token_hash=api_key_hash(secret)
        )
        event_record(
            kind=EventKind.SETTINGS_CHANGED,
            source=EventSource.CONSOLE,
            user=actor,
            detail=f"SCIM token {token.prefix}… created (any previous one revoked)",
        )
    return token, secret


def scim_token_touch(token: ScimToken) -> None:
    """Record the token's use, at most once a minute (as API keys)."""
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_RESOLUTION:
        ScimToken.objects.filter(pk=token.pk).update(last_used_at=now)


def _user_apply(user: User, change: UserChange) -> list[str]:
    changed = []
    for field, value in (
        ("username", change.username),
        ("email", change.email),
        ("first_name", change.given_name),
        ("last_name", change.family_name),
    ):
        if value is not None and getattr(user, field) != value:
            setattr(user, field, value)
            changed.append(field)
    return changed


def _username_free(username: str, *, user: User | None = None) -> None:
    others = get_user_model().objects.filter(username__iexact=username)
    if user is not None:
        others = others.exclude(pk=user.pk)
    if others.exists():
        raise ScimError(409, f"A user named {username!r} exists already.", "uniqueness")
    if len(username) > USERNAME_MAX:
        raise ScimError(400, f"userName has at most {USERNAME_MAX} characters.", "invalidValue")


def _external_id_set(user: User, external_id: str | None) -> bool:
    """Keep `external_id` as the user's SCIM externalId ("" removes it, None leaves it);
    ScimError 409 when another user has it. True when it changed."""
    if external_id is None:
        return False
    link = ExternalIdentity.objects.filter(user=user, issuer=SCIM_ISSUER).first()
    if not external_id:
        if link is not None:
            link.delete()
        return link is not None
    if link is not None and link.subject == external_id:
        return False
    if len(external_id) > EXTERNAL_ID_MAX:
        raise ScimError(
            400, f"externalId has at most {EXTERNAL_ID_MAX} characters.", "invalidValue"
        )
    taken = ExternalIdentity.objects.filter(issuer=SCIM_ISSUER, subject=external_id)
    if taken.exclude(user=user).exists():
        raise ScimError(409, f"Another user has the externalId {external_id!r}.", "uniqueness")
    if link is None:
        ExternalIdentity.objects.create(user=user, issuer=SCIM_ISSUER, subject=external_id)
    else:
        link.subject = external_id
        link.save(update_fields=["subject"])
    return True


@transaction.atomic
def scim_user_create(*, change: UserChange) -> User:
    """A user provisioned by the identity provider (no password: they sign in through it)."""
    assert change.username is not None
    _username_free(change.username)
    user = get_user_model()(is_active=change.active is not False)
    _user_apply(user, change)
    user.set_unusable_password()
    user.save()
    _external_id_set(user, change.external_id)
    event_record(
        kind=EventKind.USER_CREATED,
        source=EventSource.SCIM,
        user=user,
        detail="provisioned" + (f", externalId {change.external_id}" if change.external_id else ""),
    )
    return user


def scim_deactivation_check(*, user: User, request: HttpRequest | None = None) -> None:
    """The one rule of what SCIM may deactivate: never a tenant superuser (the break-glass
    account that repairs a broken sign-in setting must outlive the provider's mistakes). A
    refusal is audited, outside any transaction, and is a ScimError 403 that says why."""
    if not user.is_superuser:
        return
    event_record(
        kind=EventKind.PROVISIONING_REFUSED,
        source=EventSource.SCIM,
        user=user,
        detail="deactivation refused: a superuser of this workspace (break-glass account)",
        request=request,
    )
    raise ScimError(
        403,
        f"{user.get_username()} is a superuser of this workspace, the break-glass account "
        "that repairs sign-in settings: SCIM does not deactivate superusers. Remove the "
        "superuser status in the console first, or stop assigning this person to the app.",
    )


def scim_user_update(*, user: User, change: UserChange, request: HttpRequest | None = None) -> User:
    """Apply a provisioning change; `active` false deactivates (`user_deactivate`), unless
    `scim_deactivation_check` refuses it (then nothing of the change is applied)."""
    if change.active is False and user.is_active:
        scim_deactivation_check(user=user, request=request)
    return _scim_user_apply(user=user, change=change, request=request)


@transaction.atomic
def _scim_user_apply(*, user: User, change: UserChange, request: HttpRequest | None) -> User:
    if change.username is not None:
        _username_free(change.username, user=user)
    changed = _user_apply(user, change)
    if changed:
        user.save(update_fields=changed)
    if _external_id_set(user, change.external_id):
        changed.append(f"externalId {change.external_id or '(removed)'}")
    if changed:
        event_record(
            kind=EventKind.USER_UPDATED,
            source=EventSource.SCIM,
            user=user,
            detail="changed: " + ", ".join(changed),
            request=request,
        )
    if change.active is False and user.is_active:
        user_deactivate(user=user, source=EventSource.SCIM, request=request)
    elif change.active is True and not user.is_active:
        user.is_active = True
        user.save(update_fields=["is_active"])
        event_record(
            kind=EventKind.USER_REACTIVATED, source=EventSource.SCIM, user=user, request=request
        )
    return user


def scim_user_deprovision(*, user: User, request: HttpRequest | None = None) -> None:
    """SCIM's DELETE: the account is deactivated (its content stays with the workspace), unless
    `scim_deactivation_check` refuses it."""
    if user.is_active:
        scim_deactivation_check(user=user, request=request)
        user_deactivate(user=user, source=EventSource.SCIM, request=request)


def _scim_roles_sync(users: Iterable[User]) -> None:
    for user in users:
        names = ScimGroup.objects.filter(members=user).values_list("display_name", flat=True)
        roles_from_groups(user=user, groups=list(names), source=EventSource.SCIM)


def _members(ids: Iterable[str]) -> list[User]:
    wanted = {value for value in ids}
    if not all(value.isdigit() for value in wanted):
        raise ScimError(400, "Member values must be user ids.", "invalidValue")
    users = list(get_user_model().objects.filter(pk__in=[int(value) for value in wanted]))
    if len(users) != len(wanted):
        raise ScimError(400, "A member is not a user of this workspace.", "invalidValue")
    return users


@transaction.atomic
def scim_group_save(*, group: ScimGroup | None, change: GroupChange) -> ScimGroup:
    """Create (`group` None) or change a provisioned group; the project roles of everyone who
    joins or leaves it follow the mapping."""
    if group is None:
        group = ScimGroup()
    before = set(group.members.all()) if group.pk else set()
    old_name = group.display_name
    if change.display_name is not None:
        name = change.display_name
        if not name:
            raise ScimError(400, "displayName must not be empty.", "invalidValue")
        if ScimGroup.objects.filter(display_name=name).exclude(pk=group.pk).exists():
            raise ScimError(409, f"A group named {name!r} exists already.", "uniqueness")
        group.display_name = name
    if change.external_id is not None:
        group.external_id = change.external_id
    group.save()
    if change.replace is not None:
        group.members.set(_members(change.replace))
    if change.add:
        group.members.add(*_members(change.add))
    if change.remove:
        group.members.remove(*_members(change.remove))
    after = set(group.members.all())
    affected = (before ^ after) | (after if old_name != group.display_name else set())
    if affected or old_name != group.display_name:
        event_record(
            kind=EventKind.GROUP_CHANGED,
            source=EventSource.SCIM,
            detail=(
                f"group {group.display_name}: "
                f"+{sorted(u.username for u in after - before)} "
                f"-{sorted(u.username for u in before - after)}"
            ),
            username=f"group:{group.display_name}",
        )
    _scim_roles_sync(affected)
    return group


@transaction.atomic
def scim_group_delete(*, group: ScimGroup) -> None:
    members = list(group.members.all())
    group.delete()
    event_record(
        kind=EventKind.GROUP_CHANGED,
        source=EventSource.SCIM,
        detail=f"group {group.display_name} deleted",
        username=f"group:{group.display_name}",
    )
    _scim_roles_sync(members)
