"""The one interface every LLM backend implements.

Three operations are all the answer pipeline needs:

- ``next_token_logprobs``: completion-style scoring of a few candidate next
  tokens (" Yes" / " No"). Tiny models carry a usable yes/no signal in their
  log-probabilities even when their free text is useless, so verdicts come
  from here, never from generated text.
- ``continuation_logprobs``: how likely a text (the player's question) is
  after a prompt (the rule it should be answered by); the answerability
  check compares it with the same text after a prompt without the rule.
  Optional: a backend that cannot gives None and the check is skipped.
- ``stream``: chat-style generation, optionally constrained by a JSON schema
  (llama.cpp grammar, or the server's ``response_format``), yielding text
  pieces as they arrive so the UI can stream them.

Backends must be safe to call from several threads: they serialise access to
the underlying model themselves.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any, TypedDict


class ChatMessage(TypedDict):
    role: str  # "system" | "user" | "assistant"
    content: str


class LLM(ABC):
    #: Shown to the user and recorded in eval reports, e.g. "qwen2.5-0.5b (llama.cpp)".
    name: str = "llm"

    @abstractmethod
    def next_token_logprobs(
        self, prompt: str, candidates: Sequence[str]
    ) -> dict[str, float] | None:
        """Log-probability of each candidate as the next token after ``prompt``.

        ``prompt`` is raw text (no chat template applied). Each candidate is
        scored by its first token. Returns None when the backend cannot give
        log-probabilities (some servers); callers then give no verdict.
        """

    def continuation_logprobs(self, prompt: str, continuation: str) -> list[float] | None:
        """Log-probability of each token of ``continuation`` following ``prompt``.

        ``prompt`` is raw text (no chat template). None when the backend
        cannot score text it did not generate (the default).
        """
        return None

    @abstractmethod
    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        json_schema: dict[str, Any] | None = None,
        stop: Sequence[str] = (),
    ) -> Iterator[str]:
        """Generate a reply to ``messages``, yielding text pieces as they come.

        Raises ``ruleslawyer.errors.ModelError`` on backend failure.
        """

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        json_schema: dict[str, Any] | None = None,
        stop: Sequence[str] = (),
    ) -> str:
        return "".join(
            self.stream(messages, max_tokens=max_tokens, json_schema=json_schema, stop=stop)
        )

    def count_tokens(self, text: str) -> int:
        """Tokens ``text`` costs; backends without a tokenizer estimate."""
        return max(1, len(text) // 4)

    def load(self, scoring: bool = True) -> None:  # noqa: B027 - optional hook
        """Load the model now rather than on first use; remote backends have nothing to load.

        ``scoring=False``: no log-probabilities will be asked for (verdicts off).
        """

    def check(self) -> None:  # noqa: B027 - optional hook
        """Fail fast with ``ModelError`` when the backend cannot be used (server down)."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release the model; the default has nothing to release."""
