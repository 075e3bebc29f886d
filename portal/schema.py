"""OpenAPI generation tweaks shared by every app's API."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema


class GroundworkAutoSchema(AutoSchema):
    """Names nested serializers after their view (`ChatApi.InputSerializer` -> `ChatApiInput`).

    The house style nests `InputSerializer`/`OutputSerializer` in each API view; without
    this, every view's serializers would collide as the components "Input" and "Output".
    """

    def get_serializer_name(self, serializer: Any, direction: str) -> str:
        qualname = type(serializer).__qualname__
        if "." in qualname:
            return qualname.replace(".", "").removesuffix("Serializer")
        return super().get_serializer_name(serializer, direction)


def drop_shadowed_endpoints(endpoints: list[tuple], **kwargs: Any) -> list[tuple]:
    """Keep only the first view per (path, method), as Django's URL resolver does.

    canonical overrides kb's document detail route by being included first; the schema must
    describe the view that actually answers.
    """
    seen: set[tuple[str, str]] = set()
    kept = []
    for path, path_regex, method, callback in endpoints:
        if (path, method) in seen:
            continue
        seen.add((path, method))
        kept.append((path, path_regex, method, callback))
    return kept
