"""The SCIM 2.0 protocol (RFC 7643/7644) for Users and Groups, as identity providers speak it:
resources to JSON, JSON to the changes they ask for, the `eq` filters they send, errors. No
database here: `apis.py` reads through the selectors and writes through the services.

What Okta and Azure AD (Entra ID) send, and is understood here: `GET /Users?filter=userName eq
"x"` (or `externalId eq "x"`), `POST /Users`, `PUT /Users/{id}`, `PATCH` with `replace` of `active` (with or without a
path; Azure's "False" as a string), names and emails; Groups with `displayName eq`, `PATCH`
`add`/`remove`/`replace` of `members` (Okta's `members[value eq "id"]` path too).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

USER_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Group"
LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
PATCH_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"
MEDIA_TYPE = "application/scim+json"
# A page of a list, when the provider names no count; and the most it may ask for.
DEFAULT_COUNT = 100
MAX_COUNT = 500

_FILTER = re.compile(r'^\s*([A-Za-z][\w.]*)\s+eq\s+"((?:[^"\\]|\\.)*)"\s*$', re.IGNORECASE)
_MEMBER_PATH = re.compile(r'^members\[\s*value\s+eq\s+"([^"]*)"\s*\]$', re.IGNORECASE)


class ScimError(Exception):
    """A request SCIM refuses: its HTTP status, a detail and (for 400s) the scimType."""

    def __init__(self, status: int, detail: str, scim_type: str = "") -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.scim_type = scim_type

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "schemas": [ERROR_SCHEMA],
            "status": str(self.status),
            "detail": self.detail,
        }
        if self.scim_type:
            body["scimType"] = self.scim_type
        return body


def not_found() -> ScimError:
    return ScimError(404, "Resource not found.")


@dataclass(kw_only=True)
class UserChange:
    """What a request sets on a user; None leaves a field as it is."""

    username: str | None = None
    email: str | None = None
    given_name: str | None = None
    family_name: str | None = None
    active: bool | None = None
    external_id: str | None = None  # "" removes it


@dataclass(kw_only=True)
class GroupChange:
    """What a request does to a group: rename, members added/removed, or all members replaced."""

    display_name: str | None = None
    external_id: str | None = None
    add: list[str] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)
    replace: list[str] | None = None


def parse_filter(text: str, allowed: dict[str, str]) -> tuple[str, str]:
    """(our field, value) of a `attr eq "value"` filter on one of `allowed` (SCIM attribute,
    lower-cased -> our field); ScimError invalidFilter for anything else."""
    match = _FILTER.match(text)
    if match is None or match.group(1).lower() not in allowed:
        names = ", ".join(sorted(allowed))
        raise ScimError(
            400, f'Only `<attribute> eq "<value>"` filters on {names}.', "invalidFilter"
        )
    return allowed[match.group(1).lower()], re.sub(r"\\(.)", r"\1", match.group(2))


def page(params: Any) -> tuple[int, int]:
    """(startIndex, count) of a list request, 1-based as SCIM counts."""
    try:
        start = max(1, int(params.get("startIndex", 1)))
        count = min(MAX_COUNT, max(0, int(params.get("count", DEFAULT_COUNT))))
    except ValueError as exc:
        raise ScimError(400, "startIndex and count must be integers.", "invalidValue") from exc
    return start, count


def list_response(resources: list[dict[str, Any]], *, total: int, start: int) -> dict[str, Any]:
    return {
        "schemas": [LIST_SCHEMA],
        "totalResults": total,
        "startIndex": start,
        "itemsPerPage": len(resources),
        "Resources": resources,
    }


def _bool(value: Any, name: str) -> bool:
    # Azure AD sends booleans as the strings "True" and "False"
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in {"true", "false"}:
        return value.lower() == "true"
    raise ScimError(400, f"{name} must be a boolean.", "invalidValue")


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ScimError(400, f"{name} must be a string.", "invalidValue")
    return value.strip()


def _primary_email(emails: Any) -> str:
    if not isinstance(emails, list) or not emails:
        return ""
    chosen = next((e for e in emails if isinstance(e, dict) and e.get("primary")), emails[0])
    return _text(chosen.get("value", ""), "emails.value") if isinstance(chosen, dict) else ""


def _user_attribute(change: UserChange, path: str, value: Any) -> None:
    """Set one attribute, named as a PATCH path or a key of a resource."""
    name = path.lower()
    if name == "username":
        change.username = _text(value, "userName")
    elif name == "active":
        change.active = _bool(value, "active")
    elif name == "name" and isinstance(value, dict):
        for key, sub in value.items():
            _user_attribute(change, f"name.{key}", sub)
    elif name == "name.givenname":
        change.given_name = _text(value, "name.givenName")
    elif name == "name.familyname":
        change.family_name = _text(value, "name.familyName")
    elif name == "emails":
        change.email = _primary_email(value)
    elif name.startswith("emails[") and name.endswith("].value"):
        change.email = _text(value, "emails.value")
    elif name == "externalid":
        change.external_id = "" if value is None else _text(value, "externalId")
    # anything else (displayName, title, the enterprise extension...) is not kept here


def user_change_from_resource(data: Any) -> UserChange:
    """The user a POST or PUT describes (userName required; an externalId it leaves out is
    kept)."""
    if not isinstance(data, dict):
        raise ScimError(400, "The body must be a SCIM User.", "invalidSyntax")
    change = UserChange(active=True)
    for key, value in data.items():
        _user_attribute(change, key, value)
    if not change.username:
        raise ScimError(400, "userName is required.", "invalidValue")
    change.email = change.email or ""
    change.given_name = change.given_name or ""
    change.family_name = change.family_name or ""
    return change


def _operations(data: Any) -> list[dict[str, Any]]:
    operations = data.get("Operations") if isinstance(data, dict) else None
    if not isinstance(operations, list) or not all(isinstance(op, dict) for op in operations):
        raise ScimError(400, "A PATCH body needs a list of Operations.", "invalidSyntax")
    for op in operations:
        if str(op.get("op", "")).lower() not in {"add", "replace", "remove"}:
            raise ScimError(400, f"Unknown PATCH op {op.get('op')!r}.", "invalidSyntax")
    return operations


def user_change_from_patch(data: Any) -> UserChange:
    """The change a PATCH of a user asks for (add and replace; remove of a user's attribute is
    not supported)."""
    change = UserChange()
    for op in _operations(data):
        if str(op["op"]).lower() == "remove":
            raise ScimError(400, "Removing user attributes is not supported.", "mutability")
        path, value = op.get("path"), op.get("value")
        if path:
            _user_attribute(change, str(path), value)
        elif isinstance(value, dict):
            for key, sub in value.items():
                _user_attribute(change, key, sub)
        else:
            raise ScimError(400, "A PATCH without a path needs an object value.", "invalidValue")
    return change


def _member_ids(value: Any) -> list[str]:
    if not isinstance(value, list):
        raise ScimError(400, "members must be a list.", "invalidValue")
    ids = []
    for member in value:
        if not isinstance(member, dict) or "value" not in member:
            raise ScimError(400, "Each member needs a value (the user's id).", "invalidValue")
        ids.append(str(member["value"]))
    return ids


def group_change_from_resource(data: Any) -> GroupChange:
    """The group a POST or PUT describes (displayName required; its members replace any)."""
    if not isinstance(data, dict) or not isinstance(data.get("displayName"), str):
        raise ScimError(400, "displayName is required.", "invalidValue")
    return GroupChange(
        display_name=data["displayName"].strip(),
        external_id=str(data.get("externalId") or ""),
        replace=_member_ids(data.get("members", [])),
    )


def group_change_from_patch(data: Any) -> GroupChange:
    change = GroupChange()
    for op in _operations(data):
        kind, path, value = str(op["op"]).lower(), str(op.get("path") or ""), op.get("value")
        member = _MEMBER_PATH.match(path)
        if member is not None and kind == "remove":
            change.remove.append(member.group(1))
        elif path.lower() == "members":
            ids = _member_ids(value) if value is not None else []
            if kind == "add":
                change.add += ids
            elif kind == "remove":
                if value is None:  # remove all members
                    change.replace = []
                change.remove += ids
            else:
                change.replace = ids
        elif path.lower() == "displayname":
            change.display_name = _text(value, "displayName")
        elif path.lower() == "externalid":
            change.external_id = _text(value, "externalId")
        elif not path and kind in {"add", "replace"} and isinstance(value, dict):
            if "displayName" in value:
                change.display_name = _text(value["displayName"], "displayName")
            if "members" in value:
                ids = _member_ids(value["members"])
                if kind == "add":
                    change.add += ids
                else:
                    change.replace = ids
        else:
            raise ScimError(400, f"Unsupported PATCH path {path!r}.", "invalidPath")
    return change


def user_resource(user: Any, *, location: str, external_id: str | None) -> dict[str, Any]:
    resource: dict[str, Any] = {
        "schemas": [USER_SCHEMA],
        "id": str(user.pk),
        "externalId": external_id or None,
        "userName": user.username,
        "name": {"givenName": user.first_name, "familyName": user.last_name},
        "displayName": user.get_full_name() or user.username,
        "active": user.is_active,
        "emails": [{"value": user.email, "type": "work", "primary": True}] if user.email else [],
        "meta": {
            "resourceType": "User",
            "created": user.date_joined.isoformat(),
            "location": location,
        },
    }
    return resource


def group_resource(group: Any, *, location: str) -> dict[str, Any]:
    return {
        "schemas": [GROUP_SCHEMA],
        "id": str(group.pk),
        "displayName": group.display_name,
        "externalId": group.external_id or None,
        "members": [
            {"value": str(member.pk), "display": member.username} for member in group.members.all()
        ],
        "meta": {
            "resourceType": "Group",
            "created": group.created.isoformat(),
            "lastModified": group.updated.isoformat(),
            "location": location,
        },
    }


def service_provider_config() -> dict[str, Any]:
    return {
        "schemas": ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
        "patch": {"supported": True},
        "bulk": {"supported": False, "maxOperations": 0, "maxPayloadSize": 0},
        "filter": {"supported": True, "maxResults": MAX_COUNT},
        "changePassword": {"supported": False},
        "sort": {"supported": False},
        "etag": {"supported": False},
        "authenticationSchemes": [
            {
                "type": "oauthbearertoken",
                "name": "Bearer token",
                "description": "The workspace's SCIM token, from the console.",
                "primary": True,
            }
        ],
    }
