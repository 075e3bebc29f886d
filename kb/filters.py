"""The one filter grammar: what narrows the visible documents, for every surface.

`SearchFilters` is the value the document list, search and chat apply. Every input that
carries filters reads them here, with the same names everywhere:

| name | value |
|---|---|
| `project_keys` | project keys (any of them) |
| `tags` | tags (any of them, case-insensitive) |
| `source_types` | markdown, text, html, pdf, docx |
| `canonical_types` | decision, runbook, ... |
| `canonical_statuses` | draft, review, accepted, superseded, deprecated, archived |
| `doc_ids` | document ids |
| `date_from`, `date_to` | last change on or after / on or before (ISO dates) |

- JSON bodies (search API, chat API, MCP tools) send lists: `SearchFiltersSerializer`.
- Query strings (documents API) and forms (search page, chat page) repeat a name or give a
  comma-separated list: `filter_data_from_query` reads them into the same shape first.
- The old names (`project_key`, `project`, `tag`, `type`, `status`, `source_type`,
  `canonical_type`, `canonical_status`) are read as their new names until the next release
  (README, "Filters"); an error about one is reported under the name that was sent.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from django import forms
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from kb.models import CanonicalStatus, CanonicalType, SourceType


@dataclass(frozen=True, kw_only=True)
class SearchFilters:
    """Filters that narrow the visible documents (never widen them); empty means no filter.

    Applied as `Document.objects.visible_to(user).filtered(filters)` (`visible_filtered`, with
    one project lookup), inside the SQL of every retrieval arm and in the document list alike.
    """

    project_keys: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()  # any of them; case-insensitive (tags are stored lower-case)
    source_types: tuple[str, ...] = ()
    canonical_types: tuple[str, ...] = ()
    canonical_statuses: tuple[str, ...] = ()
    doc_ids: tuple[int, ...] = ()
    date_from: dt.date | None = None
    date_to: dt.date | None = None
    title_contains: str = ""  # the document list's `q`; not a retrieval filter

    def applied(self) -> dict[str, Any]:
        """The non-empty filters, JSON-ready (echoed in meta)."""
        out: dict[str, Any] = {}
        for key, value in asdict(self).items():
            if value in ((), None, ""):
                continue
            if isinstance(value, dt.date):
                out[key] = value.isoformat()
            else:
                out[key] = value if isinstance(value, str) else list(value)
        return out


FILTER_KEYS: tuple[str, ...] = (
    "project_keys",
    "tags",
    "source_types",
    "canonical_types",
    "canonical_statuses",
    "doc_ids",
    "date_from",
    "date_to",
)
LIST_KEYS = frozenset(FILTER_KEYS) - {"date_from", "date_to"}
# Old names, read as the new ones until the next release.
LEGACY_NAMES: dict[str, str] = {
    "project_key": "project_keys",
    "project": "project_keys",
    "tag": "tags",
    "source_type": "source_types",
    "canonical_type": "canonical_types",
    "type": "canonical_types",
    "canonical_status": "canonical_statuses",
    "status": "canonical_statuses",
}
DATE_RANGE_ERROR = "The end date must not be before the start date."


def date_range_error(date_from: dt.date | None, date_to: dt.date | None) -> str:
    """The one check of a date range: "" when it is fine."""
    if date_from and date_to and date_from > date_to:
        return DATE_RANGE_ERROR
    return ""


def canonical_names(data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """`data` with old filter names read as new ones (values of both merged), and a map from
    each new name back to the old one the caller used (for error messages)."""
    out: dict[str, Any] = {}
    sent_as: dict[str, str] = {}
    for key, value in data.items():
        name = LEGACY_NAMES.get(key, key)
        if name != key:
            sent_as.setdefault(name, key)
        if name in out and name in LIST_KEYS:
            out[name] = [*_as_list(out[name]), *_as_list(value)]
        else:
            out[name] = value
    return out, sent_as


def _as_list(value: Any) -> list[Any]:
    if value in (None, ""):
        return []
    return list(value) if isinstance(value, list | tuple) else [value]


def filter_data_from_query(query: Mapping[str, Any]) -> dict[str, Any]:
    """The filter names of a query string or form (QueryDict) as JSON-shaped data: list names
    repeated or comma-separated become lists, blanks are dropped, other names are left out."""
    data: dict[str, Any] = {}
    getlist = getattr(query, "getlist", None)
    for key in query:
        name = LEGACY_NAMES.get(key, key)
        if name not in FILTER_KEYS or (name != key and name in query):
            continue  # not a filter, or an old name beside its new one
        raw = getlist(key) if getlist is not None else _as_list(query[key])
        values = [part.strip() for item in raw for part in str(item).split(",") if part.strip()]
        if not values:
            continue
        data[key] = values if name in LIST_KEYS else values[-1]
    return data


class StrictListField(serializers.ListField):
    """A list that refuses a bare string (DRF would otherwise read "abc" as a list of chars)."""

    def to_internal_value(self, data: Any) -> list:
        if isinstance(data, str | bytes | dict):
            self.fail("not_a_list", input_type=type(data).__name__)
        return super().to_internal_value(data)


class SearchFiltersSerializer(serializers.Serializer):
    """The filters input of every surface; an unknown name is a 400, never silently ignored."""

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
    canonical_statuses = StrictListField(
        child=serializers.ChoiceField(choices=CanonicalStatus.choices),
        required=False,
        max_length=10,
    )
    doc_ids = StrictListField(
        child=serializers.IntegerField(min_value=1, max_value=2**63 - 1),
        required=False,
        max_length=1000,
    )
    date_from = serializers.DateField(required=False, allow_null=True)
    date_to = serializers.DateField(required=False, allow_null=True)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, Mapping):
            return super().to_internal_value(data)  # DRF's "expected a dictionary" error
        named, sent_as = canonical_names(data)
        unknown = sorted(str(key) for key in named if key not in FILTER_KEYS)
        if unknown:
            raise serializers.ValidationError(
                {key: [f"Unknown filter. Allowed: {', '.join(FILTER_KEYS)}."] for key in unknown}
            )
        # a single value where a list is expected, under an old singular name, is one item
        for name in sent_as:
            if name in LIST_KEYS and not isinstance(named[name], list | tuple):
                named[name] = _as_list(named[name])
        try:
            return super().to_internal_value(named)
        except serializers.ValidationError as exc:
            detail = exc.detail
            if isinstance(detail, dict):
                raise serializers.ValidationError(
                    {sent_as.get(str(key), str(key)): value for key, value in detail.items()}
                ) from exc
            raise

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        error = date_range_error(attrs.get("date_from"), attrs.get("date_to"))
        if error:
            raise serializers.ValidationError({"date_to": [error]})
        return attrs


def filters_from(
    validated: Mapping[str, Any] | None,
    *,
    project_key: str | None = None,
    title_contains: str = "",
) -> SearchFilters:
    """SearchFilters from SearchFiltersSerializer's validated data; a body's old top-level
    `project_key` joins `project_keys`."""
    validated = validated or {}
    project_keys = [*(validated.get("project_keys") or ()), *([project_key] if project_key else [])]
    return SearchFilters(
        project_keys=tuple(dict.fromkeys(project_keys)),
        tags=tuple(validated.get("tags") or ()),
        source_types=tuple(validated.get("source_types") or ()),
        canonical_types=tuple(validated.get("canonical_types") or ()),
        canonical_statuses=tuple(validated.get("canonical_statuses") or ()),
        doc_ids=tuple(validated.get("doc_ids") or ()),
        date_from=validated.get("date_from"),
        date_to=validated.get("date_to"),
        title_contains=title_contains,
    )


def filter_query_parameters() -> list[OpenApiParameter]:
    """The filters as query parameters, for the OpenAPI document of a GET list."""
    described = {
        "project_keys": "project keys",
        "tags": "tags (any of them)",
        "source_types": "source types",
        "canonical_types": "canonical types",
        "canonical_statuses": "canonical statuses",
        "doc_ids": "document ids",
    }
    parameters = [
        OpenApiParameter(
            name,
            str,
            description=f"{what}: repeat the parameter or separate with commas",
            explode=True,
        )
        for name, what in described.items()
    ]
    parameters += [
        OpenApiParameter("date_from", OpenApiTypes.DATE, description="changed on or after"),
        OpenApiParameter("date_to", OpenApiTypes.DATE, description="changed on or before"),
    ]
    return parameters


class SearchFiltersForm(forms.Form):
    """The filters of the search and chat pages: the same names, validated by the serializer."""

    project_keys = forms.ChoiceField(label="Project", required=False)
    canonical_types = forms.ChoiceField(
        label="Type", required=False, choices=[("", "Any type"), *CanonicalType.choices]
    )
    canonical_statuses = forms.ChoiceField(
        label="Status", required=False, choices=[("", "Any status"), *CanonicalStatus.choices]
    )
    tags = forms.CharField(label="Tag", max_length=100, required=False)
    date_from = forms.DateField(
        label="Updated from", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    date_to = forms.DateField(
        label="Updated to", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def __init__(
        self, data: Mapping[str, Any] | None = None, *, projects: list[Any], **kwargs: Any
    ) -> None:
        if data is not None:
            data = _with_current_names(data)
        super().__init__(data, **kwargs)
        field = self.fields["project_keys"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", "All my projects")] + [(p.key, p.name or p.key) for p in projects]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        serializer = SearchFiltersSerializer(data=filter_data_from_query(self.data))
        if not serializer.is_valid():
            for name, errors in serializer.errors.items():
                field = name if name in self.fields else None
                for error in errors if isinstance(errors, list) else [errors]:
                    self.add_error(field, str(error))
        else:
            self.validated_filters = serializer.validated_data
        return cleaned

    def filters(self, *, title_contains: str = "") -> SearchFilters:
        """The SearchFilters of a valid form."""
        return filters_from(getattr(self, "validated_filters", {}), title_contains=title_contains)


def _with_current_names(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """A form's data with old names copied to the new ones the fields carry (a bookmarked
    `/search/?project=ops` still selects the project)."""
    if not any(key in LEGACY_NAMES for key in data):
        return data
    copy = data.copy() if hasattr(data, "copy") else dict(data)
    for old, new in LEGACY_NAMES.items():
        if old in data and new not in data:
            values = data.getlist(old) if hasattr(data, "getlist") else _as_list(data[old])
            if hasattr(copy, "setlist"):
                copy.setlist(new, values)
            else:
                copy[new] = values[-1] if values else ""
    return copy
