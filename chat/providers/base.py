"""What every answer provider is: a typed request in, a typed answer (or a typed error) out."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from chat.prompt import NO_GROUNDED_ANSWER, Prompt

__all__ = ["NO_GROUNDED_ANSWER", "AnswerProvider", "ProviderAnswer", "ProviderError"]


class ProviderError(Exception):
    """A provider could not answer; `message` is safe to show to the user."""

    code = "provider_unavailable"
    http_status = 502

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ProviderTimeout(ProviderError):
    code = "provider_timeout"
    http_status = 504


@dataclass(frozen=True, kw_only=True)
class ProviderAnswer:
    text: str
    model: str
    usage: dict[str, Any] = field(default_factory=dict)


class AnswerProvider(Protocol):
    name: str
    model: str
    supports_streaming: bool

    def answer(self, prompt: Prompt) -> ProviderAnswer: ...

    def stream(self, prompt: Prompt) -> Iterator[str]: ...
