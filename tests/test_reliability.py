"""Crashes and races around the index: it must always stay loadable (issue 7, in part)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

RULESLAWYER = [sys.executable, "-m", "ruleslawyer.cli"]


def _env(data: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update(RULESLAWYER_DATA_DIR=str(data), RULESLAWYER_EMBEDDER="fake", RULESLAWYER_LLM="fake")
    return env


def _rules(data: Path) -> list[dict[str, object]]:
    out = subprocess.run(
        [*RULESLAWYER, "rules", "list", "--json"],
        env=_env(data),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    return json.loads(out.stdout)


def _big_rulebook(path: Path, rules: int = 6000) -> Path:
    lines = [
        f"{30 + i // 99}.{i % 99 + 1:02d} Rule {i}\nEach time a Zorgon number {i} moves, it glows {i % 7} times."
        for i in range(rules)
    ]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize("delay", [0.5, 1.5, 3.0])
def test_kill_9_during_ingest_leaves_a_usable_index(
    seeded_settings, tmp_path: Path, delay: float
) -> None:
    data = seeded_settings.data_dir
    before = _rules(data)
    big = _big_rulebook(tmp_path / "big.txt")
    proc = subprocess.Popen(
        [*RULESLAWYER, "ingest", str(big), "--game", "40k"],
        env=_env(data),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    after = _rules(data)  # loads and passes its checksums
    old = {(u["game"], u["rule_id"]) for u in before}
    new = {(u["game"], u["rule_id"]) for u in after}
    # either the old index is intact or the new one is complete; never a mix
    assert new == old or (old < new and len(new) == len(old) + 6000)


def test_two_ingests_at_once_are_serialised(seeded_settings, tmp_path: Path) -> None:
    data = seeded_settings.data_dir
    a = _big_rulebook(tmp_path / "a.txt", 300)
    b = tmp_path / "b.txt"
    b.write_text("7.01 Other Rule\nEach time a Blorp moves, it hums.\n", encoding="utf-8")
    procs = [
        subprocess.Popen(
            [*RULESLAWYER, "ingest", str(p), "--game", "40k"],
            env=_env(data),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p in (a, b)
    ]
    for p in procs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    ids = {u["rule_id"] for u in _rules(data)}
    assert "7.01" in ids and "30.01" in ids  # neither ingest lost the other's rulebook
