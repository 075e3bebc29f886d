"""Search API: POST /api/kb/search -> the retrieval SearchResult as JSON."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kb.filters import SearchFiltersSerializer, filters_from
from kb.retrieval import MODES, InvalidSearchRequest, search
from portal.access.models import KeyScope
from portal.throttling import ScopedThrottle

_HIT = inline_serializer(
    "SearchHit",
    {
        "chunk_id": serializers.IntegerField(),
        "document_id": serializers.IntegerField(),
        "slug": serializers.CharField(),
        "title": serializers.CharField(),
        "project_key": serializers.CharField(),
        "heading_path": serializers.CharField(),
        "text": serializers.CharField(),
        "chunk_order": serializers.IntegerField(),
        "source_type": serializers.CharField(),
        "canonical_type": serializers.CharField(allow_null=True),
        "canonical_status": serializers.CharField(allow_null=True),
        "retrieval_priority": serializers.IntegerField(),
        "score": serializers.FloatField(),
        "score_label": serializers.ChoiceField(choices=["dense", "hybrid"]),
        "quality_score": serializers.FloatField(),
        "cosine": serializers.FloatField(allow_null=True),
        "signals": serializers.DictField(child=serializers.FloatField()),
        "origin": serializers.ChoiceField(
            choices=["primary", "graph_expansion", "rejected_injection", "runner_up"]
        ),
        "summary": serializers.CharField(),
        "tags": serializers.ListField(child=serializers.CharField()),
    },
    many=True,
)


class SearchApi(APIView):
    """Hybrid search over the documents the caller may see."""

    throttle_classes = [ScopedThrottle]
    throttle_scope = "search"
    key_scopes = {"POST": KeyScope.READ}

    class InputSerializer(serializers.Serializer):
        query = serializers.CharField(min_length=1, max_length=10_000)
        top = serializers.IntegerField(min_value=1, max_value=100, required=False)
        filters = SearchFiltersSerializer(required=False, allow_null=True)
        project_key = serializers.CharField(max_length=63, required=False, allow_blank=True)
        min_similarity = serializers.FloatField(
            min_value=-1.0,
            max_value=1.0,
            required=False,
            help_text=(
                "Opt-in cosine floor: hits under it move from primary to runner_up, so primary "
                "may be shorter than top. Omitted: primary is the best `top` hits by fused "
                "score; meta.retrieval_stats.relevant_count says how many clear the relevance "
                "floor (KB_MIN_SIMILARITY)."
            ),
        )
        mode = serializers.ChoiceField(choices=list(MODES), required=False, default="hybrid")

        def validate_query(self, value: str) -> str:
            limit = settings.KB["QUERY_MAX_CHARS"]
            if len(value) > limit:
                raise serializers.ValidationError(
                    f"Ensure this field has no more than {limit} characters."
                )
            return value

        def validate_top(self, value: int) -> int:
            limit = settings.KB["MAX_LIMIT"]
            if value > limit:
                raise serializers.ValidationError(
                    f"Ensure this value is less than or equal to {limit}."
                )
            return value

    class OutputSerializer(serializers.Serializer):
        primary = _HIT
        expanded = _HIT
        rejected = _HIT
        runner_up = _HIT
        meta = serializers.DictField()

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer},
        examples=[
            OpenApiExample(
                "Search one project",
                value={
                    "query": "What cache layer did we standardise on?",
                    "top": 5,
                    "filters": {"project_keys": ["handbook"]},
                },  # fmt: skip
                request_only=True,
            )
        ],
        summary="Search the documents you can read",
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            result = search(
                user=request.user,
                query=data["query"],
                limit=data.get("top"),
                filters=filters_from(
                    data.get("filters"), project_key=data.get("project_key") or None
                ),
                min_similarity=data.get("min_similarity"),
                mode=data["mode"],
            )
        except InvalidSearchRequest as exc:
            raise serializers.ValidationError({exc.field: [exc.message]}) from exc
        return Response(result.to_dict())
