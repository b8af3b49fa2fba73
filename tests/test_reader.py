"""Reading rulebook files: every refusal is one RulebookError line naming the file."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from ruleslawyer.errors import InputError, RulebookError
from ruleslawyer.ingest.reader import decode_rulebook, read_rulebook

MB = 1024 * 1024
CP1252_TEXT = "Caf\u00e9 rules: \u201cquoted\u201d \u2014 a model\u2019s save is 4+."


def refusal(path: Path, *, max_bytes: int = MB, encoding: str | None = None) -> str:
    with pytest.raises(RulebookError) as info:
        read_rulebook(path, max_bytes=max_bytes, encoding=encoding)
    msg = str(info.value)
    assert "\n" not in msg and msg.strip() == msg, f"not one line: {msg!r}"
    assert str(path) in msg, f"does not name the file: {msg!r}"
    return msg


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_good_file_reads(tmp_path: Path) -> None:
    path = write(tmp_path, "ok.txt", b"3.01 Units move.\n")
    assert read_rulebook(path, max_bytes=MB) == "3.01 Units move.\n"


def test_rulebook_error_is_an_input_error() -> None:
    assert issubclass(RulebookError, InputError)


def test_empty_file(tmp_path: Path) -> None:
    assert "empty" in refusal(write(tmp_path, "empty.txt", b""))


def test_whitespace_only_file(tmp_path: Path) -> None:
    assert "empty" in refusal(write(tmp_path, "blank.txt", b"  \n\t\r\n  "))


def test_no_words(tmp_path: Path) -> None:
    assert "no words" in refusal(write(tmp_path, "digits.txt", b"12 34 !! 56\n"))


def test_binary_with_nul_bytes(tmp_path: Path) -> None:
    data = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256))
    assert "binary" in refusal(write(tmp_path, "image.txt", data))


def test_random_bytes(tmp_path: Path) -> None:
    data = random.Random(1234).randbytes(8192)
    refusal(write(tmp_path, "random.txt", data))


def test_random_bytes_without_nuls(tmp_path: Path) -> None:
    data = bytes(b for b in random.Random(99).randbytes(8192) if b)
    msg = refusal(write(tmp_path, "random2.txt", data))
    assert "UTF-8" in msg


def test_random_bytes_decoded_as_latin1_are_still_binary(tmp_path: Path) -> None:
    data = bytes(b for b in random.Random(7).randbytes(8192) if b)
    msg = refusal(write(tmp_path, "random3.txt", data), encoding="latin-1")
    assert "binary" in msg and "control characters" in msg


def test_cp1252_text_is_refused_with_a_hint(tmp_path: Path) -> None:
    path = write(tmp_path, "windows.txt", CP1252_TEXT.encode("cp1252"))
    msg = refusal(path)
    assert "UTF-8" in msg
    assert "--encoding" in msg and "cp1252" in msg


def test_cp1252_text_decodes_with_its_encoding(tmp_path: Path) -> None:
    path = write(tmp_path, "windows.txt", CP1252_TEXT.encode("cp1252"))
    assert read_rulebook(path, max_bytes=MB, encoding="cp1252") == CP1252_TEXT


def test_wrong_explicit_encoding(tmp_path: Path) -> None:
    path = write(tmp_path, "windows.txt", CP1252_TEXT.encode("cp1252"))
    msg = refusal(path, encoding="utf-8")
    assert "--encoding" in msg


def test_unknown_encoding_name(tmp_path: Path) -> None:
    path = write(tmp_path, "ok.txt", b"3.01 Units move.\n")
    msg = refusal(path, encoding="klingon-8")
    assert "unknown encoding" in msg and "klingon-8" in msg


def test_utf16_with_explicit_encoding_is_read(tmp_path: Path) -> None:
    # BUG (ingest/reader.py:44): the NUL-byte "binary" check runs before the
    # explicit encoding is applied, so a valid UTF-16 file (Notepad's
    # "Unicode") is refused as binary even with --encoding utf-16.
    text = "3.01 Units move.\n3.02 Units shoot.\n"
    path = write(tmp_path, "utf16.txt", text.encode("utf-16"))
    assert read_rulebook(path, max_bytes=MB, encoding="utf-16") == text


def test_missing_path(tmp_path: Path) -> None:
    assert "no such file" in refusal(tmp_path / "nope.txt")


def test_directory(tmp_path: Path) -> None:
    folder = tmp_path / "folder.txt"
    folder.mkdir()
    assert "directory" in refusal(folder)


def test_symlink_loop(tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    os.symlink(b, a)
    os.symlink(a, b)
    assert "symlink loop" in refusal(a)


def test_symlink_to_a_good_file_reads(tmp_path: Path) -> None:
    real = write(tmp_path, "real.txt", b"3.01 Units move.\n")
    link = tmp_path / "link.txt"
    os.symlink(real, link)
    assert read_rulebook(link, max_bytes=MB) == "3.01 Units move.\n"


def test_over_max_bytes(tmp_path: Path) -> None:
    path = write(tmp_path, "huge.txt", b"Units move. " * 20000)
    msg = refusal(path, max_bytes=100_000)
    assert "limit" in msg and "RULESLAWYER_MAX_RULEBOOK_MB" in msg


def test_exactly_max_bytes_is_allowed(tmp_path: Path) -> None:
    data = b"Units move. " * 100
    path = write(tmp_path, "edge.txt", data)
    assert read_rulebook(path, max_bytes=len(data)) == data.decode()


@pytest.mark.parametrize(
    ("data", "expect"),
    [
        (b"", "empty"),
        (b"   \n", "empty"),
        (b"abc\x00def", "binary"),
        (bytes(range(1, 32)) * 40 + b"abc", "binary"),
        (b"\xff\xfe\xfa oops", "UTF-8"),
    ],
)
def test_decode_refusals_name_the_source(data: bytes, expect: str) -> None:
    with pytest.raises(RulebookError) as info:
        decode_rulebook(data, "upload.txt")
    msg = str(info.value)
    assert msg.startswith("upload.txt: ")
    assert expect in msg
    assert "\n" not in msg


def test_decode_normalises_line_endings_and_bom() -> None:
    raw = b"\xef\xbb\xbfLine one\r\nLine two\rLine three\n"
    assert decode_rulebook(raw, "x.txt") == "Line one\nLine two\nLine three\n"
