"""Versions API: a document's versions, one version with its text, the diff of two.

For the editors and admins of the document's project (kb.selectors): a document the caller
cannot see is the one 404, its readers get a 403 that says who may.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kb.selectors import document_version_diff, document_version_get, document_version_list
from kb.versions import version_content
from portal.access.models import KeyScope
from portal.api import FORBIDDEN, NOT_FOUND


def _editors_only(exc: PermissionDenied) -> exceptions.PermissionDenied:
    return exceptions.PermissionDenied(str(exc))


@extend_schema_serializer(component_name="KbDocumentVersionSummary")
class VersionSummarySerializer(serializers.Serializer):
    number = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    actor = serializers.CharField(source="actor_name")
    source = serializers.CharField(  # type: ignore[assignment]
        help_text="Through which door: Admin console, API, ..."
    )
    reason = serializers.CharField()
    restored_from = serializers.IntegerField(allow_null=True)
    changed = serializers.ListField(
        child=serializers.CharField(), help_text="What changed since the version before"
    )
    is_current = serializers.BooleanField()


class DocumentVersionListApi(APIView):
    """A document's versions, newest first."""

    key_scopes = {"GET": KeyScope.READ}

    @extend_schema(
        operation_id="kb_document_versions_list",
        responses={200: VersionSummarySerializer(many=True), 403: FORBIDDEN, 404: NOT_FOUND},
        summary="List a document's versions (editors)",
    )
    def get(self, request: Request, document_id: int) -> Response:
        try:
            rows = document_version_list(user=request.user, document_id=document_id)
        except PermissionDenied as exc:
            raise _editors_only(exc) from exc
        return Response(VersionSummarySerializer(rows, many=True).data)


class DocumentVersionDetailApi(APIView):
    """One version of a document: its fields, who made it, its text and chunks."""

    key_scopes = {"GET": KeyScope.READ}

    @extend_schema_serializer(component_name="KbDocumentVersion")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="KbDocumentVersionChunk")
        class ChunkSerializer(serializers.Serializer):
            order = serializers.IntegerField()
            chunk_id = serializers.IntegerField(
                allow_null=True, help_text="The chunk's id while this version was current"
            )
            hash = serializers.CharField(help_text="sha256 of the chunk's text")
            heading_path = serializers.CharField()
            text = serializers.CharField()

        document_id = serializers.IntegerField()
        number = serializers.IntegerField()
        is_current = serializers.BooleanField()
        created_at = serializers.DateTimeField()
        actor = serializers.CharField()
        source = serializers.CharField()  # type: ignore[assignment]
        reason = serializers.CharField()
        restored_from = serializers.IntegerField(allow_null=True)
        title = serializers.CharField()
        slug = serializers.CharField()
        source_path = serializers.CharField()
        source_type = serializers.CharField()
        content_hash = serializers.CharField()
        canonical_type = serializers.CharField(allow_null=True)
        canonical_status = serializers.CharField(allow_null=True)
        superseded_by = serializers.CharField(
            allow_blank=True, help_text="Slug of the successor a superseded record pointed at"
        )
        retrieval_priority = serializers.IntegerField()
        tags = serializers.ListField(child=serializers.CharField())
        owners = serializers.ListField(child=serializers.CharField())
        summary = serializers.CharField()
        metadata = serializers.DictField()
        relations = serializers.ListField(
            child=serializers.ListField(child=serializers.CharField()),
            help_text="[edge type, target slug] pairs its source declared",
        )
        content = serializers.CharField(allow_blank=True, help_text="The whole text")
        chunks = ChunkSerializer(many=True)

    @extend_schema(
        operation_id="kb_document_version_retrieve",
        responses={200: OutputSerializer, 403: FORBIDDEN, 404: NOT_FOUND},
        summary="Read one version of a document with its text (editors)",
    )
    def get(self, request: Request, document_id: int, number: int) -> Response:
        try:
            version = document_version_get(
                user=request.user, document_id=document_id, number=number
            )
        except PermissionDenied as exc:
            raise _editors_only(exc) from exc
        ids = version.chunk_ids
        body = {
            "document_id": version.document_id,
            "number": version.number,
            "is_current": version.number == version.document.current_version,
            "created_at": version.created_at,
            "actor": version.actor_name,
            "source": version.get_source_display(),
            "reason": version.reason,
            "restored_from": version.restored_from,
            **{
                name: getattr(version, name)
                for name in (
                    "title",
                    "slug",
                    "source_path",
                    "source_type",
                    "content_hash",
                    "canonical_type",
                    "canonical_status",
                    "superseded_by",
                    "retrieval_priority",
                    "tags",
                    "owners",
                    "summary",
                    "metadata",
                )
            },  # fmt: skip
            "relations": version.edges,
            "content": version_content(version),
            "chunks": [
                {
                    "order": order,
                    "chunk_id": ids[order] if order < len(ids) else None,
                    "hash": entry["hash"],
                    "heading_path": entry["heading_path"],
                    "text": entry["text"],
                }
                for order, entry in enumerate(version.text.chunks)
            ],
        }
        return Response(self.OutputSerializer(body).data)


class DocumentVersionDiffApi(APIView):
    """What changed from version `a` to version `b` of a document."""

    key_scopes = {"GET": KeyScope.READ}

    @extend_schema_serializer(component_name="KbDocumentVersionDiff")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="KbDocumentVersionFieldChange")
        class FieldSerializer(serializers.Serializer):
            field = serializers.CharField()
            label = serializers.CharField()  # type: ignore[assignment]
            before = serializers.CharField(allow_blank=True)
            after = serializers.CharField(allow_blank=True)

        @extend_schema_serializer(component_name="KbDocumentVersionDiffLine")
        class LineSerializer(serializers.Serializer):
            kind = serializers.ChoiceField(choices=["hunk", "context", "added", "removed"])
            text = serializers.CharField(allow_blank=True)

        document_id = serializers.IntegerField()
        a = serializers.IntegerField()
        b = serializers.IntegerField()
        fields = FieldSerializer(many=True)  # type: ignore[assignment]  # DRF pops it
        text_changed = serializers.BooleanField()
        unified = serializers.CharField(allow_blank=True, help_text="The text diff, as diff -u")
        lines = LineSerializer(many=True)

    @extend_schema(
        operation_id="kb_document_versions_diff",
        responses={200: OutputSerializer, 403: FORBIDDEN, 404: NOT_FOUND},
        summary="Compare two versions of a document: changed fields and passages (editors)",
    )
    def get(self, request: Request, document_id: int, a: int, b: int) -> Response:
        try:
            diff = document_version_diff(user=request.user, document_id=document_id, a=a, b=b)
        except PermissionDenied as exc:
            raise _editors_only(exc) from exc
        return Response(self.OutputSerializer(diff.to_dict()).data)
