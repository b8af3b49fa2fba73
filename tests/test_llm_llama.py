"""LlamaCppLLM on the real PyPI-shipped GGUF models.

SmolLM2-135M (98 MB) covers the behaviour quickly. The prefix-reuse check is
repeated on Qwen2.5-0.5B, the default model, because that is where a naive
KV-cache reuse measurably changes the numbers (llama.cpp's Q4_K kernels round
differently for different batch layouts).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ruleslawyer.errors import ModelError
from ruleslawyer.llm import ChatMessage, make_llm
from ruleslawyer.llm.llama import LlamaCppLLM
from ruleslawyer.models import resolve_model_path
from ruleslawyer.settings import Settings

pytestmark = pytest.mark.real_model

CANDIDATES = [" Yes", " No"]
INSTRUCTION = "Decide whether the rule answers the question. Answer Yes or No.\n\n"
FEW_SHOT = "".join(
    f"Rule: {rule}\nQuestion: {question}\nAnswer: {answer}\n\n"
    for rule, question, answer in [
        (
            "A unit that Advanced this turn cannot declare a charge.",
            "Can a unit charge after it Advanced?",
            "No",
        ),
        (
            "Models with the Fly keyword can move over terrain features.",
            "Can a Fly model move over a ruin?",
            "Yes",
        ),
        (
            "A unit that is Battle-shocked cannot hold objectives.",
            "Does a Battle-shocked unit count for objective control?",
            "No",
        ),
        (
            "Each player may use the same Stratagem only once per phase.",
            "Can I use the same Stratagem twice in one phase?",
            "No",
        ),
        (
            "Pistols can be shot while the unit is within Engagement Range.",
            "Can a unit shoot its pistols while engaged?",
            "Yes",
        ),
    ]
)
QUESTIONS = [
    ("Models cannot shoot while within Engagement Range.", "Can an engaged model shoot?"),
    ("Vehicles may shoot while engaged, at -1 to hit.", "Can a tank fire when engaged?"),
    ("Units arriving from Reserves may not charge that turn.", "Can Deep Strikers charge?"),
]
PROMPTS = [
    f"{INSTRUCTION}{FEW_SHOT}Rule: {rule}\nQuestion: {question}\nAnswer:"
    for rule, question in QUESTIONS
]
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["yes", "no", "answer"]},
        "answer": {"type": "string", "maxLength": 120},
    },
    "required": ["verdict", "answer"],
}


@pytest.fixture(scope="module")
def smol_path() -> Path:
    return resolve_model_path(Settings(default_model="smollm2-135m"))


@pytest.fixture(scope="module")
def smol(smol_path: Path) -> Iterator[LlamaCppLLM]:
    llm = LlamaCppLLM(smol_path, n_ctx=2048, n_threads=2, name="smollm2-135m (llama.cpp)")
    yield llm
    llm.close()


@pytest.fixture(scope="module")
def qwen_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    data = tmp_path_factory.mktemp("qwen")
    path = resolve_model_path(Settings(data_dir=data, default_model="qwen2.5-0.5b"))
    yield path
    path.unlink()  # 491 MB: do not leave it in the pytest temp dir


def cold_calls(
    path: Path, score: Callable[[LlamaCppLLM, str], Any], inputs: list[str]
) -> list[Any]:
    """``score`` of each input, each by a model loaded fresh for it (no cache)."""
    out = []
    for text in inputs:
        fresh = LlamaCppLLM(path)
        out.append(score(fresh, text))
        fresh.close()
    return out


def assert_reuse_matches_cold(path: Path) -> None:
    cold = cold_calls(path, lambda llm, p: llm.next_token_logprobs(p, CANDIDATES), PROMPTS)
    warm = LlamaCppLLM(path)
    for i in [0, 1, 2, 0, 2, 1, 1]:
        scores = warm.next_token_logprobs(PROMPTS[i], CANDIDATES)
        for candidate in CANDIDATES:
            assert scores[candidate] == pytest.approx(cold[i][candidate], abs=1e-3)
    assert warm.last_timings["reused_tokens"] > 0  # the few-shot prefix was kept
    warm.close()


def chat_for(rule: str, question: str) -> list[ChatMessage]:
    system = "You are a rules judge. Answer using only the rule given. " + FEW_SHOT
    return [
        {"role": "system", "content": system},
        {"role": "user", "content": f"Rule: {rule}\nQuestion: {question}"},
    ]


def test_generation_does_not_depend_on_the_previous_prompt(qwen_path: Path) -> None:
    """The chat context keeps the shared system-prompt prefix between answers;
    the text generated must still be exactly what a cold context generates."""
    chats = [chat_for(rule, question) for rule, question in QUESTIONS]
    cold = []
    for chat in chats:
        fresh = LlamaCppLLM(qwen_path)
        cold.append(fresh.complete(chat, max_tokens=24, json_schema=SCHEMA))
        fresh.close()
    warm = LlamaCppLLM(qwen_path)
    for i in [0, 1, 2, 0, 2, 1]:
        assert warm.complete(chats[i], max_tokens=24, json_schema=SCHEMA) == cold[i]
        if i != 0:
            # the system prompt was kept: fewer tokens evaluated than the prompt holds
            assert warm.last_timings["prompt_tokens"] < warm.last_timings["context_tokens"]
    warm.close()


def test_logprobs_are_finite_negatives(smol: LlamaCppLLM) -> None:
    scores = smol.next_token_logprobs(PROMPTS[0], CANDIDATES)
    assert set(scores) == set(CANDIDATES)
    assert all(math.isfinite(v) and v < 0 for v in scores.values())
    # Together the two answers take a real share of the probability mass.
    assert math.exp(scores[" Yes"]) + math.exp(scores[" No"]) > 0.3


def test_prefix_reuse_gives_cold_numbers_smollm2(smol_path: Path) -> None:
    assert_reuse_matches_cold(smol_path)


def test_prefix_reuse_gives_cold_numbers_qwen(qwen_path: Path) -> None:
    assert_reuse_matches_cold(qwen_path)


def test_continuation_logprobs_are_the_models_own_next_token_scores(smol: LlamaCppLLM) -> None:
    """Each value is log P(token | prompt, the tokens before it): the last one is
    next_token_logprobs on the prompt and all but the last token."""
    prompt = "Rule: A unit that Advanced cannot shoot.\n\nQuestion:"
    continuation = " My unit advanced, can it shoot?"
    values = smol.continuation_logprobs(prompt, continuation)
    assert len(values) == smol.count_tokens(continuation)
    assert all(math.isfinite(v) and v <= 0 for v in values)
    ids = smol._model().tokenize(continuation.encode(), add_bos=False, special=False)
    head = smol._model().detokenize(ids[:-1]).decode()
    last = smol._model().detokenize(ids[-1:]).decode()
    scores = smol.next_token_logprobs(prompt + head, [last])
    assert values[-1] == pytest.approx(scores[last], abs=0.05)
    # a rule that holds the question's words makes it likelier than no rule
    assert sum(values) > sum(smol.continuation_logprobs("Question:", continuation))


def test_continuation_logprobs_reuse_the_prompt_and_give_cold_numbers(smol_path: Path) -> None:
    prompt = FEW_SHOT + "\nRule: A unit that Advanced cannot shoot.\n\nQuestion:"
    asks = [" My unit advanced, can it shoot?", " Can a unit that advanced still shoot later?"]
    cold = cold_calls(smol_path, lambda llm, ask: llm.continuation_logprobs(prompt, ask), asks)
    warm = LlamaCppLLM(smol_path)
    for i in [0, 1, 0]:
        assert warm.continuation_logprobs(prompt, asks[i]) == cold[i]
        warm.next_token_logprobs(PROMPTS[i], CANDIDATES)  # another prompt in between
    # Two questions on the same rule in a row: the second keeps the rule's tokens.
    assert warm.continuation_logprobs(prompt, asks[1]) == cold[1]
    assert warm.continuation_logprobs(prompt, asks[0]) == cold[0]
    assert warm.last_timings["reused_tokens"] > 0
    warm.close()


def test_continuation_logprobs_refuse_bad_input_in_one_line(smol: LlamaCppLLM) -> None:
    with pytest.raises(ModelError, match="empty"):
        smol.continuation_logprobs("Question:", "")
    with pytest.raises(ModelError, match="context holds") as err:
        smol.continuation_logprobs("word " * 2100, " a question?")
    assert "\n" not in str(err.value)


def test_json_schema_constrained_stream(smol: LlamaCppLLM) -> None:
    messages: list[ChatMessage] = [
        {"role": "system", "content": "Answer rules questions as JSON."},
        {"role": "user", "content": f"Rule: {QUESTIONS[0][0]}\nQuestion: {QUESTIONS[0][1]}"},
    ]
    pieces = list(smol.stream(messages, max_tokens=80, json_schema=SCHEMA))
    reply = json.loads("".join(pieces))
    assert reply["verdict"] in SCHEMA["properties"]["verdict"]["enum"]
    assert isinstance(reply["answer"], str)
    assert smol.last_timings["generated_tokens"] > 0


@pytest.mark.parametrize("model", ["smol", "qwen"])
def test_grammar_sampler_picks_what_the_full_chain_picks(
    model: str, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fast greedy sampler checks the model's best token alone and filters
    the vocabulary only when the grammar rejects it; the text must be exactly
    what llama-cpp-python's own chain (the grammar over every token) gives,
    including where the fallback ran."""
    import llama_cpp

    from ruleslawyer.answer import answer_schema
    from ruleslawyer.llm import llama as backend

    path = request.getfixturevalue(f"{model}_path")
    made: list[Any] = []

    class Counted(backend._GreedyGrammarSampler):
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            made.append(self)

    monkeypatch.setattr(backend, "_GreedyGrammarSampler", Counted)
    options = dict(model_path=str(path), n_ctx=1024, n_threads=2, logits_all=False, verbose=False)
    theirs = llama_cpp.Llama(**options)  # type: ignore[arg-type]
    ours = backend._llama_class()(**options)  # type: ignore[arg-type]
    try:
        for schema in (SCHEMA, answer_schema(["core/charge", "3.2"])):
            for rule, question in QUESTIONS:
                texts = []
                for llama in (theirs, ours):
                    llama.reset()
                    grammar = llama_cpp.LlamaGrammar.from_json_schema(
                        json.dumps(schema), verbose=False
                    )
                    reply = llama.create_chat_completion(
                        messages=chat_for(rule, question),  # type: ignore[arg-type]
                        temperature=0.0,
                        max_tokens=48,
                        grammar=grammar,
                    )
                    texts.append(reply["choices"][0]["message"]["content"])  # type: ignore[index]
                assert texts[0] == texts[1]
    finally:
        theirs.close()
        ours.close()
    assert len(made) == 2 * len(QUESTIONS)  # every call took the fast path
    # the fallback (the grammar over the whole vocabulary) ran and agreed too
    assert sum(s.vocabulary_passes for s in made) > 0


def test_plain_stream_and_token_count(smol: LlamaCppLLM) -> None:
    messages: list[ChatMessage] = [{"role": "user", "content": "Say hello in one short sentence."}]
    text = smol.complete(messages, max_tokens=16)
    assert text.strip()
    assert smol.count_tokens(text) <= 16
    assert smol.count_tokens("hello world") in (2, 3)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="model file not found") as err:
        LlamaCppLLM(tmp_path / "missing.gguf")
    assert "\n" not in str(err.value)


def test_text_file_renamed_gguf(tmp_path: Path) -> None:
    fake = tmp_path / "notes.gguf"
    fake.write_text("These are my notes, not a model.\n" * 50)
    with pytest.raises(ModelError, match="is not a GGUF model file") as err:
        LlamaCppLLM(fake)
    assert "\n" not in str(err.value)


def test_truncated_gguf(tmp_path: Path, smol_path: Path) -> None:
    truncated = tmp_path / "truncated.gguf"
    with smol_path.open("rb") as f:
        truncated.write_bytes(f.read(1 << 20))
    llm = LlamaCppLLM(truncated)  # the header looks fine; llama.cpp finds the damage
    with pytest.raises(ModelError, match="cannot load") as err:
        llm.load()
    assert "\n" not in str(err.value)
    assert str(truncated) in str(err.value)


def test_model_larger_than_memory(
    tmp_path: Path, smol_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        "ruleslawyer.llm.llama.psutil.virtual_memory", lambda: SimpleNamespace(available=1 << 20)
    )
    with pytest.raises(ModelError, match="too large for memory"):
        LlamaCppLLM(smol_path)


def test_factory_fails_fast_on_bad_model_path(tmp_path: Path) -> None:
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"PK\x03\x04 a zip file")
    with pytest.raises(ModelError, match="not a GGUF"):
        make_llm(Settings(llm="llama_cpp", model_path=bad))


def test_factory_builds_llama_backend_lazily(smol_path: Path) -> None:
    llm = make_llm(Settings(llm="llama_cpp", default_model="smollm2-135m"))
    assert isinstance(llm, LlamaCppLLM)
    assert llm.name == "smollm2-135m (llama.cpp)"
    assert llm.path == smol_path
    assert llm._llama is None  # nothing loaded until first use
