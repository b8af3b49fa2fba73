"""Every registered rulebook format produces the same kind of rule units.

One contract, parametrised over ``formats.formats()``: a format added to the
registry without a fixture here fails the test, so no reader escapes it.
The Markdown set and the HTML page of Brass & Bayonet are also held to the
hand-written ``tests/fixtures/rulebooks/expected.json``.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from docx_build import (
    STYLES,
    TOC_STYLES,
    bookmarked_heading,
    broken_para,
    contents_field,
    docx,
    list_item,
    markdown_docx,
    multilevel_list,
    numbered_style,
    para,
    style,
    table,
    text_box,
)
from markdown_it import MarkdownIt
from odt_build import markdown_odt
from odt_build import odt as odt_document
from odt_build import table as odt_table
from test_pdf_reader import Book, book_pdf

from ruleslawyer.ingest.formats import ReadRequest, detect, formats
from ruleslawyer.ingest.pipeline import parse_file
from ruleslawyer.ingest.sources import slugify
from ruleslawyer.ingest.units import ParseResult
from ruleslawyer.records import RuleUnit
from ruleslawyer.settings import PROJECT_ROOT

FIXTURES = PROJECT_ROOT / "tests" / "fixtures" / "rulebooks"
EXPECTED = json.loads((FIXTURES / "expected.json").read_text(encoding="utf-8"))
BB = EXPECTED["game"]  # "brass-and-bayonet"
MARKDOWN = sorted((FIXTURES / "markdown").glob("0*.md"))
HTML_PAGE = FIXTURES / "html" / "brass-and-bayonet.html"
SEED_40K = PROJECT_ROOT / "seeds" / "40k-actions.txt"

# Every kind a parser gives (ingest.numbered, abilities, wiki, plain, outline).
KINDS = {"rule", "ability", "ruling", "faq", "appendix", "section", "example"}
# Formats whose units come from headings (ingest.outline): titled, with a breadcrumb.
HEADING_FORMATS = {"markdown", "html", "pdf", "docx", "odt"}
# Markup that must never reach a unit's text.
MARKUP = [
    (re.compile(r"<[A-Za-z/!][^<>]*>"), "an HTML tag"),
    (re.compile(r"\*\*"), "Markdown bold"),
    (re.compile(r"\|\s*:?-{3,}"), "a Markdown table rule"),
    (re.compile(r"\]\("), "Markdown link syntax"),
    (re.compile(r"^#{1,6}\s", re.M), "a Markdown heading mark"),
    (re.compile("\x00"), "a NUL byte"),
]
_DOTTED_ID = re.compile(r"^\d{1,3}(?:\.\d{1,3})+$")

Loader = Callable[[], bytes]


def _pdf_bytes() -> bytes:
    return book_pdf()[0]


def _docx_bytes() -> bytes:
    """Brass & Bayonet's Markdown set as one Word document, in Word's own styles."""
    return markdown_docx("\n\n".join(p.read_text(encoding="utf-8") for p in MARKDOWN))


def _odt_bytes() -> bytes:
    """Brass & Bayonet's Markdown set as one LibreOffice document."""
    return markdown_odt("\n\n".join(p.read_text(encoding="utf-8") for p in MARKDOWN))


# format name -> [(file name, loader, game)]
CASES: dict[str, list[tuple[str, Loader, str]]] = {
    "text": [(SEED_40K.name, SEED_40K.read_bytes, "40k")],
    "markdown": [(p.name, p.read_bytes, BB) for p in MARKDOWN],
    "html": [(HTML_PAGE.name, HTML_PAGE.read_bytes, BB)],
    "pdf": [("brass-and-bayonet.pdf", _pdf_bytes, BB)],
    "docx": [("brass-and-bayonet.docx", _docx_bytes, BB)],
    "odt": [("brass-and-bayonet.odt", _odt_bytes, BB)],
}


def _params() -> list:
    params = []
    for fmt in formats():
        cases = CASES.get(fmt.name) or [(f"<no fixture for {fmt.name}>", lambda: b"", "")]
        for name, loader, game in cases:
            params.append(pytest.param(fmt.name, name, loader, game, id=f"{fmt.name}-{name}"))
    return params


def _document_text(fmt: str, data: bytes) -> str:
    """The words of the file as a reader sees them, to check breadcrumbs against."""
    if fmt == "pdf":
        import pypdfium2 as pdfium

        doc = pdfium.PdfDocument(data)
        try:
            return "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
        finally:
            doc.close()
    if fmt == "docx":
        import mammoth

        return str(mammoth.extract_raw_text(io.BytesIO(data)).value)
    if fmt == "odt":
        from odf import teletype
        from odf.opendocument import load

        return str(teletype.extractText(load(io.BytesIO(data)).text))
    return html.unescape(data.decode("utf-8"))


def test_every_registered_format_has_a_fixture() -> None:
    names = [f.name for f in formats()]
    assert set(names) >= {"text", "markdown", "html", "pdf", "docx", "odt"}
    assert set(names) <= set(CASES), f"add a fixture for {set(names) - set(CASES)}"
    # the Sources table names each by its label: a new format brings its own
    assert all(f.label for f in formats())
    assert all(CASES[n] for n in names)
    assert len(MARKDOWN) == 5
    # each reader module is named as its format: the CLI lists the formats by
    # their modules' names without importing every reader
    from ruleslawyer.ingest import formats as registry

    assert registry.names() == sorted(names)


def test_every_reader_package_is_installed() -> None:
    """A reader split into a package (``pdf/``, ``html/``) is listed in
    pyproject's packages: an editable install finds it anyway, a wheel
    would ship without it and no PDF would be read."""
    import tomllib

    setuptools = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"
    ]["setuptools"]
    formats_dir = PROJECT_ROOT / "ingest" / "formats"
    packages = sorted(p.parent.name for p in formats_dir.glob("*/__init__.py"))
    assert {"pdf", "html"} <= set(packages)
    for name in packages:
        dotted = f"ruleslawyer.ingest.formats.{name}"
        assert dotted in setuptools["packages"], f"add {dotted!r} to pyproject's packages"
        assert setuptools["package-dir"].get(dotted) == f"ingest/formats/{name}"


@pytest.mark.parametrize(("fmt_name", "name", "loader", "game"), _params())
def test_format_contract(fmt_name: str, name: str, loader: Loader, game: str) -> None:
    assert fmt_name in CASES, f"no fixture for the {fmt_name} format"
    data = loader()
    assert data

    # detect picks this format from the file's name and content
    fmt = detect(name, data)
    assert fmt.name == fmt_name
    request = ReadRequest(name, game)
    result = fmt.read(data, request)
    units = result.units
    assert units, f"{name}: no units"

    ids = [u.rule_id for u in units]
    assert all(ids)
    assert len(set(ids)) == len(ids), [i for i in ids if ids.count(i) > 1]
    heading_format = fmt_name in HEADING_FORMATS
    words = _document_text(fmt_name, data) if heading_format else ""
    for u in units:
        where = f"{name} {u.rule_id}"
        assert u.game == game, where
        assert u.source.file == name, where
        assert u.text.strip(), where
        assert u.text == u.text.strip(), where
        for pattern, what in MARKUP:
            assert not pattern.search(u.text), f"{where}: {what} left in {u.text[:200]!r}"
        assert u.search_text.strip(), where
        assert u.kind in KINDS, where
        if fmt_name == "pdf":
            assert isinstance(u.source.page, int) and u.source.page >= 1, where
        else:
            assert u.source.page is None, where
        if heading_format:
            assert u.title.strip(), where
            _check_breadcrumb(u, words, where)

    # reading is deterministic
    assert fmt.read(data, request).units == units

    # --format (or the manifest's format) wins over name and content
    assert detect(name, data, "text").name == "text"
    assert detect(name, data, fmt_name.upper()).name == fmt_name
    assert detect(name, data, "auto").name == fmt_name


def _check_breadcrumb(u: RuleUnit, words: str, where: str) -> None:
    if not u.parent:
        return
    parts = u.parent.split(" > ")
    for part in parts:
        assert part and part == part.strip() and ">" not in part, f"{where}: {u.parent!r}"
        assert part in words, f"{where}: breadcrumb title {part!r} is no heading of the file"
    if not _DOTTED_ID.match(u.rule_id):
        # a heading's slug ID is the slug of its heading path
        path = "/".join(slugify(t) for t in [*parts, u.title] if slugify(t))
        assert u.rule_id == path, where


# --- the hand-written expectations ------------------------------------------------------------
def _expected(fmt_name: str) -> list[dict]:
    units = []
    for e in EXPECTED["units"]:
        e = dict(e)
        if fmt_name == "html":
            e.update(e.get("html", {}))
            e["file"] = HTML_PAGE.name
        units.append(e)
    return units


def _read_set(fmt_name: str) -> list[RuleUnit]:
    paths = MARKDOWN if fmt_name == "markdown" else [HTML_PAGE]
    units: list[RuleUnit] = []
    for p in paths:
        result = parse_file(p.name, p.read_bytes(), game=BB)
        assert result.format == fmt_name
        units.extend(result.units)
    return units


@pytest.mark.parametrize("fmt_name", ["markdown", "html"])
def test_matches_expected_json(fmt_name: str) -> None:
    expected = _expected(fmt_name)
    units = _read_set(fmt_name)
    assert len(expected) == 45
    got = [(u.source.file, u.rule_id, u.title, u.parent) for u in units]
    assert got == [(e["file"], e["rule_id"], e["title"], e["parent"]) for e in expected]
    checked = 0
    for u, e in zip(units, expected, strict=True):
        assert u.game == BB
        for snippet in e["contains"]:
            assert snippet in u.text, (u.rule_id, snippet)
            checked += 1
        for snippet in e["not_contains"]:
            assert snippet not in u.text, (u.rule_id, snippet)
            checked += 1
    assert checked > 500


def test_markdown_and_html_agree() -> None:
    md = {u.rule_id: u for u in _read_set("markdown")}
    page = {u.rule_id: u for u in _read_set("html")}
    overridden = {e["rule_id"] for e in EXPECTED["units"] if "html" in e}
    assert overridden == {"brass-bayonet-core-rules"}
    shared = set(md) - overridden
    assert shared == set(page) - {"brass-and-bayonet"}
    for rule_id in sorted(shared):
        assert (md[rule_id].title, md[rule_id].parent) == (
            page[rule_id].title,
            page[rule_id].parent,
        ), rule_id


def test_raw_html_in_markdown_is_read_as_html() -> None:
    """Wiki exports mix raw HTML into Markdown: an <h3> opens its section as ### does,
    and an HTML table keeps its rows; a lone anchor or comment leaves no text."""
    data = (
        b"# Movement\n\nA model moves up to its Pace in inches.\n\n"
        b'<a name="jump"></a>\n\n<!-- TODO: art -->\n\n'
        b"<h3>Jumping</h3>\n\nA model may jump a gap of up to 2 inches.\n\n"
        b"<table><tr><th>Terrain</th><th>Cost</th></tr><tr><td>Mud</td><td>3</td></tr></table>\n\n"
        b"## Climbing\n\nClimbing costs double movement.\n\n"
        b'<nav><a href="/">Home</a></nav>\n\n'
        b"Roll <b>2d6</b> and add<br>your bonus.\n"
    )
    result = parse_file("moves.md", data, game=BB)
    units = {u.rule_id: u for u in result.units}
    assert list(units) == ["movement", "movement/jumping", "movement/climbing"]
    assert units["movement/climbing"].text.splitlines() == [
        "Climbing costs double movement.",
        "Roll 2d6 and add",
        "your bonus.",
    ]
    assert result.dropped["navigation, headers and footers"] == 1
    assert units["movement/jumping"].parent == "Movement"
    assert units["movement/jumping"].text.splitlines() == [
        "A model may jump a gap of up to 2 inches.",
        "Terrain | Cost",
        "Mud | 3",
    ]
    assert "jump" not in units["movement"].text.lower()


# --- choosing the format ------------------------------------------------------------------------
def test_markdown_in_a_txt_file_is_read_as_markdown() -> None:
    """A .txt is the text parsers' first; with no text layout and Markdown headings,
    the Markdown reader takes it (a glance at '#' lines is no proof of Markdown)."""
    data = (FIXTURES / "markdown" / "02-movement.md").read_bytes()
    assert detect("rules.txt", data).name == "text"
    result = parse_file("rules.txt", data, game=BB)
    assert result.format == "markdown"
    assert [u.rule_id for u in result.units][:3] == ["movement", "2.1", "2.2"]
    assert all("#" not in u.text for u in result.units)


def test_numbered_text_with_hash_lines_stays_text() -> None:
    """Pasted text whose banner lines start with '#' keeps its numbered rules."""
    data = (
        b"# Fortress Rules\n# (c) 2024 the club\n# version 2\n\n"
        b"01.01 Move\nA unit moves up to its Move characteristic in inches.\n"
        b"01.02 Shoot\nA unit that moved cannot shoot this turn.\n"
    )
    result = parse_file("fortress.txt", data, game=BB)
    assert result.format == "text"
    assert [u.rule_id for u in result.units if u.kind == "rule"] == ["01.01", "01.02"]


def test_html_document_in_a_txt_file_is_read_as_html() -> None:
    data = HTML_PAGE.read_bytes()
    assert data.lstrip().lower().startswith(b"<!doctype html")
    assert detect("page.txt", data).name == "html"
    result = parse_file("page.txt", data, game=BB)
    assert result.format == "html"
    assert {u.rule_id for u in result.units} >= {"basics/dice", "4.1", "units/officers/captain"}


def test_pdf_in_an_md_file_is_read_as_pdf() -> None:
    data = _pdf_bytes()
    assert data.startswith(b"%PDF-")
    assert detect("book.md", data).name == "pdf"
    result = parse_file("book.md", data, game=BB)
    assert result.format == "pdf"
    assert [u.rule_id for u in result.units][:2] == ["basics", "1.1"]


def test_text_that_mentions_a_tag_stays_text() -> None:
    data = b"<b>Note</b>: these rules use D6.\n\n55.01 A model may move 6 inches.\n"
    assert detect("rules.txt", data).name == "text"
    assert detect("notes", b"# Notes\n\nOne heading is not Markdown enough.\n").name == "text"


def test_markdown_that_mentions_the_pdf_signature_stays_markdown() -> None:
    data = (
        b"# Printing\n\nA printable copy starts with %PDF-1.7 and is on the website.\n\n"
        b"## Sizes\n\nPrint at A4 or Letter.\n\n## Colours\n\nBlack and white is fine.\n"
    )
    assert detect("printing.md", data).name == "markdown"
    assert [u.rule_id for u in parse_file("printing.md", data, game=BB).units] == [
        "printing",
        "printing/sizes",
        "printing/colours",
    ]


def test_a_markdown_footnote_goes_with_the_rule_that_refers_to_it() -> None:
    """Footnote texts sit at the end of the file: read as paragraphs, every one
    landed in the last rule, whatever rule referred to it."""
    md = (
        "# Shooting\n\nRoll a die per model.[^cover]\n\n"
        "| Range | Hit |\n|---|---|\n| Short[^s] | 3+ |\n| Long | 5+ |\n\n"
        "# Morale\n\nTest when half the unit is lost.\n\n"
        "[^cover]: Models in cover add 1 to the roll.\n"
        "[^s]: Short range is up to 12 inches.\n"
        "[^thanks]: Thanks to the playtesters,\n    and to the club.\n"
    )
    by_id = {u.rule_id: u.text for u in parse_file("r.md", md.encode(), game="x").units}
    assert by_id["shooting"].split("\n") == [
        "Roll a die per model.[cover]",
        "[cover] Models in cover add 1 to the roll.",
        "Range | Hit",  # a note inside the table would split its rows
        "Short[s] | 3+",
        "Long | 5+",
        "[s] Short range is up to 12 inches.",
    ]
    # one nothing refers to stays at the end, its text kept
    assert by_id["morale"].split("\n") == [
        "Test when half the unit is lost.",
        "[thanks] Thanks to the playtesters, and to the club.",
    ]


def test_a_pandoc_inline_footnote_goes_with_its_rule() -> None:
    """Pandoc writes a note inline, "text.^[note]", with no label: the reader
    asked for the label and the whole file was refused with an internal
    error. It is numbered by its place among the notes, as Pandoc prints it."""
    md = (
        '# Ambush\n\nSquads with Ambush deploy 9" away.^[Not within 9" of an objective.]\n\n'
        '# Cover\n\nCover adds 1.[^c] Ruins count.^[Only ruins taller than 2".]\n\n'
        "[^c]: Only to saves.\n"
    )
    by_id = {u.rule_id: u.text for u in parse_file("r.md", md.encode(), game="x").units}
    assert by_id == {
        "ambush": 'Squads with Ambush deploy 9" away.[1]\n[1] Not within 9" of an objective.',
        "cover": 'Cover adds 1.[c] Ruins count.[3]\n[c] Only to saves.\n[3] Only ruins taller than 2".',
    }


def test_a_pandoc_grid_table_is_a_table() -> None:
    """Pandoc's grid tables (the one kind that holds a cell over several
    lines) were one line of border soup, "+------+ | Weapon | Range |...",
    and an answer quoted it. Read by docutils' parser of the same tables:
    one row per line, a wrapped cell joined, a cell spanning two columns
    followed by an empty one, alignment colons allowed, one in a list item
    kept in it; one in a code block, fenced or indented, is code, and one
    whose borders do not line up stays as written."""
    md = (
        "# Weapons\n\nEvery weapon:\n\n"
        "+------------+-------+------------------------+\n"
        "| Weapon     | Range | Special                |\n"
        "+:===========+======:+========================+\n"
        '| Plasma gun | 18"   | On a 1, the firer      |\n'
        "|            |       | loses one wound.       |\n"
        "+------------+-------+------------------------+\n"
        "| Spans both columns | Never jams.            |\n"
        "+------------+-------+------------------------+\n\n"
        "```\n+----+\n| x  |\n+----+\n```\n\n"
        "    +----+\n    | y  |\n    +----+\n\n"
        "- Roll first:\n\n  +---+----+\n  | 1 | Go |\n  +---+----+\n\n"
        "> **Designer's note.** Terrain costs:\n>\n"
        "> +--------+------+\n> | Ground | Cost |\n> +========+======+\n"
        "> | Swamp  | 3    |\n> +--------+------+\n\n"
        "> - Also:\n>\n>   +------+---+\n>   | Ford | 2 |\n>   +------+---+\n\n"
        "> +---+---+\n>  | x | y |\n> +---+---+\n\n"
        "+-----+--+\n| bad | |\n+--+----+\n"
    )
    (unit,) = parse_file("r.md", md.encode(), game="x").units
    assert unit.text.split("\n") == [
        "Every weapon:",
        "Weapon | Range | Special",
        'Plasma gun | 18" | On a 1, the firer loses one wound.',
        "Spans both columns |  | Never jams.",
        "+----+",
        "| x  |",
        "+----+",
        "+----+",
        "| y  |",
        "+----+",
        "- Roll first:",
        "1 | Go",
        "Designer's note. Terrain costs:",
        "Ground | Cost",
        "Swamp | 3",
        "- Also:",
        "Ford | 2",
        "+---+---+ | x | y | +---+---+",
        "+-----+--+ | bad | | +--+----+",
    ]


def test_a_pandoc_simple_table_is_a_table() -> None:
    """Pandoc's simple tables (a header over runs of dashes, one per column,
    or rows between two such lines) read as a rule line, and every row ran
    into one line ("Knife 0" 1 Grenade 6" 2"). Each row is cut between the
    columns' runs, right-aligned cells too; a word across a cut, a rule of
    one run (a heading's underline) and a table in code stay as written."""
    md = (
        "# Weapons\n\n"
        "  Weapon   Range  Damage\n"
        "--------  ------  ------\n"
        '  Knife       0"       1\n'
        '  Grenade     6"       2\n\n'
        "-------  -----\n"
        "     12  Twelve\n"
        "    123  Many\n"
        "-------  -----\n\n"
        "-----  -----\n"
        "abcdefghijklmn\n"
        "-----  -----\n\n"
        "```\na    b\n---  ---\n1    2\n```\n"
    )
    (unit,) = parse_file("r.md", md.encode(), game="x").units
    assert unit.text.split("\n") == [
        "Weapon | Range | Damage",
        'Knife | 0" | 1',
        'Grenade | 6" | 2',
        "12 | Twelve",
        "123 | Many",
        "abcdefghijklmn",
        "a    b",
        "---  ---",
        "1    2",
    ]


def test_a_pandoc_multiline_table_is_a_table() -> None:
    """Pandoc's multiline tables (a rule of one run of dashes over the
    header, rows apart by blank lines, a closing rule) read as a simple
    table's first row, the rest as text, a cell's second line a row of its
    own. Each row's lines are cut between the columns' runs and joined cell
    by cell. A thematic break over a simple table is no multiline table."""
    md = (
        "# Weapons\n\n"
        "--------------------------------------\n"
        " Weapon   Range  Special\n"
        "-------- ------- ---------------------\n"
        ' Knife    1"     Fights in close\n'
        "                 combat after a charge.\n\n"
        ' Bow      18"    Never after moving.\n'
        "--------------------------------------\n\n"
        "Table: Weapons.\n\n"
        "---\n"
        "Move  Cost\n"
        "----  ----\n"
        "Road  1\n\n"
        "Dry.\n\n"
        "---\n\n"
        "-----------\n"
        "Terrain  Cost\n"
        "-------  ----\n"
        "Open     1\n"
        "Woods    2\n"
        "-----------\n\n"
        "Lance\n"
        "--------------\n"
        "Reach    Hits\n"
        "-------  -----\n"
        "Lance    2\n\n"
        "Axe\n"
        "--------------\n"
        "Cleaves.\n"
    )
    units = {u.title: u for u in parse_file("r.md", md.encode(), game="x").units}
    assert list(units) == ["Weapons", "Lance", "Axe"]
    assert units["Lance"].text.split("\n") == ["Reach | Hits", "Lance | 2"]
    assert units["Axe"].text == "Cleaves."
    assert units["Weapons"].text.split("\n") == [
        "Weapon | Range | Special",
        'Knife | 1" | Fights in close combat after a charge.',
        'Bow | 18" | Never after moving.',
        "Table: Weapons.",
        "Move | Cost",
        "Road | 1",
        "Dry.",
        "Terrain | Cost",
        "Open | 1",
        "Woods | 2",
    ]


def test_markdown_heading_attributes_are_not_part_of_the_title() -> None:
    """Pandoc, kramdown, MkDocs and Hugo put a heading's id and classes after it in
    braces (kramdown and Python-Markdown after a colon, "{: #jump }"); they made the
    title "Running {.rule #running}" and the ID "movement-movement/running-rule-running".
    A title that only ends in braces stays."""
    md = (
        '# Movement {#movement}\n\n## Running {.rule #running data-x="a b"}\n\nRun double.\n\n'
        "## Climbing {-}\n\nClimbing costs 2 AP.\n\n## Roll {x}\n\nRoll a die.\n\n"
        "## Jumping {: #jump .rule }\n\nJump 2 inches.\n"
    )
    units = parse_file("m.md", md.encode(), game="x").units
    assert [(u.rule_id, u.title, u.parent) for u in units] == [
        ("movement/running", "Running", "Movement"),
        ("movement/climbing", "Climbing", "Movement"),
        ("movement/roll-x", "Roll {x}", "Movement"),
        ("movement/jumping", "Jumping", "Movement"),
    ]


def test_markdown_notes_set_apart_stay_with_their_rule() -> None:
    """Fenced blocks (Pandoc's divs, Docusaurus' admonitions), MkDocs' admonitions
    and GitHub's alerts are notes of the rule they sit in: their markers are not
    text, their titles are, and a heading inside one is a line of it. They were read
    as text (':::note Designer's note Running is loud. :::')."""
    md = (
        "# Movement\n\n## Running\n\nA runner moves double.\n\n"
        ":::note Designer's note\nRunning is loud.\n:::\n\n"
        "::: {.sidebar}\n##### Why\nSpeed matters.\n:::\n\n"
        '!!! tip "Remember"\n    Runners cannot shoot.\n\n'
        "> [!NOTE]\n> Running ends at a wall.\n\n"
        ":::\n\n"  # a bare fence opens nothing
        "## Climbing\n\nClimbing costs 2 AP.\n"
    )
    units = {u.rule_id: u.text for u in parse_file("m.md", md.encode(), game="x").units}
    assert list(units) == ["movement/running", "movement/climbing"]
    assert units["movement/running"].split("\n") == [
        "A runner moves double.",
        "Designer's note",
        "Running is loud.",
        "Why",
        "Speed matters.",
        "Remember",
        "Runners cannot shoot.",
        "Running ends at a wall.",
    ]


def test_homebrewery_markdown_reads_as_its_rules() -> None:
    """Homebrewery (a tool many tabletop homebrew rulebooks are written in) adds
    page and column breaks, vertical spacers and '{{note' ... '}}' blocks, nested
    too; all of it reached the rules' text, and a note's '#####' heading became a
    rule of its own."""
    md = (
        "# Combat\n\n## Initiative\nEvery creature rolls a d20.\n\n"
        "{{note\n##### Designer's Note\nTies go to the higher Dexterity.\n"
        "{{descriptive\nA nested aside.\n}}\n}}\n\n\\column\n\n"
        "## Opportunity Attacks\nWhen a foe leaves your reach, you may attack.\n\n:\n\n"
        "| Action | Cost |\n|:--|:-:|\n| Dash | 1 action |\n\n\\page\n\n"
        "# Magic\n\n## Concentration\nDamage forces a saving throw.\n"
    )
    result = parse_file("brew.md", md.encode(), game="x")
    units = {u.rule_id: u.text for u in result.units}
    assert list(units) == ["combat/initiative", "combat/opportunity-attacks", "magic/concentration"]
    assert units["combat/initiative"].split("\n") == [
        "Every creature rolls a d20.",
        "Designer's Note",
        "Ties go to the higher Dexterity.",
        "A nested aside.",
    ]
    assert units["combat/opportunity-attacks"].split("\n") == [
        "When a foe leaves your reach, you may attack.",
        "Action | Cost",
        "Dash | 1 action",
    ]
    assert units["magic/concentration"] == "Damage forces a saving throw."
    assert result.dropped["layout lines"] == 3  # \\column, ":" and \\page


def test_obsidian_notes_read_as_obsidian_shows_them() -> None:
    """An Obsidian vault's note: its links were kept as written ("[[Keywords#Frenzy|
    frenzied]]"), its hidden comments quoted as rules, a line of tags became the
    note's first rule (shadowing the heading of the same name), and a callout's
    title ran into its first sentence. Code keeps its brackets."""
    md = (
        "---\ntitle: Combat\ntags: [rules]\n---\n#rules #ashfall/core\n\n# Combat\n\n"
        "Fought in the [[Turn Sequence#Fight Phase|Fight phase]], after [[Movement]] and "
        "[[Turn Sequence#Shooting]].\n\n## Melee\n\nHits on a 4+, or 3+ when "
        "[[Keywords#Frenzy|frenzied]]. ^melee-hits\n\n> [!note]- Multiple combats\n"
        "> Split the attacks first.\n\n![[melee-diagram.png|400]]\n\n"
        "%% TODO: decide whether flamers\nignore cover %%\n\n"
        "Use `[[ -d x ]]` in a shell, 50% of the time.\n"
    )
    result = parse_file("combat.md", md.encode(), game="x")
    units = {u.rule_id: u.text for u in result.units}
    assert units == {
        "combat": "Fought in the Fight phase, after Movement and Turn Sequence > Shooting.",
        "combat/melee": "Hits on a 4+, or 3+ when frenzied.\nMultiple combats\n"
        "Split the attacks first.\nUse [[ -d x ]] in a shell, 50% of the time.",
    }
    assert result.dropped["comments, embeds, tags and emoji codes"] == 4


def test_a_github_readme_reads_without_its_badges_and_emoji_codes() -> None:
    """A rulebook kept as a GitHub README: the badges' words ("License: CC BY-SA
    4.0 Discord") were its first rule, emoji codes stood in titles and IDs
    ("ashfall-skirmish-crossed-swords"), and a cell's escaped pipe read as a new
    column. Times and a rule's "Note:" keep their colons."""
    md = (
        "# Ashfall Skirmish :crossed_swords:\n\n"
        "[![License: CC BY-SA 4.0](https://img.shields.io/b.svg)](https://cc.org)\n"
        "[![Discord](https://img.shields.io/d.svg)](https://discord.gg/x)\n\n"
        "Fast rules. :game_die: Games end at 10:30:00 sharp. Note:see the table.\n\n"
        "## Shooting :dart:\n\n| Cover | Notes |\n|---|---|\n| Light | Hedges \\| fences |\n"
    )
    result = parse_file("README.md", md.encode(), game="x")
    assert [(u.rule_id, u.title, u.text) for u in result.units] == [
        (
            "ashfall-skirmish",
            "Ashfall Skirmish",
            "Fast rules. Games end at 10:30:00 sharp. Note:see the table.",
        ),
        ("ashfall-skirmish/shooting", "Shooting", "Cover | Notes\nLight | Hedges \\| fences"),
    ]
    assert result.dropped["images"] == 1


def test_homebrewery_page_furniture_is_layout() -> None:
    """Homebrewery's page number and running footer snippets ("{{pageNumber,auto}}",
    "{{footnote PART 1 | COMBAT}}"), the style it sets on an image and GM Binder's
    "\\pagebreakNum" were read into the rule before them; a one-line block of
    another kind keeps its text."""
    md = (
        "# Combat\n\n## Initiative\nEvery creature rolls a d20.\n\n"
        "![map](https://example.com/m.png) {position:absolute,bottom:20px,width:40%}\n\n"
        "{{pageNumber,auto}}\n{{footnote PART 1 | COMBAT}}\n\n\\pagebreakNum\n\n"
        "## Reactions\nA reaction is taken on another's turn.\n\n{{wide Only one a round.}}\n"
    )
    result = parse_file("brew.md", md.encode(), game="x")
    units = {u.rule_id: u.text for u in result.units}
    assert units["combat/initiative"] == "Every creature rolls a d20."  # the image goes too
    assert units["combat/reactions"].split("\n") == [
        "A reaction is taken on another's turn.",
        "Only one a round.",
    ]
    assert result.dropped["layout lines"] == 4


def test_markdown_definition_lists_read_as_the_html_reader_reads_a_dl() -> None:
    """Pandoc and PHP Markdown Extra write a glossary as 'Term' / ': definition'. It
    was read as "Term : Definition...": a glossary's terms are rules (as in a
    <dl> or a PDF's bold margin terms), a stat block's entries 'Move: 6' lines."""
    md = (
        "# Glossary\n\nPinned\n: A pinned unit cannot move until it rallies.\n\n"
        "Doused\n: A doused lantern gives no light until relit.\n\n"
        "# Trooper\n\nSome words.\n\nMove\n: 6\n\nArmour\n: 4+\n"
    )
    units = {u.rule_id: u for u in parse_file("g.md", md.encode(), game="x").units}
    page = (
        "<h1>Glossary</h1><dl><dt>Pinned</dt><dd>A pinned unit cannot move until it rallies.</dd>"
    )
    page += "<dt>Doused</dt><dd>A doused lantern gives no light until relit.</dd></dl>"
    page += "<h1>Trooper</h1><p>Some words.</p><dl><dt>Move</dt><dd>6</dd><dt>Armour</dt><dd>4+</dd></dl>"
    html_units = {u.rule_id: u for u in parse_file("g.html", page.encode(), game="x").units}
    assert [(u.title, u.text) for u in units.values()] == [
        (u.title, u.text) for u in html_units.values()
    ]
    assert units["glossary/pinned"].text == "A pinned unit cannot move until it rallies."
    assert units["trooper"].text.split("\n") == ["Some words.", "Move: 6", "Armour: 4+"]


def test_markdown_inside_raw_html_is_read_as_markdown() -> None:
    """Notion exports a callout as '<aside>' with the note's Markdown on the next
    line; CommonMark keeps an HTML block's lines as they are, so '**Designer's
    note:**' reached the rule with its asterisks."""
    md = (
        "# Combat\n\n## Shooting\n\nRoll a d6 per shot.\n\n"
        "<aside>\n💡 **Designer's note:** cover makes _this_ harder, see [Cover](cover.md).\n\n"
        "</aside>\n\n<p>Roll <b>2d6</b>, *then* add<br>your bonus.</p>\n"
    )
    result = parse_file("n.md", md.encode(), game="x")
    assert [u.text.split("\n") for u in result.units] == [
        [
            "Roll a d6 per shot.",
            "💡 Designer's note: cover makes this harder, see Cover.",
            # a <br> breaks the line, as the HTML reader reads one
            "Roll 2d6, then add",
            "your bonus.",
        ]
    ]


# --- Word ------------------------------------------------------------------------------------
def test_a_word_document_gives_the_markdown_sets_rules() -> None:
    """The same book in Word's heading styles gives the same rules, titles and
    breadcrumbs as its Markdown files (and the document's Title property names
    the text before the first heading, as the front matter's title does)."""
    md = [u for p in MARKDOWN for u in parse_file(p.name, p.read_bytes(), game=BB).units]
    word = parse_file("bb.docx", _docx_bytes(), game=BB)
    assert word.format == "docx"
    assert [(u.rule_id, u.title, u.parent) for u in word.units] == [
        (u.rule_id, u.title, u.parent) for u in md
    ]


def test_an_opendocument_text_gives_the_markdown_sets_rules() -> None:
    """The same book typed in LibreOffice (headings on the outline) gives the same
    rules, titles and breadcrumbs as its Markdown files."""
    md = [u for p in MARKDOWN for u in parse_file(p.name, p.read_bytes(), game=BB).units]
    book = parse_file("bb.odt", _odt_bytes(), game=BB)
    assert book.format == "odt"
    assert [(u.rule_id, u.title, u.parent) for u in book.units] == [
        (u.rule_id, u.title, u.parent) for u in md
    ]


def test_opendocument_numbers_contents_and_footnotes() -> None:
    """Writer's heading numbering is kept as the rules' numbers (odfpy drops it);
    a generated table of contents is no rule; a footnote goes after the
    paragraph that cites it; the Title property, not the first heading, names
    the book; a table keeps its rows."""
    from odf.text import H, IndexBody, Note, NoteBody, NoteCitation, P, TableOfContent

    def build(doc: object) -> None:
        body = doc.text  # type: ignore[attr-defined]
        contents, entries = TableOfContent(name="Contents"), IndexBody()
        for entry in ("Movement 1", "Charging 1", "Shooting 2"):
            entries.addElement(P(text=entry))
        contents.addElement(entries)
        body.addElement(contents)
        body.addElement(H(outlinelevel=1, text="Movement"))
        cited = P(text="A model moves up to its Pace.")
        note = Note(id="ftn1", noteclass="footnote")
        note.addElement(NoteCitation(text="1"))
        note_body = NoteBody()
        note_body.addElement(P(text="Only in daylight."))
        note.addElement(note_body)
        cited.addElement(note)
        body.addElement(cited)
        body.addElement(H(outlinelevel=2, text="Charging"))
        body.addElement(P(text="A charging unit rolls 2d6."))
        body.addElement(H(outlinelevel=2, text="Falling Back"))
        body.addElement(P(text="A unit that falls back cannot shoot."))
        body.addElement(odt_table([["Roll", "Result"], ["1", "Miss"]]))
        body.addElement(H(outlinelevel=1, text="Shooting"))
        body.addElement(P(text="Roll a d6 per shot."))

    result = parse_file(
        "club.odt", odt_document(build, title="Club Rules", numbered=True), game="x"
    )
    units = {u.rule_id: u for u in result.units}
    assert [(i, u.title, u.parent) for i, u in units.items()] == [
        ("movement", "Movement", ""),
        ("1.1", "Charging", "Movement"),
        ("1.2", "Falling Back", "Movement"),
        ("shooting", "Shooting", ""),
    ]
    assert units["movement"].text.split("\n") == [
        "A model moves up to its Pace.[1]",
        "[1] Only in daylight.",
    ]
    assert units["1.2"].text.split("\n") == [
        "A unit that falls back cannot shoot.",
        "Roll | Result",
        "1 | Miss",
    ]
    assert result.dropped["table of contents lines"] == 3
    assert not any("Shooting 2" in u.text for u in result.units)
    # without the numbering, the same headings are named, not numbered
    plain = parse_file("club.odt", odt_document(build), game="x")
    assert [u.rule_id for u in plain.units] == [
        "movement",
        "movement/charging",
        "movement/falling-back",
        "shooting",
    ]


ODT_FILES = PROJECT_ROOT / "tests" / "fixtures" / "odt"


def test_opendocument_texts_as_writer_and_pandoc_save_them() -> None:
    """Files from the tools themselves (tests/fixtures/odt): LibreOffice Writer
    7.4 re-saving a book with its own heading numbering, a contents index and
    a footnote; Writer saving a Word file whose headings a numbered list
    numbers (each heading then sits in a list of its own, which read as a list
    gave no headings at all); pandoc 2.17 setting a Markdown file (its styles
    declare their namespaces one per line, which odfpy failed to parse and
    printed, whole, to stdout)."""
    outline = parse_file(
        "a.odt", (ODT_FILES / "writer-outline-numbered.odt").read_bytes(), game="x"
    )
    assert [(u.rule_id, u.title, u.parent) for u in outline.units] == [
        ("movement", "Movement", ""),
        ("1.1", "Charging", "Movement"),
        ("1.2", "Falling Back", "Movement"),
        ("shooting", "Shooting", ""),
    ]
    assert outline.units[0].text.split("\n") == [
        "A model moves up to its Pace.[1]",
        "[1] Only in daylight.",
    ]
    assert outline.dropped["table of contents lines"] == 3

    word = parse_file("b.odt", (ODT_FILES / "writer-word-numbered.odt").read_bytes(), game="x")
    assert [(u.rule_id, u.title, u.text) for u in word.units] == [
        ("setup", "Setup", "Lay out the board."),
        ("1.1", "Components", "One board, two decks."),
        ("1.2", "Board", "Fold it open."),
        ("the-turn", "The Turn", "Players alternate."),
        ("2.1", "Initiative", "Roll off."),
    ]

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        pandoc = parse_file("c.odt", (ODT_FILES / "pandoc-movement.odt").read_bytes(), game=BB)
    assert printed.getvalue() == ""
    source = MARKDOWN[1]
    assert source.name == "02-movement.md"
    md = parse_file(source.name, source.read_bytes(), game=BB)
    assert [(u.rule_id, u.title, u.parent) for u in pandoc.units] == [
        (u.rule_id, u.title, u.parent) for u in md.units
    ]


def _odt_units(name: str) -> ParseResult:
    return parse_file(name, (ODT_FILES / name).read_bytes(), game="x")


def test_opendocument_heading_numbers_are_the_ones_writer_shows() -> None:
    """A second review round on files Writer 7.4 saved, each number checked
    against Writer's own text export of the file. An unnumbered heading (a
    Word file's "Introduction", a heading set to No List, a list header) is
    neither numbered nor counted: every number after it was one too high. A
    level restarted at 5 is 5; a level skipped on the way down shows 1, not 0."""
    word = _odt_units("writer-word-unnumbered.odt")
    assert [(u.rule_id, u.title) for u in word.units] == [
        ("introduction", "Introduction"),
        ("setup", "Setup"),
        ("1.1", "Board"),
        ("setup/credits", "Credits"),
        ("1.2", "Cards"),
        ("combat", "Combat"),
        ("2.1", "Melee"),
    ]
    edges = _odt_units("writer-outline-edges.odt")
    assert [(u.rule_id, u.title) for u in edges.units] == [
        ("introduction", "Introduction"),
        ("setup", "Setup"),
        ("setup/overview", "Overview"),
        ("1.1", "Board"),
        ("setup/sidebar-heading", "Sidebar Heading"),
        ("1.2", "Cards"),
        ("combat", "Combat"),
        ("5.1.1", "Deep skip"),
    ]


def test_a_paragraph_hidden_by_its_condition_is_left_out() -> None:
    """Writer's hidden paragraph field hides the paragraph it sits in: its text
    was kept (the field alone was taken out). A soft hyphen in a page (U+00AD,
    &shy;) shows only at a line's end: it stayed inside the word ("move-ment")."""

    def build(doc: Any) -> None:
        from odf.text import H, HiddenParagraph, P

        doc.text.addElement(H(outlinelevel=1, text="Combat"))
        doc.text.addElement(P(text="Ties go to the defender."))
        hidden = P()
        hidden.addElement(HiddenParagraph(condition="ooow:1==1", ishidden="true"))
        hidden.addText("HIDDENPARA a playtest note.")
        doc.text.addElement(hidden)
        shown = P()
        shown.addElement(HiddenParagraph(condition="ooow:1==0", ishidden="false"))
        shown.addText("Roll two dice.")
        doc.text.addElement(shown)

    units = parse_file("c.odt", odt_document(build), game="x").units
    assert units[0].text == "Ties go to the defender.\nRoll two dice."
    page = "<html><body><h1>Moving</h1><p>Move&shy;ment is for\u00adbidden.</p></body></html>"
    assert parse_file("m.html", page.encode(), game="x").units[0].text == "Movement is forbidden."


def test_opendocument_text_is_what_writer_shows() -> None:
    """Tracked deletions and hidden text are not the rules; a heading in a
    text box is text of the rule it is anchored in (it split its paragraph);
    a footnote in a heading goes after it (its mark was in the title and the
    ID); a space after a field stays after it ("Figure 1shows"); pandoc's
    title line names the book instead of being a rule; a flat .fodt reads as
    the .odt does."""
    tracked = _odt_units("writer-tracked-hidden.odt")
    text = " ".join(u.text for u in tracked.units)
    assert "DELETED" not in text and "HIDDENSPAN" not in text and "OLDWORD" not in text
    assert tracked.units[-1].text.split("\n") == [
        "The board has NEWWORD hexes.",
        "Visible. After.",
    ]
    assert tracked.dropped["tracked changes"] == 1 and tracked.dropped["hidden text"] == 1

    framed = _odt_units("writer-frame-notes.odt")
    setup = framed.units[0]
    assert (setup.rule_id, setup.title) == ("setup", "Setup")
    assert setup.text.split("\n") == [
        "[1] HEADNOTE from heading.",
        "SETUP text.",
        "Frame Heading",
        "FRAMEBODY sidebar text.",
        "ANCHORPARA after frame.",
    ]
    assert [u.rule_id for u in framed.units[1:3]] == ["1.1", "1.1.2"]
    assert all("[1]" not in u.parent for u in framed.units)

    fields = _odt_units("writer-fields.odt")
    assert fields.units[-1].text == (
        "As in rule 1.1 above, see Setup first. Figure 1 shows it. Note 1 applies. "
        "Var VARVAL here. Edition now."
    )

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        titled = _odt_units("pandoc-title.odt")
    assert [u.rule_id for u in titled.units] == ["setup", "1.1", "1.2", "combat"]
    assert printed.getvalue() == ""

    flat = _odt_units("writer-flat.fodt")
    assert flat.format == "odt"
    assert [(u.rule_id, u.title) for u in flat.units] == [
        ("setup", "Setup"),
        ("1.1", "Board"),
        ("1.2", "Pieces"),
        ("1.2.1", "Hidden Cubes"),
        ("combat", "Combat"),
        ("2.1", "Ranged"),
        ("2.2", "Melee"),
    ]


def test_opendocument_headings_made_by_hand_are_read_by_their_type() -> None:
    """No heading styles, only bold or larger type (how many a homebrew book is
    typed): read as the Word reader reads the same, ranked by size then weight.
    A bold line that ends a sentence, or bold inside a paragraph, stays text;
    a document with a real heading is left as it is."""
    from odf.style import Style, TextProperties
    from odf.text import H, P, Span

    def build(doc: object, *, with_heading: bool = False, with_title: bool = False) -> None:
        auto = doc.automaticstyles  # type: ignore[attr-defined]
        big = Style(name="Big", family="paragraph")
        big.addElement(TextProperties(fontsize="150%", fontweight="bold"))
        huge = Style(name="Huge", family="paragraph")
        huge.addElement(TextProperties(fontsize="200%", fontweight="bold"))
        auto.addElement(huge)
        strong = Style(name="Strong", family="text")
        strong.addElement(TextProperties(fontweight="bold"))
        auto.addElement(big)
        auto.addElement(strong)
        body = doc.text  # type: ignore[attr-defined]
        if with_heading:
            body.addElement(H(outlinelevel=1, text="Rules"))
        if with_title:
            body.addElement(P(stylename="Huge", text="Gloom House Rules"))
            body.addElement(P(text="Our club's rules for the winter campaign."))
        body.addElement(P(stylename="Big", text="Movement"))
        body.addElement(P(text="A model moves 6 inches."))
        charge = P()
        charge.addElement(Span(stylename="Strong", text="Charging"))
        body.addElement(charge)
        body.addElement(P(text="A charge is a move into contact."))
        warning = P()
        warning.addElement(Span(stylename="Strong", text="Never roll twice."))
        body.addElement(warning)
        inline = P(text="Roll ")
        inline.addElement(Span(stylename="Strong", text="two"))
        inline.addElement(Span(text=" dice."))
        body.addElement(inline)
        body.addElement(P(stylename="Big", text="Shooting"))
        body.addElement(P(text="Roll to hit."))

    units = parse_file("hand.odt", odt_document(build), game="x").units
    assert [(u.rule_id, u.title, u.parent) for u in units] == [
        ("movement", "Movement", ""),
        ("movement/charging", "Charging", "Movement"),
        ("shooting", "Shooting", ""),
    ]
    assert units[1].text.split("\n") == [
        "A charge is a move into contact.",
        "Never roll twice.",
        "Roll two dice.",
    ]
    styled = parse_file("h.odt", odt_document(lambda d: build(d, with_heading=True)), game="x")
    assert [u.rule_id for u in styled.units] == ["rules"]
    # the largest line, used once and first, is the book's title, as in a Word file
    titled = parse_file("t.odt", odt_document(lambda d: build(d, with_title=True)), game="x")
    assert [(u.rule_id, u.title) for u in titled.units] == [
        ("gloom-house-rules", "Gloom House Rules"),
        ("movement", "Movement"),
        ("movement/charging", "Charging"),
        ("shooting", "Shooting"),
    ]
    # (the title line names the book: no rule's text, as a Word Title line is none)
    assert titled.units[0].text == "Our club's rules for the winter campaign."
    writer = _odt_units("writer-hand-made-headings.odt")  # Writer's save of a Word file
    assert [(u.rule_id, u.text) for u in writer.units] == [
        ("setup", "SETUP text under bold heading."),
        ("combat", "COMBAT text under bold heading."),
        ("melee", "MELEE text."),
    ]


def test_opendocument_list_numbers_are_the_ones_writer_shows() -> None:
    """A list continued after a paragraph goes on counting; one that starts at 7
    starts at 7; a list in letters or Roman numerals reads so (all read 1., 2.),
    with the label Writer sets around the number ("a)", "(i)": they read "a.",
    "i.", unlike the book and its PDF)."""
    continued = _odt_units("writer-lists-continued.odt").units[0].text.split("\n")
    assert continued[1:8] == [
        "1. STEPA draw",
        "2. STEPB play",
        "Interlude paragraph.",
        "3. STEPC discard (should be 3)",
        "4. STEPD pass (should be 4)",
        "7. SEVEN starts at 7",
        "8. EIGHT",
    ]
    labels = _odt_units("writer-list-labels.odt").units[0].text.split("\n")
    assert labels[1:5] == [
        "a) LETTER first",
        "  (i) ROMAN sub one",
        "  (ii) ROMAN sub two",
        "b) LETTER second",
    ]


def test_an_opendocument_spreadsheet_is_no_rulebook() -> None:
    from odf.opendocument import OpenDocumentSpreadsheet

    from ruleslawyer.errors import RulebookError

    out = io.BytesIO()
    OpenDocumentSpreadsheet().save(out)
    with pytest.raises(RulebookError, match="an OpenDocument spreadsheet, not a text document"):
        parse_file("sheet.odt", out.getvalue(), game="x")


def test_a_typographic_apostrophe_gives_the_same_heading_id() -> None:
    """Writer, Word and PDFs curl the apostrophe Markdown types straight:
    "Officer’s Orders" was the rule officers-orders beside officer-s-orders."""
    straight = parse_file("a.md", b"# Units\n\n## Officer's Orders\n\nOne order.\n", game="x")
    curly = parse_file("b.md", "# Units\n\n## Officer’s Orders\n\nOne order.\n".encode(), game="x")
    assert [u.rule_id for u in curly.units] == [u.rule_id for u in straight.units]
    assert straight.units[-1].rule_id == "units/officer-s-orders"


def test_an_opendocument_text_is_known_by_its_content() -> None:
    data = _odt_bytes()
    assert detect("rules", data).name == "odt"  # no extension
    assert detect("rules.txt", data).name == "odt"
    assert detect("rules.docx", data).name == "odt"
    assert detect("rules.odt", _docx_bytes()).name == "docx"


def test_word_headings_are_styles_with_an_outline_level() -> None:
    """A house style ("Rule Title") based on Heading 2, or given an outline level
    of its own, is a heading of that level; a paragraph styled only to look like
    one is text. A footnote goes after its paragraph; a table keeps its rows."""
    styles = STYLES + "".join(
        [
            style("RuleTitle", "Rule Title", based="Heading2"),
            style("Chapter", "Chapter", outline=0),
            style("BigBold", "Big Bold", based="Normal"),
            style("Loop", "Loop", based="Loop2"),
            style("Loop2", "Loop 2", based="Loop"),  # a basedOn loop ends the walk
        ]
    )
    body = "".join(
        [
            para("Shooting", "Heading1"),
            para("Roll a D6 per shot.", footnote=1),
            para("Cover", "RuleTitle"),
            para("Cover adds 1 to the roll.", "Loop"),
            table([["Weapon", "Range"], ["Rifle", "24"]]),
            para("Melee", "Chapter"),
            para("Fighting Back", "BigBold"),
            para("Both sides roll."),
        ]
    )
    data = docx(body, styles, footnotes={1: "Only in daylight."}, title="Club Rules")
    units = {u.rule_id: u for u in parse_file("club.docx", data, game="x").units}
    assert [(i, u.title, u.parent) for i, u in units.items()] == [
        ("shooting", "Shooting", ""),
        ("shooting/cover", "Cover", "Shooting"),
        ("melee", "Melee", ""),
    ]
    assert units["shooting"].text.split("\n") == ["Roll a D6 per shot.[1]", "[1] Only in daylight."]
    assert units["shooting/cover"].text.split("\n") == [
        "Cover adds 1 to the roll.",
        "Weapon | Range",
        "Rifle | 24",
    ]
    assert units["melee"].text.split("\n") == ["Fighting Back", "Both sides roll."]


def test_a_word_document_is_known_by_its_content() -> None:
    data = _docx_bytes()
    assert detect("rules", data).name == "docx"  # no extension
    assert detect("rules.txt", data).name == "docx"  # a zip of Word's parts is no text
    assert detect("rules.docx", book_pdf()[0]).name == "pdf"


@pytest.mark.parametrize(
    ("md", "rules"),
    [
        # a fence never closed, or colons as decoration, ends nothing and hides nothing
        (
            "## Attack\n\nRoll.\n\n::: note\nRemember.\n\n## Defense\n\nRoll d10.\n",
            {"attack": "Roll.\nnote\nRemember.", "defense": "Roll d10."},
        ),
        (
            "## Attack\n\n::: Optional rule :::\nRoll twice.\n\n## Defense\n\nRoll d10.\n",
            {"attack": "Optional rule\nRoll twice.", "defense": "Roll d10."},
        ),
        # a heading one level down inside a block is a section: a stat block, a chapter
        (
            "# Bestiary\n\nBeasts.\n\n{{monster,frame\n## Goblin\nSmall humanoid.\n}}\n\n"
            "## Orc\n\nLarge humanoid.\n",
            {
                "bestiary": "Beasts.",
                "bestiary/goblin": "Small humanoid.",
                "bestiary/orc": "Large humanoid.",
            },
        ),
        (
            "# Rules\n\nIntro.\n\n::: {#combat .chapter}\n## Combat\n\nRoll.\n\n### Melee\n\n"
            "Both roll.\n:::\n",
            {"rules": "Intro.", "rules/combat": "Roll.", "rules/combat/melee": "Both roll."},
        ),
        # a spacer inside a Homebrewery note is no fence; a block in a code fence is code
        (
            "## Tips\n\n{{note\n##### Tip\nFirst.\n:::\n##### Careful\nSecond.\n}}\n\n"
            "```\n{{note\n}}\n```\n",
            {"tips": "Tip\nFirst.\nCareful\nSecond.\n{{note\n}}"},
        ),
    ],
    ids=["unclosed-fence", "decoration", "stat-block", "pandoc-chapter", "brew-spacer"],
)
def test_markdown_blocks_keep_the_rules_inside_them(md: str, rules: dict[str, str]) -> None:
    """A heading inside a block that skips a level (Homebrewery's '#####' note
    title) is a line of the note; one a level down is a rule; and a fence never
    closed is text, not a note that swallows the rest of the book."""
    units = parse_file("m.md", md.encode(), game="x").units
    assert {u.rule_id: u.text for u in units} == rules


def test_markdown_definition_lists_inside_lists_and_notes_are_lines() -> None:
    """Inside a list or a note a definition list is the item's lines, not a
    glossary whose terms take the rest of the list; a footnote it refers to
    follows it."""
    md = (
        "## Actions\n\n1. Move\n\n   Walk\n   : Move your speed.[^1]\n\n2. Attack\n3. Hide\n\n"
        "::: note\nDash\n: Move twice your speed.\n:::\n\nMore action text.\n\n"
        "## Other\n\nLast rule.\n\n[^1]: Not in mud.\n"
    )
    units = {u.rule_id: u.text for u in parse_file("m.md", md.encode(), game="x").units}
    assert units == {
        "actions": "1. Move\nWalk: Move your speed.[1]\n[1] Not in mud.\n2. Attack\n3. Hide\n"
        "Dash: Move twice your speed.\nMore action text.",
        "other": "Last rule.",
    }


def test_markdown_in_raw_html_only_where_it_is_markdown() -> None:
    """Text in an HTML block is read as Markdown only where it holds a whole
    Markdown span; arithmetic, paths, escaped brackets and <pre> stay as written."""
    md = (
        "## Dice\n\n<table><tr><td>2*3*4</td><td>d6*2*</td></tr></table>\n\n"
        "<div>Roll &lt;dice&gt; and add **2**.</div>\n\n"
        "<div>C:\\path\\*.txt is the file.</div>\n\n<pre>roll = *d6* + 3</pre>\n"
    )
    units = {u.rule_id: u.text for u in parse_file("m.md", md.encode(), game="x").units}
    assert units["dice"].split("\n") == [
        "2*3*4 | d6*2*",
        "Roll <dice> and add 2.",
        "C:\\path\\*.txt is the file.",
        "roll = *d6* + 3",
    ]


def test_word_headings_made_by_hand_are_read_by_their_type() -> None:
    """A document with no heading style, its headings set by hand in bold and
    larger type, was one plain section; its type makes them headings, ranked by
    size, its largest line, used once and first, its title. A bold sentence is
    still text, and where heading styles are used a look-alike is text too."""
    styles = STYLES.replace("<w:style", '<w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val="22"/>'
                            "</w:rPr></w:rPrDefault></w:docDefaults><w:style", 1)  # fmt: skip
    body = "".join(
        [
            para("Frostgrave House Rules", bold=True, size=24),
            para("Our club's rules for the winter campaign."),
            para("Movement", bold=True, size=16),
            para("A figure may move up to its Move stat in inches."),
            para("Jumping", bold=True),
            para("A figure may jump up to 4 inches."),
            para("Important: never climb in the rain.", bold=True),
            para("Combat", bold=True, size=16),
            para("Both figures roll a d20 and add Fight."),
        ]
    )
    result = parse_file("club.docx", docx(body, styles), game="x")
    assert [(u.rule_id, u.title, u.parent) for u in result.units] == [
        ("frostgrave-house-rules", "Frostgrave House Rules", ""),
        ("movement", "Movement", ""),
        ("movement/jumping", "Jumping", "Movement"),
        ("combat", "Combat", ""),
    ]
    jumping = result.units[2].text
    assert jumping == "A figure may jump up to 4 inches.\nImportant: never climb in the rain."
    # the title line names the book and is no text of it (it held only its name)
    assert result.units[0].text == "Our club's rules for the winter campaign."
    assert not result.warnings
    # with heading styles in use, a hand-made look-alike is a line of text
    styled = body.replace(para("Movement", bold=True, size=16), para("Movement", "Heading1"))
    units = parse_file("club.docx", docx(styled, styles), game="x").units
    assert [u.title for u in units] == ["club", "Movement"]


def test_word_heading_styles_are_found_by_name_when_their_id_is_no_name() -> None:
    """LibreOffice and python-docx give a house style an ID with accents or a
    space ("RègleSpéciale", "Rule Title"), which mammoth's ID matcher does not
    take: such headings were text of the rule before."""
    styles = STYLES + style("RègleSpéciale", "Règle Spéciale", based="Heading2")
    styles += style("Rule Title", "Rule 'Title'", outline=1)
    body = "".join(
        [
            para("Combat", "Heading1"),
            para("Roll off."),
            para("Melee", "RègleSpéciale"),
            para("Both roll."),
            para("Ranged", "Rule Title"),
            para("Roll to hit."),
        ]
    )
    units = parse_file("club.docx", docx(body, styles), game="x").units
    assert [(u.rule_id, u.parent) for u in units] == [
        ("combat", ""),
        ("combat/melee", "Combat"),
        ("combat/ranged", "Combat"),
    ]


def test_a_word_document_that_unpacks_too_far_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading costs what a .docx unpacks to, not its size: 240 KB unpacked to
    100 MB and took a gigabyte. Past the limit, one line says so."""
    from ruleslawyer.errors import RulebookError
    from ruleslawyer.ingest.formats import docx as docx_format

    monkeypatch.setattr(docx_format, "MAX_UNPACKED_MB", 1)
    data = docx("".join(para("Roll a die. " * 100) for _ in range(1500)))
    assert len(data) < 100_000
    with pytest.raises(RulebookError, match=r"unpacks to \d+ MB.*at most 1 MB"):
        parse_file("bomb.docx", data, game="x")


def test_an_opendocument_text_that_unpacks_too_far_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from odf.text import P

    from ruleslawyer.errors import RulebookError
    from ruleslawyer.ingest.formats import odt as odt_format

    monkeypatch.setattr(odt_format, "MAX_UNPACKED_MB", 1)

    def build(doc: object) -> None:
        for _ in range(1500):
            doc.text.addElement(P(text="Roll a die. " * 100))  # type: ignore[attr-defined]

    data = odt_document(build)
    assert len(data) < 100_000
    with pytest.raises(RulebookError, match=r"unpacks to \d+ MB.*at most 1 MB"):
        parse_file("bomb.odt", data, game="x")


def test_word_headings_numbered_by_a_list_keep_their_numbers() -> None:
    """Word and LibreOffice number a book's rules by tying the heading styles to
    a multilevel list; mammoth drops the number, so "1.1 Components" was the
    rule "setup/components", and a player's "rule 1.1" found nothing."""
    styles = STYLES.replace('w:styleId="Heading1"', 'w:styleId="Old1"').replace(
        'w:styleId="Heading2"', 'w:styleId="Old2"'
    )
    styles += numbered_style("Heading1", "heading 1", 0, 1, 0)
    styles += numbered_style("Heading2", "heading 2", 1, 1, 1)
    lists = multilevel_list(1, [("decimal", "%1"), ("decimal", "%1.%2")])
    lists += multilevel_list(2, [("lowerLetter", "%1)")])
    body = "".join(
        [
            para("Setup", "Heading1"),
            para("Lay out the board."),
            para("Components", "Heading2"),
            para("One board, two decks."),
            para("Board", "Heading2"),
            para("Fold it open."),
            para("The Turn", "Heading1"),
            para("Players alternate."),
            para("Initiative", "Heading2"),
            para("Roll off.").replace(
                "<w:r>",
                '<w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="2"/></w:numPr></w:pPr><w:r>',
                1,
            ),
        ]
    )
    units = parse_file("book.docx", docx(body, styles, numbering=lists), game="x").units
    assert [(u.rule_id, u.title) for u in units] == [
        ("setup", "Setup"),
        ("1.1", "Components"),
        ("1.2", "Board"),
        ("the-turn", "The Turn"),
        ("2.1", "Initiative"),
    ]
    # a numbered list stays a list, labelled as its level says ("%1)" in letters)
    assert units[-1].text == "a) Roll off."


def _numbered_book(levels: list[tuple[str, str]], start: str = "1") -> tuple[str, str]:
    styles = STYLES.replace('w:styleId="Heading1"', 'w:styleId="Old1"').replace(
        'w:styleId="Heading2"', 'w:styleId="Old2"'
    )
    styles += numbered_style("Heading1", "heading 1", 0, 1, 0)
    styles += numbered_style("Heading2", "heading 2", 1, 1, 1)
    styles += style("RuleTitle", "Rule Title", based="Heading2")
    lists = multilevel_list(1, levels).replace(
        '<w:start w:val="1"/>', f'<w:start w:val="{start}"/>'
    )
    return styles, lists


@pytest.mark.parametrize(
    ("start", "levels", "expected"),
    [
        # a book numbered from chapter 0 counts up from it
        ("0", [("decimal", "%1"), ("decimal", "%1.%2")], ["0.0", "0.1", "1.0"]),
        # a hostile start is capped, not written out in full (it hung the reader);
        # the number is too long to be a rule number, and stays in the title
        ("10000000000", [("upperRoman", "%1"), ("decimal", "%1.%2")], []),
        # a bullet level gives no number (its "number" is its glyph)
        ("1", [("bullet", "\uf0b7"), ("bullet", "\uf0b7")], ["setup/components", "setup/board"]),
    ],
    ids=["from-zero", "hostile-start", "bullets"],
)
def test_word_list_numbers_as_word_counts_them(start: str, levels: list, expected: list) -> None:
    styles, lists = _numbered_book(levels, start)
    body = "".join(
        [
            para("Setup", "Heading1"),
            para("Lay out."),
            para("Components", "Heading2"),
            para("One board."),
            para("Board", "RuleTitle"),  # numbered through the style it is based on
            para("Fold it."),
            para("Turn", "Heading1"),
            para("Alternate."),
            para("Initiative", "Heading2"),
            para("Roll off."),
        ]
    )
    units = parse_file("b.docx", docx(body, styles, numbering=lists), game="x").units
    ids = [u.rule_id for u in units if u.title in ("Components", "Board", "Initiative")]
    assert ids[: len(expected)] == expected
    if start != "1" and not expected:
        assert all(len(u.title) < 80 for u in units), [u.title for u in units]


def test_word_lists_of_one_definition_count_on_together() -> None:
    """Word counts a list definition's numbers across every list made from it
    (ECMA-376 17.9): a chapter whose headings name a second list of the same
    definition goes on from the first ("3 Morale"), as an item list does after
    an interruption, unless that list restarts a level (``startOverride``,
    Word's "Restart at 1"; here at 5). Counted per list, the third chapter was
    "1" again and its rules took the numbers of the first chapter's."""
    styles, lists = _numbered_book([("decimal", "%1"), ("decimal", "%1.%2")])
    lists += '<w:num w:numId="6"><w:abstractNumId w:val="1"/></w:num>'
    lists += (
        '<w:num w:numId="7"><w:abstractNumId w:val="1"/><w:lvlOverride w:ilvl="0">'
        '<w:startOverride w:val="5"/></w:lvlOverride></w:num>'
    )
    lists += multilevel_list(2, [("decimal", "%1.")])
    lists += '<w:num w:numId="8"><w:abstractNumId w:val="2"/></w:num>'
    lists += (
        '<w:num w:numId="9"><w:abstractNumId w:val="2"/><w:lvlOverride w:ilvl="0">'
        '<w:startOverride w:val="1"/></w:lvlOverride></w:num>'
    )

    def numbered(text: str, num_id: int, level: int = 0) -> str:
        own = f'<w:numPr><w:ilvl w:val="{level}"/><w:numId w:val="{num_id}"/></w:numPr>'
        heading = para(text, "Heading1" if level == 0 else "Heading2")
        return heading.replace("/></w:pPr>", f"/>{own}</w:pPr>", 1)

    body = "".join(
        [
            para("Movement", "Heading1"),
            para("Move up to six inches."),
            para("Running", "Heading2"),
            para("Double the move."),
            para("Shooting", "Heading1"),
            para("Roll to hit."),
            numbered("Morale", 6),
            para("Test when half are lost."),
            numbered("Rallying", 6, 1),
            para("Roll two dice."),
            numbered("Campaigns", 7),
            para("Play linked games."),
            para("Sequence", "Heading1"),
            list_item("Ready", 2),
            list_item("Aim", 2),
            para("Then, in the next turn:"),
            list_item("Fire", 8),
            para("After the game:"),
            list_item("Count losses", 9),
            list_item("Roll for injuries", 9),
        ]
    )
    units = parse_file("b.docx", docx(body, styles, numbering=lists), game="x").units
    assert [(u.rule_id, u.title) for u in units if u.title != "Sequence"] == [
        ("movement", "Movement"),
        ("1.1", "Running"),
        ("shooting", "Shooting"),
        ("morale", "Morale"),
        ("3.1", "Rallying"),
        ("campaigns", "Campaigns"),
    ]
    assert [u.number for u in units][:6] == ["1", "", "2", "3", "", "5"]
    sequence = next(u for u in units if u.title == "Sequence").text.split("\n")
    assert sequence == [
        "1. Ready", "2. Aim", "Then, in the next turn:", "3. Fire", "After the game:",
        "1. Count losses", "2. Roll for injuries",
    ]  # fmt: skip


def test_word_reads_what_word_shows_once() -> None:
    """A text box is saved twice (a drawing and its older copy): a heading in a
    sidebar was counted twice, so every later rule's number was one too high
    ("1.3 Terrain" for Word's 1.2). Hidden text and a content control's
    placeholder were read as rules; a body wrapped in a content control (as
    templates wrap it) hid its hand-made headings."""
    styles = STYLES.replace('w:styleId="Heading2"', 'w:styleId="Old2"')
    styles += numbered_style("Heading2", "heading 2", 1, 1, 1)
    lists = multilevel_list(1, [("decimal", "%1"), ("decimal", "%1.%2")])
    hidden = '<w:r><w:rPr><w:vanish/></w:rPr><w:t xml:space="preserve"> HIDDEN note.</w:t></w:r>'
    placeholder = (
        "<w:sdt><w:sdtPr><w:showingPlcHdr/></w:sdtPr><w:sdtContent><w:r><w:t>"
        "Click or tap here to enter text.</w:t></w:r></w:sdtContent></w:sdt>"
    )
    sidebar = text_box(para("Optional Forces", "Heading2") + para("Add one hero."))
    body = "".join(
        [
            para("Armies", "Heading2"),
            para("Each player takes twelve units.").replace("</w:p>", f"{sidebar}</w:p>"),
            para("Terrain", "Heading2"),
            para("Place four pieces.").replace("</w:p>", f"{hidden}{placeholder}</w:p>"),
        ]
    )
    units = parse_file("book.docx", docx(body, styles, numbering=lists), game="x").units
    got = {u.rule_id: (u.title, u.text) for u in units}
    assert list(got) == ["1.1", "1.2", "1.3"], got
    assert got["1.2"][0] == "Optional Forces" and got["1.3"] == ("Terrain", "Place four pieces.")

    # hand-made headings inside a content control around the whole body
    lines = [para("Setup", bold=True, size=14), para("Place the board.")]
    lines += [para("Turns", bold=True, size=14), para("Players alternate.")]
    lines += [para("Scoring", bold=True, size=14), para("Each kill scores one.")]
    wrapped = f"<w:sdt><w:sdtPr/><w:sdtContent>{''.join(lines)}</w:sdtContent></w:sdt>"
    units = parse_file("hand.docx", docx(wrapped), game="x").units
    assert [u.title for u in units] == ["Setup", "Turns", "Scoring"]


def test_a_damaged_numbering_part_leaves_the_rules_unnumbered() -> None:
    styles, lists = _numbered_book([("decimal", "%1"), ("decimal", "%1.%2")])
    broken = lists.replace('w:ilvl="1"', 'w:ilvl="12"').replace(
        'w:val="1"/><w:numFmt', 'w:val="²"/><w:numFmt'
    )
    body = (
        para("Setup", "Heading1")
        + para("Lay out.")
        + para("Components", "Heading2")
        + para("A board.")
    )
    units = parse_file("b.docx", docx(body, styles, numbering=broken), game="x").units
    assert [u.title for u in units] == ["Setup", "Components"]


def test_word_hand_made_headings_read_type_as_word_resolves_it() -> None:
    """Sizes and bold set in a style count (a 14 pt Normal style, a bold 'My Head'
    style, the 'Strong' character style); list items (bulleted by their style)
    and a book set mostly in bold make no headings; and a book that uses Heading
    styles, even ones with no outline level, keeps its bold lines as text."""
    looks = (
        '<w:docDefaults><w:rPrDefault><w:rPr><w:sz w:val="22"/></w:rPr></w:rPrDefault>'
        "</w:docDefaults>"
    )
    styles = looks + "".join(
        [
            '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/>'
            '<w:rPr><w:sz w:val="28"/></w:rPr></w:style>',
            '<w:style w:type="paragraph" w:styleId="MyHead"><w:name w:val="My Head"/>'
            '<w:basedOn w:val="Normal"/><w:rPr><w:b/><w:sz w:val="36"/></w:rPr></w:style>',
            '<w:style w:type="character" w:styleId="Strong"><w:name w:val="Strong"/>'
            "<w:rPr><w:b/></w:rPr></w:style>",
            '<w:style w:type="paragraph" w:styleId="ListBullet"><w:name w:val="List Bullet"/>'
            '<w:pPr><w:numPr><w:numId w:val="1"/></w:numPr></w:pPr></w:style>',
        ]
    )
    strong = '<w:p><w:r><w:rPr><w:rStyle w:val="Strong"/></w:rPr><w:t>Climbing</w:t></w:r></w:p>'
    body = "".join(
        [
            para("Movement", "MyHead"),
            para("Each player draws five cards", size=14),  # the text's own size, set again
            para("Terrain", "ListBullet", bold=True),
            para("Models move up to their Move."),
            strong,
            para("Climbing costs double."),
            para("Combat", "MyHead"),
            para("Both roll."),
        ]
    )
    units = parse_file("h.docx", docx(body, styles), game="x").units
    assert [(u.rule_id, u.parent) for u in units] == [
        ("movement", ""),
        ("movement/climbing", "Movement"),
        ("combat", ""),
    ]
    assert units[0].text.split("\n")[:2] == ["Each player draws five cards", "Terrain"]
    # Heading 1 with no outline level still makes the book one that uses heading styles
    plain = STYLES.replace('<w:pPr><w:outlineLvl w:val="0"/></w:pPr>', "")
    body = para("Setup", "Heading1") + para("Lay out.") + para("Never shuffle", bold=True)
    body += para("the discard pile.") + para("Combat", "Heading1") + para("Both roll.")
    units = parse_file("s.docx", docx(body, plain), game="x").units
    assert [u.title for u in units] == ["Setup", "Combat"]
    # a book set mostly in bold: bold marks nothing
    body = "".join(para(t, bold=True) for t in ("Setup", "Lay out the board.", "Draw five cards",
                                                 "Each player takes a deck", "Play."))  # fmt: skip
    units = parse_file("b.docx", docx(body), game="x").units
    assert len(units) == 1


def test_a_bold_quote_or_caption_style_makes_no_hand_made_heading() -> None:
    """Bold a paragraph style sets is a quote's or a caption's ("Intense Quote"
    is bold in Word's own template), not a heading's: it split its section."""
    styles = STYLES + (
        '<w:style w:type="paragraph" w:styleId="IntenseQuote"><w:name w:val="Intense Quote"/>'
        "<w:rPr><w:b/></w:rPr></w:style>"
    )
    body = "".join(
        [
            para("Movement", bold=True, size=16),
            para("Units move up to their Move."),
            para("Remember that terrain always slows units down", "IntenseQuote"),
            para("Woods halve movement."),
            para("Combat", bold=True, size=16),
            para("Both roll."),
        ]
    )
    units = parse_file("q.docx", docx(body, styles), game="x").units
    assert [u.title for u in units] == ["Movement", "Combat"]
    assert "Remember that terrain" in units[0].text
    # the same in a file python-docx made from Word's own template (a review helper's)
    made = (FIXTURES.parent / "word" / "intense_quote.docx").read_bytes()
    units = parse_file("made.docx", made, game="x").units
    # (its "Title" line is the document's title, not a rule holding only that)
    assert [u.title for u in units] == ["Setup", "Movement", "Combat"]
    assert "Remember that terrain always slows units down" in units[1].text


@pytest.mark.parametrize("links", [True, False], ids=["linked", "plain"])
@pytest.mark.parametrize("control", [True, False], ids=["in-control", "bare"])
def test_a_word_table_of_contents_is_no_rule(links: bool, control: bool) -> None:
    """Word's table of contents (a TOC field, its entries the headings' text and
    page numbers) was read as text: the first rule held every heading's name.
    It goes, with or without hyperlinks and its content control, and its
    "Contents" title with it; text after the field in the same paragraph stays."""
    entries = [
        ("1 Movement", "3", 1, "_Toc1"),
        ("1.1 Running", "3", 2, "_Toc2"),
        ("2 Shooting", "5", 1, "_Toc3"),
    ]
    body = "".join(
        [
            para("Brass Rules", "Title"),
            para("Contents", "TOCHeading") if not control else "",
            contents_field(entries, links=links, control=control),
            bookmarked_heading("Movement", 1, "_Toc1"),
            para("Each model moves up to its Move value in inches."),
            bookmarked_heading("Running", 2, "_Toc2"),
            para("A running model moves twice its Move value."),
            bookmarked_heading("Shooting", 1, "_Toc3"),
            para("Roll a die for each shot."),
        ]
    )
    result = parse_file("club.docx", docx(body, STYLES + TOC_STYLES), game="x")
    by_id = {u.rule_id: u.text for u in result.units}
    # the "Title" line names the book and is no rule of its own
    assert list(by_id) == ["movement", "movement/running", "shooting"]
    assert result.dropped["table of contents lines"] == 4
    intro = body.replace(para("Brass Rules", "Title"), para("Brass Rules", "Title") + para("Hi."))
    front = parse_file("club.docx", docx(intro, STYLES + TOC_STYLES), game="x").units[0]
    assert (front.rule_id, front.title, front.text) == ("brass-rules", "Brass Rules", "Hi.")
    # the field ending inside a paragraph that goes on: that text is kept
    tail = contents_field(entries, links=links, control=False, after_end="Play on a table.")
    body = tail + bookmarked_heading("Movement", 1, "_Toc1") + para("Move 6 inches.")
    units = parse_file("club.docx", docx(body, STYLES + TOC_STYLES), game="x").units
    assert [u.text for u in units] == ["Play on a table.", "Move 6 inches."]


def test_a_table_of_contents_field_that_never_ends_takes_nothing_with_it() -> None:
    """A damaged file's TOC field with no end would swallow the rest of the
    book; then only the paragraphs in Word's own contents styles go."""
    entries = [("1 Movement", "3", 1, "_Toc1"), ("2 Shooting", "5", 1, "_Toc2")]
    field = contents_field(entries, links=False, control=False)
    broken = field[: field.rindex('<w:r><w:fldChar w:fldCharType="end"/></w:r>')] + "</w:p>"
    body = (
        para("Contents", "TOCHeading")
        + broken
        + bookmarked_heading("Movement", 1, "_Toc1")
        + para("Each model moves up to 6 inches.")
    )
    result = parse_file("club.docx", docx(body, STYLES + TOC_STYLES), game="x")
    assert [u.rule_id for u in result.units] == ["movement"]
    assert result.units[0].text == "Each model moves up to 6 inches."
    assert result.dropped["table of contents lines"] == 3


CONTENTS_MD = """# Brass Rules

## Table of Contents

- [Movement](#movement)
  - [Running & Walking](#running--walking)
  - [Charging](#charge)
- [Shooting](#shooting) .... 5

[TOC]

## Movement

Each model moves up to 6 inches. See [Charging](#charge) for charges.

### Running & Walking

A running model moves twice as far.

- [Charging](#charge)
- [Shooting](#shooting)

### Charging {#charge}

A charging model moves into contact.

- [Armoury](armoury.md#pistols)
- [Units](units.md)
- [Terrain](terrain.md)

## Shooting

Roll a die for each shot.
"""


def test_a_markdown_table_of_contents_is_no_rule() -> None:
    """A contents list (links to the file's own headings, by GitHub's slugs or
    an explicit {#id}) and a tool's [TOC] placeholder were a rule of every
    heading's name. They go; a link in a sentence, a list of two and a list
    of links to other files stay. The page as HTML gives the same rules."""
    result = parse_file("rules.md", CONTENTS_MD.encode(), game="x")
    by_id = {u.rule_id: u.text for u in result.units}
    assert by_id == {
        "brass-rules/movement": "Each model moves up to 6 inches. See Charging for charges.",
        "brass-rules/movement/running-walking": (
            "A running model moves twice as far.\n- Charging\n- Shooting"
        ),
        "brass-rules/movement/charging": (
            "A charging model moves into contact.\n- Armoury\n- Units\n- Terrain"
        ),
        "brass-rules/shooting": "Roll a die for each shot.",
    }
    assert result.dropped["table of contents lines"] == 5
    import markdown_it

    page = markdown_it.MarkdownIt("commonmark").render(
        CONTENTS_MD.replace("[TOC]\n", "").replace(" {#charge}", "")
    )
    for title, anchor in [("Movement", "movement"), ("Running &amp; Walking", "running--walking"),
                          ("Charging", "charge"), ("Shooting", "shooting")]:  # fmt: skip
        page = re.sub(rf"<(h\d)>{title}</h\d>", rf'<\1 id="{anchor}">{title}</\1>', page)
    as_html = parse_file("rules.html", f"<html><body>{page}</body></html>".encode(), game="x")
    assert {u.rule_id: u.text for u in as_html.units} == by_id


@pytest.mark.parametrize(
    "rule",
    [
        "The phases are:\n\n1. [Knight](#knight)\n2. [Squire](#squire)\n3. [Archer](#archer)\n",
        "- [Knight](#knight) `3d6`\n- [Squire](#squire) `2d8`\n- [Archer](#archer) `1d4`\n",
        "- [Knight](#knight) 150\n- [Squire](#squire) 40\n- [Archer](#archer) 25\n",
        "- [Knight](#knight)\n- [Squire](#squire)\n- [Archer](#archer)\n\n    Score = kills x 2\n",
        "- [Knight](#knight)\n- [Squire](#squire)\n- [Archer](#archer)\n\nThen the next turn.\n",
    ],
)
def test_a_markdown_list_of_links_inside_a_rule_is_the_rules(rule: str) -> None:
    """Review cases: a list of links to the file's headings with a lead-in, a
    code span, falling numbers, or text after it is the rule's, not contents."""
    text = f"# Army\n\n{rule}\n## Knight\n\nA.\n\n## Squire\n\nB.\n\n## Archer\n\nC.\n"
    result = parse_file("army.md", text.encode(), game="x")
    assert "Knight" in result.units[0].text and "Archer" in result.units[0].text
    assert "table of contents lines" not in result.dropped


def test_word_text_beside_a_table_of_contents_stays() -> None:
    """Review cases: a "TOC Heading" paragraph that heads no contents is text;
    text typed inside the contents' content control after the field, and text
    after the field's end in its last paragraph, stay; entries whose field was
    turned to plain text still go by their "toc N" styles."""
    entries = [("1 Movement", "3", 1, "_Toc1"), ("2 Shooting", "5", 1, "_Toc2"),
               ("3 Morale", "7", 1, "_Toc3")]  # fmt: skip
    control = contents_field(entries, control=True, after_end="Players need a D6.")
    typed = para("This game is for two players.")
    body = (
        control.replace("</w:sdtContent>", typed + "</w:sdtContent>")
        + bookmarked_heading("Movement", 1, "_Toc1")
        + para("Move 6 inches.")
        + para("Designer's Notes", "TOCHeading")
        + para("Never through walls.")
    )
    units = parse_file("club.docx", docx(body, STYLES + TOC_STYLES), game="x").units
    assert [u.text for u in units] == [
        "Players need a D6.\nThis game is for two players.",
        "Move 6 inches.\nDesigner's Notes\nNever through walls.",
    ]
    static = "".join(para(f"{text}\t{page}", f"TOC{level}") for text, page, level, _ in entries)
    body = static + bookmarked_heading("Movement", 1, "_Toc1") + para("Move 6 inches.")
    result = parse_file("club.docx", docx(body, STYLES + TOC_STYLES), game="x")
    assert [u.text for u in result.units] == ["Move 6 inches."]
    assert result.dropped["table of contents lines"] == 3


def test_markdown_contents_beside_comments_and_rules_and_a_sections_own_list() -> None:
    """Second review round: doctoc's comment markers and a rule line beside a
    contents list change nothing; a section's own list of its subsections is
    its text."""
    doctoc = (
        "# Book\n\n<!-- START doctoc -->\n- [Setup](#setup)\n- [Movement](#movement)\n"
        "- [Combat](#combat)\n<!-- END doctoc -->\n\n---\n\n## Setup\n\nA.\n\n## Movement\n\nB.\n\n"
        "## Combat\n\nC.\n"
    )
    result = parse_file("book.md", doctoc.encode(), game="x")
    assert [u.text for u in result.units] == ["A.", "B.", "C."]
    assert result.dropped["table of contents lines"] == 3
    own = doctoc.replace("# Book\n", "# Book\n\nIntro.\n\n## Turn\n").replace("## ", "### ")
    own = own.replace("### Turn", "## Turn")
    units = parse_file("book.md", own.encode(), game="x").units
    assert units[1].title == "Turn" and "- Setup\n- Movement\n- Combat" in units[1].text


def test_word_contents_fields_as_word_really_writes_them() -> None:
    """Second review round: Word ends a contents field in an empty paragraph of
    its own, which must still close it (a later field closing instead took the
    whole book); a field code split over runs is read whole; a text box
    anchored in an entry is no entry."""
    entries = [("1 Movement", "3", 1, "_Toc1"), ("2 Shooting", "5", 1, "_Toc2"),
               ("3 Morale", "7", 1, "_Toc3")]  # fmt: skip
    field = contents_field(entries, links=False, control=False)
    end = '<w:r><w:fldChar w:fldCharType="end"/></w:r>'
    at = field.rindex(end)
    # the TOC field's end moved to an empty paragraph after the entries
    field = field[:at] + field[at + len(end) :] + f"<w:p>{end}</w:p>"
    # and a later field opening in an empty paragraph, closing in one with text
    later = (
        '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> INCLUDETEXT x '
        '</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r></w:p>'
        f'<w:p><w:r><w:t>Appendix text.</w:t></w:r>{end}</w:p>'
    )  # fmt: skip
    body = (
        field
        + bookmarked_heading("Movement", 1, "_Toc1")
        + para("Move 6 inches.")
        + later
        + bookmarked_heading("Shooting", 1, "_Toc2")
        + para("Roll a die.")
    )
    units = parse_file("club.docx", docx(body, STYLES + TOC_STYLES), game="x").units
    assert [u.text for u in units] == ["Move 6 inches.\nAppendix text.", "Roll a die."]
    split = contents_field(entries, links=False, control=False).replace(
        "> TOC \\o", "> TO</w:instrText></w:r><w:r><w:instrText>C \\o"
    )
    plain = STYLES + TOC_STYLES.replace('w:val="toc ', 'w:val="Index ')
    body = split + bookmarked_heading("Movement", 1, "_Toc1") + para("Move 6 inches.")
    result = parse_file("club.docx", docx(body, plain), game="x")
    assert [u.text for u in result.units] == ["Move 6 inches."]
    box = (
        '<w:r><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox>'
        "<w:txbxContent><w:p><w:r><w:t>Components: 40 cards.</w:t></w:r></w:p></w:txbxContent>"
        "</v:textbox></v:shape></w:pict></w:r>"
    )
    boxed = contents_field(entries, links=False, control=False)
    first = boxed.index("</w:p>")
    boxed = boxed[:first] + box + boxed[first:]
    body = boxed + bookmarked_heading("Movement", 1, "_Toc1") + para("Move 6 inches.")
    units = parse_file("club.docx", docx(body, STYLES + TOC_STYLES), game="x").units
    assert "Components: 40 cards." in units[0].text


SPELLS_MD = """# Ember & Ash

## Classes

### Wizard

#### Wizard Spells

- [Fire Bolt](#fire-bolt)
- [Shield](#shield)
- [Sleep](#sleep)

### Quick Reference

- [Bolts deal 1d10](#fire-bolt)
- [Shields give +5 AC](#shield)
- [Sleep fells 5 HD](#sleep)

## Spells

### Fire Bolt

Deal 1d10 fire damage.

### Shield

Gain +5 AC.

### Sleep

Creatures of 5 HD or fewer sleep.
"""


def test_lists_of_links_to_definitions_elsewhere_are_rules() -> None:
    """Third review round: a class's list of spells, linked to a later chapter,
    and a quick reference whose links are rule sentences are rules, in
    Markdown and as a page: a contents list starts at the first heading after
    it, and each entry names its heading."""
    result = parse_file("ember.md", SPELLS_MD.encode(), game="x")
    by_title = {u.title: u.text for u in result.units}
    assert by_title["Wizard Spells"] == "- Fire Bolt\n- Shield\n- Sleep"
    assert by_title["Quick Reference"].startswith("- Bolts deal 1d10")
    assert "table of contents lines" not in result.dropped
    import markdown_it

    page = markdown_it.MarkdownIt("commonmark").render(SPELLS_MD)
    for name in ("Fire Bolt", "Shield", "Sleep"):
        page = page.replace(
            f"<h3>{name}</h3>", f'<h3 id="{name.lower().replace(" ", "-")}">{name}</h3>'
        )
    as_html = parse_file("ember.html", f"<html><body>{page}</body></html>".encode(), game="x")
    assert {u.title: u.text for u in as_html.units} == by_title


def test_a_text_box_in_a_contents_entry_made_plain_stays() -> None:
    """Third review round: an entry in a "toc 1" style with no field left (made
    plain text) goes by its style, but a box anchored in it keeps its text."""
    box = (
        '<w:r><w:pict><v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox>'
        "<w:txbxContent><w:p><w:r><w:t>Components: 40 cards.</w:t></w:r></w:p></w:txbxContent>"
        "</v:textbox></v:shape></w:pict></w:r>"
    )
    entries = [para("Movement\t3", "TOC1"), para("Shooting\t5", "TOC1")]
    entries[0] = entries[0].replace("</w:p>", box + "</w:p>")
    body = "".join(entries) + bookmarked_heading("Movement", 1, "_Toc1") + para("Move 6.")
    units = parse_file("club.docx", docx(body, STYLES + TOC_STYLES), game="x").units
    assert [u.text for u in units] == ["Components: 40 cards.", "Move 6."]


@pytest.mark.parametrize(
    "first",
    [
        # a rule after a line break, a rule set in the Title style, a box anchored to it
        '<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t>Card Duel</w:t><w:br/>'
        "<w:t>The youngest player goes first.</w:t></w:r></w:p>",
        para("Card Duel is for two players, and the youngest player goes first.", "Title"),
        '<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t>Card Duel</w:t></w:r><w:r><w:pict>'
        '<v:shape xmlns:v="urn:schemas-microsoft-com:vml"><v:textbox><w:txbxContent><w:p><w:r>'
        "<w:t>The youngest player goes first.</w:t></w:r></w:p></w:txbxContent></v:textbox>"
        "</v:shape></w:pict></w:r></w:p>",
    ],
)
def test_a_title_line_that_holds_a_rule_stays(first: str) -> None:
    """Fourth review round: only a name in Word's Title style is the title; a
    Title paragraph holding a rule, or a box anchored to it, keeps its text."""
    body = first + para("Setup", "Heading1") + para("Each player takes 10 cards.")
    units = parse_file("duel.docx", docx(body), game="x").units
    assert "youngest player goes first" in units[0].text


def test_quick_reference_entries_that_start_with_the_heading_are_rules() -> None:
    """Fourth review round: "Movement: a model moves up to 6 inches" links to
    Movement and names it, but says more: a rule, not a contents entry."""
    text = (
        "# Brass\n\n- [Movement: a model moves up to 6 inches](#movement)\n"
        "- [Shooting: roll 2d6, hitting on 7](#shooting)\n- [Melee: fight in contact](#melee)\n\n"
        "## Movement\n\nMove 6.\n\n## Shooting\n\nRoll 2d6.\n\n## Melee\n\nFight.\n"
    )
    units = parse_file("brass.md", text.encode(), game="x").units
    assert units[0].text.startswith("- Movement: a model moves up to 6 inches")


def test_a_title_line_other_than_the_title_property_stays() -> None:
    """Fifth review round: a Title line that says more than the file's Title
    property ("Card Duel: Second Edition Rules" against "Card Duel"), or with a
    tab or a note in it, is kept as text."""
    body = para("Card Duel Second Edition Rules", "Title") + para("Setup", "Heading1")
    body += para("Each player takes 10 cards.")
    units = parse_file("duel.docx", docx(body, title="Card Duel"), game="x").units
    assert units[0].text == "Card Duel Second Edition Rules"
    tabbed = body.replace("<w:t xml:space=\"preserve\">Card Duel Second Edition Rules</w:t>",
                          "<w:t>Card Duel</w:t><w:tab/><w:t>Version 2</w:t>")  # fmt: skip
    units = parse_file("duel.docx", docx(tabbed), game="x").units
    assert "Version 2" in units[0].text


def test_a_markdown_comment_block_with_a_rule_in_it_is_no_marker() -> None:
    """Fifth review round: an HTML block that opens with a comment but holds a
    rule is no doctoc marker, and keeps the list beside it rule text."""
    text = (
        "# Book\n\nContents\n<!-- toc --><p>The youngest player always goes first.</p>\n\n"
        "- [Setup](#setup)\n- [Movement](#movement)\n- [Combat](#combat)\n\n"
        "## Setup\n\nA.\n\n## Movement\n\nB.\n\n## Combat\n\nC.\n"
    )
    units = parse_file("book.md", text.encode(), game="x").units
    assert "The youngest player always goes first." in units[0].text


def _read_md(text: str, name: str = "book.md") -> ParseResult:
    return parse_file(name, text.encode(), game="x")


def test_markdown_headings_set_only_in_bold_are_headings() -> None:
    """Seventh review round: a Markdown file whose headings are paragraphs wholly
    in bold ("**3.2 Charging**" alone on its line, CRLF line ends, under one
    "#" title) was one rule holding every rule. They are read as the Word
    reader reads hand-made headings, each at its number's depth; a bold
    run-in label stays text, and a file with no heading of any kind is
    still plain sections with a warning."""
    text = (
        "# Ashfall Rules\r\n\r\n**3 Movement**\r\n\r\nA model may move 6 inches.\r\n\r\n"
        "***3.2 Charging***\r\n\r\nDeclare a target and roll 2D6.\r\n\r\n"
        "**Designer's Note:** The stumble keeps the risk real.\r\n\r\n"
        "**4 Shooting**\r\n\r\nHits on a 4+.\r\n"
    )
    units = _read_md(text).units
    assert [(u.rule_id, u.title, u.parent) for u in units] == [
        ("ashfall-rules/movement", "Movement", "Ashfall Rules"),
        ("3.2", "Charging", "Ashfall Rules > Movement"),
        ("ashfall-rules/shooting", "Shooting", "Ashfall Rules"),
    ]
    assert units[1].text.endswith("Designer's Note: The stumble keeps the risk real.")
    # bold headings with no title line above them, and no numbers: one level
    plain = "**Setup**\n\nDeal five cards.\n\n**Play**\n\nPlay one card a turn.\n"
    assert [u.title for u in _read_md(plain).units] == ["Setup", "Play"]
    # bold sentences, labels and a lone bold line are no headings
    none = (
        "**Roll two dice.**\n\nAdd them.\n\n**Range:** 12 inches.\n\n"
        "**Cover**\n\nA model in cover is hit on a 5+.\n"
    )
    result = _read_md(none)
    assert any("no headings found" in w for w in result.warnings)


@pytest.mark.parametrize(
    ("body", "lines"),
    [
        (
            "Apply these modifiers in order:\na) -1 in cover\nb) -1 if moved\nc) +1 at half range\n",
            ["Apply these modifiers in order:", "a) -1 in cover", "b) -1 if moved",
             "c) +1 at half range"],
        ),
        (
            "(a) If the total beats the distance, charge.\n(b) Otherwise stumble.\n",
            ["(a) If the total beats the distance, charge.", "(b) Otherwise stumble."],
        ),
        (
            "Fight:\n\n1. The attacker rolls to hit.\n   a. Re-roll 1s if charging.\n"
            "   b. Re-roll nothing otherwise.\n2. The defender rolls saves.\n",
            ["Fight:", "1. The attacker rolls to hit.", "  a. Re-roll 1s if charging.",
             "  b. Re-roll nothing otherwise.", "2. The defender rolls saves."],
        ),
    ],
    ids=["letter-paren", "paren-letter", "under-a-numbered-item"],
)  # fmt: skip
def test_markdown_lettered_lines_keep_their_line_breaks(body: str, lines: list[str]) -> None:
    """Seventh review round: lines opening with a list label CommonMark does not
    know ("a)", "(a)", "a." under a "1." item) are no list to it, so they ran
    together into one line ("a) -1 in cover b) -1 if moved c) ..."). Where every
    line of a paragraph after the first opens with one, its breaks stay; a
    wrapped paragraph whose lines do not stays one line."""
    units = _read_md(f"# Shooting\n\n{body}\n# Fighting\n\nWrapped prose\nof one line.\n").units
    assert units[0].text.split("\n") == lines
    assert units[1].text == "Wrapped prose of one line."


def test_a_sentence_over_a_rule_line_is_no_setext_heading() -> None:
    """Seventh review round: a "---" line right under a paragraph makes it a setext
    heading (CommonMark), and that deleted rules: the body of "# 6 Morale"
    (two lines, then "---") became an empty heading and the rule vanished, no
    warning; a paragraph under "#### 3.2.1" became a rule titled with a
    sentence, and 3.2.1 was gone. In a file of "#" headings, a setext heading
    of several lines or a sentence is a paragraph and a rule line; a short
    one-line one is still a heading."""
    text = (
        "# 6 Morale\n\nRoll 2D6 against Nerve 7.\nOn a failure the model becomes Shaken\n---\n"
        "## 6.1 Rallying\n\nA Shaken model that does nothing else this turn rallies on a 4+.\n---\n\n"
        "Rallied models may act next turn.\n\nSetext heading inside\n---\n\nSome text.\n"
    )
    units = _read_md(text).units
    assert [(u.rule_id, u.title) for u in units] == [
        ("morale", "Morale"),
        ("6.1", "Rallying"),
        ("morale/setext-heading-inside", "Setext heading inside"),
    ]
    assert units[0].text == "Roll 2D6 against Nerve 7. On a failure the model becomes Shaken"
    assert units[1].text == (
        "A Shaken model that does nothing else this turn rallies on a 4+.\n"
        "Rallied models may act next turn."
    )


def test_a_short_setext_heading_is_a_heading_whatever_its_punctuation() -> None:
    """Eighth review round: "WAAAGH!" and "Did You Know?" over "---" in a file
    of "#" headings were read as sentences over a rule line, and their text
    went into the rule before them."""
    text = (
        "# Orks\n\nOrks fight in mobs.\n\nWAAAGH!\n---\n\nOnce per game, every Ork "
        "charges.\n\nDid You Know?\n---\n\nOrks paint their trukks red.\n"
    )
    units = _read_md(text).units
    assert [u.title for u in units] == ["Orks", "WAAAGH!", "Did You Know?"]
    assert units[1].text == "Once per game, every Ork charges."


def test_a_bold_question_in_a_file_with_no_headings_is_no_heading() -> None:
    """Eighth review round: in a file whose headings are bold lines, a FAQ's
    bold question ("**Can I charge after running?**") was a rule of its own,
    its answer cut off from the rule it belongs to; the HTML reader already
    keeps a bold question as text."""
    text = (
        "**1 Movement**\n\nModels move 6 inches.\n\n**Can I charge after running?**\n\n"
        "No: a model that ran cannot charge.\n\n**2 Shooting**\n\nRoll a D6 per shot.\n"
    )
    units = _read_md(text).units
    assert [u.title for u in units] == ["Movement", "Shooting"]
    assert units[0].text == (
        "Models move 6 inches.\nCan I charge after running?\nNo: a model that ran cannot charge."
    )


def test_word_list_items_keep_the_labels_word_shows() -> None:
    """Seventh review round: Word numbering with lowerLetter "%1)" and lowerRoman
    "(%2)" read "1. ... 2. ... 1. ... 3." (mammoth writes a bare <ol>); the
    OpenDocument reader already kept "a) b) (i) c)". Each item is counted and
    labelled as Word shows it, "%1.%2." levels filled in, bullets left bullets."""
    lists = multilevel_list(3, [("lowerLetter", "%1)"), ("lowerRoman", "(%2)")])
    lists += multilevel_list(4, [("upperRoman", "%1."), ("decimal", "%1.%2.")])
    lists += multilevel_list(5, [("bullet", "\uf0b7")])
    body = "".join(
        [
            para("Rolling to Hit", "Heading1"),
            para("Apply these modifiers:"),
            list_item("-1 if the target is in cover", 3),
            list_item("-1 if the shooter moved", 3),
            list_item("even if it only pivoted", 3, 1),
            list_item("+1 within half range", 3),
            para("Sequence", "Heading1"),
            list_item("Ready", 4),
            list_item("Draw", 4, 1),
            list_item("Discard", 4, 1),
            list_item("Aim", 4),
            list_item("A bullet", 5),
        ]
    )
    units = parse_file("b.docx", docx(body, numbering=lists), game="x").units
    assert units[0].text.split("\n") == [
        "Apply these modifiers:",
        "a) -1 if the target is in cover",
        "b) -1 if the shooter moved",
        "  (i) even if it only pivoted",
        "c) +1 within half range",
    ]
    assert units[1].text.split("\n") == [
        "I. Ready", "  I.1. Draw", "  I.2. Discard", "II. Aim", "- A bullet",
    ]  # fmt: skip


def test_a_line_break_in_a_word_paragraph_is_a_line_break() -> None:
    """Seventh review round: a line break inside a Word paragraph (Shift+Enter,
    <w:br/>) was read as a space: "roll 2D6." and "Add the result" on lines
    of their own ran together. It is a line break in the rule's text; in a
    heading it is still a space."""
    body = "".join(
        [
            broken_para(["Charging", "(optional)"], "Heading1"),
            broken_para(["Declare a target and roll 2D6.", "Add the result to Move."]),
            para("Then move."),
            para("Shooting", "Heading1"),
            para("Hits on a 4+."),
        ]
    )
    units = parse_file("b.docx", docx(body), game="x").units
    assert units[0].title == "Charging (optional)"
    assert units[0].text == "Declare a target and roll 2D6.\nAdd the result to Move.\nThen move."


def test_a_repeated_markdown_rule_number_is_reported() -> None:
    """Seventh review round: a heading "4.3 Rolling to Hit" used twice (an erratum
    pasted under the old rule) silently became rule "4.3-2": a player citing
    4.3 got the first and never heard of the second. It is said in a warning;
    a repeated unnumbered heading ("Example") is ordinary and is not."""
    text = (
        "## 4 Shooting\n\n### 4.3 Rolling to Hit\n\nHits on a 4+.\n\n### Example\n\nA 5.\n\n"
        "### 4.3 Rolling to Hit\n\nHits on a 3+ at close range.\n\n### Example\n\nA 3.\n"
    )
    result = _read_md(text, "dupes.md")
    assert [u.rule_id for u in result.units] == ["4.3", "shooting/example", "4.3-2",
                                                 "shooting/example-2"]  # fmt: skip
    assert [w for w in result.warnings if "more than once" in w] == [
        'dupes.md: heading "4.3 Rolling to Hit" is used more than once; this one is rule 4.3-2'
    ]


def test_an_obsidian_block_id_is_not_part_of_a_heading() -> None:
    """Seventh review round: Obsidian's block ID after a heading ("Activations
    ^activations", a link target, not words) was kept in the rule's title."""
    text = "## 2.2 Activations ^activations\n\nAlternate.\n\n## 2.3 Ending ^end-1\n\nStop.\n"
    assert [(u.rule_id, u.title) for u in _read_md(text).units] == [
        ("2.2", "Activations"),
        ("2.3", "Ending"),
    ]


# A card game's comprehensive rules: each numbered paragraph is the rule
# players cite ("rule 100.2a"), under a numbered section heading.
CR_SECTIONS = [
    (
        "100",
        "General",
        [
            ("100.1", "These rules apply to any game with two or more players."),
            ("100.1a", "A two-player game is a game that begins with only two players."),
            ("100.2", "Each player needs their own deck of cards and some dice."),
            ("100.2a", "In constructed play, each deck holds at least sixty cards."),
        ],
    ),
    (
        "101",
        "Deck Construction",
        [
            ("101.1", "A deck may not contain cards banned in the format being played."),
            ("101.2", "A player who searches their library shuffles it afterwards."),
        ],
    ),
    (
        "102",
        "Players",
        [
            ("102.1", "The active player is the player whose turn it is."),
            ("102.2", "In a two-player game, a player's opponent is the other player."),
        ],
    ),
]
CR_FILLER = "This applies in every format unless the format's own rules say otherwise."
CR_EXAMPLE = "Example: a player who searches for a land card then shuffles."
CR_IDS = ["100.1", "100.1a", "100.2", "100.2a", "101.1", "101.2", "102.1", "102.2"]


def _cr_markdown() -> str:
    out = ["# Card Game Comprehensive Rules", ""]
    for number, title, rules in CR_SECTIONS:
        out += [f"## {number}. {title}", ""]
        for rule, text in rules:
            out += [
                f"{rule}. {text}"
                if rule.count(".") == 1 and rule[-1].isdigit()
                else f"{rule} {text}",
                "",
            ]
        if number == "101":
            out += [CR_EXAMPLE, ""]
    return "\n".join(out)


def _cr_html() -> str:
    body = "<h1>Card Game Comprehensive Rules</h1>"
    for number, title, rules in CR_SECTIONS:
        body += f"<h2>{number}. {html.escape(title)}</h2>"
        body += "".join(f"<p>{rule} {html.escape(text)}</p>" for rule, text in rules)
        if number == "101":
            body += f"<p>{CR_EXAMPLE}</p>"
    return f"<html><head><title>Rules</title></head><body>{body}</body></html>"


def _cr_text() -> str:
    # typed text: numbered heading lines alone, paragraphs between blank lines
    return _cr_markdown().replace("# Card Game", "Card Game").replace("## ", "")


def _cr_pdf() -> bytes:
    b = Book(title="Card Game Comprehensive Rules", header="")
    b.new_page()
    b.heading("Card Game Comprehensive Rules", size=16)
    for number, title, rules in CR_SECTIONS:
        b.heading(f"{number}. {title}", size=12)
        for rule, text in rules:
            # set as a book sets them: paragraphs that fill their lines
            b.para(f"{rule} {text} {CR_FILLER}")
        if number == "101":
            b.para(CR_EXAMPLE)
    return b.pdf()


@pytest.mark.parametrize(
    ("name", "load"),
    [
        ("cr.md", lambda: _cr_markdown().encode()),
        ("cr.html", lambda: _cr_html().encode()),
        ("cr.txt", lambda: _cr_text().encode()),
        ("cr.pdf", _cr_pdf),
        ("cr.docx", lambda: markdown_docx(_cr_markdown())),
        ("cr.odt", lambda: markdown_odt(_cr_markdown())),
    ],
)
def test_numbered_paragraphs_are_the_rules_in_every_format(name: str, load: Loader) -> None:
    """Each numbered paragraph under a numbered section is a unit of its own,
    its ID the number (lettered sub-rules too), its text without the number,
    titled and breadcrumbed by its section; an unnumbered paragraph after one
    (an example) stays with it."""
    result = parse_file(name, load(), game="cards")
    rules = {u.rule_id: u for u in result.units if re.match(r"\d", u.rule_id)}
    assert list(rules) == CR_IDS, name
    texts = {rule: text for _, _, section in CR_SECTIONS for rule, text in section}
    for rule_id, u in rules.items():
        section = next(t for n, t, _ in CR_SECTIONS if rule_id.startswith(n + "."))
        assert u.title == section, (name, rule_id)
        assert u.parent.endswith(section), (name, rule_id, u.parent)
        assert " ".join(u.text.split()).startswith(texts[rule_id]), (name, rule_id, u.text)
    assert CR_EXAMPLE in " ".join(rules["101.2"].text.split())


def test_a_numbered_rule_opening_a_list_is_a_rule_in_a_pdf_too() -> None:
    """ "702.3. The state checks are:" set as the text is, on a line of its own: a
    rule whose items follow as its sub-rules, not a heading (the items were
    titled "The state checks are:" and 702.3 was missing from the PDF alone)."""
    b = Book(title="Rules", header="")
    b.new_page()
    b.heading("702. State Checks", size=12)
    b.para(f"702.1. State checks happen whenever a player would act. {CR_FILLER}")
    b.para("702.3. The state checks are:")
    b.para(f"702.3a A player with 0 or less Light loses the game. {CR_FILLER}")
    b.para(f"702.3b A warden with Grit 0 or less is put into the Mire. {CR_FILLER}")
    result = parse_file("cr.pdf", b.pdf(), game="cards")
    got = {u.rule_id: (u.title, u.text.split(".")[0]) for u in result.units}
    assert got["702.3"] == ("State Checks", "The state checks are:")
    assert got["702.3a"][0] == "State Checks" and "702.3b" in got


def test_a_number_opening_one_sentence_is_no_rule_of_its_own() -> None:
    """A section's paragraphs become rules only when two or more carry a number
    under the section's own: "2.5 inches" under "3 Movement" once is a sentence,
    numbers under another section's are text, and a table's numbered rows stay
    its rows."""
    md = (
        "# 3 Movement\n\nModels move in inches.\n\n"
        "3.5 inches is the most a Slow model may move.\n\n"
        "# 4 Shooting\n\nA model shoots once.\n\n"
        "3.1 and 3.2 say how far a model moves before it shoots.\n\n"
        "3.4 lets a Swift model run afterwards.\n\n"
        "# 5 Weapons\n\n| No. | Weapon | Range |\n|---|---|---|\n"
        "| 5.1 | Rifle | 24 |\n| 5.2 | Pistol | 12 |\n"
    )
    result = parse_file("rules.md", md.encode(), game="cards")
    assert [u.rule_id for u in result.units] == ["movement", "shooting", "weapons"]
    assert "3.5 inches" in result.units[0].text
    assert "5.2 | Pistol | 12" in result.units[2].text  # a table's rows are no rules


def test_numbered_paragraphs_under_headings_that_number_them() -> None:
    """A keyword's lettered sub-rules under its own heading ("702.19a" under
    "702.19. Trample"), one alone too; a paragraph numbered under the section
    after a subsection's heading ("702.4" after "702.3"); a heading's number
    written without a dot ("100 General" beside "200 General") is the
    section's once paragraphs are numbered under it; a contents list's lines
    are no rules."""
    md = (
        "# Rules\n\n"
        "This chapter covers:\n\n702.2 The state checks\n\n702.19 Trample\n\n"
        "## 100 General\n\n100.1 These rules apply to every game.\n\n"
        "100.2 Each player needs a deck.\n\n"
        "## 200 General\n\n200.1 Cards have a name and a cost.\n\n"
        "200.2 A card's cost is paid in Tide.\n\n"
        "## 702. Keywords\n\n702.1. Keywords describe what they do.\n\n"
        "### 702.2. The state checks\n\n702.2a A player with 0 Light loses.\n\n"
        "702.2b A warden with Grit 0 is put into the Mire.\n\n"
        "702.3. A warden with lethal damage stays until the next check.\n\n"
        "### 702.18. Steadfast\n\n702.18a Attacking doesn't make this warden spent.\n\n"
        "### 702.19. Trample\n\n702.19a Trample lets excess damage through.\n\n"
        "702.19b Trample counts only lethal damage.\n\n"
        "### 702.20a. Ward, in brief\n\nWard taxes a rival's targeting.\n"
    )
    result = parse_file("rules.md", md.encode(), game="cards")
    got = {u.rule_id: (u.title, u.parent) for u in result.units}
    assert list(got) == [
        "rules",
        "100.1",
        "100.2",
        "200.1",
        "200.2",
        "702.1",
        "702.2a",
        "702.2b",
        "702.3",
        "702.18a",
        "702.19a",
        "702.19b",
        "702.20a",  # a heading's lettered number keeps its letter
    ]
    assert got["100.1"] == ("General", "Rules > General")
    assert got["200.2"] == ("General", "Rules > General")
    assert got["702.3"] == ("Keywords", "Rules > Keywords")
    assert got["702.19b"] == ("Trample", "Rules > Keywords > Trample")
    assert got["702.20a"] == ("Ward, in brief", "Rules > Keywords")
    front = result.units[0].text
    assert "702.2 The state checks" in front and "702.19 Trample" in front  # the contents
    assert not [w for w in result.warnings if "more than once" in w]


def test_a_sections_only_rule_keeps_its_number_where_the_book_numbers_its_rules() -> None:
    """ "3.2.1 A Run action..." alone under "3.2 Running", in a book whose other
    sections hold 2.2.1 and 2.2.2 as rules of their own, is rule 3.2.1 (read
    into 3.2, "rule 3.2.1" was no rule at all). Only a heading's first number:
    a lone "3.3.4" is as likely a cross-reference; and in a book with no runs,
    one numbered paragraph stays text."""
    md = (
        "# 2 Turns\n\n## 2.2 Steam Phase\n\n2.2.1 Each Ironclad gains one Steam.\n\n"
        "2.2.2 Unspent Steam is lost at the end of the round.\n\n"
        "# 3 Movement\n\n## 3.2 Running\n\n"
        "3.2.1 A Run action moves the model up to double its Move.\n\n"
        "## 3.3 Engagement\n\n3.3.4 Engaged models may shoot only with a Pistol.\n"
    )
    got = {u.rule_id: u.title for u in parse_file("rules.md", md.encode(), game="g").units}
    assert got == {
        "2.2.1": "Steam Phase",
        "2.2.2": "Steam Phase",
        "3.2.1": "Running",
        "3.3": "Engagement",
    }
    alone = (
        "# 3 Movement\n\n## 3.2 Running\n\n"
        "3.2.1 A Run action moves the model up to double its Move.\n"
    )
    assert [u.rule_id for u in parse_file("rules.md", alone.encode(), game="g").units] == ["3.2"]


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "rules.txt",
            "Rules\n\n100. General\n\n100.1. These rules apply to all games.\n"
            "100.2. Each player needs a deck.\n100.2a A deck holds forty cards.\n\n"
            "101. Players\n\n101.1. The active player acts first.\n\n"
            "102. Turns\n\n102.1. A turn has three steps.\n",
        ),
        (
            "rules.md",
            "# Rules\n\n## 100. General\n\n100.1. These rules apply to all games.\n"
            "100.2. Each player needs a deck.\n100.2a A deck holds forty cards.\n",
        ),
        (
            "rules.html",
            "<html><body><h1>Rules</h1><h2>100. General</h2><p>100.1. These rules apply to "
            "all games.<br>100.2. Each player needs a deck.<br>100.2a A deck holds forty "
            "cards.</p></body></html>",
        ),
    ],
)
def test_one_numbered_rule_a_line_is_one_rule_a_unit(name: str, text: str) -> None:
    """Rules typed one a line with no blank line between (text, Markdown's
    soft breaks, a page's <br>s) are rules of their own too; a number that
    only continues a wrapped sentence stays in it."""
    result = parse_file(name, text.encode(), game="cards")
    got = {u.rule_id: u.text for u in result.units if u.rule_id.startswith("100.")}
    assert got == {
        "100.1": "These rules apply to all games.",
        "100.2": "Each player needs a deck.",
        "100.2a": "A deck holds forty cards.",
    }


# A house rulebook: its rules numbered in the paragraphs ("1.", "1.1"), under
# headings that carry no number.
HOUSE_SECTIONS = [
    (
        "Movement",
        [
            ("1", "Each model may move up to its Speed in inches during its activation."),
            ("1.1", "A model may not move within 1 inch of an enemy model unless charging."),
            (
                "1.2",
                "Difficult terrain costs double. No model ends its move in impassable terrain.",
            ),
        ],
    ),
    (
        "Shooting",
        [
            ("2.1", "Roll a die; on a 4+ the shot hits. Beyond half range, a 5+ is needed."),
            ("2.2", "A model that ran this activation may not shoot."),
        ],
    ),
    (
        "Morale",
        [("3.1", "Roll two dice. If the score exceeds the leader's Nerve, the band routs.")],
    ),
]
HOUSE_IDS = ["1", "1.1", "1.2", "2.1", "2.2", "3.1"]


def _house_markdown() -> str:
    out = ["# Ashfall Skirmish", ""]
    for title, rules in HOUSE_SECTIONS:
        out += [f"## {title}", "", *[f"{n}{'.' * ('.' not in n)} {t}\n" for n, t in rules]]
    return "\n".join(out)


def _house_pdf() -> bytes:
    b = Book(title="Ashfall Skirmish", header="")
    b.new_page()
    b.heading("Ashfall Skirmish", size=16)
    for title, rules in HOUSE_SECTIONS:
        b.heading(title, size=12)
        for n, text in rules:
            b.para(f"{n}{'.' * ('.' not in n)} {text}")
    return b.pdf()


@pytest.mark.parametrize(
    ("name", "load"),
    [
        ("house.md", lambda: _house_markdown().encode()),
        (
            "house.txt",
            lambda: re.sub("(?m)^#+ (.*)", lambda m: m[1].upper(), _house_markdown()).encode(),
        ),
        ("house.html", lambda: MarkdownIt().render(_house_markdown()).encode()),
        ("house.pdf", _house_pdf),
        # typed as a paragraph, not made a Word list (whose number the builder drops)
        ("house.docx", lambda: markdown_docx(_house_markdown().replace("1. ", "1\\. "))),
        ("house.odt", lambda: markdown_odt(_house_markdown().replace("1. ", "1\\. "))),
    ],
)
def test_rules_numbered_under_plain_headings_are_the_rules(name: str, load: Loader) -> None:
    """A house rulebook numbers its rules in the paragraphs ("1.1 A model may
    not..."), under headings with no number: each is a unit cited by its number,
    titled by its heading; "1." is a rule because "1.1" and "1.2" are under it.
    They were text of their heading, and "rule 2.2" was "no such rule"."""
    result = parse_file(name, load(), game="house")
    rules = {u.rule_id: u for u in result.units if re.match(r"\d", u.rule_id)}
    assert list(rules) == HOUSE_IDS, name
    for title, section in HOUSE_SECTIONS:
        for n, text in section:
            assert rules[n].title.casefold() == title.casefold(), (name, n)
            assert " ".join(rules[n].text.split()) == text, (name, n)


def test_rules_numbered_with_no_heading_at_all_are_the_rules() -> None:
    """Typed with no heading, a line a rule: each rule its own unit, titled by its
    first words (the file's name says nothing), the book as its breadcrumb."""
    text = "\n".join(f"{n}{'.' * ('.' not in n)} {t}" for _, s in HOUSE_SECTIONS for n, t in s)
    result = parse_file("house.txt", text.encode(), game="house")
    assert [u.rule_id for u in result.units] == HOUSE_IDS
    first = result.units[1]
    assert first.title.startswith("A model may not move") and first.title_source == "first-words"
    assert first.parent == "house" and first.text == HOUSE_SECTIONS[0][1][1][1]
    assert not result.warnings


def _pasted_page(n: int, first: int) -> str:
    filler = "\n".join(f"Line {k} of the rules goes on here." for k in range(10))
    name = ["CHARGING", "SHOOTING", "MORALE"][first - 4]
    return (
        f"{first}. {name}\nA model within 8 inches may de-\nclare a charge; a charg-\n"
        f"ing model moves straight. Its well-\nknown bonus is +1. Hits are simulta-\n"
        f"neous.\n{filler}\n\nPage {n} Ashfall Skirmish Rules\n\n"
    )


def test_text_pasted_from_a_pdf_loses_its_footers_and_broken_words() -> None:
    """Text pasted out of a PDF: a running footer with the page number ("Page 12
    Ashfall Skirmish Rules", the book's name) ended a rule on every page, and a
    word broken at a line's end read "charg- ing". A word is joined as the text
    writes it elsewhere (whole, or with its hyphen: "well-known"), else left."""
    text = (
        "ASHFALL SKIRMISH RULES\n\n"
        + "".join(_pasted_page(12 + n, 4 + n) for n in range(3))
        + "The charging model and a well-known rule.\n"
    )
    result = parse_file("rules.txt", text.encode(), game="x")
    first = next(u for u in result.units if u.title == "CHARGING")
    assert first.text.startswith(
        "A model within 8 inches may de- clare a charge; a charging model moves "
        "straight. Its well-known bonus is +1. Hits are simulta- neous."
    )
    assert not any("Page" in u.text for u in result.units)
    assert result.dropped["running headers and page numbers"] == 3


def test_lines_counting_up_that_are_no_page_furniture_stay() -> None:
    """ "Turn 1", "Turn 2", "Turn 3" over a scenario's turns count up a page apart
    too, but name no book: they are its text."""
    filler = "\n".join(f"Line {k} of the scenario." for k in range(10))
    text = "SCENARIO\n\n" + "".join(f"Turn {n}\n{filler}\n\n" for n in (1, 2, 3))
    text += "SETUP\n\nPlace the models.\n\nVICTORY\n\nHold the hill.\n"
    result = parse_file("scenario.txt", text.encode(), game="x")
    assert sum(u.text.count("Turn ") for u in result.units) == 3
    assert not result.dropped.get("running headers and page numbers")


@pytest.mark.parametrize(
    "body",
    [
        # a numbered list's items, no rules under them
        "1. Place the template over the target.\n\n2. Roll a die for each model under it.\n\n"
        "3. Remove the casualties.\n",
        # two dotted numbers are not yet a run of rules
        "1.1 A model may move.\n\n1.2 A model may shoot.\n",
        # a changelog, newest first: the numbers go down
        "2.1 Added flamers.\n\n1.3 Fixed the morale test.\n\n1.2 Clarified cover.\n",
    ],
    ids=["list", "two", "changelog"],
)
def test_numbered_paragraphs_that_are_no_run_stay_text(body: str) -> None:
    md = f"# Notes\n\nSome text first.\n\n{body}\n# After\n\nMore text.\n"
    result = parse_file("notes.md", md.encode(), game="house")
    assert [u.rule_id for u in result.units] == ["notes", "after"]


def test_a_rule_number_before_a_later_headings_is_text() -> None:
    """ "3.2.1" under "3.3 Shooting" (after "3.2 Charging") sorts before its
    heading: a reference, not a rule of the chapter out of order."""
    md = (
        "# 3 Combat\n\n## 3.2 Charging\n\nUnits charge.\n\n## 3.3 Shooting\n\n"
        "Units shoot.\n\n3.2.1 Applies also here. See above.\n\n3.2.2 Also applies.\n"
    )
    result = parse_file("rules.md", md.encode(), game="cards")
    assert [u.rule_id for u in result.units] == ["3.2", "3.3"]
    assert "3.2.2 Also applies." in result.units[1].text


def test_a_title_line_in_a_content_control_names_the_book() -> None:
    """A template wraps its body, Title line and all, in a content control: the
    Title line stayed the first rule's text instead of naming the book."""
    body = para("Card Duel", "Title") + para("A game for two.")
    body += para("Setup", "Heading1") + para("Each player takes 10 cards.")
    for wrapped in (body, f"<w:sdt><w:sdtPr/><w:sdtContent>{body}</w:sdtContent></w:sdt>"):
        units = parse_file("duel.docx", docx(wrapped), game="x").units
        assert [(u.title, u.text) for u in units] == [
            ("Card Duel", "A game for two."),
            ("Setup", "Each player takes 10 cards."),
        ]


def test_a_wargames_cases_under_their_section_are_rules_of_their_own() -> None:
    """Wargames number a section's paragraphs by adding a digit ("6.11", "6.12"
    under "6.1 Movement Allowance"): each is a rule cited by its number, as a
    card game's "100.2" under "100" is. Only under its section's heading: a
    "6.32" elsewhere is the 32nd section of 6, not a case of 6.3."""
    md = (
        "# 6.0 Movement\n\n## 6.1 Movement Allowance\n\n"
        "6.11 Each unit has a Movement Allowance printed on its counter.\n\n"
        "6.12 A unit may never exceed its MA.\n\n"
        "## 6.2 Terrain\n\n6.21 Forest costs two MP.\n\n6.22 Units may not enter lakes.\n\n"
        "6.32 This number is not under 6.2 and stays its text.\n"
    )
    units = parse_file("r.md", md.encode(), game="x").units
    assert [(u.rule_id, u.title) for u in units] == [
        ("6.11", "Movement Allowance"),
        ("6.12", "Movement Allowance"),
        ("6.21", "Terrain"),
        ("6.22", "Terrain"),
    ]
    assert units[-1].text.endswith(
        "Units may not enter lakes.\n6.32 This number is not under 6.2 and stays its text."
    )


def test_a_sites_template_markup_is_read_as_the_site_renders_it() -> None:
    """A rules site's Markdown sources carry their generator's markup, which
    the site renders away: GitBook's and Jekyll's Liquid tags ("{% hint %}",
    "{% tab title=... %}", a "{% comment %}" holding an author's TODO), Hugo's
    shortcodes, MDX's import lines and comments, kramdown's attribute lines
    and contents marker, Hugo's TOML front matter. Each was rule text (the
    TODO was quoted as a rule); a tab's title is a line over its panel, as
    the HTML reader reads a tab."""
    md = """+++
title = "Combat"
+++
import Tabs from '@theme/Tabs';

# Attacking
{: .no_toc }

* TOC
{:toc}

{% hint style="info" %}
Measure range from the base.
{% endhint %}

{% tabs %}
{% tab title="Melee" %}
Melee weapons attack in base contact.
{% endtab %}
{% endtabs %}

{{% alert title="Note" %}}
Ranged weapons may not fire when engaged.
{{% /alert %}}

{% comment %} TODO: add the re-roll rule {% endcomment %}
{/* removed in v2 */}
A roll of 1 always misses. See [Morale]({{ site.baseurl }}/morale).

:::warning[Heavy armour]
Heavy armour adds +1 to the save.
:::

```
{% raw %}code stays as written{% endraw %}
```
"""
    result = parse_file("combat.md", md.encode(), game="x")
    (unit,) = result.units
    assert unit.title == "Attacking"
    assert unit.text.split("\n") == [
        "Measure range from the base.",
        "Melee:",
        "Melee weapons attack in base contact.",
        "Ranged weapons may not fire when engaged.",
        "A roll of 1 always misses. See Morale.",
        "Heavy armour",
        "Heavy armour adds +1 to the save.",
        "{% raw %}code stays as written{% endraw %}",
    ]
    assert result.dropped["front matter"] == 1
    # prose that opens a line with "import" or "export" is a rule's words
    prose = (
        "# Trade\n\nA port may\nexport default goods only when no player has claimed it.\n\n"
        "export default goods to the market.\n\nimport Rules from the old edition from 'its book'.\n"
    )
    (trade,) = parse_file("trade.md", prose.encode(), game="x").units
    assert trade.text.split("\n") == [
        "A port may export default goods only when no player has claimed it.",
        "export default goods to the market.",
        "import Rules from the old edition from 'its book'.",
    ]


def test_a_markdown_stat_block_keeps_a_line_for_each_bold_label() -> None:
    """'**Range:** 12"', '**Dice:** ...' one under another are one paragraph to
    Markdown, and read 'Range: 12" Dice: one D6 Hits: 4+'. A hard-wrapped
    paragraph with bold words in it, and a list item's '**Default:**', stay joined."""
    book = (
        '# Guns\n\n## Cannon\n\n**Range:** 12"\n**Dice:** one D6 per cannon\n**Hits**: 4+\n\n'
        "A hard-wrapped line goes\non with **bold** words and\n**more** here.\n\n"
        "- a gun's crew fires it.\n  **Default:** two crew.\n\n"
        "**Pierce:** each point of Pierce lowers the save by one, and a model with\n"
        "**Armour:** ignores it.\n"
    )
    (unit,) = parse_file("guns.md", book.encode(), game="g").units
    assert unit.text.split("\n") == [
        'Range: 12"',
        "Dice: one D6 per cannon",
        "Hits: 4+",
        "A hard-wrapped line goes on with bold words and more here.",
        "- a gun's crew fires it. Default: two crew.",
        # a definition's wrapped line is no stat line
        "Pierce: each point of Pierce lowers the save by one, and a model with Armour: ignores it.",
    ]
