"""`ruleslawyer ingest` and `ruleslawyer rules` end to end, in-process with the fake embedder.

Bad files must be refused with one line naming the file and must leave the
index exactly as it was.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ruleslawyer.errors import InputError
from ruleslawyer.ingest.sources import add_to_library, read_manifest, safe_name
from ruleslawyer.settings import Settings

Run = Callable[..., tuple[int, str, str]]

REQUIRED_40K = (
    [f"24.{n:02d}" for n in range(1, 39)] + [f"10.{n:02d}" for n in range(1, 8)] + ["16.01"]
)
SMALL_BOOK = (
    "Fortress Rules\n"
    "55.01 Fortress walls block line of sight to every model behind them.\n"
    "55.02 Gatehouse\nA unit wholly within a gatehouse gains the benefit of cover.\n"
    "55.03 Each time an attack is made with a [SIEGE] weapon against a fortress, add 1 to the "
    "wound roll.\n"
)


def index_state(data_dir: Path) -> dict[str, str]:
    """relative path -> sha256 for every file under the index folder (CURRENT included)."""
    root = data_dir / "index"
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def rules_json(cli_run: Run, data_dir: Path, *extra: str) -> tuple[str, list[dict]]:
    code, out, err = cli_run("rules", "list", "--json", *extra, data_dir=data_dir)
    assert code == 0, err
    return out, json.loads(out)


def add_markdown(cli_run: Run, data_dir: Path, path: Path, text: str, game: str) -> None:
    """Write ``text`` to ``path`` and add it to the library as ``game``'s."""
    path.write_text(text, encoding="utf-8")
    code, _, err = cli_run("ingest", str(path), "--game", game, data_dir=data_dir)
    assert code == 0, err


def shown_rules(out: str, game: str) -> list[str]:
    """The heading lines of the rules `rules show` printed for ``game``."""
    return [line for line in out.splitlines() if line.startswith(f"{game} ")]


def one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"expected one stderr line, got {err!r}"
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture
def data_dir(seeded_settings: Settings) -> Path:
    """A private copy of the seeds index (built once per session)."""
    return seeded_settings.data_dir


# --- a fresh ingest ------------------------------------------------------------------------------
def test_ingest_then_list(cli_run: Run, tmp_path: Path) -> None:
    data = tmp_path / "fresh"
    code, out, err = cli_run("ingest", data_dir=data)
    assert code == 0, err
    assert "Indexed" in out and "40k" in out and "aos" in out and "warmachine" in out
    assert (data / "index" / "CURRENT").is_file()

    _, units = rules_json(cli_run, data)
    ids_40k = [u["rule_id"] for u in units if u["game"] == "40k"]
    for rule_id in REQUIRED_40K:
        assert ids_40k.count(rule_id) == 1, rule_id
    keys = [(u["game"], u["rule_id"]) for u in units]
    assert len(keys) == len(set(keys))
    assert {u["rule_id"] for u in units if u["game"] == "aos"} >= {"Rally", "Redeploy", "Ward save"}
    assert sum(1 for u in units if u["game"] == "warmachine") >= 12
    for u in units:
        assert {
            "rule_id",
            "game",
            "title",
            "title_inferred",
            "text",
            "parent",
            "source",
            "refs",
        } <= set(u)
        assert set(u["source"]) == {"file", "start", "end"}
        assert isinstance(u["refs"], list) and isinstance(u["title_inferred"], bool)
        assert "search_text" not in u
    lance = next(u for u in units if u["rule_id"] == "24.21")
    assert lance["title"] == "[LANCE]" and lance["title_inferred"] is True
    assert lance["source"]["file"] == "40k-core-abilities.txt"
    assert lance["source"]["end"] > lance["source"]["start"]

    _, aos = rules_json(cli_run, data, "--game", "aos")
    assert len(aos) == 26 and {u["game"] for u in aos} == {"aos"}


def test_reingest_is_up_to_date_and_touches_nothing(cli_run: Run, data_dir: Path) -> None:
    before = index_state(data_dir)
    code, out, err = cli_run("ingest", data_dir=data_dir)
    assert code == 0, err
    assert "up to date" in out
    assert index_state(data_dir) == before
    code, out, _ = cli_run("ingest", "--json", data_dir=data_dir)
    assert code == 0 and json.loads(out)["up_to_date"] is True


def test_changed_readers_read_the_rulebooks_again(
    cli_run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an upgrade whose readers changed, ``ingest`` does not keep the units the old
    readers made; it reads every rulebook again and reuses the unchanged chunks' vectors."""
    from ruleslawyer.ingest import pipeline

    before_rules, _ = rules_json(cli_run, data_dir)
    monkeypatch.setattr(pipeline, "readers_fingerprint", lambda: "readers-of-a-new-release")
    code, out, err = cli_run("ingest", "--json", data_dir=data_dir)
    assert code == 0, err
    report = json.loads(out)
    assert report["up_to_date"] is False
    assert report["embedded_chunks"] == 0 and report["reused_vectors"] > 0
    code, out, _ = cli_run("ingest", "--json", data_dir=data_dir)
    assert code == 0 and json.loads(out)["up_to_date"] is True
    assert rules_json(cli_run, data_dir)[0] == before_rules


def test_force_rebuilds(cli_run: Run, data_dir: Path) -> None:
    before_out, _ = rules_json(cli_run, data_dir)
    old_current = (data_dir / "index" / "CURRENT").read_text()
    code, out, err = cli_run("ingest", "--force", data_dir=data_dir)
    assert code == 0, err
    assert "Indexed" in out
    assert (data_dir / "index" / "CURRENT").read_text() != old_current
    assert rules_json(cli_run, data_dir)[0] == before_out


# --- rules show ----------------------------------------------------------------------------------
def test_show_lance(cli_run: Run, data_dir: Path) -> None:
    code, out, err = cli_run("rules", "show", "24.21", data_dir=data_dir)
    assert code == 0, err
    assert out.startswith("40k 24.21 [LANCE]")
    assert "recovered from the rule text" in out
    assert "Each time an attack is made with a [LANCE] weapon" in out
    assert "add 1 to the wound roll" in out


def test_show_json(cli_run: Run, data_dir: Path) -> None:
    code, out, err = cli_run("rules", "show", "24.21", "--json", data_dir=data_dir)
    assert code == 0, err
    unit = json.loads(out)
    assert unit["rule_id"] == "24.21" and unit["title"] == "[LANCE]"


def test_show_as_players_write_a_rule(cli_run: Run, data_dir: Path) -> None:
    """ "rule 24.21" and "24.21 Lance" were "no rule"; a word of a longer title
    ("Walker" of "Super-heavy Walker") had no suggestion."""
    for written in ("rule 24.21", "§ 24.21", "24.21 [Lance]", "24.21. lance"):
        code, out, err = cli_run("rules", "show", written, data_dir=data_dir)
        assert code == 0, (written, err)
        assert out.startswith("40k 24.21 [LANCE]"), written
    code, _, err = cli_run("rules", "show", "24.21 Hazardous", data_dir=data_dir)
    assert code != 0 and one_error_line(err).startswith("Error: no rule 24.21 Hazardous")
    code, _, err = cli_run("rules", "show", "walker", data_dir=data_dir)
    assert code != 0 and "did you mean Super-heavy Walker" in one_error_line(err)


def test_show_a_term_finds_its_definition_not_every_value_labelled_so(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """Each weapon's '**Range:** 24"' came before the Range rules themselves."""
    add_markdown(
        cli_run,
        data_dir,
        tmp_path / "guns.md",
        '# Weapons\n\n## Crossbow\n\n**Range:** 24"\n**Dice:** 1\n\n'
        "## Glossary\n\n**Range:** how far a weapon reaches, in inches.\n",
        "guns",
    )
    code, out, _ = cli_run("rules", "show", "Range", "--game", "guns", data_dir=data_dir)
    assert code == 0 and shown_rules(out, "guns") == ["guns weapons/glossary Glossary"]


def test_a_changelog_is_kept_for_show_and_never_quoted_as_the_rule(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """A rules repository's changelog ("## 1.2", "## 1.1" newest first, over
    bullets stating old rules) answered "What is the charge distance?" with the
    rule the book had replaced. Its entries stay for `rules show`; a question
    never finds them. Headings numbered upwards are a rulebook's, as before."""
    add_markdown(
        cli_run,
        data_dir,
        tmp_path / "rules.md",
        "# Rules\n\n## Charging\n\nA charging unit moves D6+6 inches towards its target.\n\n"
        "# Changelog\n\n## 1.2\n\n- Charge distance is now D6+6 inches.\n\n"
        "## 1.1\n\n- Charge distance is 2D6 inches. A charging unit moves 2D6 inches.\n",
        "rust",
    )
    code, out, _ = cli_run("rules", "list", "--game", "rust", "--json", data_dir=data_dir)
    kinds = {r["rule_id"]: r["kind"] for r in json.loads(out)}
    assert kinds == {
        "rules/charging": "rule",
        "changelog/1-2": "changelog",
        "changelog/1-1": "changelog",
    }
    code, out, _ = cli_run(
        "search", "How far does a charging unit move? 2D6 inches", "--game", "rust", "--json",
        data_dir=data_dir,
    )  # fmt: skip
    assert code == 0
    found = [r["rule_id"] for r in json.loads(out)["results"]]
    assert found == ["rules/charging"], found
    code, out, _ = cli_run("rules", "show", "changelog/1-1", "--game", "rust", data_dir=data_dir)
    assert code == 0 and "2D6 inches" in out
    # an errata's entries look the same and hold the rules in force: searched
    errata = (
        "# Errata\n\n## Version 1.2 (June 2025)\n\nA unit that Advanced cannot shoot.\n\n"
        "## Version 1.1 (March 2025)\n\nNerve tests are taken at the end of the round.\n"
    )
    from ruleslawyer.ingest.pipeline import parse_file

    assert {u.kind for u in parse_file("errata.md", errata.encode(), game="g").units} == {"rule"}
    numbered = "# Rules\n\n## 1.1\n\nUnits move.\n\n## 1.2\n\nUnits shoot.\n"

    assert {u.kind for u in parse_file("r.md", numbered.encode(), game="g").units} == {"rule"}


def test_show_by_name_and_title(cli_run: Run, data_dir: Path) -> None:
    code, out, _ = cli_run("rules", "show", "redeploy", data_dir=data_dir)
    assert code == 0 and out.startswith("aos Redeploy")
    code, out, _ = cli_run("rules", "show", "Feel No Pain", data_dir=data_dir)
    assert code == 0 and out.startswith("40k 24.12 Feel No Pain")


def test_show_unknown_number(cli_run: Run, data_dir: Path) -> None:
    code, out, err = cli_run("rules", "show", "99.99", data_dir=data_dir)
    assert code != 0
    assert out == ""
    line = one_error_line(err)
    assert line.startswith("Error: no rule 99.99")
    assert "24.01-24.38" in line and "10.01-10.07" in line
    # and the chapters only their rules print, which `rules show 24` finds
    assert "here: 10, 16, 24, " in line


def test_show_a_bare_chapter_number_prints_its_rules_in_book_order(
    cli_run: Run, data_dir: Path
) -> None:
    # the seeds print no rule "24", only 24.01-24.38 under it
    code, out, _ = cli_run("rules", "show", "24", "--json", data_dir=data_dir)
    assert code == 0
    ids = [u["rule_id"] for u in json.loads(out)]
    assert ids[0] == "24.01" and ids[-1] == "24.38" and len(ids) == 38
    # a chapter with no rules under it is still no rule
    code, out, err = cli_run("rules", "show", "2", data_dir=data_dir)
    assert code != 0 and out == ""
    assert one_error_line(err).startswith("Error: no rule 2;")


@pytest.mark.parametrize(
    ("ids", "shown"),
    [
        (["10.01", "10.02", "10.03", "16.01", "movement/charge"], "10.01-10.03, 16.01"),
        # spelled as printed: a book numbering 1.1, 1.2 has no rule 1.01
        (["1.1", "1.2", "1.2.1", "1.3"], "1.1-1.3, 1.2.1"),
        (["4.1", "4.2", "6.1"], "4.1-4.2, 6.1"),
        (["9.9", "10.09", "10.10", "10.11"], "9.9, 10.09-10.11"),
        (["intro"], "none"),
        # a chapter printed "2. Morale" (its ID a slug) beside the rules under it
        (["1", "2", "2.1", "2.2", "morale"], "1-2, 2.1-2.2"),
    ],
)
def test_the_numbered_rules_hint_names_only_rules_that_exist(ids: list[str], shown: str) -> None:
    from ruleslawyer.service import number_ranges

    assert number_ranges(ids) == shown


def test_show_suggests_close_names(cli_run: Run, data_dir: Path) -> None:
    code, _, err = cli_run("rules", "show", "redploy", data_dir=data_dir)
    assert code != 0
    line = one_error_line(err)
    assert line.startswith("Error: no rule redploy")
    assert "Redeploy" in line


def test_show_in_the_wrong_game(cli_run: Run, data_dir: Path) -> None:
    code, out, err = cli_run("rules", "show", "24.21", "--game", "aos", data_dir=data_dir)
    assert code != 0
    assert "[LANCE]" not in out
    assert one_error_line(err).startswith("Error: no rule 24.21 in aos")


# --- adding a rulebook ---------------------------------------------------------------------------
def add_small_book(cli_run: Run, data_dir: Path, tmp_path: Path, *options: str) -> tuple[Path, str]:
    """SMALL_BOOK written to fortress.txt and added with ``options``: (the file, stdout)."""
    book = tmp_path / "fortress.txt"
    book.write_text(SMALL_BOOK, encoding="utf-8")
    code, out, err = cli_run("ingest", str(book), *options, data_dir=data_dir)
    assert code == 0, err
    return book, out


def test_a_folder_adds_the_rulebooks_in_it(cli_run: Run, data_dir: Path, tmp_path: Path) -> None:
    """A folder stands for the rulebook files under it, by extension, in name order;
    hidden files and files no reader takes are left out."""
    book = tmp_path / "gloom"
    (book / "chapters").mkdir(parents=True)
    (book / "01-move.md").write_text("# Movement\n\nA model moves 6 inches.\n", encoding="utf-8")
    (book / "chapters" / "02-fight.md").write_text(
        "# Fighting\n\nRoll a die for each attack.\n", encoding="utf-8"
    )
    (book / ".draft.md").write_text("# Draft\n\nNot yet.\n", encoding="utf-8")
    (book / "cover.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (book / "LICENSE").write_text("All rights reserved.\n", encoding="utf-8")
    code, _, err = cli_run("ingest", str(book), "--game", "gloomhold", data_dir=data_dir)
    assert code == 0, err
    library = read_manifest(data_dir / "rulebooks", "library").rulebooks
    assert [b.file for b in library] == ["01-move.md", "02-fight.md"]
    _, units = rules_json(cli_run, data_dir, "--game", "gloomhold")
    assert [u["title"] for u in units] == ["Movement", "Fighting"]


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ((), "a folder with no rulebook files in it"),
        (("a/\u00c4rger.md", "a/\u00dcrger.md"), "both would be stored as _rger.md"),
    ],
    ids=["empty", "same name once made safe, in one folder"],
)
def test_a_folder_that_cannot_be_added_touches_nothing(
    cli_run: Run, data_dir: Path, tmp_path: Path, files: tuple[str, ...], message: str
) -> None:
    book = tmp_path / "book"
    (book / "a").mkdir(parents=True)
    for name in files:
        (book / name).parent.mkdir(exist_ok=True)
        (book / name).write_text(f"# {name}\n\nText of {name}.\n", encoding="utf-8")
    before = index_state(data_dir)
    code, _, err = cli_run("ingest", str(book), "--game", "gloomhold", data_dir=data_dir)
    assert code == 1
    assert err.startswith("Error: ") and len(err.strip().splitlines()) == 1, err
    assert message in err
    assert index_state(data_dir) == before
    assert not (data_dir / "rulebooks" / "manifest.toml").exists()


def library_files(data_dir: Path) -> list[str]:
    return [b.file for b in read_manifest(data_dir / "rulebooks", "library").rulebooks]


def write_pages(root: Path, pages: dict[str, str]) -> None:
    for place, title in pages.items():
        (root / place).parent.mkdir(parents=True, exist_ok=True)
        (root / place).write_text(f"# {title}\n\nThe {title.lower()} rules.\n", encoding="utf-8")


def test_a_folder_of_files_sharing_a_name_is_stored_by_place(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """A docs site's core/index.md and combat/index.md were refused whole ('both
    would be stored as index.md'). They are named by the folders that tell them
    apart, and adding the folder again after it grew replaces them rather than
    keeping second copies under new names (quoted beside the new text)."""
    site = tmp_path / "site"
    write_pages(site, {"core/index.md": "Activation", "combat/index.md": "Shooting"})
    write_pages(site, {"intro.md": "Setup"})
    code, _, err = cli_run("ingest", str(site), "--game", "docsite", data_dir=data_dir)
    assert code == 0, err
    assert library_files(data_dir) == ["combat-index.md", "core-index.md", "intro.md"]
    _, units = rules_json(cli_run, data_dir, "--game", "docsite")
    assert sorted(u["title"] for u in units) == ["Activation", "Setup", "Shooting"]

    write_pages(site, {"magic/index.md": "Spells"})
    (site / "core" / "index.md").write_text("# Activation\n\nEdited.\n", encoding="utf-8")
    code, out, err = cli_run("ingest", str(site), "--game", "docsite", data_dir=data_dir)
    assert code == 0, err
    assert "core-index.md: changed since it was added, so its rules are read again" in out
    assert library_files(data_dir) == [
        "combat-index.md",
        "core-index.md",
        "intro.md",
        "magic-index.md",
    ]
    _, units = rules_json(cli_run, data_dir, "--game", "docsite")
    assert sorted(u["title"] for u in units) == ["Activation", "Setup", "Shooting", "Spells"]
    assert [u["text"] for u in units if u["title"] == "Activation"] == ["Edited."]


def test_a_file_keeps_its_name_when_its_folder_grows_a_namesake(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """basics/README.md, alone, is stored as README.md. Once fighting/README.md
    joins it, adding the folder again must not store basics' file a second time
    as basics-README.md (its old copy was still quoted): it keeps README.md, and
    the newcomer is named by its place."""
    site = tmp_path / "site"
    write_pages(site, {"basics/README.md": "Activation"})
    code, _, err = cli_run("ingest", str(site), "--game", "docsite", data_dir=data_dir)
    assert code == 0 and library_files(data_dir) == ["README.md"], err
    write_pages(site, {"fighting/README.md": "Melee"})
    code, _, err = cli_run("ingest", str(site), "--game", "docsite", data_dir=data_dir)
    assert code == 0, err
    assert library_files(data_dir) == ["README.md", "fighting-README.md"]
    _, units = rules_json(cli_run, data_dir, "--game", "docsite")
    assert sorted(u["title"] for u in units) == ["Activation", "Melee"]
    assert sorted(p.name for p in (data_dir / "rulebooks").glob("*.md")) == [
        "README.md",
        "fighting-README.md",
    ]


def test_remove_by_path_takes_the_file_added_from_there(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """`remove site1/core/index.md` took another game's index.md, the file of that
    name: a path names the file added from it, and a path nothing was added from
    names no file by its last part when that file came from elsewhere."""
    add_markdown(cli_run, data_dir, tmp_path / "index.md", "# Dig\n\nUnits dig.\n", "other")
    site = tmp_path / "site1"
    write_pages(site, {"core/index.md": "Activation", "combat/index.md": "Shooting"})
    code, _, err = cli_run("ingest", str(site), "--game", "docsite", data_dir=data_dir)
    assert code == 0, err
    assert library_files(data_dir) == ["index.md", "combat-index.md", "core-index.md"]
    before = index_state(data_dir)
    code, _, err = cli_run("remove", str(tmp_path / "elsewhere" / "index.md"), data_dir=data_dir)
    line = one_error_line(err)
    assert code == 1 and "no rulebook was added from there" in line, line
    assert str(tmp_path / "index.md") in line
    assert index_state(data_dir) == before
    code, out, err = cli_run("remove", str(site / "core" / "index.md"), data_dir=data_dir)
    assert code == 0 and out.startswith("Removed core-index.md."), err
    assert library_files(data_dir) == ["index.md", "combat-index.md"]


def test_a_moved_or_older_library_file_is_known_and_not_copied_again(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """A review of the naming by place: a folder moved elsewhere, or a library
    from before the library kept where files come from (no `source`), got its
    files stored again under new names beside the old ones, the old text quoted
    first. A file is known by its bytes too, and, when the place it came from
    is gone, by its name and folder; a namesake of an older file that cannot
    be told apart is refused, as the whole folder was before."""
    site = tmp_path / "old" / "site"
    write_pages(site, {"core/index.md": "Activation"})
    code, _, err = cli_run("ingest", str(site), "--game", "docsite", data_dir=data_dir)
    assert code == 0 and library_files(data_dir) == ["index.md"], err
    write_pages(site, {"combat/index.md": "Shooting"})
    moved = tmp_path / "new" / "site"
    moved.parent.mkdir()
    site.rename(moved)
    code, _, err = cli_run("ingest", str(moved), "--game", "docsite", data_dir=data_dir)
    assert code == 0, err
    assert library_files(data_dir) == ["index.md", "combat-index.md"]
    # moved again and edited: its old place is gone, its name and folder match
    (moved / "core" / "index.md").write_text("# Activation\n\nEdited.\n", encoding="utf-8")
    again = tmp_path / "again"
    moved.rename(again)
    code, _, err = cli_run(
        "ingest", str(again), "--game", "docsite", "--replace", data_dir=data_dir
    )
    assert code == 0, err
    assert library_files(data_dir) == ["index.md", "combat-index.md"]
    _, units = rules_json(cli_run, data_dir, "--game", "docsite")
    assert sorted(u["text"] for u in units) == ["Edited.", "The shooting rules."]
    # a manifest written before sources were kept: an unchanged file is known by
    # its bytes; an edited namesake is refused, library and index untouched
    manifest = data_dir / "rulebooks" / "manifest.toml"
    manifest.write_text(
        "\n".join(
            line for line in manifest.read_text().splitlines() if not line.startswith("source")
        ),
        encoding="utf-8",
    )
    (again / "combat" / "index.md").write_text("# Shooting\n\nTwice.\n", encoding="utf-8")
    (again / "core" / "index.md").write_text("# Activation\n\nEdited again.\n", encoding="utf-8")
    before, library = index_state(data_dir), library_state(data_dir)
    code, _, err = cli_run("ingest", str(again), "--game", "docsite", data_dir=data_dir)
    line = one_error_line(err)
    assert code == 1 and "was added before it kept where each file comes from" in line, line
    assert index_state(data_dir) == before and library_state(data_dir) == library


def test_a_linked_folder_and_two_editions_moved_keep_their_files(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """A review: a docs folder added through a link ("current" -> this release)
    was recorded where the link pointed, so the next release added through the
    same link was stored beside the old one, the old text first; two editions
    laid out alike, moved and edited, swapped names."""
    for release in ("2024-03", "2024-09"):
        write_pages(tmp_path / release, {"core/index.md": "Moving", "combat/index.md": "Fighting"})
        (tmp_path / release / "core" / "index.md").write_text(
            f"# Moving\n\nRelease {release}.\n", encoding="utf-8"
        )
    current = tmp_path / "current"
    current.symlink_to(tmp_path / "2024-03")
    code, _, err = cli_run("ingest", str(current), "--game", "docsite", data_dir=data_dir)
    assert code == 0, err
    current.unlink()
    current.symlink_to(tmp_path / "2024-09")
    code, _, err = cli_run("ingest", str(current), "--game", "docsite", data_dir=data_dir)
    assert code == 0, err
    assert library_files(data_dir) == ["combat-index.md", "core-index.md"]
    _, units = rules_json(cli_run, data_dir, "--game", "docsite")
    assert [u["text"] for u in units if u["title"] == "Moving"] == ["Release 2024-09."]

    books = tmp_path / "books"
    for edition in ("1e", "2e"):
        write_pages(books / edition, {"core/index.md": f"Edition {edition}"})
    code, _, err = cli_run("ingest", str(books), "--game", "eds", data_dir=data_dir)
    assert code == 0, err
    moved = tmp_path / "moved"
    books.rename(moved)
    for edition in ("1e", "2e"):
        (moved / edition / "core" / "index.md").write_text(
            f"# Edition {edition}\n\nEdited {edition}.\n", encoding="utf-8"
        )
    # moved and edited, or another book laid out alike whose first is gone: the
    # player says which (a review: an expansion silently replaced the core book)
    before = library_state(data_dir)
    code, _, err = cli_run("ingest", str(moved), "--game", "eds", data_dir=data_dir)
    line = one_error_line(err)
    assert code == 1 and "which is gone; if this is that file moved and edited" in line
    assert library_state(data_dir) == before
    code, _, err = cli_run("ingest", str(moved), "--game", "eds", "--replace", data_dir=data_dir)
    assert code == 0, err
    _, units = rules_json(cli_run, data_dir, "--game", "eds")
    assert sorted((u["source"]["file"], u["text"]) for u in units) == [
        ("1e-core-index.md", "Edited 1e."),
        ("2e-core-index.md", "Edited 2e."),
    ]


def test_generated_names_keep_clear_of_seeds_and_other_games(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """pack/40k/actions.txt was stored as 40k-actions.txt, a seed's name, and
    removing it dropped the seed's rules; a second game's docs site laid out as
    the first was refused, --replace offered to take the first game's files."""
    for game in ("40k", "aos"):
        (tmp_path / "pack" / game).mkdir(parents=True)
        (tmp_path / "pack" / game / "actions.txt").write_text(
            f"{game.upper()} House Actions\n\n99.01 A {game} unit may dig in.\n", encoding="utf-8"
        )
    code, _, err = cli_run(
        "ingest", str(tmp_path / "pack"), "--game", "homebrew", data_dir=data_dir
    )
    assert code == 0, err
    assert library_files(data_dir) == ["pack-40k-actions.txt", "pack-aos-actions.txt"]
    code, out, err = cli_run("remove", "--game", "homebrew", data_dir=data_dir)
    assert code == 0 and "40k: 65" in out, out + err
    for game in ("alpha", "beta"):
        write_pages(
            tmp_path / f"{game}-docs", {"core/index.md": "Moving", "combat/index.md": "Fighting"}
        )
        code, _, err = cli_run(
            "ingest", str(tmp_path / f"{game}-docs"), "--game", game, data_dir=data_dir
        )
        assert code == 0, err
    assert library_files(data_dir) == [
        "combat-index.md",
        "core-index.md",
        "beta-docs-combat-index.md",
        "beta-docs-core-index.md",
    ]


def test_a_bare_name_that_is_also_the_path_of_another_file_is_refused(
    cli_run: Run, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = tmp_path / "docs"
    write_pages(docs, {"core/index.md": "Moving"})
    code, _, err = cli_run(
        "ingest", str(docs / "core" / "index.md"), "--game", "d", data_dir=data_dir
    )
    assert code == 0, err
    write_pages(docs, {"combat/index.md": "Fighting"})
    code, _, err = cli_run("ingest", str(docs), "--game", "d", data_dir=data_dir)
    assert code == 0 and library_files(data_dir) == ["index.md", "combat-index.md"], err
    monkeypatch.chdir(docs / "combat")
    before = library_state(data_dir)
    code, _, err = cli_run("remove", "index.md", data_dir=data_dir)
    line = one_error_line(err)
    assert code == 1 and "names both the library's index.md and the file combat-index.md" in line
    assert library_state(data_dir) == before


def test_an_upload_keeps_where_the_file_was_added_from_and_odd_paths_record_none(
    tmp_path: Path,
) -> None:
    """A page upload (no source) of a file the CLI had added rewrote its entry
    without the source, so the next folder addition stored it again; a folder
    named in an old archive's encoding (not UTF-8) ended in an internal error
    writing the manifest."""
    from ruleslawyer.ingest.sources import source_of

    library = tmp_path / "library"
    add_to_library(library, "index.md", b"# A\n\nB.\n", "g", source="/docs/core/index.md")
    add_to_library(library, "index.md", b"# A\n\nB.\n", "g")
    assert [b.source for b in read_manifest(library, "library").rulebooks] == [
        "/docs/core/index.md"
    ]
    odd = Path(os.fsdecode(bytes(tmp_path) + b"/r\xe9gles/index.md"))
    assert source_of(odd) == ""


def test_an_upload_is_never_named_by_its_temporary_folder(tmp_path: Path) -> None:
    """A review: a page upload of rules.md for a second game, another game
    holding rules.md, was stored as "ruleslawyer-upload-XXXX-rules.md" (its
    temporary folder), and a second upload added another copy; uploads keep
    their own names, and a clash is refused as before."""
    from ruleslawyer.ingest.sources import Rulebook, library_names

    held = [Rulebook(tmp_path / "rules.md", "alpha", origin="library", source="/a/rules.md")]
    upload = tmp_path / "ruleslawyer-upload-1a2b" / "rules.md"
    assert library_names([(upload, b"x")], held, [".md"], "beta", by_place=False) == ["rules.md"]
    assert library_names([(upload, b"x")], held, [".md"], "beta") == [
        "ruleslawyer-upload-1a2b-rules.md"
    ]


def test_files_of_one_addition_sharing_a_name_are_named_apart(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    write_pages(tmp_path, {"a/rules.md": "Moving", "b/rules.md": "Fighting"})
    code, _, err = cli_run(
        "ingest",
        str(tmp_path / "a" / "rules.md"),
        str(tmp_path / "b" / "rules.md"),
        "--game",
        "gloomhold",
        data_dir=data_dir,
    )
    assert code == 0, err
    assert library_files(data_dir) == ["a-rules.md", "b-rules.md"]


def test_a_file_named_twice_is_added_once(cli_run: Run, data_dir: Path, tmp_path: Path) -> None:
    book = tmp_path / "book"
    book.mkdir()
    (book / "move.md").write_text("# Movement\n\nA model moves 6 inches.\n", encoding="utf-8")
    code, _, err = cli_run(
        "ingest", str(book / "move.md"), str(book), "--game", "gloomhold", data_dir=data_dir
    )
    assert code == 0, err
    assert [b.file for b in read_manifest(data_dir / "rulebooks", "library").rulebooks] == [
        "move.md"
    ]


def test_remove_takes_an_added_rulebook_out(cli_run: Run, data_dir: Path, tmp_path: Path) -> None:
    add_small_book(cli_run, data_dir, tmp_path, "--game", "fortress")
    library = data_dir / "rulebooks"
    assert (library / "fortress.txt").is_file()
    # named by the path it was added from, as a player types it
    code, out, err = cli_run("remove", str(tmp_path / "fortress.txt"), data_dir=data_dir)
    assert code == 0, err
    assert out.startswith("Removed fortress.txt.")
    assert not (library / "fortress.txt").exists()
    assert read_manifest(library, "library").rulebooks == ()
    _, units = rules_json(cli_run, data_dir)
    assert units and all(u["game"] != "fortress" for u in units)
    code, out, _ = cli_run("ingest", "--json", data_dir=data_dir)
    assert code == 0 and json.loads(out)["up_to_date"] is True


def test_remove_a_file_of_a_game_takes_only_that_file(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """`remove v2.docx --game market` took the game's other rulebook too: with
    files named, --game narrows to them, as it does everywhere else."""
    add_markdown(cli_run, data_dir, tmp_path / "one.md", "# Move\n\nUnits move 6.\n", "market")
    add_markdown(cli_run, data_dir, tmp_path / "two.md", "# Shoot\n\nUnits shoot.\n", "market")
    add_markdown(cli_run, data_dir, tmp_path / "three.md", "# Dig\n\nUnits dig.\n", "keep")
    code, out, err = cli_run("remove", "two.md", "--game", "market", data_dir=data_dir)
    assert code == 0 and out.startswith("Removed two.md."), err
    books = read_manifest(data_dir / "rulebooks", "library").rulebooks
    assert [b.file for b in books] == ["one.md", "three.md"]
    # a file the game does not hold: refused, nothing goes
    code, _, err = cli_run("remove", "one.md", "--game", "keep", data_dir=data_dir)
    assert code == 1 and one_error_line(err).startswith("Error: one.md: not a rulebook of keep")
    books = read_manifest(data_dir / "rulebooks", "library").rulebooks
    assert [b.file for b in books] == ["one.md", "three.md"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("warmachine-any-time-abilities.txt",), "a seed rulebook ships with ruleslawyer"),
        (("nope.md",), "no added rulebook of that name (added: fortress.txt)"),
        (("--game", "aos"), "aos: no added rulebooks of that game"),
        ((), "say which rulebooks to remove"),
    ],
)
def test_remove_refuses_what_it_cannot_remove(
    cli_run: Run, data_dir: Path, tmp_path: Path, args: tuple[str, ...], message: str
) -> None:
    add_small_book(cli_run, data_dir, tmp_path, "--game", "fortress")
    before = index_state(data_dir)
    library = (data_dir / "rulebooks" / "manifest.toml").read_bytes()
    code, _, err = cli_run("remove", *args, data_dir=data_dir)
    assert code == 1 and err.startswith("Error: ") and message in err, err
    assert index_state(data_dir) == before
    assert (data_dir / "rulebooks" / "manifest.toml").read_bytes() == library


def test_a_failed_rebuild_leaves_the_library_as_it_was(
    cli_run: Run, data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ruleslawyer import service
    from ruleslawyer.errors import RulebookError

    add_small_book(cli_run, data_dir, tmp_path, "--game", "fortress")
    before = index_state(data_dir)

    def fail(*_: object, **__: object) -> None:
        raise RulebookError("disk full (simulated)")

    monkeypatch.setattr(service, "build_index", fail)
    code, _, err = cli_run("remove", "fortress.txt", data_dir=data_dir)
    assert code == 1 and "disk full (simulated)" in err
    assert (data_dir / "rulebooks" / "fortress.txt").read_text(encoding="utf-8") == SMALL_BOOK
    assert [b.file for b in read_manifest(data_dir / "rulebooks", "library").rulebooks] == [
        "fortress.txt"
    ]
    assert index_state(data_dir) == before


def library_state(data_dir: Path) -> dict[str, str]:
    """file name -> sha256 for every file in the library folder (its manifest included)."""
    root = data_dir / "rulebooks"
    return (
        {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in root.iterdir() if p.is_file()}
        if root.is_dir()
        else {}
    )


OTHER_BOOK = "Siege Rules\n56.01 Ladders let a unit climb a wall of up to 6 inches.\n"


def test_a_file_named_like_a_library_file_is_refused_not_swapped_in(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """The library keeps one file per name: a core book and its expansion both saved
    as fortress.txt would lose a rulebook without a word. Refused, nothing touched;
    --replace says it is meant. Another game's book of that name is no edition of
    it: stored under its folder's name beside it (--replace was offered, and would
    have taken the first game's rules)."""
    add_small_book(cli_run, data_dir, tmp_path, "--game", "fortress")
    other = tmp_path / "expansion" / "fortress.txt"
    other.parent.mkdir()
    other.write_text(OTHER_BOOK, encoding="utf-8")
    before, library = index_state(data_dir), library_state(data_dir)
    code, _, err = cli_run("ingest", str(other), "--game", "fortress", data_dir=data_dir)
    line = one_error_line(err)
    assert code == 1 and "already holds a different fortress.txt" in line, line
    assert "--replace" in line and "rename this file to keep both" in line
    assert index_state(data_dir) == before and library_state(data_dir) == library

    code, out, err = cli_run(
        "ingest", str(other), "--game", "fortress", "--replace", data_dir=data_dir
    )
    assert code == 0, err
    assert "fortress.txt: replaces the earlier fortress.txt of fortress" in out
    _, units = rules_json(cli_run, data_dir)
    ids = {(u["game"], u["rule_id"]) for u in units}
    assert ("fortress", "56.01") in ids and not any(r == "55.01" for _, r in ids)
    assert (data_dir / "rulebooks" / "fortress.txt").read_text(encoding="utf-8") == OTHER_BOOK

    siege = tmp_path / "siege" / "fortress.txt"
    siege.parent.mkdir()
    siege.write_text(SMALL_BOOK, encoding="utf-8")
    code, _, err = cli_run("ingest", str(siege), "--game", "siege", data_dir=data_dir)
    assert code == 0, err
    assert library_files(data_dir) == ["fortress.txt", "siege-fortress.txt"]
    _, units = rules_json(cli_run, data_dir)
    ids = {(u["game"], u["rule_id"]) for u in units}
    assert ("fortress", "56.01") in ids and ("siege", "55.01") in ids


def test_an_added_files_report_is_not_buried_under_the_others(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """Adding one book printed every seed's report too, dozens of recovered titles,
    around the one line about the book just added."""
    _, out = add_small_book(cli_run, data_dir, tmp_path, "--game", "fortress")
    assert "fortress.txt  [fortress, text: numbered parser]  3 units" in out
    assert "40k-core-abilities.txt" not in out and "titles:" in out
    assert "(and 5 other rulebooks: `ruleslawyer ingest` alone reports every one)" in out
    code, out, err = cli_run("ingest", "--force", data_dir=data_dir)
    assert code == 0 and "40k-core-abilities.txt" in out and "other rulebooks" not in out, err


def test_the_same_file_for_another_game_is_moved_only_when_asked(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    book, _ = add_small_book(cli_run, data_dir, tmp_path, "--game", "fortress")
    before, library = index_state(data_dir), library_state(data_dir)
    code, _, err = cli_run("ingest", str(book), "--game", "siege", data_dir=data_dir)
    line = one_error_line(err)
    assert code == 1 and "already holds the same file for game fortress" in line, line
    assert index_state(data_dir) == before and library_state(data_dir) == library
    # the same file for the same game is no change at all
    code, out, err = cli_run("ingest", str(book), "--game", "fortress", "--json", data_dir=data_dir)
    assert code == 0 and json.loads(out)["up_to_date"] is True, err
    code, out, err = cli_run("ingest", str(book), "--game", "siege", "--replace", data_dir=data_dir)
    assert code == 0 and "fortress.txt: moved from fortress to siege" in out, err
    _, units = rules_json(cli_run, data_dir)
    assert {u["game"] for u in units if u["rule_id"] == "55.01"} == {"siege"}


@pytest.mark.parametrize("failure", [KeyboardInterrupt, MemoryError])
def test_an_interrupted_ingest_leaves_the_library_as_it_was(
    seeded_service: Any,
    data_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    failure: type[BaseException],
) -> None:
    """Ctrl-C while it embeds: the new file must not stay in the library, where the
    next command would index it unasked; a file it was replacing comes back."""
    from ruleslawyer import service as service_module

    first = tmp_path / "fortress.txt"
    first.write_text(SMALL_BOOK, encoding="utf-8")
    seeded_service.ingest([first], game="fortress")
    before, library = index_state(data_dir), library_state(data_dir)

    def interrupted(*_: object, **__: object) -> None:
        raise failure()

    monkeypatch.setattr(service_module, "build_index", interrupted)
    second = tmp_path / "siege.txt"
    second.write_text(OTHER_BOOK, encoding="utf-8")
    with pytest.raises(failure):
        seeded_service.ingest([second], game="siege")
    replacement = tmp_path / "new" / "fortress.txt"
    replacement.parent.mkdir()
    replacement.write_text(OTHER_BOOK, encoding="utf-8")
    with pytest.raises(failure):
        seeded_service.ingest([replacement], game="fortress", replace=True)
    assert library_state(data_dir) == library and index_state(data_dir) == before
    assert (data_dir / "rulebooks" / "fortress.txt").read_text(encoding="utf-8") == SMALL_BOOK


def test_added_rulebook_is_indexed_and_persists(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    book, out = add_small_book(cli_run, data_dir, tmp_path, "--game", "40k")
    assert "fortress.txt" in out
    code, out, err = cli_run("rules", "show", "55.03", data_dir=data_dir)
    assert code == 0, err
    assert "[SIEGE] weapon" in out and out.startswith("40k 55.03 [SIEGE]")
    library = data_dir / "rulebooks"
    assert (library / "fortress.txt").read_text(encoding="utf-8") == SMALL_BOOK
    assert [b.file for b in read_manifest(library, "library").rulebooks] == ["fortress.txt"]

    book.unlink()  # the library copy, not the original, is what is indexed
    for args in (("ingest",), ("ingest", "--force")):
        code, _, err = cli_run(*args, data_dir=data_dir)
        assert code == 0, err
        _, units = rules_json(cli_run, data_dir)
        ids = {u["rule_id"] for u in units if u["game"] == "40k"}
        assert {"55.01", "55.02", "55.03", "24.21"} <= ids


def test_cp1252_rulebook_with_encoding(cli_run: Run, data_dir: Path, tmp_path: Path) -> None:
    book = tmp_path / "caf\u00e9.txt"
    book.write_bytes(SMALL_BOOK.replace("Gatehouse", "Gatehouse \u2013 Caf\u00e9").encode("cp1252"))
    code, _, err = cli_run(
        "ingest", str(book), "--game", "40k", "--encoding", "cp1252", data_dir=data_dir
    )
    assert code == 0, err
    code, out, err = cli_run("rules", "show", "55.02", data_dir=data_dir)
    assert code == 0, err
    assert "Gatehouse \u2013 Caf\u00e9" in out


# --- refusals leave the index untouched ----------------------------------------------------------
def _bad_inputs(tmp_path: Path) -> list[tuple[list[str], str]]:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    binary = tmp_path / "binary.txt"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00" + bytes(range(256)) * 4)
    cp1252 = tmp_path / "windows.txt"
    cp1252.write_bytes("55.01 A model\u2019s \u201csave\u201d \u2014 roll.\n".encode("cp1252"))
    folder = tmp_path / "folder.txt"
    folder.mkdir()
    good = tmp_path / "good.txt"
    good.write_text(SMALL_BOOK, encoding="utf-8")
    missing = tmp_path / "missing.txt"
    return [
        (["ingest", str(empty), "--game", "40k"], str(empty)),
        (["ingest", str(binary), "--game", "40k"], str(binary)),
        (["ingest", str(cp1252), "--game", "40k"], str(cp1252)),
        (["ingest", str(missing), "--game", "40k"], str(missing)),
        (["ingest", str(folder), "--game", "40k"], str(folder)),
        # one bad file in a batch refuses the whole batch, good file included
        (["ingest", str(good), str(empty), "--game", "40k"], str(empty)),
        (["ingest", str(good)], "--game"),
    ]


def test_bad_files_are_refused_and_index_unchanged(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    before_json, _ = rules_json(cli_run, data_dir)
    before_files = index_state(data_dir)
    assert "CURRENT" in before_files and len(before_files) >= 5
    for args, named in _bad_inputs(tmp_path):
        code, _out, err = cli_run(*args, data_dir=data_dir)
        assert code != 0, args
        line = one_error_line(err)
        assert line.startswith("Error: "), line
        assert named in line, (args, line)
        assert index_state(data_dir) == before_files, args
        assert rules_json(cli_run, data_dir)[0] == before_json, args
    assert (
        not (data_dir / "rulebooks").exists()
        or not read_manifest(data_dir / "rulebooks", "library").rulebooks
    )


def test_cp1252_refusal_suggests_encoding(cli_run: Run, data_dir: Path, tmp_path: Path) -> None:
    book = tmp_path / "windows.txt"
    book.write_bytes("55.01 A model\u2019s save.\n".encode("cp1252"))
    code, _, err = cli_run("ingest", str(book), "--game", "40k", data_dir=data_dir)
    assert code != 0
    assert "--encoding" in one_error_line(err)


# --- upload names --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("../../etc/passwd", "passwd.txt"),
        ("..\\..\\windows\\evil.txt", "evil.txt"),
        ("/abs/path/rules.TXT", "rules.TXT"),
        ("we?ird:na*me.txt", "we_ird_na_me.txt"),
    ],
)
def test_safe_name(name: str, expected: str) -> None:
    assert safe_name(name) == expected


@pytest.mark.parametrize("name", ["..", "/", "", "..\\"])
def test_safe_name_refuses_empty_names(name: str) -> None:
    with pytest.raises(InputError):
        safe_name(name)


def test_path_traversal_upload_stays_in_library(tmp_path: Path) -> None:
    library = tmp_path / "data" / "rulebooks"
    book = add_to_library(library, "../../etc/passwd", SMALL_BOOK.encode(), "40k")
    assert book.path.resolve().parent == library.resolve()
    assert book.path.read_text(encoding="utf-8") == SMALL_BOOK
    assert not (tmp_path / "etc").exists()
    assert not (tmp_path / "data" / "etc").exists()
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [
        "manifest.toml",
        "passwd.txt",
    ]
    assert [b.file for b in read_manifest(library, "library").rulebooks] == ["passwd.txt"]


# --- the installed command -----------------------------------------------------------------------
def test_installed_command_has_no_traceback(tmp_path: Path) -> None:
    exe = Path(sys.executable).with_name("ruleslawyer")
    env = {**os.environ, "RULESLAWYER_EMBEDDER": "fake", "RULESLAWYER_LLM": "fake"}
    data = str(tmp_path / "sub")
    ingest = subprocess.run(
        [str(exe), "--data-dir", data, "ingest"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert ingest.returncode == 0, ingest.stderr
    assert "Traceback" not in ingest.stderr
    show = subprocess.run(
        [str(exe), "--data-dir", data, "rules", "show", "99.99"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert show.returncode == 1
    assert "Traceback" not in show.stderr
    assert show.stderr.strip().splitlines() == [show.stderr.strip()]
    assert show.stderr.startswith("Error: no rule 99.99")


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ('[games.ba]\naliases = "ba"\n', "games.ba.aliases"),
        ('[games.ba]\ncues = "pin"\n', "games.ba.cues"),
        ('[games.ba]\naliases = ["b"]\n', "games.ba.aliases"),
        ('[[rulebook]]\nfile = "x.txt"\ngame = "ba"\ntitles = "x"\n', "titles"),
    ],
)
def test_manifest_values_of_the_wrong_kind_are_one_line_errors(
    tmp_path: Path, body: str, named: str
) -> None:
    """A string where a list belongs would otherwise be read letter by letter."""
    (tmp_path / "manifest.toml").write_text(body, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_manifest(tmp_path, "library")
    assert named in str(err.value) and "manifest.toml" in str(err.value)


def test_a_manifest_that_cannot_be_read_is_a_one_line_error(tmp_path: Path) -> None:
    """A folder named manifest.toml exists but is no file: an OSError, not a traceback."""
    (tmp_path / "manifest.toml").mkdir()
    with pytest.raises(InputError) as err:
        read_manifest(tmp_path, "library")
    message = str(err.value)
    assert "manifest.toml" in message and "cannot read the manifest" in message
    assert "\n" not in message


def test_games_lists_a_book_in_many_files_briefly(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    book = tmp_path / "chapters"
    book.mkdir()
    for n in range(1, 8):
        (book / f"{n:02d}-chapter.md").write_text(
            f"# Chapter {n}\n\nRule text of chapter {n}.\n", encoding="utf-8"
        )
    code, _, err = cli_run("ingest", str(book), "--game", "saga", data_dir=data_dir)
    assert code == 0, err
    code, out, err = cli_run("games", data_dir=data_dir)
    assert code == 0, err
    line = next(ln for ln in out.splitlines() if ln.startswith("saga "))
    assert line.endswith(
        "01-chapter.md, 02-chapter.md, 03-chapter.md, 04-chapter.md, ... "
        "(7 files; --json lists them all)"
    )
    code, out, _ = cli_run("games", "--json", data_dir=data_dir)
    saga = next(g for g in json.loads(out) if g["slug"] == "saga")
    assert len(saga["rulebooks"]) == 7


def test_a_new_game_without_a_name_gets_a_hint_to_name_it(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    _, out = add_small_book(cli_run, data_dir, tmp_path, "--game", "bolt-action")
    assert '--game-name "Bolt Action"' in out
    _, out = add_small_book(
        cli_run, data_dir, tmp_path, "--game", "bolt-action", "--game-name", "Bolt Action"
    )
    assert "--game-name" not in out  # named now
    code, out, err = cli_run("games", data_dir=data_dir)
    assert code == 0, err
    assert "Bolt Action" in out


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("RULESLAWYER_MAX_RULEBOOK_MB", "abc", "RULESLAWYER_MAX_RULEBOOK_MB='abc' is not a number"),
        ("RULESLAWYER_THREADS", "2.5", "RULESLAWYER_THREADS='2.5' is not a whole number"),
        ("RULESLAWYER_SERVE_IDLE", "-1", "must be a number of at least 0"),
    ],
)
def test_a_bad_setting_in_the_environment_is_a_one_line_error(
    cli_run: Run,
    data_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    value: str,
    message: str,
) -> None:
    monkeypatch.setenv(name, value)
    code, _, err = cli_run("games", data_dir=data_dir)
    assert code == 1 and message in one_error_line(err)


def test_a_data_dir_that_cannot_be_a_folder_is_a_one_line_error(
    cli_run: Run, tmp_path: Path
) -> None:
    blocker = tmp_path / "afile"
    blocker.write_text("not a folder", encoding="utf-8")
    book = tmp_path / "fortress.txt"
    book.write_text(SMALL_BOOK, encoding="utf-8")
    code, _, err = cli_run("ingest", str(book), "--game", "fortress", data_dir=blocker / "sub")
    line = one_error_line(err)
    assert code == 1 and "cannot be used: Not a directory" in line and "--data-dir" in line


def test_a_game_name_slipped_by_a_letter_is_suggested(cli_run: Run, data_dir: Path) -> None:
    """A new player's "ironfenn" was told to add a rulebook for a game of that
    name; a slip of a letter in a loaded game's slug or name is suggested."""
    code, _, err = cli_run("rules", "list", "--game", "warmachin", data_dir=data_dir)
    assert code == 1 and "did you mean warmachine?" in err, err
    code, _, err = cli_run("rules", "list", "--game", "gloomhold", data_dir=data_dir)
    assert code == 1 and "add its rulebook with" in err and "did you mean" not in err, err


def test_a_heading_with_no_text_shows_the_rules_under_it_and_ids_never_touch_titles(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """`rules show Movement` over "## Moving", "## Dashing" was "no rule
    Movement", though the chapter is the book's; and a long heading-path ID ran
    into its title in `rules list`."""
    add_markdown(
        cli_run,
        data_dir,
        tmp_path / "raiders.md",
        "# Movement\n\n## Moving\n\nA unit moves 6 inches.\n\n## Dashing\n\nA dash adds 3 inches.\n\n"
        "# Terrain and Armoury\n\n## Special Rules of Very Long Name Indeed\n\n"
        "### Sniper Weapons Fired From Cover\n\nA sniper ignores Light Cover.\n",
        "raiders",
    )
    code, out, err = cli_run("rules", "show", "movement", "--game", "raiders", data_dir=data_dir)
    assert code == 0, err
    assert shown_rules(out, "raiders") == [
        "raiders movement/moving Moving",
        "raiders movement/dashing Dashing",
    ]
    # a term a rule defines still comes first, the heading's rules after it
    add_markdown(
        cli_run,
        data_dir,
        tmp_path / "glossary.md",
        "# Glossary\n\n**Movement:** how far a unit goes in one action.\n",
        "raiders",
    )
    code, out, _ = cli_run("rules", "show", "Movement", "--game", "raiders", data_dir=data_dir)
    shown = shown_rules(out, "raiders")
    assert shown[0].startswith("raiders glossary") and shown[1:] == [
        "raiders movement/moving Moving",
        "raiders movement/dashing Dashing",
    ]
    code, _, err = cli_run("remove", "glossary.md", data_dir=data_dir)
    assert code == 0, err
    code, out, _ = cli_run("rules", "list", "--game", "raiders", data_dir=data_dir)
    rows = out.splitlines()[:-1]
    assert len(rows) == 3
    for row, title in zip(
        rows, ["Moving", "Dashing", "Sniper Weapons Fired From Cover"], strict=True
    ):
        game, rule_id, shown = row.split(maxsplit=2)
        assert (game, shown) == ("raiders", title) and f"{rule_id}  " in row


def test_a_file_added_again_keeps_its_place_and_unchanged_leaves_the_index(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """Adding an unchanged file again built a new index and moved the file, and
    its rules, after the book's later chapters."""
    files = []
    for n, title in enumerate(["Moving", "Shooting", "Morale"], 1):
        f = tmp_path / f"0{n}-{title.lower()}.md"
        f.write_text(
            f"# {title}\n\nThe {title.lower()} rule says what it says.\n", encoding="utf-8"
        )
        files.append(f)
    code, _, err = cli_run("ingest", *map(str, files), "--game", "gloomhold", data_dir=data_dir)
    assert code == 0, err
    before = index_state(data_dir)
    code, out, err = cli_run("ingest", str(files[0]), "--game", "gloomhold", data_dir=data_dir)
    assert code == 0, err
    assert "up to date" in out and index_state(data_dir) == before
    library = read_manifest(data_dir / "rulebooks", "library").rulebooks
    assert [b.file for b in library] == [f.name for f in files]
    # changed, it is read again in its place
    files[0].write_text("# Moving\n\nA unit moves 6 inches.\n", encoding="utf-8")
    code, _, err = cli_run(
        "ingest", str(files[0]), "--game", "gloomhold", "--replace", data_dir=data_dir
    )
    assert code == 0, err
    _, units = rules_json(cli_run, data_dir, "--game", "gloomhold")
    assert [u["title"] for u in units] == ["Moving", "Shooting", "Morale"]
    assert units[0]["text"] == "A unit moves 6 inches."


def test_adding_a_file_again_leaves_one_entry_of_it(tmp_path: Path) -> None:
    """A manifest edited by hand to name a file twice keeps one entry, in the
    first one's place, once the file is added again."""
    from ruleslawyer.ingest.sources import add_to_library

    library = tmp_path / "rulebooks"
    for name in ("a.md", "b.md"):
        add_to_library(library, name, b"# A\n\nText.\n", "gloomhold", extensions=(".md",))
    manifest = library / "manifest.toml"
    manifest.write_text(
        manifest.read_text(encoding="utf-8")
        + '\n[[rulebook]]\nfile = "a.md"\ngame = "gloomhold"\nedition = ""\ntitle = "a"\n',
        encoding="utf-8",
    )
    add_to_library(library, "a.md", b"# A\n\nText.\n", "gloomhold", extensions=(".md",))
    assert [b.file for b in read_manifest(library, "library").rulebooks] == ["a.md", "b.md"]


def test_adding_a_book_to_a_slipped_game_name_is_refused_with_the_game_meant(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """ "--game saltmarch" quietly started a game of its own beside saltmarsh; a
    new game of a name that close is still added when it is named."""
    book = tmp_path / "house.md"
    book.write_text("# House Rules\n\nA unit may move twice.\n", encoding="utf-8")
    code, _, err = cli_run("ingest", str(book), "--game", "warmachin", data_dir=data_dir)
    assert code == 1 and "did you mean --game warmachine?" in one_error_line(err)
    library = read_manifest(data_dir / "rulebooks", "library").rulebooks
    assert "house.md" not in [b.file for b in library]
    code, _, err = cli_run(
        "ingest", str(book), "--game", "warmachin", "--game-name", "Warmachin", data_dir=data_dir
    )
    assert code == 0, err
    # another edition is a game of its own, as players name one
    other = tmp_path / "aos4.md"
    other.write_text("# Battle Tactics\n\nPick one each round.\n", encoding="utf-8")
    code, _, err = cli_run("ingest", str(other), "--game", "aos4", data_dir=data_dir)
    assert code == 0, err


def test_the_numbered_rules_hint_names_each_games_own(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """Asked with no game, the hint ran every game's numbers together."""
    add_markdown(
        cli_run,
        data_dir,
        tmp_path / "corsairs.md",
        "# 1 Ships\n\n## 1.1 Sloops\n\nA sloop is fast.\n",
        "corsairs",
    )
    code, _, err = cli_run("rules", "show", "9.9", data_dir=data_dir)
    line = one_error_line(err)
    assert code == 1
    assert "here: 40k 10, 16, 24, 10.01-10.07" in line and "; corsairs 1, 1.1" in line


def test_the_cli_starts_without_the_heavy_libraries() -> None:
    """Every `ask` pays for what importing the CLI imports. A reader's top-level
    `from bs4 import ...` once put bs4 and lxml (~85 ms) in front of every answer
    and took the first one-shot `ask` over its benchmark target; the readers,
    the models and the page load what they need when they are used."""
    import subprocess
    import sys

    heavy = (
        "bs4", "lxml", "torch", "llama_cpp", "gradio", "pypdfium2", "onnxruntime",
        "sentence_transformers", "transformers", "mammoth", "markdown_it", "bm25s", "numpy",
    )  # fmt: skip
    code = (
        "import sys, ruleslawyer.cli; "
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({heavy!r})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
