"""Build the LLM backend that ``settings.llm`` asks for.

Each backend's module is imported only inside its branch, so choosing "none"
or "fake" never pays for httpx or llama.cpp. The llama.cpp backend resolves
and validates the model file here (a wrong ``--model`` fails at start-up with
a one-line message) but loads the weights on first use.
"""

from __future__ import annotations

from ruleslawyer.errors import ModelError
from ruleslawyer.llm.base import LLM
from ruleslawyer.settings import Settings


def make_llm(settings: Settings) -> LLM | None:
    """The configured backend, or None when answers are evidence-only."""
    mode = settings.llm
    if mode == "none":
        return None
    if mode == "fake":
        from ruleslawyer.llm.fake import FakeLLM

        return FakeLLM()
    if mode == "openai":
        if not settings.llm_url:
            raise ModelError(
                "the 'openai' LLM backend needs a server URL, e.g. "
                "RULESLAWYER_LLM_URL=http://127.0.0.1:8080/v1"
            )
        from ruleslawyer.llm.openai import OpenAIHTTPLLM

        return OpenAIHTTPLLM(
            settings.llm_url,
            model=settings.llm_api_model,
            api_key=settings.llm_api_key,
            timeout_s=settings.llm_timeout_s,
        )
    if mode == "llama_cpp":
        from ruleslawyer.llm.llama import LlamaCppLLM
        from ruleslawyer.models import model_display_name, resolve_model_path

        return LlamaCppLLM(
            resolve_model_path(settings),
            n_ctx=settings.n_ctx,
            n_threads=settings.n_threads,
            name=f"{model_display_name(settings)} (llama.cpp)",
            chat_context=settings.llm_chat_context,
        )
    raise ModelError(f"unknown LLM backend {mode!r}; choose llama_cpp, openai, fake or none")
