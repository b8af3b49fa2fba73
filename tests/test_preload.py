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
    thread = seeded_service.preload_llm("What does At the double give me?")
    assert thread is not None
    thread.join(timeout=10)
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
    thread = seeded_service.preload_llm("Can a unit shoot after it advanced?")
    assert thread is not None
    thread.join(timeout=10)
    assert loads == [(True, "rl-load-model")]


# An exception escaping the thread is only a warning to pytest: made an error here.
@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_failed_load_is_quiet_in_the_thread_and_raised_by_warm_up(
    seeded_service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    loads = _record_loads(seeded_service, monkeypatch, fail=True)
    thread = seeded_service.preload_llm()
    assert thread is not None
    thread.join(timeout=10)  # no exception escaped the thread to stop this
    with pytest.raises(ModelError, match="damaged"):
        seeded_service.warm_up()
    # warm_up's own thread failed quietly, then its check in this thread raised.
    assert [name for _, name in loads][-2:] == ["rl-load-model", "MainThread"]
