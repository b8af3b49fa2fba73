"""Load and validate the evaluation question sets (JSON Lines).

One question per line::

    {"id", "game", "question", "expected_verdict", "expected_facts",
     "expected_rules", "unanswerable", "source", "seed_quote"}

The loader is strict and exhaustive: every line is checked and every problem
is collected before anything is raised, so whoever edits a dataset fixes all
mistakes in one pass instead of one per run. A dataset that loads is one the
metrics can trust: ids are unique, games and verdicts are known values, and
(when the seed corpus is given) every ``seed_quote`` really is in the seed
text for its game, so a question cannot quietly drift away from the rules it
claims to test.

Quote matching uses ``normalize_for_match`` on both sides: the seeds come
from PDF and wiki extraction with curly quotes, non-breaking hyphens and
broken line joins, and the person writing the dataset types plain ASCII.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ruleslawyer.errors import InputError, read_toml
from ruleslawyer.ingest.normalize import normalize_for_match
from ruleslawyer.ingest.sources import check_game, slugify

EXPECTED_VERDICTS: tuple[str, ...] = ("yes", "no", "n/a")

# Field name -> (expected Python type, human name for messages).
_FIELDS: dict[str, tuple[type, str]] = {
    "id": (str, "a string"),
    "game": (str, "a string"),
    "question": (str, "a string"),
    "expected_verdict": (str, "a string"),
    "expected_facts": (list, "a list of strings"),
    "expected_rules": (list, "a list of strings"),
    "unanswerable": (bool, "true or false"),
    "source": (str, "a string"),
    "seed_quote": (str, "a string"),
}


class DatasetError(InputError):
    """A dataset file is missing, unreadable or has invalid lines.

    ``str(err)`` is a one-line summary followed by one ``FILE:LINE: problem``
    line per problem; ``problems`` holds those lines without the summary.
    """

    def __init__(self, message: str, problems: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.problems = problems


@dataclass(frozen=True)
class EvalItem:
    """One evaluation question and what a correct answer must show."""

    id: str
    game: str
    question: str
    expected_verdict: str  # yes | no | n/a
    expected_facts: tuple[str, ...]
    expected_rules: tuple[str, ...]
    unanswerable: bool
    source: str
    seed_quote: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "question": self.question,
            "expected_verdict": self.expected_verdict,
            "expected_facts": list(self.expected_facts),
            "expected_rules": list(self.expected_rules),
            "unanswerable": self.unanswerable,
            "source": self.source,
            "seed_quote": self.seed_quote,
        }


def _check_record(
    record: dict[str, Any],
    corpus_norm: dict[str, str],
) -> list[str]:
    """Every problem with one decoded line (duplicate ids are checked by the caller)."""
    problems: list[str] = []
    missing = [k for k in _FIELDS if k not in record]
    if missing:
        problems.append("missing keys: " + ", ".join(missing))
    unknown = sorted(k for k in record if k not in _FIELDS)
    if unknown:
        problems.append("unknown keys: " + ", ".join(unknown))

    typed_ok: dict[str, bool] = {}
    for key, (typ, name) in _FIELDS.items():
        if key not in record:
            typed_ok[key] = False
            continue
        value = record[key]
        # bool is a subclass of int but never of str/list, so isinstance is exact here.
        ok = isinstance(value, typ)
        if ok and typ is list:
            ok = all(isinstance(v, str) for v in value)
        typed_ok[key] = ok
        if not ok:
            problems.append(f"{key} must be {name}, got {json.dumps(value)[:60]}")

    for key in ("id", "question"):
        if typed_ok[key] and not record[key].strip():
            problems.append(f"{key} is empty")
    for key in ("expected_facts", "expected_rules"):
        # An empty fact is contained in every answer and would always pass.
        if typed_ok[key] and any(not v.strip() for v in record[key]):
            problems.append(f"{key} has an empty string")

    if typed_ok["game"]:
        try:
            ok = check_game(record["game"]) == record["game"]
        except InputError:
            ok = False
        if not ok:
            problems.append(
                f"game {record['game']!r} is not a game slug "
                f"(write it as {slugify(record['game'])!r})"
            )
    if typed_ok["expected_verdict"] and record["expected_verdict"] not in EXPECTED_VERDICTS:
        problems.append(
            f"expected_verdict {record['expected_verdict']!r} is not one of "
            + ", ".join(EXPECTED_VERDICTS)
        )
    if (
        typed_ok["unanswerable"]
        and typed_ok["expected_rules"]
        and record["unanswerable"]
        and record["expected_rules"]
    ):
        problems.append("unanswerable question has expected_rules")

    if typed_ok["seed_quote"] and typed_ok["game"] and record["seed_quote"].strip():
        corpus = corpus_norm.get(record["game"])
        if corpus:
            quote = normalize_for_match(record["seed_quote"])
            if quote not in corpus:
                problems.append(
                    f"seed_quote not found in the {record['game']} rules loaded: "
                    f"{record['seed_quote'][:60]!r}"
                )
    return problems


def _item(record: dict[str, Any]) -> EvalItem:
    return EvalItem(
        id=record["id"],
        game=record["game"],
        question=record["question"],
        expected_verdict=record["expected_verdict"],
        expected_facts=tuple(record["expected_facts"]),
        expected_rules=tuple(record["expected_rules"]),
        unanswerable=record["unanswerable"],
        source=record["source"],
        seed_quote=record["seed_quote"],
    )


def load_dataset(path: Path | str, corpus_texts: dict[str, str] | None = None) -> list[EvalItem]:
    """Read a JSON Lines dataset, validating every line.

    ``corpus_texts`` maps game -> its rules' text (see ``load_seed_corpus``); when it
    is given, each non-empty ``seed_quote`` must occur in its game's text after
    ``normalize_for_match`` on both sides. Games without text are not checked.

    Raises ``DatasetError`` listing ``FILE:LINE: problem`` for every problem
    found; blank lines are skipped.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise DatasetError(f"cannot read dataset {path}: {reason}") from err
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise DatasetError(f"dataset {path} is not UTF-8 text (byte {err.start})") from err

    # Normalise each corpus once, not once per quote.
    corpus_norm = {g: normalize_for_match(t) for g, t in (corpus_texts or {}).items() if t}

    items: list[EvalItem] = []
    problems: list[str] = []
    first_line_of_id: dict[str, int] = {}
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            problems.append(f"{where}: invalid JSON: {err.msg} (column {err.colno})")
            continue
        if not isinstance(record, dict):
            problems.append(f"{where}: not a JSON object")
            continue
        line_problems = _check_record(record, corpus_norm)
        rid = record.get("id")
        if isinstance(rid, str) and rid.strip():
            if rid in first_line_of_id:
                line_problems.append(
                    f"duplicate id {rid!r} (first on line {first_line_of_id[rid]})"
                )
            else:
                first_line_of_id[rid] = lineno
        if line_problems:
            problems.extend(f"{where}: {p}" for p in line_problems)
        else:
            items.append(_item(record))

    if problems:
        summary = f"{len(problems)} problem{'s' if len(problems) != 1 else ''} in {path}"
        raise DatasetError("\n".join([summary, *problems]), tuple(problems))
    if not items:
        # else an empty file "passes": "All 0 questions fully correct", exit 0
        raise DatasetError(f"dataset {path} holds no questions (every line is blank)")
    return items


def load_seed_corpus(seeds_dir: Path | str) -> dict[str, str]:
    """Map game -> the concatenated text of its seed rulebooks.

    Reads ``seeds_dir/manifest.toml`` (``[[rulebook]]`` entries with ``file``
    and ``game``), in manifest order. Files are joined with a blank line so a
    quote can never match across the seam of two books by accident.
    """
    seeds_dir = Path(seeds_dir)
    manifest = seeds_dir / "manifest.toml"
    data = read_toml(manifest, "seed manifest")

    parts: dict[str, list[str]] = {}
    for n, entry in enumerate(data.get("rulebook", []), start=1):
        if not isinstance(entry, dict) or not isinstance(entry.get("file"), str):
            raise InputError(f"{manifest}: rulebook entry {n} has no file")
        game = entry.get("game")
        if not isinstance(game, str) or not game.strip():
            raise InputError(f"{manifest}: rulebook entry {n} has no game")
        file = seeds_dir / entry["file"]
        try:
            parts.setdefault(game, []).append(file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as err:
            raise InputError(f"cannot read seed rulebook {file}: {err}") from err
    return {game: "\n\n".join(texts) for game, texts in parts.items()}
