"""Search API: POST /api/kb/search -> the retrieval SearchResult as JSON."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kb.models import CanonicalType, SourceType
from kb.retrieval import MODES, InvalidSearchRequest, SearchFilters, search
from kb.retrieval.types import FILTER_KEYS
from portal.throttling import ScopedThrottle


class StrictListField(serializers.ListField):
    """A list that refuses a bare string (DRF would otherwise read "abc" as a list of chars)."""

    def to_internal_value(self, data: Any) -> list:
        if isinstance(data, str | bytes | dict):
            self.fail("not_a_list", input_type=type(data).__name__)
        return super().to_internal_value(data)


class SearchFiltersSerializer(serializers.Serializer):
    """The `filters` object; an unknown key is a 400, never silently ignored."""

    project_keys = StrictListField(
        child=serializers.CharField(max_length=63), required=False, max_length=100
    )
    tags = StrictListField(
        child=serializers.CharField(max_length=100), required=False, max_length=100
    )
    source_types = StrictListField(
        child=serializers.ChoiceField(choices=SourceType.choices), required=False, max_length=10
    )
    canonical_types = StrictListField(
        child=serializers.ChoiceField(choices=CanonicalType.choices),
        required=False,
        max_length=20,
    )
    doc_ids = StrictListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        required=False,
        max_length=1000,
    )
    date_from = serializers.DateField(required=False, allow_null=True)
    date_to = serializers.DateField(required=False, allow_null=True)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if isinstance(data, dict):
            unknown = sorted(str(key) for key in data if key not in FILTER_KEYS)
            if unknown:
                raise serializers.ValidationError(
                    {
                        key: [f"Unknown filter. Allowed: {', '.join(FILTER_KEYS)}."]
                        for key in unknown
                    }
                )
        return super().to_internal_value(data)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        date_from: dt.date | None = attrs.get("date_from")
        date_to: dt.date | None = attrs.get("date_to")
        if date_from and date_to and date_from > date_to:
            raise serializers.ValidationError({"date_to": ["Must not be before date_from."]})
        return attrs


def filters_from(validated: dict[str, Any] | None, project_key: str | None) -> SearchFilters:
    """SearchFilters from validated input; the legacy `project_key` joins `project_keys`."""
    validated = validated or {}
    project_keys = list(validated.get("project_keys") or [])
    if project_key and project_key not in project_keys:
        project_keys.append(project_key)
    return SearchFilters(
        project_keys=tuple(project_keys),
        tags=tuple(validated.get("tags") or ()),
        source_types=tuple(validated.get("source_types") or ()),
        canonical_types=tuple(validated.get("canonical_types") or ()),
        doc_ids=tuple(validated.get("doc_ids") or ()),
        date_from=validated.get("date_from"),
        date_to=validated.get("date_to"),
    )


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
    },
    many=True,
)


class SearchApi(APIView):
    """Hybrid search over the documents the caller may see."""

    throttle_classes = [ScopedThrottle]
    throttle_scope = "search"

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
                filters=filters_from(data.get("filters"), data.get("project_key") or None),
                min_similarity=data.get("min_similarity"),
                mode=data["mode"],
            )
        except InvalidSearchRequest as exc:
            raise serializers.ValidationError({exc.field: [exc.message]}) from exc
        return Response(result.to_dict())
