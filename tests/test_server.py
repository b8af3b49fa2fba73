"""`ruleslawyer serve` and `ask` going through it (fake models, real HTTP on 127.0.0.1)."""

from __future__ import annotations

import json
import os
import stat
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest

from ruleslawyer.server import Server, find_server, server_file

QUESTION = "Can a battle-shocked unit start an action?"


@pytest.fixture
def server(seeded_service: Any) -> Iterator[Server]:
    srv = Server(seeded_service, port=0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.close()
    thread.join(timeout=5)


def answered(srv: Server) -> int:
    return int(srv._httpd.answered)


def test_ask_goes_through_the_server_and_matches_in_process(
    server: Server, cli_run: Any, seeded_settings: Any
) -> None:
    code, out, err = cli_run("ask", QUESTION, "--json", data_dir=seeded_settings.data_dir)
    assert code == 0, err
    assert answered(server) == 1
    remote = json.loads(out)
    code, out, _ = cli_run(
        "ask", QUESTION, "--json", "--no-server", data_dir=seeded_settings.data_dir
    )
    assert code == 0 and answered(server) == 1
    local = json.loads(out)
    for d in (remote, local):
        d.pop("timings_ms")
    assert remote == local
    assert remote["citations"][0]["rule_id"] == "16.01"


def test_plain_output_and_evidence_only_through_the_server(
    server: Server, cli_run: Any, seeded_settings: Any
) -> None:
    code, out, _ = cli_run("ask", QUESTION, "--no-llm", data_dir=seeded_settings.data_dir)
    assert code == 0 and answered(server) == 1
    assert out.startswith("[THE RULE SAYS]") and "none (evidence only)" in out
    assert "[40k 16.01 Actions (40k-actions.txt)]" in out


def test_server_errors_are_one_line_like_in_process(
    server: Server, cli_run: Any, seeded_settings: Any
) -> None:
    code, _, err = cli_run("ask", "x" * 3000, data_dir=seeded_settings.data_dir)
    assert code == 1
    assert err.startswith("Error: the question is 3,000 characters") and err.count("\n") == 1


def test_other_settings_do_not_use_the_server(
    server: Server, cli_run: Any, seeded_settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RULESLAWYER_VERDICT_CONFIDENCE", "0.9")
    code, _, err = cli_run("ask", QUESTION, data_dir=seeded_settings.data_dir)
    assert code == 0, err
    assert answered(server) == 0  # answered in-process
    assert find_server(seeded_settings.data_dir, "another key") is None


def test_timings_name_every_cold_start_step(
    cli_run: Any, seeded_settings: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = cli_run("ask", QUESTION, "--timings", data_dir=seeded_settings.data_dir)
    assert code == 0
    line = next(x for x in err.splitlines() if x.startswith("timings:"))
    for step in ("process start to command", "index", "embedder", "model", "answer"):
        assert f"{step} " in line


def test_registration_is_private_and_removed_on_close(seeded_service: Any) -> None:
    srv = Server(seeded_service, port=0)
    path = server_file(seeded_service.settings.data_dir)
    try:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        info = find_server(seeded_service.settings.data_dir)
        assert info is not None and info.port == srv.info.port
        with pytest.raises(Exception, match="already running"):
            Server(seeded_service, port=0)
    finally:
        srv.close()
    assert not path.exists()


def test_stale_registration_is_ignored(seeded_settings: Any, cli_run: Any) -> None:
    path = server_file(seeded_settings.data_dir)
    dead = {"port": 1, "pid": 2**22 + 12345, "token": "t", "model": "m", "key": "k"}
    path.write_text(json.dumps(dead))
    assert find_server(seeded_settings.data_dir) is None
    path.write_text("{not json")
    assert find_server(seeded_settings.data_dir) is None
    code, out, err = cli_run("ask", QUESTION, data_dir=seeded_settings.data_dir)
    assert code == 0 and "16.01" in out, err


def test_requests_without_the_token_are_refused(server: Server) -> None:
    for token in (None, "wrong"):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        req = urllib.request.Request(
            server.info.url + "/ask",
            data=json.dumps({"question": QUESTION}).encode(),
            headers=headers,
            method="POST",
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=10)
        assert info.value.code == 401
    assert answered(server) == 0


def test_a_server_that_does_not_answer_means_in_process(
    server: Server, cli_run: Any, seeded_settings: Any
) -> None:
    path = server_file(seeded_settings.data_dir)
    record = json.loads(path.read_text())
    record["token"] = "not-the-token"  # e.g. a restarted server that rewrote the file
    path.write_text(json.dumps(replace(server.info, token="nope").__dict__ | record))
    code, out, err = cli_run("ask", QUESTION, data_dir=seeded_settings.data_dir)
    assert code == 0 and "16.01" in out, err
    assert answered(server) == 0


def test_bad_request_bodies_are_400(server: Server) -> None:
    auth = {"Authorization": f"Bearer {server.info.token}"}
    for body in (b"not json", b'{"question": 3}', b'{"q": "x"}'):
        req = urllib.request.Request(
            server.info.url + "/ask", data=body, headers=auth, method="POST"
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=10)
        assert info.value.code == 400
    req = urllib.request.Request(server.info.url + "/health", headers=auth)
    with urllib.request.urlopen(req, timeout=10) as resp:
        health = json.loads(resp.read())
    assert health["status"] == "ok" and health["units"] > 100 and health["answered"] == 0
    assert os.getpid() == server.info.pid


def cli_env(data_dir: Any, **extra: str) -> dict[str, str]:
    """The environment of a CLI subprocess on ``data_dir`` with the fake models."""
    return dict(
        os.environ,
        RULESLAWYER_DATA_DIR=str(data_dir),
        RULESLAWYER_EMBEDDER="fake",
        RULESLAWYER_LLM="fake",
        **extra,
    )


def test_serve_command_answers_and_cleans_up_on_sigterm(seeded_settings: Any) -> None:
    import signal
    import subprocess
    import sys
    import time

    env = cli_env(seeded_settings.data_dir)
    cli = [sys.executable, "-m", "ruleslawyer.cli"]
    proc = subprocess.Popen([*cli, "serve", "--port", "0"], env=env, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while find_server(seeded_settings.data_dir) is None:
            assert proc.poll() is None and time.monotonic() < deadline, "serve did not start"
            time.sleep(0.2)
        asked = subprocess.run(
            [*cli, "ask", QUESTION, "--json"], env=env, capture_output=True, text=True
        )
        assert asked.returncode == 0, asked.stderr
        assert json.loads(asked.stdout)["citations"][0]["rule_id"] == "16.01"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert not server_file(seeded_settings.data_dir).exists()


def test_stop_leaves_a_process_that_is_not_our_server_alone(seeded_settings: Any) -> None:
    """A stale server.json naming a pid now used by another program: nothing is killed."""
    import subprocess
    import sys

    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        path = server_file(seeded_settings.data_dir)
        path.write_text(
            json.dumps({"port": 9, "pid": other.pid, "token": "x", "model": "m", "key": "k"}),
            encoding="utf-8",
        )
        from ruleslawyer.server import stop_server

        assert stop_server(seeded_settings.data_dir) is None
        assert other.poll() is None  # still running
        assert not path.exists()  # the stale registration is gone
    finally:
        other.kill()


def test_first_ask_answers_itself_then_leaves_a_server_for_the_next(
    seeded_settings: Any,
) -> None:
    """With auto-serve on: the first ask answers in its own process and starts a server;
    an ask while it loads waits for it; later asks go to it; --stop stops it."""
    import subprocess
    import sys

    from ruleslawyer.server import STARTING_FILE, starting_server, stop_server

    data = seeded_settings.data_dir
    env = cli_env(data, RULESLAWYER_AUTO_SERVE="1", RULESLAWYER_SERVE_IDLE="60")
    cli = [sys.executable, "-m", "ruleslawyer.cli"]

    def ask() -> dict[str, Any]:
        done = subprocess.run(
            [*cli, "ask", QUESTION, "--json", "--timings"], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return dict(json.loads(done.stdout))

    try:
        first = ask()
        assert "server" not in first["startup_ms"]  # answered here, nothing was running
        assert first["citations"][0]["rule_id"] == "16.01"
        assert starting_server(data) is not None or find_server(data) is not None
        second = ask()  # the server may still be loading: this waits for it
        assert "server" in second["startup_ms"]
        info = find_server(data)
        assert info is not None and not (data / STARTING_FILE).exists()
        for d in (first, second):
            d.pop("timings_ms"), d.pop("startup_ms")
        assert first == second
    finally:
        stopped = stop_server(data)
    assert stopped is not None and find_server(data) is None


def test_no_server_starts_none(seeded_settings: Any) -> None:
    import subprocess
    import sys

    from ruleslawyer.server import starting_server

    env = cli_env(seeded_settings.data_dir, RULESLAWYER_AUTO_SERVE="1")
    for flag in ("--no-server", "--no-llm"):
        done = subprocess.run(
            [sys.executable, "-m", "ruleslawyer.cli", "ask", QUESTION, flag],
            env=env,
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, done.stderr
        assert starting_server(seeded_settings.data_dir) is None
        assert find_server(seeded_settings.data_dir) is None


def test_explain_flag_is_part_of_the_answering_settings(
    server: Server, cli_run: Any, seeded_settings: Any
) -> None:
    """--explain/--no-explain decides answers, so an ask asking for other
    explanations than the running server's answers in-process, and a background
    server started for it gets the same flag."""
    from ruleslawyer.cli import _llm_overrides, _serve_args

    open_question = "What happens when a battle-shocked unit wants to start an action?"
    data = seeded_settings.data_dir
    code, out, err = cli_run("ask", open_question, "--json", data_dir=data)
    assert code == 0, err
    assert answered(server) == 1  # the server runs with the model's own choice
    for flag in ("--no-explain", "--explain"):
        code, out, err = cli_run("ask", open_question, "--json", flag, data_dir=data)
        assert code == 0, err
        assert answered(server) == 1, flag  # answered here, not by the server
        assert json.loads(out)["citations"][0]["rule_id"] == "16.01"
    assert json.loads(out)["model"].startswith("fake")
    code, _, err = cli_run("ask", open_question, "--no-llm", "--explain", data_dir=data)
    assert code == 2 and "--explain needs a model" in err
    # two models named: one was quietly used
    code, _, err = cli_run(
        "ask", open_question, "--model", "m.gguf", "--default-model", "qwen2.5-1.5b", data_dir=data
    )
    assert code == 2 and "choose one of --model, --default-model" in err
    assert _llm_overrides(None, None, False, None, False) == {"explain": False}
    assert _llm_overrides(None, None, False, None, None) == {}
    assert _serve_args({"default_model": "qwen2.5-1.5b", "explain": False}) == [
        "--default-model",
        "qwen2.5-1.5b",
        "--no-explain",
    ]
    assert _serve_args({"llm": "openai", "llm_url": "http://h:1/v1", "explain": True}) == [
        "--llm-url",
        "http://h:1/v1",
        "--explain",
    ]
    assert _serve_args({}) == []
