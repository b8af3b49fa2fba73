"""A local GGUF model run in-process by llama-cpp-python.

``llama_cpp`` is imported only when the model is first used, so importing this
module (and building the object, which validates the file) stays cheap.

Design choices:

- Verdict scoring (``next_token_logprobs``) evaluates the prompt itself and
  reads only the last position's logits from the context. llama-cpp-python's
  own ``logprobs`` option needs ``logits_all=True``, which keeps
  n_ctx x vocab floats (2048 x 151k for Qwen, ~1.2 GB) and computes logits for
  every prompt token; this way costs one vocab-sized vector.
  ``continuation_logprobs`` (the answerability check's question likelihood)
  needs them for the few tokens it scores only: it evaluates the prompt the
  same way, then the continuation in one batch of its own with logits
  requested for those rows alone.
- The answer pipeline sends prompts that share a long few-shot prefix, so the
  KV cache of the common token prefix with the previous call is kept and
  only the rest is evaluated (400-token prompt on Qwen2.5-0.5B, 2 cores:
  1.27 s cold, 0.18 s reused), for scoring and for generation alike. The
  kept prefix is rounded down to a block boundary, which keeps the numbers
  bit-identical to a cold call: an answer must not depend on which question
  was asked before it (``_truncate_to_aligned_prefix``).
- JSON-schema output is constrained by a GBNF grammar built from the schema
  here, not via ``response_format``: llama-cpp-python silently falls back to
  "any JSON" when it cannot convert a schema, and a silent fallback would hide
  a broken schema from the caller. Greedy decoding under it checks the
  model's best token against the grammar first and filters the vocabulary
  only when that token is refused (``_GreedyGrammarSampler``): the same
  text, without matching 151k tokens against the grammar at every step.
- One lock serialises all use of the model. A stream holds it until the
  generator finishes or is closed, so do not call the same model from inside
  a loop over one of its streams (that would deadlock).
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import psutil

from ruleslawyer.errors import ModelError
from ruleslawyer.llm.base import LLM, ChatMessage

if TYPE_CHECKING:
    from llama_cpp import Llama, LlamaGrammar

# llama.cpp's CPU threads are OpenMP threads. By default they spin while they
# wait for each other, which is free on an idle machine and ruinous on a busy
# one: two llama.cpp processes on 2 cores (the page and a one-shot `ask`, two
# asks) each spin on the core the other needs. PASSIVE waiting lets them
# share (measured by `python -m benchmarks contention`); set before llama.cpp
# loads libgomp, and only as a default, so OMP_WAIT_POLICY still overrides.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

GGUF_MAGIC = b"GGUF"
# Prefix reuse granularity for scoring; see LlamaCppLLM._eval_reusing_prefix.
_REUSE_ALIGN = 32
_MIN_SUFFIX = 32


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text or type(exc).__name__


def check_gguf_file(path: Path) -> None:
    """Cheap checks that catch a wrong ``--model`` before llama.cpp sees it."""
    if not path.is_file():
        raise ModelError(f"model file not found: {path}")
    try:
        with path.open("rb") as f:
            magic = f.read(len(GGUF_MAGIC))
        size = path.stat().st_size
    except OSError as exc:
        raise ModelError(f"cannot read model file {path}: {_one_line(exc)}") from exc
    if magic != GGUF_MAGIC:
        raise ModelError(f"{path} is not a GGUF model file")
    # The weights are mmap'd: a file bigger than free memory would page-thrash
    # the machine rather than fail cleanly, so refuse it up front.
    available = psutil.virtual_memory().available
    if size > available:
        raise ModelError(
            f"model {path.name} ({size / 2**30:.1f} GiB) is too large for memory "
            f"({available / 2**30:.1f} GiB available)"
        )


def _log_norm(logits: np.ndarray) -> float:
    """log(sum(exp(logits))), computed stably: a token's log-probability is its
    logit minus this."""
    peak = float(logits.max())
    return peak + math.log(float(np.exp(logits - peak).sum()))


class LlamaCppLLM(LLM):
    def __init__(
        self,
        path: Path | str,
        *,
        n_ctx: int = 2048,
        n_threads: int = 2,
        name: str | None = None,
        chat_context: str = "separate",
    ) -> None:
        self.path = Path(path)
        self.separate_chat = chat_context == "separate"
        check_gguf_file(self.path)
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.name = name or f"{self.path.name} (llama.cpp)"
        #: Timings of the last call, for benchmarks: prompt_tokens (evaluated,
        #: cache hits excluded), prompt_eval_ms, generated_tokens, generate_ms;
        #: logprob calls also give reused_tokens (the KV-cache prefix kept).
        self.last_timings: dict[str, float] = {}
        self._lock = threading.Lock()
        self._llama: Llama | None = None
        self._chat_llama: Llama | None = None
        # Leading KV-cache rows laid down by scoring calls (generation lays
        # out its batches differently, so its rows are never reused).
        self._scored_tokens = 0

    def load(self, scoring: bool = True) -> None:
        """Load the model now rather than on first use (warm-up, fail fast).

        ``scoring=False`` loads only the generation context: with verdicts off
        nothing is scored, and a second context costs ~0.3 s and a mapping.
        """
        with self._lock:
            if scoring or not self.separate_chat:
                self._model()
            self._chat_model()

    def next_token_logprobs(self, prompt: str, candidates: Sequence[str]) -> dict[str, float]:
        with self._lock:
            llama = self._model()
            import llama_cpp  # present: _model() has loaded it

            try:
                tokens = llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=False)
                if not tokens:
                    raise ModelError("cannot score an empty prompt")
                if len(tokens) >= llama.n_ctx():
                    raise ModelError(
                        f"prompt is {len(tokens)} tokens; the model context holds {llama.n_ctx()}"
                    )
                started = time.perf_counter()
                reused = self._eval_reusing_prefix(llama, tokens)
                pointer = llama_cpp.llama_get_logits_ith(llama.ctx, -1)
                logits = np.ctypeslib.as_array(pointer, shape=(llama.n_vocab(),))
                logits = logits.astype(np.float64)  # copy: the buffer is reused by the next decode
                elapsed_ms = (time.perf_counter() - started) * 1000
                first_tokens = {c: self._first_token(llama, c) for c in candidates}
            except ModelError:
                raise
            except Exception as exc:
                raise ModelError(f"llama.cpp failed to score the prompt: {_one_line(exc)}") from exc

        self.last_timings = {
            "context_tokens": len(tokens),
            "prompt_tokens": len(tokens) - reused,
            "reused_tokens": reused,
            "prompt_eval_ms": elapsed_ms,
            "generated_tokens": 0,
            "generate_ms": 0.0,
        }
        log_norm = _log_norm(logits)
        return {c: float(logits[t]) - log_norm for c, t in first_tokens.items()}

    def continuation_logprobs(self, prompt: str, continuation: str) -> list[float]:
        with self._lock:
            llama = self._model()
            import llama_cpp  # present: _model() has loaded it

            try:
                head = llama.tokenize(prompt.encode("utf-8"), add_bos=True, special=False)
                tail = llama.tokenize(continuation.encode("utf-8"), add_bos=False, special=False)
                if not head or not tail:
                    raise ModelError("cannot score an empty prompt or continuation")
                if len(head) + len(tail) >= llama.n_ctx():
                    raise ModelError(
                        f"prompt and continuation are {len(head) + len(tail)} tokens; "
                        f"the model context holds {llama.n_ctx()}"
                    )
                if len(tail) > llama.n_batch:
                    raise ModelError(
                        f"the text to score is {len(tail)} tokens; at most {llama.n_batch} "
                        "are scored at once"
                    )
                started = time.perf_counter()
                # The prompt but its last token, reusing the cached prefix as
                # next_token_logprobs does; then the last prompt token and the
                # continuation but its last in one batch with logits at every
                # position: row i predicts continuation token i.
                reused = self._eval_reusing_prefix(llama, head[:-1])
                rows = [head[-1], *tail[:-1]]
                self._decode_all_logits(llama, rows)
                # Only the prompt's rows were laid out as a cold call lays them
                # out; the one-batch rows after them are never reused.
                self._scored_tokens = len(head) - 1
                n_vocab = llama.n_vocab()
                out = []
                for i, token in enumerate(tail):
                    pointer = llama_cpp.llama_get_logits_ith(llama.ctx, i)
                    logits = np.ctypeslib.as_array(pointer, shape=(n_vocab,)).astype(np.float64)
                    out.append(float(logits[token]) - _log_norm(logits))
                elapsed_ms = (time.perf_counter() - started) * 1000
            except ModelError:
                raise
            except Exception as exc:
                raise ModelError(f"llama.cpp failed to score the text: {_one_line(exc)}") from exc
        self.last_timings = {
            "context_tokens": len(head) + len(tail),
            "prompt_tokens": len(head) + len(tail) - reused - 1,
            "reused_tokens": reused,
            "prompt_eval_ms": elapsed_ms,
            "generated_tokens": 0,
            "generate_ms": 0.0,
        }
        return out

    @staticmethod
    def _decode_all_logits(llama: Llama, tokens: list[int]) -> None:
        """Append ``tokens`` to the context in one batch, with logits for every one
        (llama-cpp-python's own eval keeps only the last, unless the whole context
        was built with logits_all, which costs n_ctx x vocab floats)."""
        import llama_cpp

        # The rows past n_tokens were removed by the prompt's evaluation
        # (llama.eval, or the reset when nothing was reused).
        start = llama.n_tokens
        batch = llama_cpp.llama_batch_init(len(tokens), 0, 1)
        try:
            batch.n_tokens = len(tokens)
            for i, token in enumerate(tokens):
                batch.token[i] = token
                batch.pos[i] = start + i
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = 0
                batch.logits[i] = 1
            if llama_cpp.llama_decode(llama.ctx, batch) != 0:
                raise ModelError("llama.cpp could not evaluate the text (decode failed)")
            llama.input_ids[start : start + len(tokens)] = tokens
            llama.n_tokens = start + len(tokens)
        finally:
            llama_cpp.llama_batch_free(batch)

    def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        max_tokens: int,
        json_schema: dict[str, Any] | None = None,
        stop: Sequence[str] = (),
    ) -> Iterator[str]:
        with self._lock:
            llama = self._chat_model()
            import llama_cpp  # present: _chat_model() has loaded it

            grammar = _grammar_for(json_schema) if json_schema is not None else None
            llama_cpp.llama_perf_context_reset(llama.ctx)
            try:
                # chat_format is None at load, so llama-cpp-python applies the
                # chat template from the GGUF metadata.
                chunks = llama.create_chat_completion(
                    messages=[dict(m) for m in messages],  # type: ignore[misc]
                    stream=True,
                    temperature=0.0,
                    max_tokens=max_tokens,
                    stop=list(stop),
                    grammar=grammar,
                )
                for chunk in cast(Iterator[Any], chunks):
                    content = chunk["choices"][0]["delta"].get("content")
                    if content:
                        yield content
            except ModelError:
                raise
            except Exception as exc:
                raise ModelError(f"llama.cpp generation failed: {_one_line(exc)}") from exc
            finally:
                perf = llama_cpp.llama_perf_context(llama.ctx)
                self.last_timings = {
                    # the whole prompt, KV-cache hits included (n_eval counts
                    # the generated tokens fed back in)
                    "context_tokens": max(0, llama.n_tokens - perf.n_eval),
                    "prompt_tokens": perf.n_p_eval,
                    "prompt_eval_ms": perf.t_p_eval_ms,
                    "generated_tokens": perf.n_eval,
                    "generate_ms": perf.t_eval_ms,
                }

    def count_tokens(self, text: str) -> int:
        with self._lock:
            llama = self._model()
            return len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def close(self) -> None:
        with self._lock:
            for llama in (self._llama, self._chat_llama):
                if llama is not None:
                    llama.close()
            self._llama = None
            self._chat_llama = None
            self._scored_tokens = 0

    def _model(self) -> Llama:
        """The scoring context (the caller holds the lock)."""
        if self._llama is None:
            self._llama = self._load()
        return self._llama

    def _chat_model(self) -> Llama:
        """A second context for generation, so chat prompts never evict the
        scoring context's cached few-shot prefix (and vice versa). The weights
        are memory-mapped, so physical memory holds one copy, but RSS counts
        both mappings (~0.5 GB more for Qwen 0.5B): a one-shot process, which
        has no next question to reuse the prefix for, shares one context."""
        if not self.separate_chat:
            self._scored_tokens = 0  # generation overwrites the scored rows
            return self._model()
        if self._chat_llama is None:
            self._chat_llama = self._load()
        return self._chat_llama

    def _load(self) -> Llama:
        check_gguf_file(self.path)  # it may have changed since construction
        try:
            llama_class = _llama_class()
        except ImportError as exc:
            raise ModelError(
                "llama-cpp-python is not installed: pip install llama-cpp-python "
                "(or pick another LLM backend)"
            ) from exc
        try:
            return llama_class(
                model_path=str(self.path),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                logits_all=False,
                verbose=False,
            )
        except Exception as exc:
            raise ModelError(
                f"llama.cpp cannot load {self.path} (truncated, corrupt or unsupported "
                f"GGUF?): {_one_line(exc)}"
            ) from exc

    def _eval_reusing_prefix(self, llama: Llama, tokens: list[int]) -> int:
        """Evaluate ``tokens``, keeping the KV cache of a block-aligned prefix
        shared with the previous scoring call; returns how many tokens were kept.
        Batches end at the same absolute positions as in a cold call."""
        reusable = min(llama.n_tokens, self._scored_tokens)
        keep = _truncate_to_aligned_prefix(llama, llama.input_ids[:reusable], tokens)
        self._scored_tokens = 0  # until this evaluation has completed
        batch = llama.n_batch
        start = keep
        while start < len(tokens):
            end = min(len(tokens), (start // batch + 1) * batch)
            llama.eval(tokens[start:end])
            start = end
        self._scored_tokens = len(tokens)
        return keep

    @staticmethod
    def _first_token(llama: Llama, candidate: str) -> int:
        tokens = llama.tokenize(candidate.encode("utf-8"), add_bos=False, special=False)
        if not tokens:
            raise ModelError(f"candidate {candidate!r} has no tokens")
        return tokens[0]


def _truncate_to_aligned_prefix(llama: Llama, cached: Any, tokens: Sequence[int]) -> int:
    """Cut the KV cache back to the longest block-aligned prefix of ``tokens``
    it already holds, and return that length (0 = start cold).

    llama.cpp's CPU kernels round differently depending on how a batch is
    laid out (measured on Qwen2.5 Q4_K_M: keeping 349 of 363 tokens and
    evaluating the last 14 moved logP(" Yes") by 0.06). Keeping a multiple
    of _REUSE_ALIGN tokens, and evaluating at least _MIN_SUFFIX, made the
    result bit-identical to a cold call on all three shipped models, so an
    answer does not depend on which question was asked before it.
    """
    import llama_cpp

    limit = min(len(cached), len(tokens))
    common = 0
    if limit > 0:
        wanted = np.asarray(tokens[:limit], dtype=cached.dtype)
        mismatches = np.flatnonzero(cached[:limit] != wanted)
        common = int(mismatches[0]) if mismatches.size else limit
    keep = max(0, min(common, len(tokens) - _MIN_SUFFIX)) // _REUSE_ALIGN * _REUSE_ALIGN
    memory = llama_cpp.llama_get_memory(llama.ctx)
    # Partial removal fails for recurrent models; those start over.
    if keep > 0 and llama_cpp.llama_memory_seq_rm(memory, 0, keep, -1):
        llama.n_tokens = keep
    else:
        keep = 0
        llama.reset()
    return keep


def _llama_class() -> type[Llama]:
    """llama_cpp.Llama whose generation reuses only an aligned KV prefix.

    llama-cpp-python keeps the longest common prefix with the previous
    prompt; cutting it back to an aligned length first makes the generated
    text independent of the previous question (see above), at the cost of
    re-evaluating fewer than _REUSE_ALIGN + _MIN_SUFFIX tokens.
    """
    from llama_cpp import Llama

    class AlignedLlama(Llama):
        def generate(self, tokens: Sequence[int], *args: Any, **kwargs: Any) -> Any:
            _truncate_to_aligned_prefix(self, self.input_ids[: self.n_tokens], tokens)
            return super().generate(tokens, *args, **kwargs)

        def _init_sampler(self, *args: Any, **kwargs: Any) -> Any:
            # Only the calls this backend makes (greedy, a grammar, nothing
            # else in the chain) take the fast path; anything else is
            # llama-cpp-python's own chain.
            grammar = kwargs.get("grammar")
            plain = (
                not args
                and kwargs.get("temp") == 0.0
                and kwargs.get("logits_processor") is None
                and kwargs.get("repeat_penalty", 1.0) == 1.0
                and kwargs.get("frequency_penalty", 0.0) == 0.0
                and kwargs.get("presence_penalty", 0.0) == 0.0
            )
            if grammar is not None and plain:
                return _GreedyGrammarSampler(self._model.vocab, grammar, self.n_vocab())
            return super()._init_sampler(*args, **kwargs)

    return AlignedLlama


class _GreedyGrammarSampler:
    """Greedy decoding under a grammar that checks one token, not the vocabulary.

    llama-cpp-python's chain applies the grammar to every token of the
    vocabulary before the greedy pick: 151k candidates for Qwen, each decoded
    and matched against the grammar's stacks, ~21 ms a generated token on 2
    cores (measured with the answer schema, whose 160-character limit makes
    the grammar long), where the model itself takes ~35 ms. Greedy needs only
    the best token the grammar allows, so, as llama.cpp's own command-line
    sampler does, the model's best token is checked alone first and the
    whole vocabulary is filtered only when the grammar rejects it. The token
    is the one the full chain picks (the first of the highest logits among
    the allowed), so the text is the same, only sooner.
    """

    def __init__(self, vocab: Any, grammar: LlamaGrammar, n_vocab: int) -> None:
        import ctypes

        import llama_cpp

        self._llama_cpp = llama_cpp
        self._sampler = llama_cpp.llama_sampler_init_grammar(
            vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
        )
        if not self._sampler:
            raise ModelError("llama.cpp could not parse the JSON schema's grammar")
        self._n_vocab = n_vocab
        self._one: Any = (llama_cpp.llama_token_data * 1)()
        self._all: Any = (llama_cpp.llama_token_data * n_vocab)()
        # A numpy view of the structs (fields id, logit, p) fills and reads
        # the whole array without a Python loop.
        self._view = np.ctypeslib.as_array(self._all)
        self._view["id"] = np.arange(n_vocab, dtype=np.int32)
        self._byref = ctypes.byref
        self.vocabulary_passes = 0  # tokens the grammar rejected first (for tests)

    def _apply(self, data: Any, size: int) -> None:
        llama_cpp = self._llama_cpp
        candidates = llama_cpp.llama_token_data_array(
            data=data, size=size, selected=-1, sorted=False
        )
        llama_cpp.llama_sampler_apply(self._sampler, self._byref(candidates))

    def sample(self, ctx: Any, idx: int = -1) -> int:
        llama_cpp = self._llama_cpp
        pointer = llama_cpp.llama_get_logits_ith(ctx.ctx, idx)
        logits = np.ctypeslib.as_array(pointer, shape=(self._n_vocab,))
        token = int(logits.argmax())
        self._one[0].id = token
        self._one[0].logit = float(logits[token])
        self._one[0].p = 0.0
        self._apply(self._one, 1)
        # the grammar refuses a token by setting its logit to -inf
        if self._one[0].logit == -math.inf:
            self.vocabulary_passes += 1
            self._view["logit"] = logits
            self._view["p"] = 0.0
            self._apply(self._all, self._n_vocab)
            token = int(self._view["logit"].argmax())
            if float(self._view["logit"][token]) == -math.inf:
                raise ModelError("the grammar allows no next token")
        llama_cpp.llama_sampler_accept(self._sampler, token)
        return token

    def close(self) -> None:
        if self._sampler:
            self._llama_cpp.llama_sampler_free(self._sampler)
            self._sampler = None

    def __del__(self) -> None:
        self.close()


def _grammar_for(schema: dict[str, Any]) -> LlamaGrammar:
    from llama_cpp import LlamaGrammar

    try:
        return LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)
    except Exception as exc:
        raise ModelError(f"JSON schema cannot be turned into a grammar: {_one_line(exc)}") from exc
