"""``ruleslawyer serve``: keep the models loaded so a one-shot ``ask`` is fast.

A cold ``ask`` spends most of its time starting up: importing torch, loading
the embedding model, the index and the LLM. ``serve`` pays that once and
answers over HTTP on 127.0.0.1; ``ask`` finds it through ``server.json`` in
the data dir and sends the question there, falling back to answering
in-process when no server is running or it does not answer.

Trade-offs:

- The standard library's HTTP server and ``urllib``: the client side runs in
  every ``ask`` before anything else, so it must import in milliseconds
  (httpx alone costs ~100 ms). Requests are handled on threads, but answers
  go one at a time through a lock, because there is one model.
- Loopback only, with a random token in ``server.json`` (mode 0600) that
  every request must carry: another user of the machine cannot use the
  model, and a web page cannot drive it (a browser cannot read the token).
  The chat page (``ruleslawyer ui``) is the thing to expose on a LAN.
- The server answers for its own data dir and model settings; ``ask`` only
  uses it when it would have used the same ones (no ``--model``/``--llm-url``
  override), so a reply never comes from a model the user did not pick.
- When none is running, ``ask`` answers in its own process (one llama.cpp
  context: the quickest cold answer) and then starts one
  (``spawn_background``): detached, on a free port, stopping after
  ``idle_s`` without a question. It loads while the player reads, so the
  next one-shot ``ask`` is as fast as a warm answer, and nobody has to
  remember to run ``serve``. An ``ask`` that comes while it is still
  loading waits for it (``wait_for_server``) rather than start another.
  ``ask --no-server`` or ``RULESLAWYER_AUTO_SERVE=0`` opt out; ``serve
  --stop`` stops it.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from ruleslawyer.errors import InputError, ModelError, RulesLawyerError

SERVER_FILE = "server.json"
STARTING_FILE = "server.starting"
# How long a server may take to load and register before ``ask`` stops waiting.
STARTING_WAIT_S = 180.0
DEFAULT_PORT = 7861
MAX_BODY = 64 * 1024  # a question is at most a few thousand characters


class ServerError(RulesLawyerError):
    """The server answered with an error meant for the user (bad question, model down)."""


@dataclass(frozen=True)
class ServerInfo:
    """What ``server.json`` says about a running server."""

    port: int
    pid: int
    token: str
    model: str
    key: str  # Settings.answering_key() of the server

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def server_file(data_dir: Path) -> Path:
    return data_dir / SERVER_FILE


def find_server(data_dir: Path, key: str | None = None) -> ServerInfo | None:
    """The server registered for ``data_dir``, if its process is alive (and,
    given ``key``, it answers with the same settings)."""
    path = server_file(data_dir)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        info = ServerInfo(
            int(raw["port"]), int(raw["pid"]), str(raw["token"]), str(raw["model"]), str(raw["key"])
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if key is not None and info.key != key:
        return None
    # A dead pid: a stale file from a server that was killed. One owned by
    # someone else counts as alive: the token decides.
    return info if _alive(info.pid) else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, but another user's
    return True


def spawn_background(
    data_dir: Path, serve_args: list[str], *, idle_s: float
) -> subprocess.Popen[bytes] | None:
    """Start ``ruleslawyer serve`` detached, without waiting for it; None if it cannot start.

    The server loads everything and answers one question before it registers
    in ``server.json``, so the first ``ask`` it serves is warm. Until then
    ``server.starting`` names it, so a second ``ask`` waits for it
    (``wait_for_server``) instead of starting another. Its output goes to
    ``serve.log`` in the data dir. If two were started at the same moment,
    whichever registers first serves both (the other exits: one server per
    data dir).
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    log = open(data_dir / "serve.log", "ab")  # noqa: SIM115 - handed to the child
    args = [
        sys.executable,
        "-m",
        "ruleslawyer.cli",
        "--data-dir",
        str(data_dir),
        "serve",
        "--port",
        "0",
        "--idle-timeout",
        str(idle_s),
        *serve_args,
    ]
    try:
        child = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True
        )
    except OSError:
        return None
    finally:
        log.close()
    with contextlib.suppress(OSError):
        _starting_file(data_dir).write_text(
            json.dumps({"pid": child.pid, "since": time.time()}), encoding="utf-8"
        )
    return child


def starting_server(data_dir: Path) -> int | None:
    """The pid of a server ``spawn_background`` started that has not registered yet."""
    try:
        raw = json.loads(_starting_file(data_dir).read_text(encoding="utf-8"))
        pid, since = int(raw["pid"]), float(raw["since"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    # An old marker names a pid the system may have given to another program.
    if time.time() - since > STARTING_WAIT_S:
        return None
    return pid if _alive(pid) else None


def wait_for_server(
    data_dir: Path, key: str | None, pid: int, wait_s: float = STARTING_WAIT_S
) -> ServerInfo | None:
    """Wait for the starting server ``pid`` to register; None if it exits or is too slow."""
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        info = find_server(data_dir, key)
        if info is not None:
            return info
        if not _alive(pid):  # it exited: a peer's server may be the one
            return find_server(data_dir, key)
        time.sleep(0.05)
    return None


def _starting_file(data_dir: Path) -> Path:
    return data_dir / STARTING_FILE


def _is_ours(info: ServerInfo) -> bool:
    """Does the registered pid answer /health with the registered token? (A stale
    server.json can name a pid the system has since given to another program.)"""
    request = urllib.request.Request(
        info.url + "/health", headers={"Authorization": f"Bearer {info.token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status == HTTPStatus.OK
    except (OSError, ValueError):
        return False


def stop_server(data_dir: Path, wait_s: float = 15.0) -> ServerInfo | None:
    """Stop the server registered for ``data_dir`` (SIGTERM); the one stopped, or None."""
    info = find_server(data_dir)
    if info is None and (pid := starting_server(data_dir)) is not None:
        info = wait_for_server(data_dir, None, pid)  # one still loading: stop it once it is up
    if info is None:
        return None
    if not _is_ours(info):
        with contextlib.suppress(OSError):
            server_file(data_dir).unlink()  # stale: its process is someone else's now
        return None
    with contextlib.suppress(ProcessLookupError):
        os.kill(info.pid, signal.SIGTERM)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline and find_server(data_dir) is not None:
        time.sleep(0.05)
    return info


def remote_ask(
    info: ServerInfo,
    question: str,
    game: str | None,
    evidence_only: bool,
    timeout: float = 300.0,
) -> dict[str, Any] | None:
    """The answer as ``Answer.to_dict()``, or None when the server cannot be reached.

    Errors the server reports about the question itself (too long, unknown
    game) raise ``ServerError`` so the user sees them exactly as in-process.
    """
    body = json.dumps({"question": question, "game": game, "evidence_only": evidence_only})
    request = urllib.request.Request(
        info.url + "/ask",
        data=body.encode("utf-8"),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {info.token}"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return dict(json.loads(response.read()))
    except urllib.error.HTTPError as err:
        try:
            message = json.loads(err.read()).get("error")
        except (ValueError, AttributeError, OSError):
            message = None
        if err.code == HTTPStatus.BAD_REQUEST and message:
            raise ServerError(str(message)) from None
        return None  # wrong token, server fault: answer in-process instead
    except (OSError, ValueError):
        return None


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            super().log_message(format, *args)

    def _reply(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _authorised(self) -> bool:
        given = self.headers.get("Authorization", "")
        if secrets.compare_digest(given.encode(), f"Bearer {self.server.token}".encode()):
            return True
        self._reply(HTTPStatus.UNAUTHORIZED, {"error": "missing or wrong token"})
        return False

    def _accepted(self, endpoint: str) -> bool:
        """The token is right and the path is ``endpoint``; else the refusal is sent."""
        if not self._authorised():
            return False
        if self.path != endpoint:
            self._reply(HTTPStatus.NOT_FOUND, {"error": "no such endpoint"})
            return False
        return True

    def do_GET(self) -> None:
        if self._accepted("/health"):
            self._reply(HTTPStatus.OK, {"status": "ok", **self.server.health()})

    def do_POST(self) -> None:
        if not self._accepted("/ask"):
            return
        try:
            length = int(self.headers.get("Content-Length", "0"))
            if not 0 < length <= MAX_BODY:
                raise InputError(f"request body must be 1 to {MAX_BODY} bytes")
            req = json.loads(self.rfile.read(length))
            question = req["question"]
            if not isinstance(question, str):
                raise InputError('"question" must be a string')
            game = req.get("game")
            answer = self.server.ask(question, game, bool(req.get("evidence_only", False)))
        except (ValueError, KeyError, TypeError):
            self._reply(HTTPStatus.BAD_REQUEST, {"error": 'send {"question": "..."} as JSON'})
        except ModelError as err:
            self._reply(HTTPStatus.SERVICE_UNAVAILABLE, {"error": str(err)})
        except RulesLawyerError as err:
            self._reply(HTTPStatus.BAD_REQUEST, {"error": str(err)})
        else:
            self._reply(HTTPStatus.OK, answer)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, service: Any, port: int, token: str, verbose: bool) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.service = service
        self.token = token
        self.verbose = verbose
        self.started = time.time()
        self.last_used = time.monotonic()
        self.answered = 0
        # One model, so one answer at a time, always on the same thread: llama.cpp
        # leaves ~85 MB in the malloc arena of each thread that generates.
        self._model_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rl-model")

    def ask(self, question: str, game: str | None, evidence_only: bool) -> dict[str, Any]:
        def work() -> dict[str, Any]:
            try:
                answer = self.service.ask(question, game=game, evidence_only=evidence_only)
            finally:
                self.last_used = time.monotonic()
            self.answered += 1  # only ever touched on the model thread
            return dict(answer.to_dict())

        self.last_used = time.monotonic()
        return self._model_thread.submit(work).result()

    def health(self) -> dict[str, Any]:
        return {
            "model": self.service.answerer().model_name,
            "units": len(self.service.index().units),
            "answered": self.answered,
            "uptime_s": round(time.time() - self.started, 1),
        }


class Server:
    """A loaded service answering on 127.0.0.1, registered in ``server.json``.

    Construction loads everything (so the first request is warm) and binds
    the port (0 picks a free one); ``serve_forever`` answers until ``close``.
    """

    def __init__(
        self,
        service: Any,
        port: int = DEFAULT_PORT,
        *,
        verbose: bool = False,
        warm_up: bool = True,
        idle_s: float | None = None,
    ) -> None:
        self.data_dir: Path = service.settings.data_dir
        running = find_server(self.data_dir)
        if running is not None:
            raise InputError(
                f"a ruleslawyer server is already running for {self.data_dir} "
                f"(pid {running.pid}, port {running.port})"
            )
        service.warm_up()
        if warm_up:  # and run every step once, so the first visitor is warm
            # An open question: a yes/no one with no earnable verdict makes no
            # model call, so it would leave generation (and the cached system
            # prompt) cold. Turned away by an index that does not cover it, it
            # still warms retrieval.
            service.ask("How does a unit move?")
        self.idle_s = idle_s
        token = secrets.token_urlsafe(24)
        try:
            self._httpd = _Server(service, port, token, verbose)
        except OSError as err:
            raise InputError(f"cannot listen on 127.0.0.1:{port}: {err.strerror or err}") from None
        model = service.answerer().model_name
        port = int(self._httpd.server_address[1])
        key = service.settings.answering_key()
        self.info = ServerInfo(port, os.getpid(), token, model, key)
        path = server_file(self.data_dir)
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(asdict(self.info), f)
        os.replace(tmp, path)
        with contextlib.suppress(OSError):  # registered: nobody needs to wait for it now
            _starting_file(self.data_dir).unlink()
        self._serving = False

    def serve_forever(self) -> None:
        self._serving = True
        if self.idle_s:
            threading.Thread(target=self._stop_when_idle, daemon=True).start()
        self._httpd.serve_forever()

    def _stop_when_idle(self) -> None:
        """Stop after ``idle_s`` with no question (a started-on-demand server)."""
        assert self.idle_s
        while True:
            idle = time.monotonic() - self._httpd.last_used
            if idle >= self.idle_s:
                self._httpd.shutdown()
                return
            time.sleep(min(self.idle_s - idle, 5.0) + 0.01)

    def close(self) -> None:
        """Stop answering and unregister; safe to call from another thread, and twice."""
        if self._serving:  # shutdown() waits for a loop that was never started
            self._httpd.shutdown()
        self._httpd.server_close()
        self._httpd._model_thread.shutdown(wait=False)
        info = find_server(self.data_dir)
        if info is not None and info.token == self.info.token:
            with contextlib.suppress(OSError):
                server_file(self.data_dir).unlink()
