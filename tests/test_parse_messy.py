"""The parsers on small hand-made messy inputs: lost titles, navigation junk,
page furniture, duplicates, other layouts, line endings, typography."""

from __future__ import annotations

import pytest

from ruleslawyer.ingest.normalize import find_span, normalize, normalize_with_offsets
from ruleslawyer.ingest.parse import parse_rulebook
from ruleslawyer.ingest.reader import decode_rulebook
from ruleslawyer.ingest.units import ParseResult


def parse(text: str, file: str = "book.txt", game: str = "40k") -> ParseResult:
    result = parse_rulebook(text, file=file, game=game, parent="Test Book")
    assert result.uncovered(text) == [], "text silently dropped"
    return result


def ids(result: ParseResult) -> list[str]:
    return [u.rule_id for u in result.units]


# --- numbered rulebooks --------------------------------------------------------------------------
def test_lost_bracket_title_is_inferred_from_the_body() -> None:
    text = (
        "3.01 Weapons come in many kinds. Each kind is described below.\n"
        "[] 3.02 Each time an attack is made with a [FOO BAR] weapon, add 1 to the hit roll.\n"
        "3.03 Some units can move after shooting.\n"
    )
    result = parse(text)
    assert result.parser == "numbered"
    assert ids(result) == ["3.01", "3.02", "3.03"]
    unit = result.units[1]
    assert unit.title == "[FOO BAR]"
    assert unit.title_source == "body"
    assert unit.title_inferred is True
    assert "3.03" not in unit.text
    # the empty brackets are what is left of the title: in neither rule's quotes,
    # reported as left out
    assert unit.text.startswith("3.02 Each time an attack")
    assert not result.units[0].text.endswith("[]")
    assert [text[s:e] for s, e, why in result.furniture if why == "empty title brackets"] == ["[] "]


def test_printed_titles_before_and_after_the_number() -> None:
    text = (
        "[ANTI] 5.01 Some weapons are banes. Each time an attack is made, it hurts.\n"
        "LEADER 5.02 Heroes lead units. See Attached Units (19).\n"
        "5.03Shoot\nThe active player shoots with their units.\n"
    )
    result = parse(text)
    titles = {u.rule_id: (u.title, u.title_source) for u in result.units}
    assert titles == {
        "5.01": ("[ANTI]", "printed"),
        "5.02": ("Leader", "printed"),
        "5.03": ("Shoot", "printed"),
    }
    assert result.units[1].refs == ("19",)


def test_navigation_fragments_before_the_rules_make_no_units() -> None:
    nav = "3.05\nSomething\n3.02 / X 3.04 Other\n"
    rules = (
        "3.01 Weapons come in many kinds. Each kind is described below.\n"
        "3.02 Units can run. A unit that runs cannot shoot.\n"
        "3.03 Some units can move after shooting.\n"
        "3.04 Models can be removed.\n"
        "3.05 The battle ends after five rounds.\n"
    )
    text = nav + rules
    result = parse(text)
    assert ids(result) == ["3.01", "3.02", "3.03", "3.04", "3.05"]
    assert all(u.source.start >= len(nav) for u in result.units)
    assert result.units[4].text == "3.05 The battle ends after five rounds."
    assert "Something" not in " ".join(u.text for u in result.units)
    # the navigation is accounted for as furniture, not dropped silently
    assert any(s == 0 and e >= len(nav) - 1 for s, e, _ in result.furniture)


def test_flavour_lines_and_page_numbers_are_removed() -> None:
    text = (
        "3.01 Weapons come in many kinds. Each kind is described below.\n"
        "++ THE EMPEROR PROTECTS ++ 12\n"
        "3.02 Units can run. A unit that runs cannot shoot.\n"
        "45\n"
        "3.03 Some units can move after shooting.\n"
    )
    result = parse(text)
    assert ids(result) == ["3.01", "3.02", "3.03"]
    by_id = {u.rule_id: u for u in result.units}
    assert by_id["3.01"].text == "3.01 Weapons come in many kinds. Each kind is described below."
    assert by_id["3.02"].text == "3.02 Units can run. A unit that runs cannot shoot."
    for unit in result.units:
        assert "++" not in unit.text
        assert "EMPEROR" not in unit.search_text
        assert "12" not in unit.text and "45" not in unit.text
    reasons = {why for _, _, why in result.furniture}
    assert {"flavour line", "page number"} <= reasons


def test_duplicate_rule_numbers_give_one_unit_per_id() -> None:
    text = (
        "3.01 Weapons come in many kinds. Each kind is described below.\n"
        "3.02 Units can run. A unit that runs cannot shoot.\n"
        "3.02 Units can also walk. Walking is slow.\n"
        "3.03 Some units can move after shooting.\n"
    )
    result = parse(text)
    assert ids(result) == ["3.01", "3.02", "3.03"]
    # the second copy's words are kept (in some unit), not lost
    assert any("Walking is slow" in u.text for u in result.units)


def test_numbers_out_of_order_do_not_crash() -> None:
    text = "3.03 Third rule text here.\n3.01 First rule text here.\n3.02 Second rule text.\n"
    result = parse(text)
    assert ids(result) == sorted(set(ids(result)))
    assert len(ids(result)) >= 2


# --- ability cards -------------------------------------------------------------------------------
AOS_BLOCKS = """Abilities

Charge

Your Charge Phase

DECLARE: Pick a friendly unit to charge.

EFFECT: Make a charge roll of 2D6.

Fly

Passive

EFFECT: This unit can fly over terrain.

Charge

Your Charge Phase

DECLARE: Pick a friendly unit that has not run.

EFFECT: Make a charge roll of 3D6 instead.

Shoot

Your Shooting Phase

EFFECT: Pick targets and shoot.
"""


def test_repeated_ability_with_different_text_is_kept_twice_with_a_warning() -> None:
    result = parse(AOS_BLOCKS, file="cards.txt", game="aos")
    assert result.parser == "abilities"
    assert len(ids(result)) == len(set(ids(result))) == 4
    charges = [u for u in result.units if u.rule_id.startswith("Charge")]
    assert len(charges) == 2
    assert "2D6" in charges[0].text and "3D6" in charges[1].text
    assert charges[0].rule_id == "Charge"
    assert any("Charge" in w and "cards.txt" in w for w in result.warnings)
    assert result.merged == []


def test_exact_repeat_of_an_ability_is_merged() -> None:
    block = "Fly\n\nPassive\n\nEFFECT: This unit can fly over terrain.\n\n"
    text = (
        "Abilities\n\n"
        + block
        + "Shoot\n\nYour Shooting Phase\n\nEFFECT: Shoot things.\n\n"
        + block
    )
    result = parse(text, game="aos")
    assert ids(result) == ["Fly", "Shoot"]
    assert result.units[0].merged == 1
    assert result.merged == ["Fly"]
    assert result.warnings == []


# --- wiki pages ----------------------------------------------------------------------------------
WIKI = """Category:Test

Some Page (Edit)

\u2022 Section (Edit)

  1. First ruling applies here.
  2. Second ruling applies too.
     \u2022 A sub-bullet that belongs to the second ruling.
  3. Third ruling is last.
  \u2022 A note after the list.
  \u2022 Another note after the list.
"""


def test_wiki_sections_numbered_items_and_notes() -> None:
    result = parse(WIKI, file="wiki.txt", game="warmachine")
    assert result.parser == "wiki"
    assert ids(result) == [
        "Section 1",
        "Section 2",
        "Section 3",
        "Section note 1",
        "Section note 2",
    ]
    by_id = {u.rule_id: u for u in result.units}
    assert by_id["Section 1"].text == "1. First ruling applies here."
    assert "sub-bullet" in by_id["Section 2"].text
    assert "sub-bullet" not in by_id["Section 3"].text
    assert by_id["Section note 1"].text.endswith("A note after the list.")
    assert all(u.parent == "Some Page: Section" for u in result.units)
    assert not any("Category" in u.text or "(Edit)" in u.text for u in result.units)


# --- no structure at all -------------------------------------------------------------------------
def test_plain_prose_falls_back_to_plain_sections_with_a_warning() -> None:
    text = (
        "This is just some prose about the game. It has no rule numbers at all.\n\n"
        "Players take turns moving their models around the table and rolling dice.\n"
    )
    result = parse(text, file="house_rules.txt")
    assert result.parser == "plain"
    assert ids(result) == ["house_rules §1"]
    assert "rolling dice" in result.units[0].text
    assert len(result.warnings) == 1
    assert "house_rules.txt" in result.warnings[0]


def test_long_plain_prose_is_split_into_numbered_sections() -> None:
    para = "Models move and shoot and fight in the dark of the far future. " * 12
    text = "\n\n".join([para.strip()] * 6) + "\n"
    result = parse(text, file="long.txt")
    assert result.parser == "plain"
    assert len(result.units) >= 2
    assert ids(result) == [f"long §{n}" for n in range(1, len(result.units) + 1)]


# --- typed rulebooks: headings as lines of their own ---------------------------------------------
def read_text(text: str, name: str = "book.txt") -> ParseResult:
    from ruleslawyer.ingest import formats
    from ruleslawyer.ingest.formats import ReadRequest

    data = text.encode("utf-8")
    return formats.detect(name, data).read(data, ReadRequest(name=name, game="g"))


RATS = (
    "Space Rats Rules\n\n"
    "1.1 Scurrying\nA rat may move 4 squares.\n\n"
    "1.2 Gnawing\nA rat may gnaw through a door in one turn.\n\n"
    "2 Fighting\n\n"
    "2.1 Swarming\nThree rats adjacent to one enemy form a swarm.\n"
)


def test_numbered_heading_lines_are_rules_with_their_numbers() -> None:
    """ "1.1 Scurrying" on a line of its own is a rule numbered 1.1, as in a PDF or
    Markdown file (it was one plain section: the numbered parser wants 40k's 24.21)."""
    result = read_text(RATS)
    assert result.parser == "heading lines"
    assert [(u.rule_id, u.title) for u in result.units] == [
        ("1.1", "Scurrying"),
        ("1.2", "Gnawing"),
        ("2.1", "Swarming"),
    ]
    assert result.units[2].parent == "Fighting"
    assert "gnaw through a door" in result.units[1].text and not result.warnings


def test_headings_in_capitals_and_numbered_chapters_are_not_wiki_rulings() -> None:
    """Four "1. SETUP" lines looked like a wiki page's numbered rulings to it, and
    gave rule IDs no book prints ("FROST KNIGHTS HOUSE RULES 3")."""
    frost = "FROST KNIGHTS HOUSE RULES\n\n" + "".join(
        f"{n}. {name}\n{body}\n\n"
        for n, name, body in [
            (1, "SETUP", "Each player places three ice pillars."),
            (2, "ACTIVATIONS", "Players alternate activating one knight at a time."),
            (3, "FREEZING", "A knight touching an ice pillar becomes frozen."),
            (4, "SHATTER", "A knight may shatter an adjacent pillar."),
        ]
    )
    result = read_text(frost)
    assert result.parser == "heading lines"
    assert [u.title for u in result.units] == ["SETUP", "ACTIVATIONS", "FREEZING", "SHATTER"]
    assert not any("FROST" in u.rule_id for u in result.units)
    cards = "SETUP\n\nEach player takes 5 cards.\n\nTURNS\n\nDraw one card.\n\nWINNING\n\nNo cards wins.\n"
    assert [u.title for u in read_text(cards).units] == ["SETUP", "TURNS", "WINNING"]


def test_sentences_and_a_lone_number_line_do_not_split_a_book() -> None:
    """Rulings that are sentences stay a wiki's; two heading-like lines are too few."""
    wiki = "".join(f"{n}. A warjack cannot charge after rule {n} applies.\n" for n in range(1, 6))
    assert read_text(wiki).parser == "wiki"
    prose = "Setup takes a while.\n\n2 players\n\nEach player rolls a die. Then play.\n"
    assert read_text(prose).parser == "plain"


EMBERS = (
    "EMBERS\n\nA game of small fights.\n\n"
    "WHAT YOU NEED\n-------------\n* Ten-sided dice\n* A tape measure marked in\n  inches\n\n"
    "1. THE BASICS\n=============\n\n"
    "1.1 Dice\nAll rolls use ten-sided dice. A natural 10 always succeeds.\n\n"
    "1.2 Measuring\nPlayers may measure at any time, including before declar-\n"
    "ing a shot.\n\n-- page 2 --\n\n"
    "2.1 Hunkering Down\nA model may spend its whole activation hunkering down.\n\f\n"
    "MOVEMENT\n========\n\n"
    "Moving\n------\nModels move up to 6 inches. An enemy declares its charge first.\n\n"
    "Climbing\n--------\nModels may climb up to 3 inches.\n\n-- page 3 --\n\n"
    "UNIT PROFILES\n=============\n\nEach warband takes at most one Brute.\n\n"
    "Type     | Speed | Wounds\n---------+-------+-------\nBrute    | 4     | 2\n"
    "Hound    | 7     | 1\n\n"
    "SCENARIO\n========\n\n"
    "DEPLOYMENT\nPlace three wells along the centre line.\n\n"
    "GAME LENGTH\nThe game lasts six rounds.\n\n-- page 4 --\n"
)


def test_underlined_headings_of_typed_text_are_read_as_headings() -> None:
    """A plain-text book underlining its headings ("====" under a chapter, "----"
    under a section) went to the Markdown reader, where a page break's form feed
    is no blank line: "2.1 Hunkering Down" and the chapter title after it became
    one heading and the rule was gone; numbered sections took the title of the
    last underlined heading before them ("1.1 WHAT YOU NEED"), and caps headings
    set over their text were one rule with the chapter. Read as typed text."""
    result = read_text(EMBERS)
    assert result.parser == "heading lines"
    got = {u.rule_id: u for u in result.units}
    assert [(u.rule_id, u.title, u.parent) for u in result.units] == [
        ("embers", "EMBERS", ""),
        ("embers/what-you-need", "WHAT YOU NEED", "EMBERS"),
        ("1.1", "Dice", "THE BASICS"),
        ("1.2", "Measuring", "THE BASICS"),
        ("2.1", "Hunkering Down", "THE BASICS"),
        ("movement/moving", "Moving", "MOVEMENT"),
        ("movement/climbing", "Climbing", "MOVEMENT"),
        ("unit-profiles", "UNIT PROFILES", ""),
        ("scenario/deployment", "DEPLOYMENT", "SCENARIO"),
        ("scenario/game-length", "GAME LENGTH", "SCENARIO"),
    ]
    assert got["2.1"].text == "A model may spend its whole activation hunkering down."
    # a word broken over a line is one again where the book writes words it starts
    # ("declares"); the page numbers go, a list keeps its items, a table its rows
    assert "before declaring a shot." in got["1.2"].text
    assert not any("page" in u.text for u in result.units)
    assert got["embers/what-you-need"].text == "* Ten-sided dice\n* A tape measure marked in inches"
    assert "Type | Speed | Wounds\nBrute | 4 | 2\nHound | 7 | 1" in got["unit-profiles"].text
    # --format text reads it the same way: the text reader keeps it
    from ruleslawyer.ingest import formats
    from ruleslawyer.ingest.formats import ReadRequest

    data = EMBERS.encode("utf-8")
    forced = formats.detect("book.md", data, "text").read(
        data, ReadRequest(name="book.md", game="g")
    )
    assert [u.rule_id for u in forced.units] == [u.rule_id for u in result.units]


def test_typed_text_look_alikes_of_headings_stay_text() -> None:
    """A review of the underlined headings: numbered steps in a list ("1) Roll
    off" over "2) ...") were taken for headings and their sections lost; a
    table's header between two dashed rules, its columns lined up, became a
    rule; "MISSION 1".."MISSION 4" in a "MISSION PACK" were dropped as page
    footers (any words of the book's first line counted as its name)."""
    steps = (
        "Quickfire Rules\n===============\n\nThese rules get you playing.\n\n"
        "Turn Sequence\n-------------\n\nEach turn is played in this order:\n\n"
        "1) Movement phase\n2) Shooting phase\n3) Morale phase\n\n"
        "A player finishes each phase first.\n\n"
        "Deployment\n----------\n\n1) Roll off\n2) The winner picks a table edge\n\n"
        "Morale\n------\n\nRoll a die for each unit.\n"
    )
    units = {u.title: u for u in read_text(steps).units}
    assert list(units) == ["Quickfire Rules", "Turn Sequence", "Deployment", "Morale"]
    assert "1) Movement phase\n2) Shooting phase\n3) Morale phase" in units["Turn Sequence"].text
    assert units["Deployment"].parent == "Quickfire Rules"
    table = (
        "WEAPONS\n\nEach ranger carries one weapon.\n\n"
        "-------------------------\nWeapon   Range   Strength\n-------------------------\n"
        "Musket   24      4\nBow      18      3\n\n"
        "ARMOUR\n\nArmour saves on a 5+.\n\nMORALE\n\nRoll two dice.\n"
    )
    assert [u.title for u in read_text(table).units] == ["WEAPONS", "ARMOUR", "MORALE"]
    pack = "MISSION PACK\n\n" + "".join(
        f"MISSION {n}\n\n"
        + "".join(f"Line {k} of mission {n}, a rule.\n" for k in range(12))
        + "\n"
        for n in range(1, 5)
    )
    assert [u.title for u in read_text(pack).units] == [f"MISSION {n}" for n in range(1, 5)]


def test_a_lone_line_in_capitals_over_its_paragraph_stays_in_its_rule() -> None:
    """ "DEPLOYMENT" and "GAME LENGTH" side by side under a scenario are its
    sections; a lone "EXAMPLE" over a paragraph of a rule is part of the rule."""
    book = (
        "1.1 Moving\nA model moves 4 inches.\n\nEXAMPLE\nA model with M 4 may move 4 inches.\n\n"
        "1.2 Shooting\nRoll to hit.\n\n1.3 Fighting\nRoll to hit in melee.\n"
    )
    units = {u.title: u for u in read_text(book).units}
    assert list(units) == ["Moving", "Shooting", "Fighting"]
    assert (
        units["Moving"].text
        == "A model moves 4 inches.\nEXAMPLE A model with M 4 may move 4 inches."
    )


def test_underlined_markdown_with_its_own_marks_goes_to_the_markdown_reader() -> None:
    """Underlined headings with "#" subsections, bold or links are Markdown's:
    read by its reader (a "### 3.1" line was quoted with its marks)."""
    md = (
        "Gunnery\n=======\n\nGuns and Firing\n---------------\n\nShips fire **broadsides**.\n\n"
        "### 3.1 Arcs of Fire\n\nEach gun fires abeam.\n\nDamage\n------\n\nA hit is a hit.\n"
    )
    result = read_text(md)
    assert result.parser == "markdown"
    assert [(u.rule_id, u.title) for u in result.units][-2:] == [
        ("3.1", "Arcs of Fire"),
        ("gunnery/damage", "Damage"),
    ]
    assert "Ships fire broadsides." in result.units[0].text


def test_one_markdown_look_alike_leaves_typed_text_to_the_text_reader() -> None:
    """A "# of Brutes" line, a "*****" divider or a "______" blank is one mark
    that looks like Markdown's: a typed book with one stays typed text (it went
    to the Markdown reader and lost the rule before a page break again), and an
    underlined heading with a double space is still one."""
    for extra in (
        "# of Brutes allowed: 1\n# of Hounds allowed: 2\n\n",
        "*****\n\n",
        "Name: ______\n\n",
    ):
        book = EMBERS.replace("A game of small fights.\n\n", "A game of small fights.\n\n" + extra)
        result = read_text(book)
        assert result.parser == "heading lines", extra
        assert "2.1" in {u.rule_id for u in result.units}, extra
    # a two-column table's header between two rules is no heading
    table = (
        "INJURIES\n\nRoll on the table below.\n\n"
        "-------------\nRoll    Result\n-------------\n1-2     Dead\n3-6     Fine\n\n"
    )
    units = read_text(table + "MORALE\n\nRoll two dice.\n\nARMOUR\n\nSave on 5.\n").units
    assert [u.title for u in units] == ["INJURIES", "MORALE", "ARMOUR"]
    book = "Chapter 1  The Basics\n=====================\n\n" + RATS
    assert read_text(book).units[0].title == "The Basics"  # "Chapter 1" is its number


def test_a_forum_post_with_one_numbered_list_keeps_all_its_sections() -> None:
    """A review: a post with underlined headings and one numbered list went to the
    wiki-rulings parser, which kept the list's items and left the other sections'
    rules in no unit (a warning only). A reading that keeps all the text wins."""
    post = (
        "Re: Quick reference\n\nHere is our cheat sheet.\n\n"
        "TURN SEQUENCE\n-------------\n\n1. Initiative: roll a D6.\n2. Movement: move.\n"
        "3. Shooting: shoot.\n4. Combat: fight.\n\n"
        "MOVEMENT\n--------\n\nDifficult terrain halves movement.\n\n"
        "COMBAT\n------\n\nRoll a D6 per attack.\n"
    )
    result = read_text(post)
    assert result.parser == "heading lines" and not result.warnings
    units = {u.title: u for u in result.units}
    assert "Difficult terrain halves movement." in units["MOVEMENT"].text
    assert units["TURN SEQUENCE"].text.startswith("1. Initiative: roll a D6.\n2. Movement: move.")


def test_hash_headings_in_a_text_file_still_go_to_the_markdown_reader() -> None:
    md = "".join(f"# Part {n}\n\nText of part {n}.\n\n" for n in range(1, 4))
    result = read_text(md)
    assert result.format == "markdown"
    assert [u.title for u in result.units] == ["Part 1", "Part 2", "Part 3"]


def test_a_broken_word_piece_that_is_a_word_keeps_its_hyphen() -> None:
    """ "well-" + "known": "well" is a word of the book, so the break may be a
    compound's; only a piece that is no word is joined to the rest."""
    book = RATS + "\n3 Notes\n\n3.1 Wells\nA well is well-\nknown to rats.\n"
    unit = next(u for u in read_text(book).units if u.rule_id == "3.1")
    assert unit.text == "A well is well- known to rats."
    # a piece of three letters is as often a prefix: "pre-" + "measure" stays apart
    book = RATS + "\n3 Notes\n\n3.1 Range\nRats may pre-\nmeasure; preparing is fine.\n"
    unit = next(u for u in read_text(book).units if u.rule_id == "3.1")
    assert unit.text == "Rats may pre- measure; preparing is fine."


# --- line endings, BOM, typography ---------------------------------------------------------------
def test_windows_line_endings_and_bom_are_handled() -> None:
    raw = (
        "\ufeff3.01 Weapons come in many kinds. Each kind is described below.\r\n"
        "3.02 Units can run. A unit that runs cannot shoot.\r\n"
        "3.03 Some units can move after shooting.\r\n"
    ).encode("utf-8")
    text = decode_rulebook(raw, "crlf.txt")
    assert "\r" not in text
    assert not text.startswith("\ufeff")
    result = parse(text, file="crlf.txt")
    assert ids(result) == ["3.01", "3.02", "3.03"]
    assert result.units[0].source.start == 0
    assert result.units[0].text.startswith("3.01 Weapons")


def test_normalize_maps_pdf_typography_to_ascii() -> None:
    original = "\u201cClose\u2011Quarters\u201d weapons \u2013 can\u2019t  be\u00a0used"
    assert normalize(original) == '"Close-Quarters" weapons - can\'t be used'
    norm, offsets = normalize_with_offsets(original)
    assert norm == normalize(original)
    assert len(offsets) == len(norm)
    assert offsets == sorted(offsets)


@pytest.mark.parametrize(
    "needle",
    ['"close-quarters" weapons', "CAN'T BE USED", "Close-Quarters\"  weapons - can't"],
)
def test_find_span_round_trips_to_the_original_characters(needle: str) -> None:
    haystack = "Intro. \u201cClose\u2011Quarters\u201d weapons \u2013 can\u2019t  be\nused here."
    span = find_span(haystack, needle)
    assert span is not None
    start, end = span
    quoted = haystack[start:end]
    assert normalize(quoted).lower() == normalize(needle).lower()
    # the verbatim quote keeps the book's typography
    assert "\u2011" in quoted or "\u2019" in quoted


def test_find_span_misses_absent_text() -> None:
    assert find_span("Close\u2011Quarters weapons", "Heavy weapons") is None
    assert find_span("anything", "   ") is None


def test_a_heading_the_contents_list_is_a_heading_unnumbered() -> None:
    """A comprehensive-rules book typed as text: its contents list the numbered
    chapters and then "Glossary", which stands alone again after the last
    rule. Not numbered and not in capitals, it was read as the last rule's
    text, and every glossary entry was quoted as rule 801.8. The contents'
    own lines are left out, as the other readers leave them."""
    chapters = [("1. Concepts", "100. General", "100.1. Every game has two players.\n\n"
                 "100.2. Each player needs a deck.\n\n100.3. These rules change."),
                ("8. Multiplayer", "801. Tandem", "801.7. Teammates may talk.\n\n"
                 "801.8. Drowned counters go on players.")]  # fmt: skip
    contents = "".join(f"{chapter}\n\n{section}\n\n" for chapter, section, _ in chapters)
    body = "".join(f"{c}\n\n{s}\n\n{rule}\n\n" for c, s, rule in chapters)
    glossary = "Glossary\n\nActive Player\nThe player whose turn it is.\n"
    book = f"Hollow Rules\n\nContents\n\n{contents}Glossary\n\n{body}{glossary}"
    result = read_text(book)
    units = {u.rule_id: u for u in result.units}
    # the contents are left out, and said so (their last line was the text
    # of a rule "Tandem" of its own)
    got = [u.rule_id for u in result.units]
    assert got == ["book", "100.1", "100.2", "100.3", "801.7", "801.8", "glossary"]
    assert result.dropped["table of contents lines"] == 5
    assert units["801.8"].text == "Drowned counters go on players."
    assert units["glossary"].title == "Glossary"
    assert units["glossary"].text == "Active Player The player whose turn it is."
    # a line standing alone twice, but listed in no contents, stays text
    plain = book.replace("Contents\n\n" + contents + "Glossary\n\n", "")
    plain = plain.replace("100.1. Every", "Glossary\n\n100.1. Every")
    assert "glossary" not in {u.rule_id for u in read_text(plain).units}
