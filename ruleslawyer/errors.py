"""Domain errors. The CLI and UI turn these into one-line messages at the edge;
everything below raises them and never prints or exits. ``read_toml`` is the one
place a settings-like TOML file's read and syntax errors become such a message."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any


class RulesLawyerError(Exception):
    """Base class: ``str(err)`` is the one-line message shown to the user."""


class InputError(RulesLawyerError):
    """The user gave us something we cannot use (empty question, bad file)."""


class RulebookError(InputError):
    """A rulebook file cannot be read or holds no usable text."""


class IndexMissingError(RulesLawyerError):
    """No index yet, or it is unusable; the fix is `ruleslawyer ingest`."""


class IndexCorruptError(IndexMissingError):
    """The index on disk fails its checksums or format checks."""


class RuleNotFoundError(RulesLawyerError):
    """A rule ID that is not in the index."""


class ModelError(RulesLawyerError):
    """An LLM or embedding model cannot be loaded or fails to answer."""


def require_question(question: str) -> None:
    """An ``InputError`` for a question with no letter or digit ("", "   ", a bare
    "?"). Here, not in retrieval, so the CLI refuses one before loading anything."""
    if not any(c.isalnum() for c in question):
        raise InputError(
            "the question is empty: ask about a rule, e.g. 'Can a battle-shocked unit start an action?'"
        )


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """``path`` parsed as TOML; an unreadable or invalid file is an ``InputError``
    naming it as ``what`` ("cannot read thresholds P: ...", "thresholds P is not
    valid TOML: ...")."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise InputError(f"cannot read {what} {path}: {err.strerror or err}") from err
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise InputError(f"{what} {path} is not valid TOML: {err}") from err
