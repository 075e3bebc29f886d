"""Answer providers, looked up by name (settings.CHAT["PROVIDER"]) in one registry."""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings

from chat.providers.base import (
    NO_GROUNDED_ANSWER,
    AnswerProvider,
    ProviderAnswer,
    ProviderError,
    ProviderTimeout,
)

__all__ = [
    "NO_GROUNDED_ANSWER",
    "AnswerProvider",
    "ProviderAnswer",
    "ProviderError",
    "ProviderTimeout",
    "get_provider",
    "register_provider",
]

ProviderFactory = Callable[[], AnswerProvider]
_REGISTRY: dict[str, ProviderFactory] = {}


def register_provider(name: str, factory: ProviderFactory) -> None:
    """Make a provider available under `name` (settings.CHAT["PROVIDER"] selects it)."""
    _REGISTRY[name] = factory


def _extractive() -> AnswerProvider:
    from chat.providers.extractive import ExtractiveProvider

    return ExtractiveProvider(embed_units=int(settings.CHAT["EXTRACTIVE_EMBED_UNITS"]))


def _openai() -> AnswerProvider:
    from chat.providers.openai import OpenAIProvider

    return OpenAIProvider.from_settings()


register_provider("extractive", _extractive)
register_provider("openai", _openai)


def get_provider(name: str | None = None) -> AnswerProvider:
    """The configured provider; settings are read at call time so tests can switch them."""
    name = name or settings.CHAT["PROVIDER"]
    try:
        factory = _REGISTRY[name]
    except KeyError as exc:
        raise ProviderError(f"The answer provider {name!r} is not configured.") from exc
    return factory()
