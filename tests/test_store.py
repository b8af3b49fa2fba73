"""The index on disk: round trips, versioning, and refusing damaged or foreign indexes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from ruleslawyer.errors import IndexCorruptError, IndexMissingError
from ruleslawyer.ingest import store as store_mod
from ruleslawyer.ingest.store import FORMAT_VERSION, IndexStore, StoredIndex
from ruleslawyer.records import RuleUnit, Source

EMBEDDER = "hash-8"
DIM = 8


def make_units(tag: str = "") -> list[RuleUnit]:
    return [
        RuleUnit(
            rule_id="24.21",
            game="40k",
            title="[LANCE]",
            text=f"[] 24.21 Each time an attack is made with a [LANCE] weapon{tag}\u2026",
            parent="Core Abilities",
            source=Source("004.txt", 10, 90),
            refs=("19", "[CLOSE\u2011QUARTERS]"),
            title_inferred=True,
            title_source="body",
            kind="rule",
            search_text=f"[] 24.21 Each time an attack is made with a [LANCE] weapon{tag}...",
        ),
        RuleUnit(
            rule_id="Ward save",
            game="aos",
            title="Ward save",
            text=f"Ward save\n\nPassive\n\nEFFECT: roll a dice{tag}.",
            source=Source("002.txt", 0, 40),
            merged=1,
            kind="ability",
            search_text=f"Ward save Passive EFFECT: roll a dice{tag}.",
        ),
    ]


def make_vectors(n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def write(store: IndexStore, tag: str = "", seed: int = 0) -> Path:
    units = make_units(tag)
    vectors = make_vectors(3, seed)
    return store.write(
        units,
        vectors,
        [0, 0, 1],
        [f"h{seed}-{i}" for i in range(3)],
        {"embedder": EMBEDDER, "dim": DIM, "sources": []},
    )


def snapshot(idx: StoredIndex) -> tuple[list[dict], list[int], list[str], bytes]:
    return (
        [u.to_record() for u in idx.units],
        idx.chunk_unit.tolist(),
        list(idx.chunk_text_hash),
        idx.vectors().tobytes(),
    )


def corrupt_error(store: IndexStore) -> str:
    with pytest.raises(IndexCorruptError) as info:
        store.load(EMBEDDER, DIM)
    msg = str(info.value)
    assert "ruleslawyer ingest" in msg
    return msg


@pytest.fixture
def store(tmp_path: Path) -> IndexStore:
    return IndexStore(tmp_path / "index")


# --- round trip and versions ---------------------------------------------------------------------
def test_missing_index(store: IndexStore) -> None:
    assert store.current_dir() is None
    assert store.read_manifest() is None
    with pytest.raises(IndexMissingError) as info:
        store.load(EMBEDDER, DIM)
    assert not isinstance(info.value, IndexCorruptError)
    assert "ruleslawyer ingest" in str(info.value)


def test_write_then_load_round_trips(store: IndexStore) -> None:
    path = write(store)
    idx = store.load(EMBEDDER, DIM)
    assert idx.path == path
    assert idx.units == make_units()
    assert idx.units[0].refs == ("19", "[CLOSE\u2011QUARTERS]")
    assert idx.units[0].search_text.endswith("...")
    assert idx.chunk_unit.tolist() == [0, 0, 1]
    assert idx.chunk_text_hash == ["h0-0", "h0-1", "h0-2"]
    np.testing.assert_allclose(idx.vectors(), make_vectors(3), rtol=0, atol=1e-7)
    assert idx.manifest["format_version"] == FORMAT_VERSION
    assert idx.manifest["embedder"] == EMBEDDER
    assert set(idx.manifest["checksums"]) == {"units.jsonl", "chunks.json", "vectors.faiss"}


def test_units_file_is_json_lines(store: IndexStore) -> None:
    path = write(store)
    lines = (path / "units.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["rule_id"] for line in lines] == ["24.21", "Ward save"]


def test_empty_index_round_trips(store: IndexStore) -> None:
    store.write([], np.zeros((0, DIM), np.float32), [], [], {"embedder": EMBEDDER, "dim": DIM})
    idx = store.load(EMBEDDER, DIM)
    assert idx.units == [] and idx.faiss_index.ntotal == 0


def test_current_points_at_new_version_and_old_ones_are_collected(store: IndexStore) -> None:
    first = write(store, seed=1)
    second = write(store, " v2", seed=2)
    assert first != second
    assert store.current_file.read_text(encoding="utf-8").strip() == second.name
    assert not first.exists()
    assert sorted(p.name for p in store.root.iterdir()) == sorted(["CURRENT", second.name])
    idx = store.load(EMBEDDER, DIM)
    assert idx.units == make_units(" v2")
    np.testing.assert_allclose(idx.vectors(), make_vectors(3, 2), rtol=0, atol=1e-7)


# --- damage --------------------------------------------------------------------------------------
def test_flipped_bytes_in_vectors(store: IndexStore) -> None:
    path = write(store)
    f = path / "vectors.faiss"
    data = bytearray(f.read_bytes())
    for i in range(len(data) - 16, len(data)):
        data[i] ^= 0xFF
    f.write_bytes(bytes(data))
    assert "vectors.faiss" in corrupt_error(store)


def test_truncated_units(store: IndexStore) -> None:
    path = write(store)
    f = path / "units.jsonl"
    f.write_bytes(f.read_bytes()[:50])
    assert "units.jsonl" in corrupt_error(store)


def test_deleted_chunks(store: IndexStore) -> None:
    path = write(store)
    (path / "chunks.json").unlink()
    assert "chunks.json" in corrupt_error(store)


@pytest.mark.parametrize("garbage", [b"{not json", b"", b"[1, 2, 3]", b"\xff\xfe\x00"])
def test_garbage_manifest(store: IndexStore, garbage: bytes) -> None:
    path = write(store)
    (path / "manifest.json").write_bytes(garbage)
    assert "manifest" in corrupt_error(store)


def test_deleted_manifest(store: IndexStore) -> None:
    path = write(store)
    (path / "manifest.json").unlink()
    corrupt_error(store)


@pytest.mark.parametrize("pointer", ["", "../elsewhere", ".hidden", "v-does-not-exist"])
def test_damaged_current_pointer(store: IndexStore, pointer: str) -> None:
    write(store)
    store.current_file.write_text(pointer, encoding="utf-8")
    corrupt_error(store)


def test_other_embedder_name(store: IndexStore) -> None:
    write(store)
    with pytest.raises(IndexCorruptError) as info:
        store.load("sentence-transformers/all-MiniLM-L6-v2", DIM)
    msg = str(info.value)
    assert EMBEDDER in msg and "sentence-transformers/all-MiniLM-L6-v2" in msg
    assert "ruleslawyer ingest" in msg


def test_other_dimension(store: IndexStore) -> None:
    write(store)
    with pytest.raises(IndexCorruptError) as info:
        store.load(EMBEDDER, 384)
    msg = str(info.value)
    assert f"{DIM}-d" in msg and "384-d" in msg
    assert "ruleslawyer ingest" in msg


def test_other_format_version(store: IndexStore) -> None:
    path = write(store)
    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    manifest["format_version"] = FORMAT_VERSION + 1
    (path / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    msg = corrupt_error(store)
    assert str(FORMAT_VERSION + 1) in msg and "format version" in msg


def test_consistent_checksums_but_inconsistent_rows(store: IndexStore) -> None:
    # a writer bug (more vector rows than chunk rows) is caught, not served
    store.write(
        make_units(), make_vectors(3), [0, 1], ["a", "b"], {"embedder": EMBEDDER, "dim": DIM}
    )
    assert "inconsistent" in corrupt_error(store)


# --- crashes -------------------------------------------------------------------------------------
def test_leftover_tmp_folder_is_harmless_and_cleaned(store: IndexStore) -> None:
    write(store, seed=1)
    before = snapshot(store.load(EMBEDDER, DIM))
    leftover = store.root / ".v-20200101-000000-1-1.tmp"
    leftover.mkdir()
    (leftover / "units.jsonl").write_text("half a write", encoding="utf-8")
    stale_pointer = store.root / ".CURRENT.1.tmp"
    stale_pointer.write_text("v-nothing", encoding="utf-8")
    assert snapshot(store.load(EMBEDDER, DIM)) == before
    write(store, " v2", seed=2)
    assert not leftover.exists()
    assert not stale_pointer.exists()
    assert store.load(EMBEDDER, DIM).units == make_units(" v2")


def _assert_crash_keeps_previous(store: IndexStore, exc: type[BaseException]) -> None:
    before_dir = store.current_dir()
    before = snapshot(store.load(EMBEDDER, DIM))
    with pytest.raises(exc):
        write(store, " v2", seed=2)
    assert store.current_dir() == before_dir
    assert snapshot(store.load(EMBEDDER, DIM)) == before
    assert not [p for p in store.root.iterdir() if p.name.startswith(".v-")]


def test_crash_while_writing_vectors_keeps_previous_index(
    store: IndexStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    import faiss

    write(store, seed=1)

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(faiss, "write_index", boom)
    _assert_crash_keeps_previous(store, OSError)


def test_crash_before_current_is_replaced_keeps_previous_index(
    store: IndexStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(store, seed=1)

    def boom(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(store_mod.os, "replace", boom)
    _assert_crash_keeps_previous(store, KeyboardInterrupt)
    monkeypatch.undo()
    # the next successful write clears the orphaned version folder
    final = write(store, " v3", seed=3)
    assert sorted(p.name for p in store.root.iterdir()) == sorted(["CURRENT", final.name])
    assert store.load(EMBEDDER, DIM).units == make_units(" v3")


def test_crash_while_writing_units_keeps_previous_index(
    store: IndexStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(store, seed=1)
    real = store_mod._fsync_write

    def flaky(path: Path, data: bytes) -> None:
        if path.name == "chunks.json":
            path.write_bytes(data[: len(data) // 2])
            raise OSError(5, "Input/output error")
        real(path, data)

    monkeypatch.setattr(store_mod, "_fsync_write", flaky)
    _assert_crash_keeps_previous(store, OSError)


def test_write_leaves_no_temp_files(store: IndexStore) -> None:
    write(store)
    write(store, " v2", seed=2)
    names = [p.name for p in store.root.iterdir()]
    assert not [n for n in names if n.endswith(".tmp")]
    assert os.path.isdir(store.root / store.current_file.read_text(encoding="utf-8").strip())
