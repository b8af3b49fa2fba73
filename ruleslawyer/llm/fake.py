"""A deterministic, instant stand-in for a real LLM, for tests and demos.

Everything it returns is a pure function of its constructor options and the
input, so tests that run the whole answer pipeline get stable results without
loading a model. The verdict derived from a prompt hash uses sha256, not
``hash()``, so it is the same in every process regardless of PYTHONHASHSEED.

``schema_instance`` builds the smallest JSON value that satisfies a schema of
the shape the prompts use (objects, enums, arrays, anyOf, local ``$ref``). It is
deliberately not a general JSON-Schema generator: keywords it does not know
are ignored, which is fine for the schemas this project writes.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any, Literal

from ruleslawyer.errors import ModelError
from ruleslawyer.llm.base import LLM, ChatMessage

FakeVerdict = Literal["yes", "no"]

DEFAULT_REPLY = "This is a canned reply from the fake model."

# A confident but not certain gap, like a small model that leans one way.
_LEANING_LOGPROB = -0.2
_OTHER_LOGPROB = -1.8
# Candidates that are neither yes nor no: clearly less likely than both.
_UNRELATED_LOGPROB = -6.0
# continuation_logprobs: a word the prompt already holds is easy to predict.
_SEEN_WORD_LOGPROB = -0.5
_NEW_WORD_LOGPROB = -3.0


def schema_instance(schema: dict[str, Any], root: dict[str, Any] | None = None) -> Any:
    """A minimal JSON value valid under ``schema``.

    First enum value, first ``anyOf``/``oneOf`` branch, "" (or ``minLength``
    x's) for strings, 0 (or ``minimum``) for numbers, ``minItems`` copies of
    the item instance for arrays, and only the required properties of objects
    (so optional recursive properties cannot recurse forever).
    """
    root = schema if root is None else root
    if "$ref" in schema:
        return schema_instance(_resolve_ref(schema["$ref"], root), root)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for combinator in ("anyOf", "oneOf"):
        if schema.get(combinator):
            return schema_instance(schema[combinator][0], root)
    if schema.get("allOf"):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged = _merge_object_schemas(merged, part)
        return schema_instance(merged, root)

    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0] if kind else None
    if kind is None:
        kind = "object" if "properties" in schema else "string"

    if kind == "object":
        properties = schema.get("properties", {})
        return {
            name: schema_instance(properties.get(name, {}), root)
            for name in schema.get("required", [])
        }
    if kind == "array":
        count = int(schema.get("minItems", 0))
        return [schema_instance(schema.get("items", {}), root) for _ in range(count)]
    if kind == "string":
        return "x" * int(schema.get("minLength", 0))
    if kind == "integer":
        return int(schema.get("minimum", 0))
    if kind == "number":
        return schema.get("minimum", 0)
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    raise ValueError(f"unsupported JSON schema type: {kind!r}")


def _resolve_ref(ref: str, root: dict[str, Any]) -> dict[str, Any]:
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref is supported, got {ref!r}")
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _merge_object_schemas(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    merged = {**a, **b}
    if "properties" in a or "properties" in b:
        merged["properties"] = {**a.get("properties", {}), **b.get("properties", {})}
        merged["required"] = [*a.get("required", []), *b.get("required", [])]
    return merged


def _words(text: str) -> list[str]:
    """Split so that the pieces join back to exactly ``text``."""
    return re.findall(r"\s+|\S+\s*", text)


class FakeLLM(LLM):
    """Scripted or hash-derived answers; never touches a model.

    ``verdict`` fixes the yes/no lean of ``next_token_logprobs`` (None derives
    it from the prompt), ``responses`` are cycled through by ``stream``, and
    ``fail`` makes every call raise ``ModelError`` to exercise error paths.
    """

    name = "fake"

    def __init__(
        self,
        *,
        verdict: FakeVerdict | None = None,
        responses: Sequence[str] | None = None,
        fail: bool = False,
    ) -> None:
        if verdict not in (None, "yes", "no"):
            raise ValueError(f"verdict must be 'yes', 'no' or None, got {verdict!r}")
        self.verdict = verdict
        self.responses = list(responses) if responses is not None else None
        self.fail = fail
        self._next_response = 0
        self._lock = threading.Lock()

    def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        self._maybe_fail()
        leans_yes = self._verdict_for(prompt) == "yes"
        scores: dict[str, float] = {}
        for candidate in candidates:
            word = candidate.strip().lower()
            if word == "yes":
                scores[candidate] = _LEANING_LOGPROB if leans_yes else _OTHER_LOGPROB
            elif word == "no":
                scores[candidate] = _OTHER_LOGPROB if leans_yes else _LEANING_LOGPROB
            else:
                scores[candidate] = _UNRELATED_LOGPROB
        return scores

    def continuation_logprobs(self, prompt: str, continuation: str) -> list[float]:
        """One value per word of ``continuation`` (a word stands in for a token):
        higher for a word the prompt holds, so a rule sharing the question's
        words "explains" it, as a real model's likelihood does."""
        self._maybe_fail()
        seen = set(re.findall(r"[a-z0-9]+", prompt.lower()))
        words = re.findall(r"\S+", continuation)
        if not words:
            raise ModelError("cannot score an empty continuation")
        return [
            _SEEN_WORD_LOGPROB
            if set(re.findall(r"[a-z0-9]+", w.lower())) & seen
            else _NEW_WORD_LOGPROB
            for w in words
        ]

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        json_schema: dict[str, Any] | None = None,
        stop: Sequence[str] = (),
    ) -> Iterator[str]:
        self._maybe_fail()
        if self.responses:
            with self._lock:
                text = self.responses[self._next_response % len(self.responses)]
                self._next_response += 1
        elif json_schema is not None:
            text = json.dumps(schema_instance(json_schema))
        else:
            text = DEFAULT_REPLY
        for marker in stop:
            if marker and marker in text:
                text = text[: text.index(marker)]
        # One word stands in for one token, so callers can exercise truncation.
        yield from _words(text)[: max(0, max_tokens)]

    def _verdict_for(self, prompt: str) -> FakeVerdict:
        if self.verdict is not None:
            return self.verdict
        return "yes" if hashlib.sha256(prompt.encode("utf-8")).digest()[0] % 2 == 0 else "no"

    def _maybe_fail(self) -> None:
        if self.fail:
            raise ModelError("fake model failure (FakeLLM(fail=True))")
