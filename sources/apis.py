"""Sources API: list and add a project's sources, read, edit, pause, run now, delete one.
Only the editors of a project see its sources; secrets are written, never read back."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from portal.access.models import PROJECT_KEY_VALIDATOR
from portal.access.selectors import project_get_visible, user_can_edit
from portal.api import FIELD_ERRORS, FORBIDDEN, NOT_FOUND
from portal.parsers import LimitedJSONParser
from sources.connectors import KINDS
from sources.models import MAX_INTERVAL_MINUTES, MIN_INTERVAL_MINUTES, Source
from sources.selectors import source_get_visible, source_list, source_secrets_set
from sources.services import (
    SourceError,
    source_create,
    source_delete,
    source_run_now,
    source_update,
)


@extend_schema_serializer(component_name="Source")
class SourceOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    project_key = serializers.CharField(source="project.key")
    name = serializers.CharField()
    kind = serializers.CharField()
    settings = serializers.DictField(help_text="The kind's settings, secrets left out")
    secrets_set = serializers.SerializerMethodField(
        help_text="Names of the secret settings that hold a value (never the values)"
    )
    interval_minutes = serializers.IntegerField()
    paused = serializers.BooleanField()
    state = serializers.CharField()
    last_started_at = serializers.DateTimeField(allow_null=True)
    last_run_at = serializers.DateTimeField(allow_null=True)
    next_run_at = serializers.DateTimeField(allow_null=True)
    added = serializers.IntegerField(source="last_added")
    changed = serializers.IntegerField(source="last_changed")
    removed = serializers.IntegerField(source="last_removed")
    failed = serializers.IntegerField(source="last_failed")
    last_error = serializers.CharField()

    def get_secrets_set(self, source: Source) -> list[str]:
        return source_secrets_set(source)


def _interval_field(**kwargs: Any) -> serializers.IntegerField:
    return serializers.IntegerField(
        min_value=MIN_INTERVAL_MINUTES, max_value=MAX_INTERVAL_MINUTES, **kwargs
    )


def _bad(exc: SourceError) -> Response:
    return Response(exc.errors, status=status.HTTP_400_BAD_REQUEST)


class SourceListApi(APIView):
    """The sources you manage; add one to a project you edit."""

    parser_classes = [LimitedJSONParser]

    @extend_schema_serializer(component_name="SourceCreateInput")
    class InputSerializer(serializers.Serializer):
        project_key = serializers.CharField(max_length=63, validators=[PROJECT_KEY_VALIDATOR])
        name = serializers.CharField(max_length=100)
        kind = serializers.ChoiceField(choices=sorted(KINDS))
        settings = serializers.DictField(help_text="The kind's settings (see docs/connectors.md)")
        interval_minutes = _interval_field(default=60)
        paused = serializers.BooleanField(default=False)

    @extend_schema(
        operation_id="sources_list",
        responses={200: SourceOutputSerializer(many=True)},
        summary="List the sources of the projects you edit",
    )
    def get(self, request: Request) -> Response:
        return Response(SourceOutputSerializer(source_list(user=request.user), many=True).data)

    @extend_schema(
        operation_id="sources_create",
        request=InputSerializer,
        responses={201: SourceOutputSerializer, 400: FIELD_ERRORS, 403: FORBIDDEN, 404: NOT_FOUND},
        summary="Add a source to a project (its first sync is queued unless paused)",
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        project = project_get_visible(user=request.user, key=data.pop("project_key"))
        if not user_can_edit(user=request.user, project=project):
            raise PermissionDenied("Only editors and admins of this project manage its sources.")
        try:
            source = source_create(project=project, **data)
        except SourceError as exc:
            return _bad(exc)
        return Response(SourceOutputSerializer(source).data, status=status.HTTP_201_CREATED)


class SourceDetailApi(APIView):
    """Read, edit (settings, schedule, pause) or delete one source."""

    parser_classes = [LimitedJSONParser]

    @extend_schema_serializer(component_name="SourceUpdateInput")
    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100, required=False)
        settings = serializers.DictField(
            required=False, help_text="All the kind's settings; a secret left out is kept"
        )
        interval_minutes = _interval_field(required=False)
        paused = serializers.BooleanField(required=False)

    @extend_schema(
        operation_id="source_retrieve",
        responses={200: SourceOutputSerializer, 404: NOT_FOUND},
        summary="Read one source and its last sync",
    )
    def get(self, request: Request, source_id: int) -> Response:
        source = source_get_visible(request.user, source_id)
        return Response(SourceOutputSerializer(source).data)

    @extend_schema(
        operation_id="source_partial_update",
        request=InputSerializer,
        responses={200: SourceOutputSerializer, 400: FIELD_ERRORS, 404: NOT_FOUND},
        summary="Edit a source: name, settings, schedule, paused",
    )
    def patch(self, request: Request, source_id: int) -> Response:
        source = source_get_visible(request.user, source_id)
        serializer = self.InputSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        try:
            source = source_update(source=source, **serializer.validated_data)
        except SourceError as exc:
            return _bad(exc)
        return Response(SourceOutputSerializer(source).data)

    @extend_schema(
        operation_id="source_destroy",
        responses={204: None, 404: NOT_FOUND},
        summary="Delete a source (its documents are soft-deleted)",
    )
    def delete(self, request: Request, source_id: int) -> Response:
        source_delete(source=source_get_visible(request.user, source_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class SourceRunApi(APIView):
    """Queue a sync of the source now (also when paused)."""

    @extend_schema(
        operation_id="source_run",
        request=None,
        responses={
            202: OpenApiResponse(SourceOutputSerializer, description="Queued"),
            404: NOT_FOUND,
        },
        summary="Run a source's sync now",
    )
    def post(self, request: Request, source_id: int) -> Response:
        source = source_run_now(source=source_get_visible(request.user, source_id))
        return Response(SourceOutputSerializer(source).data, status=status.HTTP_202_ACCEPTED)
