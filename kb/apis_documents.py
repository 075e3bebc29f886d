"""Documents API: list/filter, create-or-update by ingest, read, curate metadata, soft delete."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kb.apis_uploads import UPLOAD_RESPONSES, UploadInputSerializer, documents_upload
from kb.curation import METADATA_FIELDS, AuditContext, ChangeSource, registered_editor
from kb.filters import (
    SearchFiltersSerializer,
    filter_data_from_query,
    filter_query_parameters,
    filters_from,
)
from kb.ingestion.extract import DOCUMENT_TYPES, SOURCE_TYPES, detect_source_type
from kb.models import TAG_MAX_CHARS, Document
from kb.selectors import document_get_editable, document_get_visible, document_list
from kb.services import document_ingest, document_soft_delete, document_update_metadata
from kb.services import ingest_summary as build_ingest_summary
from portal.access.models import PROJECT_KEY_VALIDATOR, KeyScope
from portal.access.selectors import project_get_visible, user_can_edit
from portal.api import FIELD_ERRORS, FORBIDDEN, NOT_FOUND, Pagination, page_serializer
from portal.parsers import LimitedJSONParser

# JSON carries text; PDF and Word files arrive as multipart uploads
TEXT_SOURCE_TYPES = tuple(kind for kind in SOURCE_TYPES if kind not in DOCUMENT_TYPES)


@extend_schema_serializer(component_name="KbDocument")
class DocumentOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    title = serializers.CharField()
    project_key = serializers.CharField(source="project.key")
    source_path = serializers.CharField()
    source_type = serializers.CharField()
    tags = serializers.ListField(child=serializers.CharField())
    owners = serializers.ListField(child=serializers.CharField())
    canonical_type = serializers.CharField(allow_null=True)
    canonical_status = serializers.CharField(allow_null=True)
    retrieval_priority = serializers.IntegerField()
    evidence_tier = serializers.CharField()
    generation_source = serializers.CharField()
    summary = serializers.CharField()
    chunk_count = serializers.IntegerField()
    current_version = serializers.IntegerField(
        help_text="The number of its newest version (GET .../versions)"
    )
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()


@extend_schema_serializer(component_name="KbIngestSummary")
class IngestSummarySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["created", "updated", "skipped", "failed"])
    document_id = serializers.IntegerField(allow_null=True)
    documents = serializers.IntegerField()
    chunks = serializers.IntegerField()
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    skipped = serializers.IntegerField()
    failed = inline_serializer(
        "KbIngestFailure",
        {"path": serializers.CharField(), "error": serializers.CharField()},
        many=True,
    )
    warnings = serializers.ListField(child=serializers.CharField())


class DocumentListApi(APIView):
    """List visible documents (filters, pages); ingest a document into a project."""

    pagination_class = Pagination
    key_scopes = {"GET": KeyScope.READ}  # ingesting takes no named key
    # JSON ingests in the request; multipart uploads are queued for the workers
    parser_classes = [LimitedJSONParser, MultiPartParser]

    @property
    def max_body_bytes(self) -> int:
        """A document's content may be JSON-escaped to twice its size, plus the other fields."""
        return 2 * int(settings.KB["INGEST_MAX_FILE_BYTES"]) + 64 * 1024

    @extend_schema_serializer(component_name="KbDocumentListParameters")
    class ListParametersSerializer(serializers.Serializer):
        q = serializers.CharField(required=False, max_length=200, help_text="title contains")
        page = serializers.IntegerField(required=False, min_value=1)
        page_size = serializers.IntegerField(required=False, min_value=1, max_value=200)

    @extend_schema_serializer(component_name="KbDocumentIngestInput")
    class InputSerializer(serializers.Serializer):
        project_key = serializers.CharField(max_length=63, validators=[PROJECT_KEY_VALIDATOR])
        source_path = serializers.CharField(max_length=1000)
        title = serializers.CharField(required=False, max_length=500)
        content = serializers.CharField(allow_blank=True, trim_whitespace=False)
        source_type = serializers.ChoiceField(choices=TEXT_SOURCE_TYPES, required=False)

        def validate_source_path(self, value: str) -> str:
            if "\x00" in value:
                raise serializers.ValidationError("Must not contain NUL characters.")
            return value.strip()

        def validate_content(self, value: str) -> str:
            limit = int(settings.KB["INGEST_MAX_FILE_BYTES"])
            size = len(value.encode("utf-8", "replace"))
            if size > limit:
                raise serializers.ValidationError(
                    f"Content is {size} bytes; the limit is {limit} bytes."
                )
            return value

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            detected = detect_source_type(attrs["source_path"])
            if not attrs.get("source_type") and detected in DOCUMENT_TYPES:
                raise serializers.ValidationError(
                    {
                        "source_path": [
                            "PDF and Word files are uploaded as files: POST multipart/form-data "
                            "with project_key and files."
                        ]
                    }
                )
            if not attrs.get("source_type") and detected is None:
                raise serializers.ValidationError(
                    {
                        "source_path": [
                            "Unsupported file extension: use .md, .markdown, .txt, .html or "
                            ".htm, or give source_type."
                        ]
                    }
                )
            return attrs

    @extend_schema(
        operation_id="kb_documents_list",
        parameters=[ListParametersSerializer, *filter_query_parameters()],
        responses={200: page_serializer("KbDocumentPage", DocumentOutputSerializer(many=True))},
        summary="List documents you can read",
    )
    def get(self, request: Request) -> Response:
        params = self.ListParametersSerializer(data=request.query_params)
        given = SearchFiltersSerializer(data=filter_data_from_query(request.query_params))
        if not (params.is_valid() & given.is_valid()):
            raise serializers.ValidationError({**params.errors, **given.errors})
        filters = filters_from(
            given.validated_data, title_contains=params.validated_data.get("q", "")
        )
        documents = document_list(user=request.user, filters=filters)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(documents, request, view=self)
        return paginator.get_paginated_response(DocumentOutputSerializer(page, many=True).data)

    @extend_schema(
        operation_id="kb_documents_create",
        request={
            "application/json": InputSerializer,
            "multipart/form-data": UploadInputSerializer,
        },
        responses={
            **UPLOAD_RESPONSES,
            201: IngestSummarySerializer,
            200: IngestSummarySerializer,
            400: OpenApiResponse(
                description="Field errors, or the content is over the ingestion budget; "
                "for uploads, an empty file"
            ),
            403: FORBIDDEN,
            404: NOT_FOUND,
            503: OpenApiResponse(description="The embedding provider failed; nothing written"),
        },
        summary="Create or update a document: JSON ingests now, multipart files are queued",
    )
    def post(self, request: Request) -> Response:
        if request.content_type.startswith("multipart/form-data"):
            return documents_upload(request)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        project = project_get_visible(user=request.user, key=data["project_key"])
        if not user_can_edit(user=request.user, project=project):
            raise PermissionDenied("Only editors and admins of this project may add documents.")
        outcome = document_ingest(
            project=project,
            source_path=data["source_path"],
            content=data["content"],
            title=data.get("title"),
            source_type=data.get("source_type"),
            origin=AuditContext(actor=request.user, source=ChangeSource.API),
        )
        body = {
            "status": outcome.status,
            "document_id": outcome.document.pk if outcome.document else None,
            **build_ingest_summary([outcome]),
        }
        if outcome.status == "failed":
            failure_code = (
                status.HTTP_400_BAD_REQUEST
                if outcome.rejected
                else status.HTTP_503_SERVICE_UNAVAILABLE
            )
            return Response({"detail": outcome.error, **body}, status=failure_code)
        code = status.HTTP_201_CREATED if outcome.status == "created" else status.HTTP_200_OK
        return Response(body, status=code)


@extend_schema_serializer(component_name="KbRecordUpdateInput")
class DocumentUpdateSerializer(serializers.Serializer):
    # kb's metadata fields plus those of the registered curation layer (kb.curation).
    title = serializers.CharField(max_length=500)
    tags = serializers.ListField(
        child=serializers.CharField(max_length=TAG_MAX_CHARS), max_length=100, allow_empty=True
    )
    summary = serializers.CharField(max_length=10_000, allow_blank=True)
    owners = serializers.ListField(
        child=serializers.CharField(max_length=200), max_length=100, allow_empty=True
    )

    def get_fields(self) -> dict[str, serializers.Field]:
        fields = super().get_fields()
        editor = registered_editor()
        if editor is not None:
            fields.update(editor.fields())
        return fields


class DocumentDetailApi(APIView):
    """Read, curate (metadata and the canonical workflow) or soft-delete one document."""

    key_scopes = {"GET": KeyScope.READ}  # curating and deleting take no named key

    # A PATCH goes through the curation layer registered in kb.curation when there is one
    # (status workflow and audit trail), else it changes the metadata fields only.

    OutputSerializer = DocumentOutputSerializer
    InputSerializer = DocumentUpdateSerializer

    def perform_update(
        self, *, request: Request, document: Document, data: dict[str, Any]
    ) -> Document:
        """Apply validated fields through the curation layer, or kb's metadata service."""
        editor = registered_editor()
        if editor is not None:
            return editor.apply(document, data, request.user)
        fields = {key: data[key] for key in METADATA_FIELDS if key in data}
        return document_update_metadata(
            document=document,
            **fields,
            origin=AuditContext(actor=request.user, source=ChangeSource.API),
        )

    def _output(self, request: Request, document_id: int) -> Response:
        document = document_get_visible(request.user, document_id)
        return Response(self.OutputSerializer(document).data)

    @extend_schema(
        operation_id="kb_document_retrieve",
        responses={200: DocumentOutputSerializer, 404: NOT_FOUND},
        summary="Read one document",
    )
    def get(self, request: Request, document_id: int) -> Response:
        return self._output(request, document_id)

    @extend_schema(
        operation_id="kb_documents_partial_update",
        request=InputSerializer,
        responses={
            200: DocumentOutputSerializer,
            400: FIELD_ERRORS,
            403: FORBIDDEN,
            404: NOT_FOUND,
        },
        summary="Curate a document: metadata, canonical status, type and retrieval priority",
    )
    def patch(self, request: Request, document_id: int) -> Response:
        document = document_get_editable(request.user, document_id)
        if not isinstance(request.data, dict):
            return Response(
                {"non_field_errors": ["Send a JSON object."]}, status=status.HTTP_400_BAD_REQUEST
            )
        serializer = self.InputSerializer(data=request.data, partial=True)
        unknown = sorted(set(request.data) - set(serializer.fields))
        if unknown:
            return Response(
                {key: ["Unknown field."] for key in unknown}, status=status.HTTP_400_BAD_REQUEST
            )
        serializer.is_valid(raise_exception=True)
        if not serializer.validated_data:
            return Response(
                {"non_field_errors": [f"Give at least one of: {', '.join(serializer.fields)}."]},
                status=status.HTTP_400_BAD_REQUEST,
            )
        self.perform_update(request=request, document=document, data=serializer.validated_data)
        return self._output(request, document_id)

    @extend_schema(
        operation_id="kb_document_destroy",
        responses={204: None, 403: FORBIDDEN, 404: NOT_FOUND},
        summary="Delete a document (soft delete)",
    )
    def delete(self, request: Request, document_id: int) -> Response:
        document = document_get_editable(request.user, document_id)
        document_soft_delete(
            document=document, origin=AuditContext(actor=request.user, source=ChangeSource.API)
        )
        return Response(status=status.HTTP_204_NO_CONTENT)
