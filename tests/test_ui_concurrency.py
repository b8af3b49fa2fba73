"""The served page under concurrent use: one shared model, visitors queued.

The app is launched for real on 127.0.0.1 (fake models, seeded index) and
several gradio_client clients ask at once, through both the JSON ``/ask``
endpoint and the streaming ``/chat`` one. Every call must get an answer, and
the service must never be asked two questions at the same time.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

QUESTIONS = [
    "Can a battle-shocked unit start an action?",
    "Can my warcaster cast a spell before it runs?",
    "What does Redeploy do in AoS?",
    "How many attack dice does a [BLAST 2] weapon with A3 get against 12 models?",
]

pytestmark = pytest.mark.timeout(120)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class CountingService:
    """Wraps the real service and records how many ``ask`` calls overlap."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.active = 0
        self.max_active = 0
        self.calls = 0
        self._guard = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def ask(self, question: str, **kw: Any) -> Any:
        with self._guard:
            self.active += 1
            self.calls += 1
            self.max_active = max(self.max_active, self.active)
        try:
            time.sleep(0.2)  # long enough that unqueued calls would overlap
            return self._inner.ask(question, **kw)
        finally:
            with self._guard:
                self.active -= 1


@pytest.fixture
def served(
    seeded_service: Any, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[str, CountingService]]:
    from ruleslawyer.ui.app import launch

    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    service = CountingService(seeded_service)
    port = free_port()
    demo = launch(
        service,
        host="127.0.0.1",
        port=port,
        share=False,
        auth=None,
        prevent_thread_lock=True,
        quiet=True,
        word_delay=0.002,
    )
    try:
        yield f"http://127.0.0.1:{port}/", service
    finally:
        demo.close()


def test_concurrent_clients_are_queued_and_all_answered(
    served: tuple[str, CountingService],
) -> None:
    from gradio_client import Client

    url, service = served

    def ask_json(question: str) -> dict[str, Any]:
        client = Client(url, verbose=False)
        return client.predict(question, "auto", False, api_name="/ask")  # type: ignore[no-any-return]

    def ask_chat(question: str) -> str:
        client = Client(url, verbose=False)
        history, _box, plain = client.predict(question, [], "auto", False, api_name="/chat")
        return str(history[-1]["content"][0]["text"]) + "\n" + str(plain)

    with ThreadPoolExecutor(max_workers=6) as pool:
        json_futures = [pool.submit(ask_json, q) for q in QUESTIONS]
        chat_futures = [pool.submit(ask_chat, q) for q in QUESTIONS[:2]]
        answers = [f.result(timeout=90) for f in json_futures]
        chats = [f.result(timeout=90) for f in chat_futures]

    for question, result in zip(QUESTIONS, answers, strict=True):
        assert result["question"] == question
        assert result["verdict"] in ("yes", "no", "quote", "answer", "not_found")
        assert result["answer"]
    assert answers[0]["citations"] and answers[0]["citations"][0]["rule_id"] == "16.01"
    for page in chats:
        assert "rl-done" in page and "rl-error" not in page
    assert "16.01" in chats[0]
    assert service.calls == 6
    assert service.max_active == 1, "the shared model answered two questions at once"


def test_bad_question_is_an_error_message_and_the_server_lives_on(
    served: tuple[str, CountingService],
) -> None:
    from gradio_client import Client

    url, _ = served
    client = Client(url, verbose=False)
    with pytest.raises(Exception, match="game") as info:
        client.predict("Can a unit shoot?", "chess", False, api_name="/ask")
    assert "Traceback" not in str(info.value)
    result = client.predict(QUESTIONS[0], "40k", False, api_name="/ask")
    assert result["game"] == "40k"


def test_basic_auth_is_required_when_set(
    seeded_service: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx
    from gradio_client import Client

    from ruleslawyer.ui.app import launch

    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    port = free_port()
    demo = launch(
        seeded_service, port=port, auth=("ref", "s3cret"), prevent_thread_lock=True, quiet=True
    )
    try:
        url = f"http://127.0.0.1:{port}/"
        assert demo.server_name == "127.0.0.1"  # the default: not reachable from the network
        assert demo.share is False
        assert httpx.get(url + "config").status_code in (401, 403)
        with pytest.raises(Exception):  # noqa: B017 - any refusal will do
            Client(url, verbose=False, auth=("ref", "wrong"))
        client = Client(url, verbose=False, auth=("ref", "s3cret"))
        result = client.predict("Redeploy", "aos", True, api_name="/ask")  # a lookup: relevant
        assert result["game"] == "aos" and result["citations"]
    finally:
        demo.close()


def test_a_game_added_through_the_api_can_be_asked_about_at_once(
    served: tuple[str, CountingService],
) -> None:
    """The components' choices follow the games: a client with no page session may
    ask /chat about a game another client just added, without a restart."""
    from gradio_client import Client, handle_file

    from ruleslawyer.settings import PROJECT_ROOT

    url, _ = served
    chapters = sorted((PROJECT_ROOT / "tests/fixtures/rulebooks/markdown").glob("0*.md"))
    client = Client(url, verbose=False)
    status, _table = client.predict(
        [handle_file(str(p)) for p in chapters],
        "__new__",
        "brass-and-bayonet",
        "Brass & Bayonet",
        "1.2",
        api_name="/add_rulebook",
    )
    assert "rl-ok" in status and "Brass &amp; Bayonet" in status, status
    question = "Can a Disordered unit go on Overwatch?"
    other = Client(url, verbose=False)
    history, _box, plain = other.predict(question, [], "brass-and-bayonet", True, api_name="/chat")
    page = str(history[-1]["content"][0]["text"])
    assert "rl-done" in page and "Brass &amp; Bayonet" in page, page
    assert "brass-and-bayonet Overwatch" in plain
    result = other.predict(question, "Brass & Bayonet", True, api_name="/ask")
    assert result["game"] == "brass-and-bayonet"
