"""FakeLLM and schema_instance: the stand-ins every fast test relies on.

Schema instances are checked with pydantic (already installed with gradio),
an independent JSON-schema producer and validator, so the test does not just
mirror the helper's own logic.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field, TypeAdapter

from ruleslawyer.errors import ModelError
from ruleslawyer.llm.base import ChatMessage
from ruleslawyer.llm.fake import DEFAULT_REPLY, FakeLLM, schema_instance
from ruleslawyer.settings import Settings

MESSAGES: list[ChatMessage] = [{"role": "user", "content": "Can a unit charge after advancing?"}]


class Citation(BaseModel):
    rule_id: str
    quote: Annotated[str, Field(min_length=3)]


class Answer(BaseModel):
    verdict: Literal["yes", "no", "quote", "answer"]
    answer: str
    confidence: float
    citations: Annotated[list[Citation], Field(min_length=2)]
    note: str | None = None  # optional: must be left out of a minimal instance


@pytest.mark.parametrize(
    "adapter",
    [
        TypeAdapter(Answer),
        TypeAdapter(Literal["b", "a"]),
        TypeAdapter(Annotated[list[int], Field(min_length=3)]),
        TypeAdapter(Citation | int),
        TypeAdapter(dict[str, Any]),
    ],
    ids=["nested-object", "enum", "array-minItems", "anyOf", "free-object"],
)
def test_schema_instance_validates_against_its_schema(adapter: TypeAdapter[Any]) -> None:
    schema = adapter.json_schema()
    instance = schema_instance(schema)
    adapter.validate_python(instance)  # raises if the instance is invalid
    json.dumps(instance)  # and it is plain JSON


def test_schema_instance_is_minimal() -> None:
    instance = schema_instance(Answer.model_json_schema())
    assert instance["verdict"] == "yes"  # first enum value
    assert instance["answer"] == ""
    assert instance["confidence"] == 0
    assert len(instance["citations"]) == 2
    assert instance["citations"][0] == {"rule_id": "", "quote": "xxx"}
    assert "note" not in instance


def test_schema_instance_hand_written_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "verdict": {"enum": ["no", "yes"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "kind": {"anyOf": [{"type": "integer", "minimum": 2}, {"type": "string"}]},
            "flag": {"type": ["boolean", "null"]},
        },
        "required": ["verdict", "tags", "kind", "flag"],
    }
    assert schema_instance(schema) == {"verdict": "no", "tags": [], "kind": 2, "flag": False}


def test_fixed_verdict_logprobs() -> None:
    yes = FakeLLM(verdict="yes").next_token_logprobs("p", [" Yes", " No", " Maybe"])
    no = FakeLLM(verdict="no").next_token_logprobs("p", [" Yes", " No"])
    assert yes[" Yes"] > yes[" No"] > yes[" Maybe"]
    assert no[" No"] > no[" Yes"]
    assert all(v < 0 for v in (*yes.values(), *no.values()))


def test_derived_verdict_is_deterministic_and_varies() -> None:
    llm = FakeLLM()
    prompts = [f"Question {i}: Answer:" for i in range(40)]
    leans = [llm.next_token_logprobs(p, [" Yes", " No"]) for p in prompts]
    again = [FakeLLM().next_token_logprobs(p, [" Yes", " No"]) for p in prompts]
    assert leans == again
    says_yes = [s[" Yes"] > s[" No"] for s in leans]
    assert any(says_yes) and not all(says_yes)


def test_scripted_responses_are_cycled_and_streamed_by_word() -> None:
    llm = FakeLLM(responses=["first reply here", '{"verdict": "no"}'])
    pieces = list(llm.stream(MESSAGES, max_tokens=50))
    assert pieces == ["first ", "reply ", "here"]
    assert llm.complete(MESSAGES, max_tokens=50) == '{"verdict": "no"}'
    assert llm.complete(MESSAGES, max_tokens=50) == "first reply here"


def test_stream_honours_max_tokens_and_stop() -> None:
    llm = FakeLLM(responses=["one two three four. five six"])
    assert llm.complete(MESSAGES, max_tokens=2) == "one two "
    assert llm.complete(MESSAGES, max_tokens=50, stop=["."]) == "one two three four"


def test_json_schema_without_script_gives_valid_json() -> None:
    out = FakeLLM().complete(MESSAGES, max_tokens=100, json_schema=Answer.model_json_schema())
    Answer.model_validate_json(out)


def test_plain_stream_gives_the_default_sentence() -> None:
    assert FakeLLM().complete(MESSAGES, max_tokens=100) == DEFAULT_REPLY


def test_fail_mode_raises_model_error() -> None:
    llm = FakeLLM(fail=True)
    with pytest.raises(ModelError):
        llm.next_token_logprobs("p", [" Yes"])
    with pytest.raises(ModelError):
        list(llm.stream(MESSAGES, max_tokens=5))


def test_factory_modes() -> None:
    from ruleslawyer.llm import make_llm

    assert make_llm(Settings(llm="none")) is None
    fake = make_llm(Settings(llm="fake"))
    assert isinstance(fake, FakeLLM) and fake.name == "fake"
    with pytest.raises(ModelError, match="needs a server URL"):
        make_llm(Settings(llm="openai"))
    with pytest.raises(ModelError, match="unknown LLM backend"):
        make_llm(Settings(llm="gpt9"))  # type: ignore[arg-type]
