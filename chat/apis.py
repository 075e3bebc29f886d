"""Chat API: one grounded chat turn, the sanitised document preview behind citations, the
caller's notifications of answer drift, and a record's open conflicts and proposals."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from chat.conflicts.selectors import open_conflicts_for_document
from chat.models import Conversation, ConversationSource, DriftKind, ProposalKind
from chat.notifications import (
    notification_list,
    notification_mark_read,
    notification_unread_count,
)
from chat.proposals.selectors import open_proposals_for_document, proposal_answer_for
from chat.providers import ProviderError
from chat.selectors import (
    answers_lost_to,
    conversation_get_for_user,
    document_preview,
    message_get_for_user,
)
from chat.services import ChatInputError, message_send, question_length_error
from kb.filters import SearchFiltersSerializer, filters_from
from kb.models import Document
from kb.selectors import document_get_editable
from portal.access.models import KeyScope
from portal.api import FORBIDDEN, NOT_FOUND
from portal.throttling import ScopedThrottle


class ChatApi(APIView):
    """Ask a question; get a grounded, cited answer or a typed refusal."""

    throttle_classes = [ScopedThrottle]
    throttle_scope = "chat"
    key_scopes = {"POST": KeyScope.CHAT}

    class InputSerializer(serializers.Serializer):
        question = serializers.CharField(trim_whitespace=True)
        filters = SearchFiltersSerializer(required=False, allow_null=True)
        project_key = serializers.CharField(max_length=63, required=False, allow_blank=True)
        conversation_id = serializers.IntegerField(required=False, allow_null=True, min_value=1)

        def validate_question(self, value: str) -> str:
            too_long = question_length_error(value)
            if too_long:
                raise serializers.ValidationError(too_long)
            return value

    class OutputSerializer(serializers.Serializer):
        class CitationSerializer(serializers.Serializer):
            n = serializers.IntegerField()
            document_id = serializers.IntegerField()
            chunk_id = serializers.IntegerField()
            version = serializers.IntegerField(
                allow_null=True,
                help_text="The document version the cited chunk was read in "
                "(GET /api/kb/documents/{id}/versions/{n}); null when not known.",
            )
            title = serializers.CharField()
            slug = serializers.CharField()
            project_key = serializers.CharField()
            heading_path = serializers.CharField()
            excerpt = serializers.CharField()
            origin = serializers.CharField()
            preview_url = serializers.CharField()
            canonical_status = serializers.CharField(allow_null=True)
            canonical_type = serializers.CharField(allow_null=True)

        answer = serializers.CharField()
        citations = CitationSerializer(many=True)
        refusal_reason = serializers.CharField(allow_null=True)
        conversation_id = serializers.IntegerField()
        meta = serializers.DictField()

    class ErrorSerializer(serializers.Serializer):
        detail = serializers.CharField()
        error = serializers.ChoiceField(choices=["provider_unavailable", "provider_timeout"])

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer, 502: ErrorSerializer, 504: ErrorSerializer},
        summary="Ask a question: a cited answer or a refusal",
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        user = request.user
        if not user.is_authenticated:  # the permission class refused already; narrows the type
            raise NotAuthenticated()
        # A new conversation started here is marked as the API's: the browser list omits it.
        conversation = Conversation(user=user, source=ConversationSource.API)
        if data.get("conversation_id"):
            conversation = conversation_get_for_user(
                user=request.user, conversation_id=data["conversation_id"]
            )
        try:
            turn = message_send(
                user=request.user,
                question=data["question"],
                filters=filters_from(
                    data.get("filters"), project_key=data.get("project_key") or None
                ),
                conversation=conversation,
            )
        except ChatInputError as exc:
            return Response(exc.errors, status=status.HTTP_400_BAD_REQUEST)
        except ProviderError as exc:
            return Response({"detail": exc.message, "error": exc.code}, status=exc.http_status)
        return Response(
            self.OutputSerializer(
                {
                    "answer": turn.answer,
                    "citations": turn.citations,
                    "refusal_reason": turn.refusal_reason,
                    "conversation_id": turn.conversation.pk,
                    "meta": turn.meta,
                }
            ).data
        )


class DocumentPreviewApi(APIView):
    """A visible document's text rebuilt from its chunks, plus sanitised HTML of it; with
    `?version=`, the text as that version had it (a citation's `version`)."""

    key_scopes = {"GET": KeyScope.READ}

    class ParametersSerializer(serializers.Serializer):
        version = serializers.IntegerField(
            required=False,
            min_value=1,
            help_text="A version of the document: the one a citation names (its editors "
            "may read any). 404 when you may not read it or it is no longer kept.",
        )

    class OutputSerializer(serializers.Serializer):
        document_id = serializers.IntegerField()
        slug = serializers.CharField()
        title = serializers.CharField()
        project_key = serializers.CharField()
        source_type = serializers.CharField()
        canonical_type = serializers.CharField(allow_null=True)
        canonical_status = serializers.CharField(allow_null=True)
        retrieval_priority = serializers.IntegerField()
        content = serializers.CharField(allow_blank=True)
        content_html = serializers.CharField(allow_blank=True)
        version = serializers.IntegerField(help_text="The version whose text this is")
        current_version = serializers.IntegerField()

    @extend_schema(
        parameters=[ParametersSerializer],
        responses={200: OutputSerializer},
        summary="Preview a document: its text and safe HTML",
    )
    def get(self, request: Request, pk: int) -> Response:
        params = self.ParametersSerializer(data=request.query_params)
        params.is_valid(raise_exception=True)
        version = params.validated_data.get("version")
        preview = document_preview(
            user=request.user, document_id=pk, version=version, version_required=True
        )
        return Response(self.OutputSerializer(preview.to_dict()).data)


class NotificationOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(
        choices=DriftKind.values, help_text="What happened to the cited document"
    )
    text = serializers.CharField(help_text="The notification in one sentence")
    unread = serializers.BooleanField()
    created_at = serializers.DateTimeField()
    read_at = serializers.DateTimeField(allow_null=True)
    answered_at = serializers.DateTimeField(help_text="When the answer was given")
    message_id = serializers.IntegerField(help_text="The answer whose source changed")
    conversation_id = serializers.IntegerField(
        help_text="Ask `question` again in it: POST /api/kb/chat with this conversation_id"
    )
    question = serializers.CharField(allow_blank=True)
    document_id = serializers.IntegerField()
    document_title = serializers.CharField()
    successor_id = serializers.IntegerField(allow_null=True)
    successor_title = serializers.CharField(allow_blank=True)
    detail = serializers.CharField(allow_blank=True, help_text="The editor's reason, if given")
    project_keys = serializers.ListField(child=serializers.CharField())


class NotificationListApi(APIView):
    """The caller's notifications of answer drift, unread first."""

    key_scopes = {"GET": KeyScope.CHAT}

    class OutputSerializer(serializers.Serializer):
        unread = serializers.IntegerField()
        results = NotificationOutputSerializer(many=True)

    @extend_schema(
        responses={200: OutputSerializer},
        summary="List your notifications: answers whose sources changed",
    )
    def get(self, request: Request) -> Response:
        rows = notification_list(user=request.user)
        return Response(
            self.OutputSerializer(
                {
                    "unread": notification_unread_count(user=request.user),
                    "results": [row.to_dict() for row in rows],
                }
            ).data
        )


class NotificationReadApi(APIView):
    """Mark one of the caller's notifications read (another user's answers 404)."""

    key_scopes = {"POST": KeyScope.CHAT}

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        read_at = serializers.DateTimeField()

    @extend_schema(
        request=None,
        responses={200: OutputSerializer},
        summary="Mark a notification read",
    )
    def post(self, request: Request, pk: int) -> Response:
        row = notification_mark_read(user=request.user, notification_id=pk)
        return Response(self.OutputSerializer({"id": row.pk, "read_at": row.read_at}).data)


class MessageCitationsApi(APIView):
    """The citations an answer of the caller's stored, each pinned to the document version it
    read (another user's answer, or a question, answers 404). An answer relying on documents
    the caller can no longer see is withheld, as on the chat page."""

    key_scopes = {"GET": KeyScope.CHAT}

    class OutputSerializer(serializers.Serializer):
        message_id = serializers.IntegerField()
        conversation_id = serializers.IntegerField()
        withheld = serializers.BooleanField()
        citations = ChatApi.OutputSerializer.CitationSerializer(many=True)

    @extend_schema(
        responses={200: OutputSerializer},
        summary="An answer's citations, pinned to the versions it read",
    )
    def get(self, request: Request, pk: int) -> Response:
        message = message_get_for_user(user=request.user, message_id=pk)
        withheld = message.pk in answers_lost_to(user=request.user, messages=[message])
        citations = [] if withheld else list(message.citations or [])
        for citation in citations:
            citation.setdefault("version", None)
        return Response(
            self.OutputSerializer(
                {
                    "message_id": message.pk,
                    "conversation_id": message.conversation_id,
                    "withheld": withheld,
                    "citations": citations,
                }
            ).data
        )


class OpenConflictSerializer(serializers.Serializer):
    """An open conflict of a record: the two documents, their passages and values."""

    id = serializers.IntegerField()
    record_id = serializers.IntegerField()
    record_slug = serializers.CharField(source="record.slug")
    other_id = serializers.IntegerField()
    other_slug = serializers.CharField(source="other.slug")
    record_value = serializers.CharField()
    other_value = serializers.CharField()
    kind = serializers.CharField()
    record_passage = serializers.CharField()
    other_passage = serializers.CharField()
    created_at = serializers.DateTimeField()


class OpenProposalSerializer(serializers.Serializer):
    """An open proposal naming a record (the document changed, or its successor)."""

    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ProposalKind.choices)
    document_id = serializers.IntegerField(allow_null=True)
    successor_id = serializers.IntegerField(allow_null=True)
    suggested_id = serializers.IntegerField(allow_null=True)
    question = serializers.CharField()
    answer = serializers.SerializerMethodField()
    comment = serializers.CharField()
    created_at = serializers.DateTimeField()

    def get_answer(self, proposal: Any) -> str:
        return proposal_answer_for(user=self.context["user"], proposal=proposal)


def record_open_issues(user: Any, document: Document) -> dict[str, Any]:
    """A record's open conflicts and proposals as the editor `user` sees them (the one shape
    of the API and the MCP tool `record_status`)."""
    return {
        "open_conflicts": OpenConflictSerializer(
            open_conflicts_for_document(user=user, document=document), many=True
        ).data,
        "open_proposals": OpenProposalSerializer(
            open_proposals_for_document(user=user, document=document),
            many=True,
            context={"user": user},
        ).data,
    }


class RecordIssuesApi(APIView):
    """A record's open conflicts and open proposals, for editors of its project."""

    key_scopes = {"GET": KeyScope.READ}

    class OutputSerializer(serializers.Serializer):
        open_conflicts = OpenConflictSerializer(many=True)
        open_proposals = OpenProposalSerializer(many=True)

    @extend_schema(
        responses={200: OutputSerializer, 403: FORBIDDEN, 404: NOT_FOUND},
        summary="Open conflicts and proposals of a record (editors)",
    )
    def get(self, request: Request, pk: int) -> Response:
        document = document_get_editable(request.user, pk)
        return Response(record_open_issues(request.user, document))
