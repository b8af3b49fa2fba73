"""The index on disk: unit records, their vectors, and a manifest that vouches for both.

Layout under ``settings.index_dir``::

    CURRENT               name of the live version (replaced atomically)
    v-<time>-<pid>/       one complete index
        manifest.json     format version, embedder, dimension, sources, checksums
        units.jsonl       one RuleUnit record per line (JSON, never pickle)
        chunks.json       for each vector row, the unit it belongs to
        vectors.faiss     FAISS inner-product index over unit-length vectors

A new index is built in its own version folder, fsynced, and only then
named in CURRENT by an atomic rename; a crash at any point leaves CURRENT
naming the previous, complete version. Loading checks every file against
the manifest's checksums and refuses an index made by another embedding
model or format version instead of silently mixing vectors.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ruleslawyer.errors import IndexCorruptError, IndexMissingError
from ruleslawyer.records import GameInfo, RuleUnit

FORMAT_VERSION = 2
_FILES = ("units.jsonl", "chunks.json", "vectors.faiss")
_REBUILD = "run `ruleslawyer ingest` to rebuild it"


@dataclass
class StoredIndex:
    units: list[RuleUnit]
    chunk_unit: np.ndarray  # vector row -> unit position
    chunk_text_hash: list[str]  # vector row -> sha1 of the embedded text (for reuse)
    faiss_index: Any
    manifest: dict[str, Any]
    path: Path

    def games(self) -> list[GameInfo]:
        """The games present, in index order, with what the manifests said at ingest."""
        tables = self.manifest.get("games") or {}
        present = dict.fromkeys(u.game for u in self.units)
        return [GameInfo.from_dict({**tables.get(g, {}), "slug": g}) for g in present]

    def vectors(self) -> np.ndarray:
        n = self.faiss_index.ntotal
        return self.faiss_index.reconstruct_n(0, n) if n else np.zeros((0, 0), np.float32)


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fsync_write(path: Path, data: bytes) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


class IndexStore:
    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def current_file(self) -> Path:
        return self.root / "CURRENT"

    def current_dir(self) -> Path | None:
        try:
            name = self.current_file.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as err:
            raise IndexCorruptError(
                f"index pointer {self.current_file} is unreadable ({err}); {_REBUILD}"
            ) from None
        if not name or "/" in name or name.startswith("."):
            raise IndexCorruptError(f"index pointer {self.current_file} is damaged; {_REBUILD}")
        return self.root / name

    def read_manifest(self) -> dict[str, Any] | None:
        """The live manifest, or None when there is no index yet (no checksum checks)."""
        d = self.current_dir()
        if d is None:
            return None
        try:
            data = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise IndexCorruptError(
                f"index manifest in {d} is missing or damaged ({err.__class__.__name__}); {_REBUILD}"
            ) from None
        if not isinstance(data, dict):
            raise IndexCorruptError(f"index manifest in {d} is damaged; {_REBUILD}")
        return data

    def load(self, embedder_name: str, dim: int) -> StoredIndex:
        import faiss

        d = self.current_dir()
        if d is None:
            raise IndexMissingError(f"no index in {self.root} yet: run `ruleslawyer ingest` first")
        manifest = self.read_manifest()
        assert manifest is not None
        if manifest.get("format_version") != FORMAT_VERSION:
            raise IndexCorruptError(
                f"index in {d} has format version {manifest.get('format_version')}, "
                f"this ruleslawyer reads version {FORMAT_VERSION}; {_REBUILD}"
            )
        if manifest.get("embedder") != embedder_name or manifest.get("dim") != dim:
            raise IndexCorruptError(
                f"index in {d} was built with embedding model {manifest.get('embedder')!r} "
                f"({manifest.get('dim')}-d), not {embedder_name!r} ({dim}-d); {_REBUILD}"
            )
        checksums = manifest.get("checksums", {})
        for name in _FILES:
            path = d / name
            if not path.exists():
                raise IndexCorruptError(f"index file {path} is missing; {_REBUILD}")
            if checksums.get(name) != _sha256(path):
                raise IndexCorruptError(
                    f"index file {path} is damaged (checksum mismatch); {_REBUILD}"
                )
        try:
            units = [
                RuleUnit.from_dict(json.loads(line))
                for line in (d / "units.jsonl").read_text(encoding="utf-8").splitlines()
                if line.strip()
            ]
            chunks = json.loads((d / "chunks.json").read_text(encoding="utf-8"))
            chunk_unit = np.asarray(chunks["unit"], dtype=np.int64)
            chunk_hash = list(chunks["hash"])
            index = faiss.read_index(
                str(d / "vectors.faiss"), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY
            )
        except Exception as err:  # checksums passed, so this is a writer bug or a version skew
            raise IndexCorruptError(f"index in {d} cannot be read ({err}); {_REBUILD}") from None
        if index.ntotal != len(chunk_unit) or (len(units) and chunk_unit.max() >= len(units)):
            raise IndexCorruptError(f"index in {d} is inconsistent; {_REBUILD}")
        return StoredIndex(units, chunk_unit, chunk_hash, index, manifest, d)

    def write(
        self,
        units: list[RuleUnit],
        vectors: np.ndarray,
        chunk_unit: list[int],
        chunk_hash: list[str],
        manifest: dict[str, Any],
    ) -> Path:
        import faiss

        self.root.mkdir(parents=True, exist_ok=True)
        version = f"v-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}-{time.monotonic_ns() % 10**6}"
        tmp = self.root / f".{version}.tmp"
        tmp.mkdir()
        try:
            units_bytes = "".join(
                json.dumps(u.to_record(), ensure_ascii=False) + "\n" for u in units
            ).encode("utf-8")
            _fsync_write(tmp / "units.jsonl", units_bytes)
            _fsync_write(
                tmp / "chunks.json", json.dumps({"unit": chunk_unit, "hash": chunk_hash}).encode()
            )
            index = faiss.IndexFlatIP(int(manifest["dim"]))
            if len(vectors):
                index.add(np.ascontiguousarray(vectors, dtype=np.float32))
            faiss.write_index(index, str(tmp / "vectors.faiss"))
            with open(tmp / "vectors.faiss", "rb+") as fh:
                os.fsync(fh.fileno())
            manifest = dict(manifest)
            manifest["format_version"] = FORMAT_VERSION
            manifest["checksums"] = {name: _sha256(tmp / name) for name in _FILES}
            _fsync_write(tmp / "manifest.json", json.dumps(manifest, indent=2).encode())
            final = self.root / version
            os.rename(tmp, final)
            pointer = self.root / f".CURRENT.{os.getpid()}.tmp"
            _fsync_write(pointer, version.encode())
            os.replace(pointer, self.current_file)
            dir_fd = os.open(self.root, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        self._collect_garbage(keep=version)
        return final

    def _collect_garbage(self, keep: str) -> None:
        """Remove old versions and leftovers of crashed writes (never the live one)."""
        for entry in self.root.iterdir():
            if entry.name in (keep, "CURRENT") or not (
                entry.name.startswith(("v-", ".v-", ".CURRENT"))
            ):
                continue
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                entry.unlink(missing_ok=True)
