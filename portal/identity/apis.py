"""SCIM 2.0 endpoints of a tenant (`/scim/v2/`), authenticated by the tenant's SCIM token:
thin views over `scim` (the protocol), the selectors and the services."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import QuerySet
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.permissions import BasePermission
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from portal.authentication import KeyScopePermission
from portal.identity import scim, selectors, services
from portal.identity.models import ScimToken
from portal.parsers import LimitedJSONParser
from portal.throttling import ScopedThrottle


class ScimTokenAuthentication(BaseAuthentication):
    """`Authorization: Bearer <SCIM token>`: the tenant's token, or a 401. It authenticates the
    identity provider, not a person: `request.user` stays anonymous, `request.auth` the token."""

    def authenticate(self, request: Request) -> tuple[Any, Any] | None:
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != b"bearer":
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Invalid bearer header.")
        token = selectors.scim_token_find(parts[1].decode(errors="replace"))
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid SCIM token.")
        services.scim_token_touch(token)
        return AnonymousUser(), token

    def authenticate_header(self, request: Request) -> str:
        return 'Bearer realm="scim"'


class HasScimToken(BasePermission):
    def has_permission(self, request: Request, view: Any) -> bool:
        return isinstance(request.auth, ScimToken)


class ScimJSONParser(LimitedJSONParser):
    media_type = scim.MEDIA_TYPE


class ScimJSONRenderer(JSONRenderer):
    media_type = scim.MEDIA_TYPE


class ScimApi(APIView):
    """What every SCIM endpoint shares: the token, SCIM's media type, SCIM's error bodies."""

    schema = None  # not part of the portal's OpenAPI document: SCIM has its own schemas
    authentication_classes = [ScimTokenAuthentication]
    # the scope gate every API view passes: no API key authenticates here (only the SCIM
    # token does), so no method names a key scope
    permission_classes = [HasScimToken, KeyScopePermission]
    parser_classes = [ScimJSONParser, LimitedJSONParser]
    renderer_classes = [ScimJSONRenderer, JSONRenderer]
    # the API's one throttle, on the "scim" rate, counted per SCIM token (ratelimit.throttle_ident)
    throttle_classes = [ScopedThrottle]
    throttle_scope = "scim"

    def handle_exception(self, exc: Exception) -> Response:
        if isinstance(exc, scim.ScimError):
            return Response(exc.body(), status=exc.status)
        if isinstance(exc, exceptions.APIException):
            response = super().handle_exception(exc)
            detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
            response.data = scim.ScimError(response.status_code, detail).body()
            return response
        raise exc

    def location(self, kind: str, pk: Any) -> str:
        return self.request.build_absolute_uri(f"/scim/v2/{kind}/{pk}")

    def user_body(self, user: Any) -> dict[str, Any]:
        """`user` as read by the selectors (`scim_users`, `scim_user_get`)."""
        return scim.user_resource(
            user,
            location=self.location("Users", user.pk),
            external_id=selectors.scim_external_id(user),
        )

    def group_body(self, group: Any) -> dict[str, Any]:
        return scim.group_resource(group, location=self.location("Groups", group.pk))

    def listed(self, rows: QuerySet[Any], render: Any) -> Response:
        start, count = scim.page(self.request.query_params)
        total = rows.count()
        resources = [render(row) for row in rows[start - 1 : start - 1 + count]]
        return Response(scim.list_response(resources, total=total, start=start))


USER_FILTERS = {
    "username": "username",
    "emails.value": "email",
    "emails": "email",
    "externalid": "external_id",
}
GROUP_FILTERS = {"displayname": "display_name", "externalid": "external_id"}


class ScimUsersApi(ScimApi):
    def get(self, request: Request) -> Response:
        text = request.query_params.get("filter")
        field, value = scim.parse_filter(text, USER_FILTERS) if text else (None, "")
        return self.listed(selectors.scim_users(field=field, value=value), self.user_body)

    def post(self, request: Request) -> Response:
        user = services.scim_user_create(change=scim.user_change_from_resource(request.data))
        return Response(self.user_body(selectors.scim_user_get(str(user.pk))), status=201)


class ScimUserApi(ScimApi):
    def get(self, request: Request, user_id: str) -> Response:
        return Response(self.user_body(selectors.scim_user_get(user_id)))

    def put(self, request: Request, user_id: str) -> Response:
        user = selectors.scim_user_get(user_id)
        change = scim.user_change_from_resource(request.data)
        services.scim_user_update(user=user, change=change, request=request._request)
        return Response(self.user_body(selectors.scim_user_get(user_id)))

    def patch(self, request: Request, user_id: str) -> Response:
        user = selectors.scim_user_get(user_id)
        change = scim.user_change_from_patch(request.data)
        services.scim_user_update(user=user, change=change, request=request._request)
        return Response(self.user_body(selectors.scim_user_get(user_id)))

    def delete(self, request: Request, user_id: str) -> Response:
        """Deprovision: the account is deactivated (its content stays with the workspace)."""
        user = selectors.scim_user_get(user_id)
        services.scim_user_deprovision(user=user, request=request._request)
        return Response(status=204)


class ScimGroupsApi(ScimApi):
    def get(self, request: Request) -> Response:
        text = request.query_params.get("filter")
        field, value = scim.parse_filter(text, GROUP_FILTERS) if text else (None, "")
        return self.listed(selectors.scim_groups(field=field, value=value), self.group_body)

    def post(self, request: Request) -> Response:
        change = scim.group_change_from_resource(request.data)
        group = services.scim_group_save(group=None, change=change)
        return Response(self.group_body(selectors.scim_group_get(str(group.pk))), status=201)


class ScimGroupApi(ScimApi):
    def get(self, request: Request, group_id: str) -> Response:
        return Response(self.group_body(selectors.scim_group_get(group_id)))

    def put(self, request: Request, group_id: str) -> Response:
        group = selectors.scim_group_get(group_id)
        services.scim_group_save(group=group, change=scim.group_change_from_resource(request.data))
        return Response(self.group_body(selectors.scim_group_get(group_id)))

    def patch(self, request: Request, group_id: str) -> Response:
        group = selectors.scim_group_get(group_id)
        services.scim_group_save(group=group, change=scim.group_change_from_patch(request.data))
        return Response(self.group_body(selectors.scim_group_get(group_id)))

    def delete(self, request: Request, group_id: str) -> Response:
        services.scim_group_delete(group=selectors.scim_group_get(group_id))
        return Response(status=204)


class ServiceProviderConfigApi(ScimApi):
    def get(self, request: Request) -> Response:
        return Response(scim.service_provider_config())
