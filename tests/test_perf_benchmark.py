"""``python -m benchmarks perf``: what it refuses before its minutes of work."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import perf


def test_compare_with_a_missing_run_is_a_one_line_error(tmp_path: Path) -> None:
    """`make bench PREV=artifacts/perf.json` before any run had made one ended
    in a traceback; it is refused at once, saying how to make one."""
    with pytest.raises(SystemExit) as err:
        perf.main(["--compare", str(tmp_path / "perf.json")])
    assert "no such file" in str(err.value) and "make bench" in str(err.value)


@pytest.mark.parametrize("content", ["{not json", "[1, 2]"])
def test_compare_with_a_broken_run_is_a_one_line_error(tmp_path: Path, content: str) -> None:
    path = tmp_path / "perf.json"
    path.write_text(content)
    with pytest.raises(SystemExit) as err:
        perf.main(["--compare", str(path)])
    assert "not a run's JSON" in str(err.value)
