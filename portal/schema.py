"""OpenAPI generation tweaks shared by every app's API."""

from __future__ import annotations

from typing import Any, Literal

from drf_spectacular.openapi import AutoSchema


class GroundworkAutoSchema(AutoSchema):
    """Names nested serializers after their view (`ChatApi.InputSerializer` -> `ChatApiInput`).

    The house style nests `InputSerializer`/`OutputSerializer` in each API view; without
    this, every view's serializers would collide as the components "Input" and "Output".
    """

    def get_serializer_name(
        self, serializer: Any, direction: Literal["request", "response"]
    ) -> str:
        qualname = type(serializer).__qualname__
        if "." in qualname:
            return qualname.replace(".", "").removesuffix("Serializer")
        return super().get_serializer_name(serializer, direction)
