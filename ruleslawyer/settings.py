"""One settings object, built once at the edge (CLI, UI, tests) and passed in.

Values come from, in order of precedence: explicit overrides (CLI flags),
``RULESLAWYER_*`` environment variables, defaults. Nothing below the edge
reads the environment, so a test can build exactly the settings it needs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

EmbedderMode = Literal["minilm", "minilm-torch", "fake"]
LLMMode = Literal["llama_cpp", "openai", "fake", "none"]

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def default_data_dir() -> Path:
    """`.ruleslawyer/` in a source checkout, else the user's cache dir."""
    if (PROJECT_ROOT / "pyproject.toml").exists():
        return PROJECT_ROOT / ".ruleslawyer"
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "ruleslawyer"


def default_seeds_dir() -> Path:
    """`seeds/` of a source checkout, else the copy installed with the package."""
    checkout = PROJECT_ROOT / "seeds"
    if (checkout / "manifest.toml").exists():
        return checkout
    return Path(__file__).resolve().parent / "seeds"


@dataclass(frozen=True)
class Settings:
    data_dir: Path = field(default_factory=default_data_dir)
    seeds_dir: Path = field(default_factory=default_seeds_dir)
    embedder: EmbedderMode = "minilm"
    # LLM backend: a local GGUF via llama.cpp, an OpenAI-compatible server,
    # a deterministic fake (tests), or none (evidence-only answers).
    llm: LLMMode = "llama_cpp"
    model_path: Path | None = None  # None = the default PyPI-shipped model
    default_model: str = "qwen2.5-0.5b"  # see ruleslawyer.models.KNOWN_MODELS
    llm_url: str | None = None
    llm_api_model: str = "default"
    llm_api_key: str | None = None
    llm_timeout_s: float = 60.0
    n_threads: int = 2
    # llama.cpp: generate in a second context so it never evicts the scoring
    # prefix (faster from the second question on), or share one context
    # (one copy of the weights in RSS: what a one-shot `ask` wants).
    llm_chat_context: Literal["separate", "shared"] = "separate"
    n_ctx: int = 2048
    max_tokens: int = 64
    top_k: int = 5
    # None = the calibrated operating point; e.g. 0.55 trades coverage for precision
    verdict_confidence: float | None = None
    # Open questions explained by the model: None = as measured for the model
    # (prompts/explanations.toml), True/False to force it either way.
    explain: bool | None = None
    max_question_chars: int = 2000
    # Real rulebook text is 0.1-2 MB; a bigger file is almost surely the wrong
    # file, and reading it whole would cost memory, so it is refused.
    max_rulebook_bytes: int = 16 * 1024 * 1024
    log_level: str = "WARNING"
    # `ask` starts `serve` in the background when none runs (see ruleslawyer.server)
    auto_serve: bool = True
    serve_idle_s: float = 900.0  # a server started by `ask` stops after this idle time

    @property
    def index_dir(self) -> Path:
        return self.data_dir / "index"

    @property
    def library_dir(self) -> Path:
        """Rulebooks the user added (copies, with their own manifest)."""
        return self.data_dir / "rulebooks"

    @property
    def model_cache_dir(self) -> Path:
        return self.data_dir / "models"

    def answering_key(self) -> str:
        """What decides an answer besides the index: two processes with the
        same key give the same answers (``ask`` uses a running server only then)."""
        return "|".join(
            str(v)
            for v in (
                self.embedder,
                self.llm,
                self.model_path,
                self.default_model,
                self.llm_url,
                self.llm_api_model,
                self.verdict_confidence,
                self.explain,
                self.max_tokens,
                self.top_k,
            )
        )

    def with_overrides(self, **overrides: Any) -> Settings:
        """A copy with the given fields replaced; ``None`` values are ignored."""
        clean = {k: v for k, v in overrides.items() if v is not None}
        return replace(self, **clean)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: Any) -> Settings:
        env = dict(os.environ if env is None else env)
        values: dict[str, Any] = {}
        if v := env.get("RULESLAWYER_DATA_DIR"):
            values["data_dir"] = Path(v).expanduser()
        if v := env.get("RULESLAWYER_SEEDS_DIR"):
            values["seeds_dir"] = Path(v).expanduser()
        if v := env.get("RULESLAWYER_EMBEDDER"):
            values["embedder"] = v
        if v := env.get("RULESLAWYER_LLM"):
            values["llm"] = v
        if v := env.get("RULESLAWYER_MODEL"):
            values["model_path"] = Path(v).expanduser()
        if v := env.get("RULESLAWYER_DEFAULT_MODEL"):
            values["default_model"] = v
        if v := env.get("RULESLAWYER_LLM_URL"):
            values["llm_url"] = v
            values.setdefault("llm", "openai")
        if v := env.get("RULESLAWYER_LLM_API_MODEL"):
            values["llm_api_model"] = v
        if v := env.get("RULESLAWYER_LLM_API_KEY"):
            values["llm_api_key"] = v
        if v := env.get("RULESLAWYER_MAX_RULEBOOK_MB"):
            values["max_rulebook_bytes"] = int(
                _number("RULESLAWYER_MAX_RULEBOOK_MB", v) * 1024 * 1024
            )
        if v := env.get("RULESLAWYER_EXPLAIN"):
            values["explain"] = _on(v)
        if v := env.get("RULESLAWYER_VERDICT_CONFIDENCE"):
            values["verdict_confidence"] = _number("RULESLAWYER_VERDICT_CONFIDENCE", v)
        if v := env.get("RULESLAWYER_THREADS"):
            values["n_threads"] = int(_number("RULESLAWYER_THREADS", v, whole=True))
        if v := env.get("RULESLAWYER_AUTO_SERVE"):
            values["auto_serve"] = _on(v)
        if v := env.get("RULESLAWYER_SERVE_IDLE"):
            values["serve_idle_s"] = _number("RULESLAWYER_SERVE_IDLE", v)
        settings = cls(**values)
        return settings.with_overrides(**overrides)


def _number(name: str, value: str, *, whole: bool = False) -> float:
    """The environment variable ``name``'s ``value`` as a number, or a one-line error
    naming it (not "Internal error: could not convert string to float")."""
    from ruleslawyer.errors import InputError

    raw = value.strip()
    try:
        number = int(raw) if whole else float(raw)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        raise InputError(f"{name}={raw!r} is not {kind}; fix or unset it") from None
    if number < 0 or number != number:  # negative, or NaN
        raise InputError(f"{name}={raw!r} must be a number of at least 0; fix or unset it")
    return float(number)


def _on(value: str) -> bool:
    """An environment flag: on unless it says 0, false, no or off."""
    return value.strip().lower() not in ("0", "false", "no", "off")
