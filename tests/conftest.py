"""Shared fixtures. Most tests run on deterministic fakes (hash embedder, fake
LLM) so the suite is fast; tests marked ``real_model`` use the PyPI-shipped
models, because fakes alone prove nothing about the product."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ruleslawyer.settings import PROJECT_ROOT, Settings

SEEDS = PROJECT_ROOT / "seeds"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's index or settings, or reaches a model hub."""
    for var in (
        "RULESLAWYER_DATA_DIR",
        "RULESLAWYER_MODEL",
        "RULESLAWYER_LLM_URL",
        "RULESLAWYER_LLM",
        "RULESLAWYER_EMBEDDER",
        "RULESLAWYER_SEEDS_DIR",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.setenv("RULESLAWYER_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("RULESLAWYER_EMBEDDER", "fake")
    monkeypatch.setenv("RULESLAWYER_LLM", "fake")
    # `ask` would start a background server; tests that want one start it themselves.
    monkeypatch.setenv("RULESLAWYER_AUTO_SERVE", "0")


@pytest.fixture
def fake_settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", seeds_dir=SEEDS, embedder="fake", llm="fake")


@pytest.fixture(scope="session")
def seeded_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir holding the seeds indexed with the fake embedder, built once."""
    from ruleslawyer.service import RulesService

    data = tmp_path_factory.mktemp("seeded")
    RulesService(Settings(data_dir=data, seeds_dir=SEEDS, embedder="fake", llm="fake")).ingest()
    return data


@pytest.fixture
def seeded_settings(seeded_index: Path, tmp_path: Path) -> Settings:
    """A private copy of the seeded data dir, so a test may modify it."""
    data = tmp_path / "seeded"
    shutil.copytree(seeded_index, data)
    return Settings(data_dir=data, seeds_dir=SEEDS, embedder="fake", llm="fake")


@pytest.fixture
def seeded_service(seeded_settings: Settings) -> Iterator[object]:
    from ruleslawyer.service import RulesService

    service = RulesService(seeded_settings)
    yield service
    service.close()


@pytest.fixture
def cli_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., tuple[int, str, str]]:
    """Run the CLI in-process: returns (exit code, stdout, stderr)."""
    from ruleslawyer.cli import run

    def _run(*args: str, data_dir: Path | None = None) -> tuple[int, str, str]:
        if data_dir is not None:
            monkeypatch.setenv("RULESLAWYER_DATA_DIR", str(data_dir))
        capsys.readouterr()
        code = run(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return _run
