"""Any OpenAI-compatible /chat/completions endpoint (OpenAI, Ollama, vLLM, llama.cpp server)."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

from django.conf import settings

from chat.prompt import Prompt
from chat.providers.base import ProviderAnswer, ProviderError, ProviderTimeout
from portal.http import urlopen_no_redirect

logger = logging.getLogger(__name__)

UNAVAILABLE = "The answer service is unavailable right now. Please try again in a moment."
TIMEOUT = "The answer service took too long to respond. Please try again."


class OpenAIProvider:
    """Chat completions over HTTP, streamed (SSE `data:` lines) or in one response."""

    name = "openai"
    supports_streaming = True

    def __init__(
        self, *, base_url: str, model: str, api_key: str, timeout: float, streaming: bool
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.timeout = timeout
        self.streaming = streaming

    @classmethod
    def from_settings(cls) -> OpenAIProvider:
        chat = settings.CHAT
        return cls(
            base_url=chat["BASE_URL"],
            model=chat["MODEL"],
            api_key=chat["API_KEY"],
            timeout=float(chat["TIMEOUT"]),
            streaming=bool(chat["STREAMING"]),
        )

    def answer(self, prompt: Prompt) -> ProviderAnswer:
        if self.streaming:
            return ProviderAnswer(text="".join(self.stream(prompt)).strip(), model=self.model)
        body = self._read_json(self._open(prompt, stream=False))
        try:
            text = body["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as exc:
            raise ProviderError(UNAVAILABLE) from exc
        return ProviderAnswer(
            text=text.strip(), model=body.get("model") or self.model, usage=body.get("usage") or {}
        )

    def stream(self, prompt: Prompt) -> Iterator[str]:
        response = self._open(prompt, stream=True)
        try:
            for raw in response:
                line = raw.decode("utf-8", errors="replace").strip()
                if not line.startswith("data:"):
                    continue
                data = line[len("data:") :].strip()
                if data == "[DONE]":
                    break
                try:
                    event = json.loads(data)
                    delta = event["choices"][0].get("delta") or {}
                except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                    logger.warning("openai provider: unreadable stream event %r", data[:200])
                    continue
                piece = delta.get("content")
                if piece:
                    yield piece
        except TimeoutError as exc:
            raise ProviderTimeout(TIMEOUT) from exc
        except OSError as exc:
            raise ProviderError(UNAVAILABLE) from exc
        finally:
            response.close()

    def _payload(self, prompt: Prompt, *, stream: bool) -> dict[str, Any]:
        return {
            "model": self.model,
            "stream": stream,
            "temperature": 0.1,
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ],
        }

    def _open(self, prompt: Prompt, *, stream: bool) -> Any:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if stream:
            headers["Accept"] = "text/event-stream"
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps(self._payload(prompt, stream=stream)).encode(),
            headers=headers,
            method="POST",
        )
        try:
            # never follows a redirect: urllib would resend the bearer key to the new host
            return urlopen_no_redirect(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            logger.warning("openai provider: HTTP %s from %s", exc.code, self.base_url)
            raise ProviderError(
                f"The answer service returned an error (HTTP {exc.code}). Please try again later."
            ) from exc
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, TimeoutError):
                raise ProviderTimeout(TIMEOUT) from exc
            logger.warning("openai provider: %s unreachable: %s", self.base_url, exc.reason)
            raise ProviderError(UNAVAILABLE) from exc
        except TimeoutError as exc:
            raise ProviderTimeout(TIMEOUT) from exc
        except OSError as exc:
            raise ProviderError(UNAVAILABLE) from exc

    def _read_json(self, response: Any) -> dict[str, Any]:
        try:
            with response:
                return json.loads(response.read().decode("utf-8"))
        except TimeoutError as exc:
            raise ProviderTimeout(TIMEOUT) from exc
        except (ValueError, OSError) as exc:
            raise ProviderError(UNAVAILABLE) from exc
