"""Request body parsing for every API endpoint: bounded in size and in nesting depth."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import BaseParser, JSONParser
from rest_framework.renderers import JSONRenderer


class RequestTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "request_too_large"


def body_limit(view: object) -> int:
    """The byte limit of a request body: the view's own `max_body_bytes`, else the setting."""
    limit = getattr(view, "max_body_bytes", None)
    return int(limit if limit is not None else settings.API_MAX_BODY_BYTES)


class LimitedJSONParser(BaseParser):
    """JSON bodies: refused above the size limit before any parsing; too deep is a 400.

    Not a JSONParser subclass on purpose: DRF hands those `request.body`, which Django refuses
    above DATA_UPLOAD_MAX_MEMORY_SIZE with its own HTML 400 page; this one reads the stream,
    and never more than one byte over the limit.
    """

    media_type = "application/json"
    renderer_class = JSONRenderer
    json = JSONParser()

    def parse(
        self,
        stream: Any,
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        parser_context = parser_context or {}
        limit = body_limit(parser_context.get("view"))
        request = parser_context.get("request")
        declared = request.META.get("CONTENT_LENGTH") if request is not None else None
        too_large = f"The request body is larger than {limit} bytes."
        if declared and declared.isdigit() and int(declared) > limit:
            raise RequestTooLarge(too_large)
        # read at most one byte over the limit: a missing/false Content-Length changes nothing
        data = stream.read(limit + 1) if stream is not None else b""
        if len(data) > limit:
            raise RequestTooLarge(too_large)
        try:
            return self.json.parse(io.BytesIO(data), media_type, parser_context)
        except RecursionError as exc:
            raise ParseError("JSON parse error - the document is nested too deeply.") from exc
