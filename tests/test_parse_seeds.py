"""The parsers on the real seed rulebooks: every rule found once, titled, and nothing lost."""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest

from ruleslawyer.ingest.normalize import normalize
from ruleslawyer.ingest.numbered import mask
from ruleslawyer.ingest.parse import parse_rulebook
from ruleslawyer.ingest.reader import read_rulebook
from ruleslawyer.ingest.units import ParseResult
from ruleslawyer.records import RuleUnit

SEEDS = Path(__file__).resolve().parent.parent / "seeds"
CORE_40K = "40k-core-abilities.txt"
SHOOTING_40K = "40k-shooting-phase.txt"
ACTIONS_40K = "40k-actions.txt"
AOS = "aos-core-abilities.txt"
WARMACHINE = "warmachine-any-time-abilities.txt"

REQUIRED_40K = (
    [f"24.{n:02d}" for n in range(1, 39)] + [f"10.{n:02d}" for n in range(1, 8)] + ["16.01"]
)
AOS_NAMES = {
    "Tactical gambit",
    "Activate place of power",
    "Rally",
    "Musician",
    "Unbind",
    "Banish manifestation",
    "Magical intervention",
    "Normal move",
    "Run",
    "Retreat",
    "At the double",
    "Redeploy",
    "Fly",
    "Shoot",
    "Covering fire",
    "All-out attack",
    "All-out defence",
    "Champion",
    "Guarded hero",
    "Ward save",
    "Charge",
    "Forward to victory",
    "Counter charge",
    "Fight",
    "Standard bearer",
    "Power through",
}
TEXT_ONLY_SOURCES = ("printed", "body", "nav", "chapter")


@dataclass
class Parsed:
    text: str
    game: str
    result: ParseResult

    def by_id(self) -> dict[str, RuleUnit]:
        return {u.rule_id: u for u in self.result.units}


@pytest.fixture(scope="module")
def parsed() -> dict[str, Parsed]:
    manifest = tomllib.loads((SEEDS / "manifest.toml").read_text(encoding="utf-8"))
    out: dict[str, Parsed] = {}
    for entry in manifest["rulebook"]:
        text = read_rulebook(SEEDS / entry["file"], max_bytes=10**8)
        result = parse_rulebook(
            text,
            file=entry["file"],
            game=entry["game"],
            parent=entry.get("title", ""),
            title_fixes=entry.get("titles", {}),
        )
        out[entry["file"]] = Parsed(text, entry["game"], result)
    return out


def all_units(parsed: dict[str, Parsed]) -> list[RuleUnit]:
    return [u for p in parsed.values() for u in p.result.units]


# --- coverage of the numbered rules --------------------------------------------------------------
def test_exactly_one_unit_per_required_40k_rule(parsed: dict[str, Parsed]) -> None:
    counts = Counter(u.rule_id for u in all_units(parsed) if u.game == "40k")
    missing = [r for r in REQUIRED_40K if counts[r] == 0]
    doubled = [r for r in REQUIRED_40K if counts[r] > 1]
    assert not missing, f"missing rules: {missing}"
    assert not doubled, f"rules parsed more than once: {doubled}"


def test_required_rules_come_from_the_right_file(parsed: dict[str, Parsed]) -> None:
    assert {u.rule_id for u in parsed[ACTIONS_40K].result.units} >= {"16.01"}
    assert {f"10.{n:02d}" for n in range(1, 8)} <= set(parsed[SHOOTING_40K].by_id())
    assert {f"24.{n:02d}" for n in range(1, 39)} <= set(parsed[CORE_40K].by_id())


def test_no_duplicate_game_rule_id(parsed: dict[str, Parsed]) -> None:
    keys = Counter(u.key for u in all_units(parsed))
    assert [k for k, n in keys.items() if n > 1] == []


def test_parsers_chosen_by_layout(parsed: dict[str, Parsed]) -> None:
    assert parsed[CORE_40K].result.parser == "numbered"
    assert parsed[SHOOTING_40K].result.parser == "numbered"
    assert parsed[AOS].result.parser == "abilities"
    assert parsed[WARMACHINE].result.parser == "wiki"


# --- AoS abilities -------------------------------------------------------------------------------
def test_aos_abilities(parsed: dict[str, Parsed]) -> None:
    units = parsed[AOS].result.units
    assert len(units) == 26
    assert {u.rule_id for u in units} == AOS_NAMES
    assert all(u.game == "aos" and u.kind == "ability" for u in units)


def test_aos_exact_repeats_are_merged(parsed: dict[str, Parsed]) -> None:
    by_id = parsed[AOS].by_id()
    for name in ("All-out attack", "All-out defence", "Ward save"):
        assert by_id[name].merged == 1, name
    assert sorted(parsed[AOS].result.merged) == ["All-out attack", "All-out defence", "Ward save"]
    others = [u.rule_id for u in parsed[AOS].result.units if u.merged]
    assert sorted(others) == ["All-out attack", "All-out defence", "Ward save"]


def test_aos_ability_texts(parsed: dict[str, Parsed]) -> None:
    by_id = parsed[AOS].by_id()
    assert by_id["Rally"].text.startswith("Rally (1 cp)")
    assert "RALLY ROLLS" in by_id["Rally"].text
    assert by_id["Redeploy"].text.startswith("Redeploy (1 cp)")
    assert by_id["Counter charge"].text.startswith("Counter charge (2 cp)")
    # an ability's text does not run into the next ability
    assert "Musician" not in by_id["Rally"].text


# --- Warmachine rulings --------------------------------------------------------------------------
def test_warmachine_rulings(parsed: dict[str, Parsed]) -> None:
    units = parsed[WARMACHINE].result.units
    ids = {u.rule_id for u in units}
    assert len(units) >= 12
    assert {"Any Time abilities 2", "Units with Any Time abilities 3"} <= ids
    assert all("Soul Phase" in u.parent for u in units)
    assert all(u.game == "warmachine" for u in units)
    by_id = parsed[WARMACHINE].by_id()
    # sub-bullets belong to the numbered ruling above them
    assert "Running, failing a charge" in by_id["Any Time abilities 2"].text
    assert by_id["Any Time abilities 3"].text.startswith("3. In between declaring your charge")


# --- titles --------------------------------------------------------------------------------------
def test_core_abilities_titles(parsed: dict[str, Parsed]) -> None:
    by_id = parsed[CORE_40K].by_id()
    core = [by_id[f"24.{n:02d}"] for n in range(1, 39)]
    titled = [u for u in core if u.title]
    assert len(titled) >= 30
    text_only = [u for u in core if u.title and u.title_source in TEXT_ONLY_SOURCES]
    print(f"24.01-24.38 titled from the text alone: {len(text_only)}/38")
    assert len(text_only) >= 29


@pytest.mark.parametrize(
    ("rule_id", "title", "source"),
    [
        ("24.21", "[LANCE]", "body"),
        ("24.25", "[MELTA]", "body"),
        ("24.03", "[ANTI]", "printed"),
        ("24.22", "Leader", "printed"),
        ("24.34", "Support", "nav"),
        ("24.12", "Feel No Pain", "manifest"),
    ],
)
def test_specific_titles(parsed: dict[str, Parsed], rule_id: str, title: str, source: str) -> None:
    unit = parsed[CORE_40K].by_id()[rule_id]
    assert (unit.title, unit.title_source) == (title, source)
    assert unit.title_inferred is (source != "printed")


def test_shooting_titles_are_printed(parsed: dict[str, Parsed]) -> None:
    by_id = parsed[SHOOTING_40K].by_id()
    assert by_id["10.02"].title == "Shoot"
    assert by_id["10.06"].title == "Close-Quarters Shooting"
    assert all(by_id[f"10.{n:02d}"].title_source == "printed" for n in range(1, 8))


def test_a_glued_heading_gets_its_space_back(parsed: dict[str, Parsed]) -> None:
    """The extraction prints "10.04Normal Shooting"; the unit (and so every quote)
    reads "10.04 Normal Shooting", in its text and its search view."""
    p = parsed[SHOOTING_40K]
    assert "10.04Normal Shooting" in p.text
    unit = p.by_id()["10.04"]
    assert unit.text.startswith("10.04 Normal Shooting\n")
    assert unit.search_text.startswith("10.04 Normal Shooting ")
    assert not any(re.match(r"\d{1,2}\.\d{2}[A-Za-z]", u.text) for u in p.result.units)


# --- appendix and FAQs ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("rule_id", "start"),
    [
        (
            "Starting Strength and Half-Strength",
            "STARTING STRENGTH AND HALF\u2011STRENGTH The number",
        ),
        ("Destroyed", "DESTROYED Throughout a battle"),
        ("Revived", "REVIVED When a rule revives"),
        ("Mixed Keywords in Units", "MIXED KEYWORDS IN UNITS Some units"),
        ("Objectives Not Within a Terrain Area", "OBJECTIVES NOT WITHIN A TERRAIN AREA If the"),
        ("FAQ 1", "Q: Is a unit with no ranged weapons"),
        ("FAQ 2", "Q: When my unit shoots using close\u2011quarters shooting"),
        ("FAQ 3", "Q: When my unit shoots at an engaged"),
        ("FAQ 4", "Q: Can a unit that is eligible to make an overrun fight"),
        ("FAQ 5", "Q: Can a unit embark within a TRANSPORT"),
    ],
)
def test_appendix_units(parsed: dict[str, Parsed], rule_id: str, start: str) -> None:
    unit = parsed[CORE_40K].by_id()[rule_id]
    assert unit.text.startswith(start)
    assert unit.game == "40k"


def test_faqs_are_split_one_question_each(parsed: dict[str, Parsed]) -> None:
    by_id = parsed[CORE_40K].by_id()
    faqs = [by_id[f"FAQ {n}"] for n in range(1, 6)]
    assert all(u.kind == "faq" and u.text.count("Q: ") == 1 and "A: " in u.text for u in faqs)
    assert "FAQ 6" not in by_id


# --- page furniture ------------------------------------------------------------------------------
def test_no_furniture_in_unit_text(parsed: dict[str, Parsed]) -> None:
    for unit in all_units(parsed):
        assert "++" not in unit.text, unit.rule_id
        assert "CONTINUED IN THE APP" not in unit.text, unit.rule_id
        assert not re.search(r"\s\d{2,3}\s*$", unit.text), (unit.rule_id, unit.text[-40:])


def test_flavour_line_inside_a_rule_is_cut(parsed: dict[str, Parsed]) -> None:
    by_id = parsed[CORE_40K].by_id()
    assert "ZEAL IS ITS OWN EXCUSE" in parsed[CORE_40K].text
    assert "ZEAL" not in by_id["24.02"].text
    assert by_id["24.02"].text.rstrip().endswith("[ANTI\u2011INFANTRY 2+]).")


def test_navigation_run_makes_no_units(parsed: dict[str, Parsed]) -> None:
    p = parsed[CORE_40K]
    first_rule = p.text.index("24.01 Many units")
    assert all(u.source.start >= first_rule for u in p.result.units)
    by_id = p.by_id()
    assert by_id["24.32"].text.startswith("SCOUT MOVE 24.32")
    assert "Mighty heroes" not in by_id["24.34"].text
    assert by_id["24.34"].text.startswith("24.34 Specialist combatants")
    assert by_id["24.22"].text.startswith("LEADER 24.22 Mighty heroes")


# --- nothing dropped, everything traceable -------------------------------------------------------
@pytest.mark.parametrize("file", [WARMACHINE, ACTIONS_40K, AOS, SHOOTING_40K, CORE_40K])
def test_no_text_silently_dropped(parsed: dict[str, Parsed], file: str) -> None:
    p = parsed[file]
    assert p.result.uncovered(p.text) == []


@pytest.mark.parametrize("file", [WARMACHINE, ACTIONS_40K, AOS, SHOOTING_40K, CORE_40K])
def test_spans_and_text_come_from_the_file(parsed: dict[str, Parsed], file: str) -> None:
    p = parsed[file]
    flat = normalize(p.text)
    flat_without_furniture = normalize(mask(p.text, p.result.furniture))
    for unit in p.result.units:
        s, e = unit.source.start, unit.source.end
        assert unit.source.file == file
        assert 0 <= s < e <= len(p.text), unit.rule_id
        # The one change to the printed text: the space a glued heading lost
        # ("10.04Normal Shooting") is put back.
        printed = unit.text
        glued = p.text[s:].startswith(unit.rule_id) and p.text[s + len(unit.rule_id)].isalpha()
        if glued:
            assert unit.text.startswith(f"{unit.rule_id} "), unit.rule_id
            printed = unit.rule_id + unit.text[len(unit.rule_id) + 1 :]
        assert p.text[s : s + 12] == printed[:12], unit.rule_id
        inner = [f for f in p.result.furniture if s < f[0] < e or s < f[1] < e]
        if not inner:
            assert normalize(printed) in flat, unit.rule_id
        assert normalize(printed) in flat_without_furniture, unit.rule_id


# --- cross references and the two text views -----------------------------------------------------
def test_refs(parsed: dict[str, Parsed]) -> None:
    assert "13.08" in parsed[SHOOTING_40K].by_id()["10.07"].refs
    core = parsed[CORE_40K].by_id()
    assert "19" in core["24.22"].refs
    # the reference keeps the printed non-breaking hyphen (U+2011)
    assert "[CLOSE\u2011QUARTERS]" in core["24.27"].refs
    assert "[CLOSE-QUARTERS]" not in core["24.27"].refs
    assert any(r.startswith("18.0") for r in parsed[AOS].by_id()["Ward save"].refs)
    assert "18.0" in parsed[AOS].by_id()["Ward save"].refs


def test_search_text_is_normalised_text_is_original(parsed: dict[str, Parsed]) -> None:
    curly = "\u2018\u2019\u201c\u201d"
    for unit in all_units(parsed):
        assert unit.search_text, unit.rule_id
        assert "\u2011" not in unit.search_text, unit.rule_id
        assert not any(c in unit.search_text for c in curly), unit.rule_id
    shooting = parsed[SHOOTING_40K].by_id()["10.06"]
    assert "Close\u2011Quarters" in shooting.text
    assert "Close-Quarters" in shooting.search_text
    # the originals keep their typography somewhere in the seeds
    texts = "".join(u.text for u in all_units(parsed))
    assert "\u2011" in texts
    assert any(c in texts for c in curly)
