"""The OpenAI-compatible provider against a local fake server: streaming, JSON, errors, timeout."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from chat.providers import ProviderError, ProviderTimeout, get_provider
from chat.providers.openai import OpenAIProvider
from tests.chat.helpers import hit, prompt_for, result


class FakeOpenAI(BaseHTTPRequestHandler):
    """Behaviour is chosen by the test through the server's `mode` attribute."""

    def log_message(self, *args: object) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        try:
            self._respond()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (the timeout tests do that on purpose)

    def _respond(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(length))
        self.server.requests.append(  # type: ignore[attr-defined]
            {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
        )
        mode = self.server.mode  # type: ignore[attr-defined]
        if mode == "error":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b'{"error": "boom"}')
            return
        if mode == "slow":
            time.sleep(1.5)
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            pieces = getattr(self.server, "pieces", None) or [
                "Redis Cluster ",
                "is the standard ",
                "cache [1].",
            ]
            for piece in pieces:
                event = {"choices": [{"delta": {"content": piece}}]}
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                self.wfile.flush()
            self.wfile.write(b": keep-alive comment\n\ndata: [DONE]\n\n")
            return
        payload = {
            "model": "fake-model-1",
            "choices": [{"message": {"role": "assistant", "content": " Sessions use Redis [1]. "}}],
            "usage": {"total_tokens": 42},
        }
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def fake_server() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeOpenAI)
    server.daemon_threads = True
    server.mode = "ok"  # type: ignore[attr-defined]
    server.requests = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _provider(server: ThreadingHTTPServer, *, streaming: bool, timeout: float = 5.0):
    host, port = str(server.server_address[0]), server.server_address[1]
    return OpenAIProvider(
        base_url=f"http://{host}:{port}/v1/",
        model="fake-model",
        api_key="sk-test",
        timeout=timeout,
        streaming=streaming,
    )


PROMPT = prompt_for("What cache do we use?", result([hit(1, "Redis Cluster is the cache.")]))


def test_streaming_collects_the_sse_deltas(fake_server):
    provider = _provider(fake_server, streaming=True)
    pieces = list(provider.stream(PROMPT))
    assert pieces == ["Redis Cluster ", "is the standard ", "cache [1]."]
    assert provider.answer(PROMPT).text == "Redis Cluster is the standard cache [1]."
    sent = fake_server.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["auth"] == "Bearer sk-test"
    assert sent["body"]["stream"] is True
    assert sent["body"]["messages"][0] == {"role": "system", "content": PROMPT.system}
    assert sent["body"]["messages"][1] == {"role": "user", "content": PROMPT.user}


def test_non_streaming_reads_the_message_and_model(fake_server):
    answer = _provider(fake_server, streaming=False).answer(PROMPT)
    assert answer.text == "Sessions use Redis [1]."
    assert answer.model == "fake-model-1"
    assert answer.usage == {"total_tokens": 42}
    assert fake_server.requests[0]["body"]["stream"] is False


@pytest.mark.parametrize("streaming", [True, False])
def test_http_errors_become_a_typed_provider_error(fake_server, streaming):
    fake_server.mode = "error"
    with pytest.raises(ProviderError) as caught:
        _provider(fake_server, streaming=streaming).answer(PROMPT)
    assert caught.value.code == "provider_unavailable"
    assert caught.value.http_status == 502
    assert "HTTP 500" in caught.value.message


@pytest.mark.parametrize("streaming", [True, False])
def test_a_slow_server_is_a_timeout(fake_server, streaming):
    fake_server.mode = "slow"
    with pytest.raises(ProviderTimeout) as caught:
        _provider(fake_server, streaming=streaming, timeout=0.3).answer(PROMPT)
    assert caught.value.code == "provider_timeout"
    assert caught.value.http_status == 504


def test_an_unreachable_server_is_unavailable_not_a_crash():
    provider = OpenAIProvider(
        base_url="http://127.0.0.1:9/v1", model="m", api_key="", timeout=2, streaming=False
    )
    with pytest.raises(ProviderError) as caught:
        provider.answer(PROMPT)
    assert caught.value.code == "provider_unavailable"


def test_settings_select_and_configure_the_openai_provider(settings):
    settings.CHAT = {
        **settings.CHAT,
        "PROVIDER": "openai",
        "BASE_URL": "http://127.0.0.1:1/v1",
        "MODEL": "llama3",
        "TIMEOUT": 3.0,
    }
    provider = get_provider()
    assert (provider.name, provider.model, provider.timeout) == ("openai", "llama3", 3.0)


def test_an_unknown_provider_name_is_a_typed_error(settings):
    settings.CHAT = {**settings.CHAT, "PROVIDER": "nope"}
    with pytest.raises(ProviderError):
        get_provider()


# --- the whole turn on the LLM path, held to the same bar as the offline answer ------------


@pytest.fixture
def llm(settings, fake_server):
    host, port = fake_server.server_address[:2]
    settings.CHAT = {
        **settings.CHAT,
        "PROVIDER": "openai",
        "BASE_URL": f"http://{host}:{port}/v1",
        "STREAMING": True,
    }
    settings.KB = {**settings.KB, "MIN_SIMILARITY": 0.2}  # hash embedder cosines sit near 0.3
    return fake_server


FAILOVER = "How do I fail over the Redis cluster when a primary is down?"


@pytest.mark.django_db
def test_the_llm_answer_is_renumbered_1_to_n_and_rendered_as_prose(alpha, handbook, llm):
    from chat.services import message_stream
    from tests.chat.conftest import HANDBOOK_KEY
    from tests.conftest import make_user

    user = make_user(alpha, "llm-reader", projects={HANDBOOK_KEY: "reader"})
    llm.pieces = ["Promote the replica **now** [3]. ", "See [[dec-cache-v2]] [1][3]."]
    items = list(message_stream(user=user, question=FAILOVER))
    turn = items[-1]
    assert items[:-1] == llm.pieces  # streamed as the server sent it
    assert turn.refusal_reason is None
    numbers = [c["n"] for c in turn.citations]
    assert numbers == [1, 2]
    assert turn.answer.startswith("Promote the replica now [1]. See ")
    assert turn.answer.endswith(" [2][1].")
    assert "[[" not in turn.answer and "**" not in turn.answer
    assert "dec-cache-v2" not in turn.answer  # the wikilink became the document's title
    prompt = llm.requests[0]["body"]["messages"]
    assert "no [[wikilinks]]" in prompt[0]["content"]


@pytest.mark.django_db
def test_the_llm_refusal_token_is_a_self_refusal(alpha, handbook, llm):
    from chat.services import message_send
    from tests.chat.conftest import HANDBOOK_KEY
    from tests.conftest import make_user

    user = make_user(alpha, "llm-reader", projects={HANDBOOK_KEY: "reader"})
    llm.pieces = ["__NO_GROUNDED_", "ANSWER__"]
    turn = message_send(user=user, question=FAILOVER)
    assert turn.refusal_reason == "llm_self_refusal"
    assert turn.citations == []


@pytest.mark.django_db
def test_the_harness_measures_an_openai_compatible_provider(alpha, handbook, llm):
    from chat.evaluation import GoldQuestion, run_goldset
    from tests.chat.conftest import HANDBOOK_KEY
    from tests.conftest import make_user

    user = make_user(alpha, "llm-reader", projects={HANDBOOK_KEY: "reader"})
    llm.pieces = ["Run CLUSTER FAILOVER on the replica [1]."]
    report = run_goldset(
        user=user,
        questions=[
            GoldQuestion(q=FAILOVER, facts=(("CLUSTER FAILOVER",),), slugs=("rb-redis-failover",)),
            GoldQuestion(q="What is the capital of Australia?", refuse=True),
        ],
        provider=_provider(llm, streaming=True),
    )
    assert report.provider == "openai"
    assert report.metrics["fact_recall"] == 1.0
    assert report.metrics["refusal_accuracy"] == 1.0
    assert len(llm.requests) == 1  # the off-topic question never reached the provider
