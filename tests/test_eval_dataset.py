"""The eval dataset loader: every problem reported with its line number."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ruleslawyer.errors import InputError
from ruleslawyer.evals.dataset import DatasetError, EvalItem, load_dataset, load_seed_corpus

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "seeds"
DATASETS = sorted((REPO / "evals" / "datasets").glob("*.jsonl"))


def record(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "40k-001",
        "game": "40k",
        "question": "Can a vehicle shoot with close-quarters weapons while engaged?",
        "expected_verdict": "yes",
        "expected_facts": ["close-quarters"],
        "expected_rules": ["10.06"],
        "unanswerable": False,
        "source": "seed 003",
        "seed_quote": "",
    }
    base.update(overrides)
    return base


def write_lines(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_valid_file_loads_items(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "ok.jsonl",
        [
            json.dumps(record()),
            "",
            "   ",
            json.dumps(
                record(
                    id="aos-001",
                    game="aos",
                    expected_verdict="n/a",
                    expected_rules=[],
                    unanswerable=True,
                )
            ),
        ],
    )
    items = load_dataset(path)
    assert [i.id for i in items] == ["40k-001", "aos-001"]
    first = items[0]
    assert isinstance(first, EvalItem)
    assert first.expected_facts == ("close-quarters",)
    assert first.expected_rules == ("10.06",)
    assert items[1].unanswerable is True
    assert (
        EvalItem(
            **{**record(), "expected_facts": ("close-quarters",), "expected_rules": ("10.06",)}
        )
        == first
    )


def test_malformed_file_lists_every_problem_with_its_line(tmp_path: Path) -> None:
    rec = record()
    missing = {k: v for k, v in rec.items() if k not in ("question", "source")}
    lines = [
        json.dumps(rec),  # 1 ok
        "",  # 2 blank: skipped
        '{"id": "x", "game": ',  # 3 invalid JSON
        "[1, 2]",  # 4 not an object
        json.dumps({**missing, "id": "40k-005"}),  # 5 missing keys
        json.dumps(record(id="40k-006", extra=1, unanswerable="no")),  # 6 unknown key, wrong type
        json.dumps(record(id="40k-007", game="Kill Team", expected_verdict="maybe")),  # 7
        json.dumps(record()),  # 8 duplicate id of line 1
        json.dumps(record(id="40k-009", unanswerable=True)),  # 9 unanswerable with rules
        json.dumps(record(id="40k-010", expected_facts=["ok", 3])),  # 10 wrong element type
        json.dumps(record(id="40k-011")),  # 11 ok
    ]
    path = write_lines(tmp_path / "bad.jsonl", lines)
    with pytest.raises(DatasetError) as info:
        load_dataset(path)
    err = info.value
    assert isinstance(info.value, InputError)  # the CLI shows it as a one-line input error
    message = str(err).splitlines()
    assert message[0] == f"10 problems in {path}"
    assert message[1:] == list(err.problems)
    flagged = [int(p.split(":")[1]) for p in err.problems]
    assert flagged == [3, 4, 5, 6, 6, 7, 7, 8, 9, 10]
    text = str(err)
    assert f"{path}:3: invalid JSON" in text
    assert f"{path}:4: not a JSON object" in text
    assert f"{path}:5: missing keys: question, source" in text
    assert f"{path}:6: unknown keys: extra" in text
    assert f"{path}:6: unanswerable must be true or false" in text
    # any slug is a game (games are data); a name that is no slug is not
    assert f"{path}:7: game 'Kill Team' is not a game slug (write it as 'kill-team')" in text
    assert f"{path}:7: expected_verdict 'maybe' is not one of yes, no, n/a" in text
    assert f"{path}:8: duplicate id '40k-001' (first on line 1)" in text
    assert f"{path}:9: unanswerable question has expected_rules" in text
    assert f"{path}:10: expected_facts must be a list of strings" in text


def test_seed_quote_checked_after_normalisation(tmp_path: Path) -> None:
    corpus = {"40k": "Models with\nClose‑Quarters   weapons can shoot. The unit’s “Move” value."}
    path = write_lines(
        tmp_path / "quotes.jsonl",
        [
            # hyphen, space and case variations: found
            json.dumps(record(id="a", seed_quote="with close-quarters weapons can shoot")),
            # straight quotes for curly ones: found
            json.dumps(record(id="b", seed_quote='the unit\'s "move" value')),
            # made up: not found
            json.dumps(record(id="c", seed_quote="Vehicles can always shoot.")),
            # no seed text for aos: not checked
            json.dumps(record(id="d", game="aos", seed_quote="anything at all")),
        ],
    )
    with pytest.raises(DatasetError) as info:
        load_dataset(path, corpus)
    assert info.value.problems == (
        f"{path}:3: seed_quote not found in the 40k rules loaded: 'Vehicles can always shoot.'",
    )
    # Without a corpus the quotes are not checked at all.
    assert len(load_dataset(path)) == 4


def test_missing_and_non_utf8_files(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"cannot read dataset .*nope\.jsonl"):
        load_dataset(tmp_path / "nope.jsonl")
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes(json.dumps(record(question="Caf\u00e9?"), ensure_ascii=False).encode("latin-1"))
    with pytest.raises(DatasetError, match="not UTF-8") as info:
        load_dataset(bad)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("body", ["", "\n  \n\n"])
def test_a_dataset_with_no_questions_is_refused(tmp_path: Path, body: str) -> None:
    """Else an empty file would pass: "All 0 questions fully correct", exit 0."""
    empty = tmp_path / "empty.jsonl"
    empty.write_text(body, encoding="utf-8")
    with pytest.raises(DatasetError, match="holds no questions"):
        load_dataset(empty)


def test_load_seed_corpus_reads_the_manifest(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Rule A.", encoding="utf-8")
    (tmp_path / "b.txt").write_text("Rule B.", encoding="utf-8")
    (tmp_path / "c.txt").write_text("Rule C.", encoding="utf-8")
    (tmp_path / "manifest.toml").write_text(
        '[[rulebook]]\nfile = "a.txt"\ngame = "40k"\n\n'
        '[[rulebook]]\nfile = "b.txt"\ngame = "aos"\n\n'
        '[[rulebook]]\nfile = "c.txt"\ngame = "40k"\n',
        encoding="utf-8",
    )
    assert load_seed_corpus(tmp_path) == {"40k": "Rule A.\n\nRule C.", "aos": "Rule B."}
    (tmp_path / "manifest.toml").write_text('[[rulebook]]\nfile = "gone.txt"\ngame = "40k"\n')
    with pytest.raises(InputError, match=r"gone\.txt"):
        load_seed_corpus(tmp_path)
    with pytest.raises(InputError, match="manifest"):
        load_seed_corpus(tmp_path / "missing")


def test_seed_quotes_against_the_shipped_seeds(tmp_path: Path) -> None:
    corpus = load_seed_corpus(SEEDS)
    assert set(corpus) == {"40k", "aos", "warmachine"}
    # The seed has "Close‑Quarters" with a non-breaking hyphen and "unit’s".
    path = write_lines(
        tmp_path / "seeded.jsonl",
        [
            json.dumps(record(id="a", seed_quote="10.06Close-Quarters Shooting")),
            json.dumps(
                record(
                    id="b",
                    game="aos",
                    seed_quote="add 6\" to that unit's move characteristic",
                )
            ),
            json.dumps(record(id="c", game="aos", seed_quote="10.06Close-Quarters Shooting")),
        ],
    )
    with pytest.raises(DatasetError) as info:
        load_dataset(path, corpus)
    assert [p.split(":")[1] for p in info.value.problems] == ["3"]


@pytest.mark.parametrize("path", DATASETS, ids=[p.name for p in DATASETS])
def test_shipped_datasets_are_valid(path: Path) -> None:
    items = load_dataset(path, load_seed_corpus(SEEDS))
    assert items, f"{path} has no questions"


SKIRMISHERS_PDF = REPO.parent / "shared" / "corpora" / "skirmishers" / "skirmishers.pdf"


@pytest.mark.parametrize(
    ("dataset", "game", "files"),
    [
        ("brass-and-bayonet.jsonl", "brass-and-bayonet", "tests/fixtures/rulebooks/markdown/0*.md"),
        ("more-fit.jsonl", "brass-and-bayonet", "tests/fixtures/rulebooks/markdown/0*.md"),
        ("more-choose.jsonl", "brass-and-bayonet", "tests/fixtures/rulebooks/markdown/0*.md"),
        ("more2-fit.jsonl", "brass-and-bayonet", "tests/fixtures/rulebooks/markdown/0*.md"),
        ("more2-choose.jsonl", "brass-and-bayonet", "tests/fixtures/rulebooks/markdown/0*.md"),
        ("delvers.jsonl", "delvers", "evals/corpora/delvers/*.md"),
        ("delvers.jsonl", "delvers", "evals/corpora/delvers/odt/*.odt"),
        ("tidewater-fit.jsonl", "tidewater", "evals/corpora/tidewater/*.md"),
        ("tidewater-choose.jsonl", "tidewater", "evals/corpora/tidewater/*.md"),
        ("tidewater2-fit.jsonl", "tidewater", "evals/corpora/tidewater/*.md"),
        ("tidewater2-choose.jsonl", "tidewater", "evals/corpora/tidewater/*.md"),
        ("skirmishers.jsonl", "skirmishers", SKIRMISHERS_PDF),
        ("skirmishers-fresh.jsonl", "skirmishers", SKIRMISHERS_PDF),
        ("skirmishers-fresh2.jsonl", "skirmishers", SKIRMISHERS_PDF),
        ("skirmishers-fresh3.jsonl", "skirmishers", SKIRMISHERS_PDF),
        ("skirmishers-fresh3.jsonl", "skirmishers", SKIRMISHERS_PDF.with_name("*.html")),
        ("ember.jsonl", "ember", "evals/corpora/ember/ember.pdf"),
        ("ember.jsonl", "ember", "evals/corpora/ember/ember.html"),
        ("ember.jsonl", "ember", "evals/corpora/ember/ember-print.pdf"),
        ("ember-fresh.jsonl", "ember", "evals/corpora/ember/ember.pdf"),
        ("ember-fresh.jsonl", "ember", "evals/corpora/ember/ember.html"),
        ("gravelmoor.jsonl", "gravelmoor", "evals/corpora/gravelmoor/*.md"),
        ("ashgrove.jsonl", "ashgrove", "evals/corpora/ashgrove/*.md"),
        ("saltmire.jsonl", "saltmire", "evals/corpora/saltmire/*.html"),
    ],
)
def test_corpus_quotes_are_in_their_rules(dataset: str, game: str, files: str | Path) -> None:
    """Each question's quote is in the rules the reader gives (Markdown in the repo,
    the Skirmishers PDF beside it), and in the rule it names, so an unseen-rulebook
    figure is not an artefact of a bad key."""
    from ruleslawyer.ingest.normalize import normalize_for_match
    from ruleslawyer.ingest.pipeline import parse_file

    if isinstance(files, Path):
        # the shared corpora beside the repo: one file, or a pattern in a folder
        paths = sorted(files.parent.glob(files.name)) if "*" in files.name else [files]
        if not all(p.is_file() for p in paths) or not paths:
            pytest.skip("../shared/corpora is not here")
    else:
        paths = sorted(REPO.glob(files))
    units = [u for p in paths for u in parse_file(p.name, p.read_bytes(), game=game).units]
    by_id = {u.rule_id: normalize_for_match(u.text) for u in units}
    items = load_dataset(REPO / "evals" / "datasets" / dataset, {game: "\n".join(by_id.values())})
    # (a set may also hold questions on the seeds, which the seed corpus checks)
    answerable = [i for i in items if not i.unanswerable and i.game == game]
    assert answerable
    for item in answerable:
        assert item.expected_rules, item.id
        quote = normalize_for_match(item.seed_quote)
        assert any(quote in by_id.get(r, "") for r in item.expected_rules), item.id


def test_the_follow_up_set_is_two_like_halves() -> None:
    """``benchmarks followups`` chooses on the first half and reports the second:
    both hold 120 labelled pairs, half of them follow-ups."""
    rows = [
        json.loads(line)
        for line in (REPO / "evals" / "followups" / "followups.jsonl").read_text().splitlines()
        if line.strip()
    ]
    assert len({r["id"] for r in rows}) == len(rows) == 240
    assert all(isinstance(r["follow_up"], bool) and r["previous"] and r["message"] for r in rows)
    for half in (rows[:120], rows[120:]):
        assert sum(r["follow_up"] for r in half) == 60
