"""Client for an OpenAI-compatible HTTP server (llama-server, vLLM, Ollama).

Lets a user run a bigger model elsewhere while ruleslawyer stays the same.
Only two endpoints are used, relative to the base URL the user gives (which
usually ends in ``/v1``):

- ``POST /chat/completions`` with ``stream: true`` for ``stream``; the reply
  is Server-Sent Events, one ``data: {json}`` line per delta, ending with
  ``data: [DONE]``.
- ``POST /completions`` with ``max_tokens: 1, logprobs: 20`` for
  ``next_token_logprobs``. Servers answer in one of two shapes (the legacy
  ``top_logprobs: [{token: logprob}]`` or the newer
  ``content: [{top_logprobs: [{token, logprob}]}]``); both are read.
- ``POST /completions`` with ``echo: true, logprobs: 1`` for
  ``continuation_logprobs``: the prompt's own token log-probabilities, with
  their character offsets (vLLM and the legacy OpenAI API give them).
  A server that does not echo them (llama-server) gets None: the
  answerability check is then skipped, never guessed.

Trade-offs: JSON-schema output is asked for with ``response_format`` of type
``json_schema`` (llama-server, vLLM, OpenAI); a server that refuses it is
asked with ``json_object`` plus the schema (llama-cpp-python's server, which
only knows that type, constrains the output to the schema), then with no
format at all, and each refused kind is never asked for again (the caller
verifies the output anyway). A refusal is HTTP 400 or 422, or a server error
whose body names ``response_format`` (llama-cpp-python answers a request it
cannot validate with HTTP 500).
Timeouts are per network operation (connect, each read), not per request, so
a long stream that keeps producing tokens is never cut off. ``httpx.Client``
is thread-safe and the server queues requests itself, so no lock is taken.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Callable, Generator, Iterator, Sequence
from typing import Any

import httpx

from ruleslawyer.errors import ModelError
from ruleslawyer.llm.base import LLM, ChatMessage

# Enough alternatives that " Yes"/" No" are almost always among them.
TOP_LOGPROBS = 20
# How much of an error body to quote: enough to recognise the server's message.
_BODY_EXCERPT_CHARS = 200


def _one_line(text: str, limit: int = _BODY_EXCERPT_CHARS) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


FORMAT_KINDS = ("json_schema", "json_object")


def response_format(kind: str, schema: dict[str, Any]) -> dict[str, Any]:
    """The ``response_format`` that asks for output matching ``schema``."""
    if kind == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema}}
    return {"type": "json_object", "schema": schema}


class OpenAIHTTPLLM(LLM):
    def __init__(
        self,
        base_url: str,
        *,
        model: str = "default",
        api_key: str | None = None,
        timeout_s: float = 60.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.timeout_s = timeout_s
        self.name = f"{model} @ {self.base_url}"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout_s))
        # The response_format kinds not yet refused by this server, best first.
        self._formats = list(FORMAT_KINDS)

    def next_token_logprobs(
        self, prompt: str, candidates: Sequence[str]
    ) -> dict[str, float] | None:
        data = self._one_token(prompt, logprobs=TOP_LOGPROBS)
        top = self._top_logprobs(data)
        if not top:
            return None
        floor = min(top.values()) - 1.0
        scores: dict[str, float] = {}
        for candidate in candidates:
            stripped = candidate.strip()
            spellings = {candidate, stripped, " " + stripped}
            found = [top[s] for s in spellings if s in top]
            scores[candidate] = max(found) if found else floor
        return scores

    def continuation_logprobs(self, prompt: str, continuation: str) -> list[float] | None:
        text = prompt + continuation
        data = self._one_token(text, logprobs=1, echo=True)
        lp = self._field(data, lambda d: d["choices"][0].get("logprobs")) or {}
        offsets = lp.get("text_offset") if isinstance(lp, dict) else None
        values = lp.get("token_logprobs") if isinstance(lp, dict) else None
        if not isinstance(offsets, list) or not isinstance(values, list):
            return None
        # The echoed prompt's tokens that start inside the continuation (the
        # generated token after it starts at len(text) and is left out).
        picked = [
            v
            for off, v in zip(offsets, values, strict=False)
            if isinstance(off, int) and len(prompt) <= off < len(text)
        ]
        numbers = [v for v in picked if isinstance(v, int | float) and not isinstance(v, bool)]
        if not picked or len(numbers) != len(picked):
            return None  # not echoed, or a shape this client does not know
        out = [float(v) for v in numbers]
        if not all(math.isfinite(v) for v in out):
            raise ModelError(f"LLM server at {self.base_url} returned invalid log-probabilities")
        return out

    def _one_token(self, prompt: str, *, logprobs: int, echo: bool = False) -> Any:
        """The parsed reply of a one-token greedy ``/completions`` call with
        log-probabilities (``echo``: of the prompt's own tokens too)."""
        body: dict[str, Any] = {
            "model": self.model,
            "prompt": prompt,
            "max_tokens": 1,
            "temperature": 0,
            "logprobs": logprobs,
        }
        if echo:
            body["echo"] = True
        with self._errors():
            response = self._client.post(f"{self.base_url}/completions", json=body)
            self._raise_for_status(response)
            return self._json(response.text)

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        json_schema: dict[str, Any] | None = None,
        stop: Sequence[str] = (),
    ) -> Iterator[str]:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "max_tokens": max_tokens,
            "temperature": 0,
            "stream": True,
        }
        if stop:
            body["stop"] = list(stop)
        kinds = list(self._formats) if json_schema is not None else []
        refused: list[str] = []

        def accepted() -> None:
            # Only once a request has gone through is it certain that the refused
            # formats were what the server refused; remembered before the stream
            # is read, so a stream cut off later does not forget them.
            self._formats = [k for k in self._formats if k not in refused]

        with self._errors():
            for kind in kinds:
                body["response_format"] = response_format(kind, json_schema or {})
                if (yield from self._chat(body, format_may_be_rejected=True, accepted=accepted)):
                    return
                refused.append(kind)
            body.pop("response_format", None)
            yield from self._chat(body, format_may_be_rejected=False, accepted=accepted)

    def close(self) -> None:
        self._client.close()

    def _chat(
        self,
        body: dict[str, Any],
        *,
        format_may_be_rejected: bool,
        accepted: Callable[[], None] = lambda: None,
    ) -> Generator[str, None, bool]:
        """Stream one chat request; returns False, having yielded nothing,
        when the server refuses it and that may be the response_format's fault."""
        url = f"{self.base_url}/chat/completions"
        with self._client.stream("POST", url, json=body) as response:
            if format_may_be_rejected and response.status_code >= 400:
                response.read()
                if response.status_code in (400, 422) or "response_format" in response.text:
                    return False
            self._raise_for_status(response)
            accepted()
            yield from self._read_chat_stream(response)
            return True

    def _read_chat_stream(self, response: httpx.Response) -> Iterator[str]:
        if response.headers.get("content-type", "").startswith("application/json"):
            # Some servers ignore stream=true and send the whole reply at once.
            data = self._json(response.read().decode("utf-8", "replace"))
            content = self._field(data, lambda d: d["choices"][0]["message"].get("content"))
            if content:
                yield content
            return
        saw_data = False
        first_line = ""
        for line in response.iter_lines():
            first_line = first_line or line.strip()
            if not line.startswith("data:"):
                continue  # blank separators, ": keep-alive" comments, "event:" lines
            saw_data = True
            payload = line[len("data:") :].strip()
            if payload == "[DONE]":
                return
            event = self._json(payload)
            if isinstance(event, dict) and "error" in event:
                raise ModelError(
                    f"LLM server at {self.base_url} reported an error: "
                    f"{_one_line(json.dumps(event['error']))}"
                )
            choices = self._field(event, lambda d: d["choices"])
            if not choices:
                continue  # e.g. a final usage-only event
            content = self._field(choices, lambda c: c[0].get("delta", {}).get("content"))
            if content:
                yield content
        if not saw_data:
            raise ModelError(
                f"LLM server at {self.base_url} returned an invalid response "
                f"(not an event stream: {_one_line(first_line, 80)!r})"
            )
        raise ModelError(f"LLM server at {self.base_url} ended the stream early (no [DONE])")

    def _top_logprobs(self, data: Any) -> dict[str, float]:
        """Token text -> logprob for the first generated position, any shape."""
        logprobs = self._field(data, lambda d: d["choices"][0].get("logprobs"))
        if not logprobs:
            return {}

        def parse(lp: dict[str, Any]) -> dict[str, float]:
            top: dict[str, float] = {}
            if lp.get("top_logprobs"):
                top.update({str(t): float(v) for t, v in lp["top_logprobs"][0].items()})
                if lp.get("tokens") and lp.get("token_logprobs"):
                    top.setdefault(str(lp["tokens"][0]), float(lp["token_logprobs"][0]))
            elif lp.get("content"):
                first = lp["content"][0]
                for entry in first.get("top_logprobs") or []:
                    top[str(entry["token"])] = float(entry["logprob"])
                if "token" in first and "logprob" in first:
                    top.setdefault(str(first["token"]), float(first["logprob"]))
            return {t: v for t, v in top.items() if math.isfinite(v)}

        return self._field(logprobs, parse)

    def _field(self, data: Any, getter: Callable[[Any], Any]) -> Any:
        try:
            return getter(data)
        except (KeyError, IndexError, TypeError, AttributeError, ValueError) as exc:
            raise ModelError(
                f"LLM server at {self.base_url} returned an invalid response "
                f"(unexpected JSON shape: {type(exc).__name__} {exc})"
            ) from exc

    def _json(self, text: str) -> Any:
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise ModelError(
                f"LLM server at {self.base_url} returned an invalid response "
                f"(not JSON: {_one_line(text, 80)!r})"
            ) from exc

    def _raise_for_status(self, response: httpx.Response) -> None:
        if response.is_success:
            return
        body = response.read().decode("utf-8", "replace")
        if body.lstrip()[:1] == "<":  # a web page, not an API's error: not an LLM server
            body = "a web page, not an OpenAI-compatible API's reply (is the URL right?)"
        raise ModelError(
            f"LLM server at {self.base_url} answered HTTP {response.status_code}"
            + (f": {_one_line(body)}" if body.strip() else "")
        )

    def check(self) -> None:
        """Is the server there? Any HTTP answer counts; only transport failures raise."""
        with self._errors():
            self._client.get(f"{self.base_url}/models", timeout=min(5.0, self.timeout_s))

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn transport failures into one-line ``ModelError``s."""
        try:
            yield
        except httpx.TimeoutException as exc:
            raise ModelError(
                f"LLM server at {self.base_url} timed out after {self.timeout_s:g}s"
            ) from exc
        except (httpx.UnsupportedProtocol, httpx.InvalidURL) as exc:
            raise ModelError(f"LLM server URL {self.base_url!r} is not valid: {exc}") from exc
        except httpx.ConnectError as exc:
            raise ModelError(
                f"LLM server at {self.base_url} is unreachable: {_one_line(str(exc))}"
            ) from exc
        except httpx.HTTPError as exc:
            raise ModelError(
                f"LLM server at {self.base_url} failed: {type(exc).__name__} {_one_line(str(exc))}"
            ) from exc
