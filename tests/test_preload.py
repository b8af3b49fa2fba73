"""The LLM loads in a thread beside the index (``RulesService.preload_llm``)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from ruleslawyer.errors import ModelError


def _record_loads(service: Any, monkeypatch: pytest.MonkeyPatch, fail: bool = False) -> list[Any]:
    loads: list[Any] = []
    llm = service.llm()

    def load(scoring: bool = True) -> None:
        loads.append((scoring, threading.current_thread().name))
        if fail:
            raise ModelError("the model file is damaged")

    monkeypatch.setattr(llm, "load", load)
    return loads


def test_an_open_question_loads_the_model_in_a_thread(
    seeded_service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads = _record_loads(seeded_service, monkeypatch)
    wait = seeded_service.preload_llm("What does At the double give me?")
    assert wait is not None
    wait()
    assert [name for _, name in loads] == ["rl-load-model"]


def test_a_yes_no_question_answered_from_quotes_loads_nothing(
    seeded_service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads = _record_loads(seeded_service, monkeypatch)
    monkeypatch.setattr(seeded_service, "_scores", lambda llm: False)
    assert seeded_service.preload_llm("Can a unit shoot after it advanced?") is None
    assert loads == []


def test_a_yes_no_question_loads_when_the_model_scores(
    seeded_service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads = _record_loads(seeded_service, monkeypatch)
    monkeypatch.setattr(seeded_service, "_scores", lambda llm: True)
    wait = seeded_service.preload_llm("Can a unit shoot after it advanced?")
    assert wait is not None
    wait()
    assert loads == [(True, "rl-load-model")]


# An exception escaping the thread is only a warning to pytest: made an error here.
@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_failed_load_is_quiet_in_the_thread_and_raised_by_waiting(
    seeded_service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads = _record_loads(seeded_service, monkeypatch, fail=True)
    wait = seeded_service.preload_llm()
    assert wait is not None
    with pytest.raises(ModelError, match="damaged"):
        wait()
    with pytest.raises(ModelError, match="damaged"):
        seeded_service.warm_up()
    # Each load ran in its thread only; waiting raised what it failed with.
    assert [name for _, name in loads] == ["rl-load-model", "rl-load-model"]
