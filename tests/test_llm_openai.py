"""OpenAIHTTPLLM against a stub OpenAI-compatible server on 127.0.0.1.

The stub picks its behaviour from the request's ``model`` field, so every test
shares one server without shared mutable state. Nothing leaves the loopback
interface.
"""

from __future__ import annotations

import itertools
import json
import math
import re
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from ruleslawyer.errors import ModelError
from ruleslawyer.llm import ChatMessage, make_llm
from ruleslawyer.llm.openai import OpenAIHTTPLLM
from ruleslawyer.settings import Settings

REPLY = "Yes, a unit may charge after it Advanced if it has the Fleet ability."
MESSAGES: list[ChatMessage] = [{"role": "user", "content": "Can a unit charge after advancing?"}]
SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"enum": ["yes", "no"]}},
    "required": ["verdict"],
}
SLOW_S = 1.0
TIMEOUT_S = 0.5

LEGACY_LOGPROBS = {
    "tokens": [" Yes"],
    "token_logprobs": [-0.3],
    "top_logprobs": [{" Yes": -0.3, " No": -1.5, " Maybe": -3.0}],
}
NEW_LOGPROBS = {
    "content": [
        {
            "token": "Yes",
            "logprob": -0.4,
            "top_logprobs": [
                {"token": "Yes", "logprob": -0.4},
                {"token": " No", "logprob": -1.2},
                {"token": "Perhaps", "logprob": -4.0},
            ],
        }
    ]
}


class StubHandler(BaseHTTPRequestHandler):
    server: StubServer

    def log_message(self, format: str, *args: Any) -> None:  # keep pytest output clean
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(
            {"path": self.path, "body": body, "headers": dict(self.headers)}
        )
        model = body.get("model")
        try:
            if model == "slow":
                time.sleep(SLOW_S)
            if model == "garbage":
                return self._send(200, "<html>this is not JSON</html>", "text/html")
            if model == "error500":
                return self._send(500, '{"error": {"message": "model crashed"}}')
            if self.path == "/v1/chat/completions":
                return self._chat(model, body)
            if self.path == "/v1/completions":
                return self._completion(model, body)
            return self._send(404, '{"error": "no such endpoint"}')
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (timeout tests)

    def _chat(self, model: str, body: dict[str, Any]) -> None:
        if model == "strict" and "response_format" in body:
            return self._send(400, '{"error": "response_format is not supported"}')
        refuses_schema = body.get("response_format", {}).get("type") == "json_schema"
        if model in ("pydantic", "pydantic-cut-off") and refuses_schema:
            # llama-cpp-python's server: a request it cannot validate is an HTTP 500
            detail = "('body', 'response_format', 'type'): Input should be 'text' or 'json_object'"
            return self._send(500, json.dumps({"error": {"message": detail}}))
        if model == "wrong-shape":
            return self._sse([json.dumps({"choices": "not a list"})])
        if not body.get("stream"):
            return self._send(400, '{"error": "expected stream=true"}')
        if model == "no-stream":
            reply = {"choices": [{"message": {"role": "assistant", "content": REPLY}}]}
            return self._send(200, json.dumps(reply))
        events = [json.dumps({"choices": [{"delta": {"role": "assistant"}}]})]
        for word in REPLY.split(" "):
            events.append(json.dumps({"choices": [{"delta": {"content": word + " "}}]}))
        events.append(json.dumps({"choices": [], "usage": {"completion_tokens": 13}}))
        if model not in ("cut-off", "pydantic-cut-off"):
            events.append("[DONE]")
        self._sse(events)

    def _completion(self, model: str, body: dict[str, Any]) -> None:
        if model == "echo" and body.get("echo"):
            # vLLM's shape: the prompt's own tokens with their offsets, the first
            # with no log-probability, then the generated token.
            prompt = body["prompt"]
            starts = [m.start() for m in re.finditer(r"\S+", prompt)]
            values: list[float | None] = [None] + [-0.1 * (i + 1) for i in range(len(starts) - 1)]
            lp = {
                "tokens": [
                    *(prompt[a:b].strip() for a, b in itertools.pairwise([*starts, len(prompt)])),
                    "X",
                ],
                "token_logprobs": [*values, -2.0],
                "text_offset": [*starts, len(prompt)],
            }
            return self._send(200, json.dumps({"choices": [{"text": "X", "logprobs": lp}]}))
        shapes = {"legacy": LEGACY_LOGPROBS, "new": NEW_LOGPROBS, "no-logprobs": None}
        shapes["echo"] = LEGACY_LOGPROBS
        reply = {"choices": [{"text": " Yes", "logprobs": shapes[model]}]}
        self._send(200, json.dumps(reply))

    def _send(self, status: int, text: str, content_type: str = "application/json") -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, events: list[str]) -> None:
        # HTTP/1.0 without Content-Length: the body ends when the connection closes.
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b": keep-alive\n\n")
        for event in events:
            self.wfile.write(f"data: {event}\n\n".encode())
            self.wfile.flush()


class StubServer(ThreadingHTTPServer):
    daemon_threads = True  # a sleeping "slow" handler must not block shutdown
    requests: list[dict[str, Any]]


@pytest.fixture(scope="module")
def server() -> Iterator[StubServer]:
    stub = StubServer(("127.0.0.1", 0), StubHandler)
    stub.requests = []
    thread = threading.Thread(target=stub.serve_forever, daemon=True)
    thread.start()
    yield stub
    stub.shutdown()
    stub.server_close()


def client(server: StubServer, model: str, **kwargs: Any) -> OpenAIHTTPLLM:
    host, port = server.server_address[:2]
    return OpenAIHTTPLLM(f"http://{host!s}:{port}/v1/", model=model, **kwargs)


def last_request(server: StubServer, model: str) -> dict[str, Any]:
    return next(r for r in reversed(server.requests) if r["body"].get("model") == model)


def test_streaming_chat_is_reassembled(server: StubServer) -> None:
    llm = client(server, "chat", api_key="sekrit")
    pieces = list(llm.stream(MESSAGES, max_tokens=32, stop=["\n\n"]))
    assert len(pieces) > 5
    assert "".join(pieces).strip() == REPLY
    request = last_request(server, "chat")
    assert request["body"]["stream"] is True
    assert request["body"]["temperature"] == 0
    assert request["body"]["max_tokens"] == 32
    assert request["body"]["stop"] == ["\n\n"]
    assert request["body"]["messages"] == MESSAGES
    assert "response_format" not in request["body"]
    assert request["headers"]["Authorization"] == "Bearer sekrit"
    assert llm.name == f"chat @ http://127.0.0.1:{server.server_address[1]}/v1"


def test_json_schema_is_passed_as_response_format(server: StubServer) -> None:
    client(server, "json").complete(MESSAGES, max_tokens=32, json_schema=SCHEMA)
    assert last_request(server, "json")["body"]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": SCHEMA},
    }


def test_rejected_response_format_falls_back_silently(server: StubServer) -> None:
    llm = client(server, "strict")
    assert llm.complete(MESSAGES, max_tokens=32, json_schema=SCHEMA).strip() == REPLY
    sent = [r["body"] for r in server.requests if r["body"].get("model") == "strict"]
    assert [b.get("response_format", {}).get("type") for b in sent] == [
        "json_schema",
        "json_object",
        None,
    ]
    # Remembered: the next call does not ask again.
    llm.complete(MESSAGES, max_tokens=32, json_schema=SCHEMA)
    assert "response_format" not in last_request(server, "strict")["body"]


def test_a_server_that_only_knows_json_object_gets_the_schema_that_way(
    server: StubServer,
) -> None:
    """llama-cpp-python's server refuses "json_schema" (with an HTTP 500) and
    constrains output to a schema given with "json_object"."""
    llm = client(server, "pydantic")
    assert llm.complete(MESSAGES, max_tokens=32, json_schema=SCHEMA).strip() == REPLY
    llm.complete(MESSAGES, max_tokens=32, json_schema=SCHEMA)
    sent = [
        r["body"]["response_format"] for r in server.requests if r["body"]["model"] == "pydantic"
    ]
    assert [f["type"] for f in sent] == ["json_schema", "json_object", "json_object"]
    assert sent[-1]["schema"] == SCHEMA


def test_a_refused_format_is_remembered_even_when_the_stream_breaks_off(
    server: StubServer,
) -> None:
    llm = client(server, "pydantic-cut-off")
    for _ in range(2):
        with pytest.raises(ModelError, match="early"):
            llm.complete(MESSAGES, max_tokens=32, json_schema=SCHEMA)
    sent = [r["body"] for r in server.requests if r["body"]["model"] == "pydantic-cut-off"]
    assert [b["response_format"]["type"] for b in sent] == [
        "json_schema",
        "json_object",
        "json_object",
    ]


def test_a_server_error_that_is_not_about_the_format_is_an_error(server: StubServer) -> None:
    before = len(server.requests)
    with pytest.raises(ModelError, match="500"):
        client(server, "error500").complete(MESSAGES, max_tokens=32, json_schema=SCHEMA)
    assert len(server.requests) == before + 1  # not retried as if the format were refused


def test_server_that_ignores_stream_flag(server: StubServer) -> None:
    assert client(server, "no-stream").complete(MESSAGES, max_tokens=32) == REPLY


def test_legacy_logprobs_shape(server: StubServer) -> None:
    scores = client(server, "legacy").next_token_logprobs("Q? Answer:", [" Yes", " No", " Nope"])
    assert scores == {" Yes": -0.3, " No": -1.5, " Nope": -4.0}  # absent: min seen - 1
    body = last_request(server, "legacy")["body"]
    assert body["prompt"] == "Q? Answer:"
    assert (body["max_tokens"], body["temperature"], body["logprobs"]) == (1, 0, 20)


def test_new_logprobs_shape_matches_space_variants(server: StubServer) -> None:
    scores = client(server, "new").next_token_logprobs("Q? Answer:", [" Yes", "No", " Nope"])
    assert scores == {" Yes": -0.4, "No": -1.2, " Nope": -5.0}
    assert all(math.isfinite(v) for v in scores.values())


def test_continuation_logprobs_from_an_echoing_server(server: StubServer) -> None:
    prompt, continuation = "Rule: a b c\n\nQuestion:", " can I do x?"
    values = client(server, "echo").continuation_logprobs(prompt, continuation)
    # the echoed tokens that start inside the continuation: "can", "I", "do", "x?"
    assert values == pytest.approx([-0.5, -0.6, -0.7, -0.8])
    body = last_request(server, "echo")["body"]
    assert body["prompt"] == prompt + continuation and body["echo"] is True


@pytest.mark.parametrize("model", ["legacy", "new", "no-logprobs"])
def test_continuation_logprobs_none_when_the_prompt_is_not_echoed(
    server: StubServer, model: str
) -> None:
    assert client(server, model).continuation_logprobs("Rule: a\n\nQuestion:", " q?") is None


def test_no_logprobs_gives_none(server: StubServer) -> None:
    assert client(server, "no-logprobs").next_token_logprobs("Q?", [" Yes", " No"]) is None


def test_server_down_is_unreachable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # The port is closed now: nothing listens there.
    llm = OpenAIHTTPLLM(f"http://127.0.0.1:{port}/v1", timeout_s=2)
    with pytest.raises(ModelError, match="unreachable") as err:
        list(llm.stream(MESSAGES, max_tokens=8))
    assert "\n" not in str(err.value)
    with pytest.raises(ModelError, match="unreachable"):
        llm.next_token_logprobs("Q?", [" Yes"])


@pytest.mark.parametrize("call", ["stream", "logprobs"])
def test_slow_server_times_out(server: StubServer, call: str) -> None:
    llm = client(server, "slow", timeout_s=TIMEOUT_S)
    started = time.monotonic()
    with pytest.raises(ModelError, match=r"timed out after 0\.5s"):
        if call == "stream":
            list(llm.stream(MESSAGES, max_tokens=8))
        else:
            llm.next_token_logprobs("Q?", [" Yes"])
    assert time.monotonic() - started < SLOW_S


@pytest.mark.parametrize("model", ["garbage", "wrong-shape"])
def test_garbage_body_is_invalid_response(server: StubServer, model: str) -> None:
    llm = client(server, model)
    with pytest.raises(ModelError, match="invalid response") as err:
        list(llm.stream(MESSAGES, max_tokens=8))
    assert "\n" not in str(err.value)
    if model == "garbage":
        with pytest.raises(ModelError, match="invalid response"):
            llm.next_token_logprobs("Q?", [" Yes"])


def test_stream_cut_off_before_done_is_an_error(server: StubServer) -> None:
    with pytest.raises(ModelError, match=r"ended the stream early"):
        list(client(server, "cut-off").stream(MESSAGES, max_tokens=8))


def test_http_500_is_model_error_with_status(server: StubServer) -> None:
    llm = client(server, "error500")
    with pytest.raises(ModelError, match=r"HTTP 500.*model crashed"):
        list(llm.stream(MESSAGES, max_tokens=8))
    with pytest.raises(ModelError, match="HTTP 500"):
        llm.next_token_logprobs("Q?", [" Yes"])


def test_factory_builds_the_http_client(server: StubServer) -> None:
    host, port = server.server_address[:2]
    settings = Settings(
        llm="openai", llm_url=f"http://{host!s}:{port}/v1", llm_api_model="chat", llm_timeout_s=3
    )
    llm = make_llm(settings)
    assert isinstance(llm, OpenAIHTTPLLM)
    assert llm.complete(MESSAGES, max_tokens=8).strip() == REPLY
