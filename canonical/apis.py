"""Curation API: the editor kb's document PATCH goes through (status workflow, audit), plus
supersede and history. Same services and audit trail as the admin console (source "api")."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from canonical import selectors, services
from canonical.transitions import CurationError
from kb.apis_documents import DocumentOutputSerializer
from kb.curation import AuditContext, ChangeSource, DocumentEditor
from kb.models import CanonicalStatus, CanonicalType, Document
from kb.selectors import document_get_editable, document_get_visible
from portal.access.models import AnyUser, KeyScope
from portal.api import FIELD_ERRORS, FORBIDDEN, NOT_FOUND, Pagination, page_serializer


def _curation_error(exc: CurationError) -> ValidationError:
    return ValidationError({exc.field: [str(exc)]})


def record_edit_fields() -> dict[str, serializers.Field]:
    """The PATCH fields curation adds to kb's document endpoint (see kb.curation)."""
    return {
        "canonical_status": serializers.ChoiceField(choices=CanonicalStatus.values),
        "retrieval_priority": serializers.IntegerField(min_value=0, max_value=100),
        "canonical_type": serializers.ChoiceField(choices=CanonicalType.values),
        "reason": serializers.CharField(max_length=2000, allow_blank=True),
    }


def record_edit_apply(document: Document, data: dict[str, Any], user: AnyUser) -> Document:
    """Every PATCH change through the curation services, audited with source "api"."""
    changes = {key: value for key, value in data.items() if key != "reason"}
    try:
        with transaction.atomic():
            return services.record_apply_changes(
                document=document,
                changes=changes,
                by=AuditContext(actor=user, source=ChangeSource.API, reason=data.get("reason", "")),
            )
    except CurationError as exc:
        raise _curation_error(exc) from exc


RECORD_EDITOR = DocumentEditor(
    fields=record_edit_fields, apply=record_edit_apply, record=services.record_audit_kb_changes
)


class RecordSupersedeApi(APIView):
    """Mark a record superseded by a successor of the same project."""

    class InputSerializer(serializers.Serializer):
        successor_id = serializers.IntegerField(min_value=1)
        reason = serializers.CharField(max_length=2000, allow_blank=True, required=False)

    @extend_schema(
        request=InputSerializer,
        responses={
            200: DocumentOutputSerializer,
            400: FIELD_ERRORS,
            403: FORBIDDEN,
            404: NOT_FOUND,
        },
        summary="Supersede a record",
    )
    def post(self, request: Request, document_id: int) -> Response:
        document = document_get_editable(request.user, document_id)
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        successor = Document.objects.visible_to(request.user).filter(pk=data["successor_id"])
        successor_doc = successor.first()
        if successor_doc is None:
            raise ValidationError({"successor_id": ["No visible record with this id."]})
        try:
            services.record_supersede(
                old=document,
                new=successor_doc,
                by=AuditContext(
                    actor=request.user, source=ChangeSource.API, reason=data.get("reason", "")
                ),
            )
        except CurationError as exc:
            raise _curation_error(exc) from exc
        return Response(
            DocumentOutputSerializer(document_get_visible(request.user, document_id)).data
        )


class RecordHistoryApi(APIView):
    """The audit trail of a visible record, newest first."""

    pagination_class = Pagination
    key_scopes = {"GET": KeyScope.READ}

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        at = serializers.DateTimeField()
        actor = serializers.CharField(source="actor_name")
        field = serializers.CharField()
        from_value = serializers.CharField()
        to_value = serializers.CharField()
        reason = serializers.CharField()
        # the audit row's column; DRF moves declared fields off the class, so no clash
        source = serializers.CharField()  # type: ignore[assignment]

    @extend_schema(
        responses={
            200: page_serializer("RecordHistoryPage", OutputSerializer(many=True)),
            404: NOT_FOUND,
        },
        summary="History of a record (audit trail), newest first",
    )
    def get(self, request: Request, document_id: int) -> Response:
        document = document_get_visible(request.user, document_id)
        changes = selectors.record_history(user=request.user, document=document)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(changes, request, view=self)
        return paginator.get_paginated_response(self.OutputSerializer(page, many=True).data)


__all__ = ["RECORD_EDITOR", "RecordHistoryApi", "RecordSupersedeApi"]
