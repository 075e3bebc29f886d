"""API plumbing shared by every app: token endpoint, error handler, shared responses, pages."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView
from rest_framework.views import exception_handler as drf_exception_handler

from portal import ratelimit
from portal.access.selectors import project_roles_for
from portal.access.tokens import token_issue, token_list, token_revoke
from portal.authentication import ANY_KEY
from portal.identity import services as identity_services
from portal.identity.models import EventKind, EventSource
from portal.throttling import TenantRateThrottle

logger = logging.getLogger(__name__)

BAD_CREDENTIALS = "Unable to log in with the provided username and password."

# Documented responses every app's API shares (one text each).
NOT_FOUND = OpenApiResponse(description="Not visible to you (or missing): {'detail': 'Not found.'}")
FORBIDDEN = OpenApiResponse(description="Visible, but you are a reader of this project.")
FIELD_ERRORS = OpenApiResponse(description="Field errors, e.g. an invalid status transition")


class Pagination(PageNumberPagination):
    """Pages of 50 by default, at most 200 (`?page=`, `?page_size=`)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


def page_serializer(name: str, item: serializers.Serializer) -> serializers.Serializer:
    """The OpenAPI shape of a `Pagination` page of `item` (many=True) named `name`."""
    return inline_serializer(
        name,
        {
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": item,
        },
    )


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's handler, with every not-found collapsed to one body (no existence oracle)."""
    if isinstance(exc, Http404 | NotFound):
        return Response({"detail": "Not found."}, status=status.HTTP_404_NOT_FOUND)
    return drf_exception_handler(exc, context)


class TokenThrottle(TenantRateThrottle):
    scope = "auth_token"


class TokenObtainApi(APIView):
    """Exchange a username and password for an API token of this tenant."""

    authentication_classes: list[type] = []
    permission_classes = [AllowAny]
    throttle_classes = [TokenThrottle]

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=4096, trim_whitespace=False)

    @extend_schema(
        request=InputSerializer,
        responses={200: inline_serializer("TokenOutput", {"token": serializers.CharField()})},
        summary="Get an API token for a username and password",
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        username = serializer.validated_data["username"]
        # the sign-in page's failure counter: guessing here or there uses up one budget
        if ratelimit.login_blocked(request, username, limit=settings.LOGIN_FAILURE_LIMIT):
            return Response(
                {"detail": "Too many failed sign-in attempts. Try again later."},
                status=status.HTTP_429_TOO_MANY_REQUESTS,
                headers={"Retry-After": str(settings.LOGIN_FAILURE_WINDOW)},
            )
        user = authenticate(
            request._request, username=username, password=serializer.validated_data["password"]
        )
        if user is None or not user.is_active:
            ratelimit.login_failed(request, username, window_seconds=settings.LOGIN_FAILURE_WINDOW)
            identity_services.sign_in_failed(
                source=EventSource.PASSWORD,
                reason="bad_credentials (API token)",
                username=username,
                request=request._request,
            )
            return Response(
                {"non_field_errors": [BAD_CREDENTIALS]}, status=status.HTTP_400_BAD_REQUEST
            )
        ratelimit.login_succeeded(request, username)
        identity_services.event_record(
            kind=EventKind.SIGN_IN,
            source=EventSource.PASSWORD,
            user=user,
            detail="API token issued",
            request=request._request,
        )
        return Response({"token": token_issue(user=user).key})


class MeApi(APIView):
    """Who the token or session belongs to, and the projects they may read."""

    key_scopes = {"GET": ANY_KEY}

    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        is_superuser = serializers.BooleanField()
        projects = inline_serializer(
            "MeProject",
            {"key": serializers.CharField(), "role": serializers.CharField()},
            many=True,
        )

    @extend_schema(
        responses={200: OutputSerializer}, summary="Who you are and the projects you may read"
    )
    def get(self, request: Request) -> Response:
        user = request.user
        return Response(
            {
                "username": user.get_username(),
                "is_superuser": user.is_superuser,
                "projects": [
                    {"key": key, "role": role} for key, role in project_roles_for(user=user)
                ],
            }
        )


class TokenInfoSerializer(serializers.Serializer):
    prefix = serializers.CharField(help_text="The token's first characters (never the token)")
    created = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)


class TokenListApi(APIView):
    """The caller's API tokens: when each was issued and when it expires."""

    @extend_schema(
        responses={200: inline_serializer("TokenList", {"tokens": TokenInfoSerializer(many=True)})},
        summary="List your API tokens",
    )
    def get(self, request: Request) -> Response:
        tokens = token_list(user=request.user)
        return Response({"tokens": TokenInfoSerializer(tokens, many=True).data})


class TokenRevokeApi(APIView):
    """Revoke one of the caller's tokens by its prefix (404 for anyone else's)."""

    @extend_schema(responses={204: None}, summary="Revoke one of your API tokens")
    def delete(self, request: Request, prefix: str) -> Response:
        token_revoke(user=request.user, prefix=prefix)
        return Response(status=status.HTTP_204_NO_CONTENT)
