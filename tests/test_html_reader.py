"""HTML reader cases the contract fixture does not show: HTML5 sectioning, word breaks."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruleslawyer.ingest.pipeline import parse_file

PAGE = """<!DOCTYPE html><html><body>
<header><h1>Club Wiki</h1><nav><a href="/">Home</a></nav></header>
<main>
<section><header><h2>Charging</h2></header>
<p>A unit may charge up to 12 inches.<br>Then it fights first.</p>
<ul><li><p>one</p><p>two</p></li></ul>
</section>
<section><header><h2>Shooting</h2></header><p>Roll one die per model.</p>
<footer>Designer's note: dice are fickle.</footer></section>
</main>
<footer>(c) the club</footer>
</body></html>"""


def test_html5_sections_keep_their_headings_and_notes() -> None:
    units = parse_file("wiki.html", PAGE.encode(), game="club").units
    by_id = {u.rule_id: u for u in units}
    assert sorted(by_id) == ["charging", "shooting"]
    assert "Designer's note: dice are fickle." in by_id["shooting"].text
    assert all("Club Wiki" not in u.text and "(c) the club" not in u.text for u in units)


def test_line_breaks_and_blocks_separate_words() -> None:
    charging = {u.rule_id: u for u in parse_file("wiki.html", PAGE.encode(), game="club").units}[
        "charging"
    ]
    assert "12 inches.\nThen it fights first." in charging.text  # a <br> breaks the line
    assert "one two" in charging.text and "onetwo" not in charging.text


WIKI_PAGE = """<!DOCTYPE html><html><body>
<main id="content">
<div class="page-tabs"><a href="/wiki/X">Article</a> · <a href="/wiki/Talk:X">Talk</a>
 · <a href="?action=edit">Edit</a></div>
<article>
<h1>Ember Lanterns</h1>
<div id="siteSub">From Marshlight Gaming Wiki, the free tabletop rules wiki</div>
<p>Skirmish rules for lantern bearers.</p>
<h2>Moving</h2><p>A model moves up to 6 inches.</p>
<h2>Climbing</h2><p>Climbing costs double movement, and a model that ends its activation
mid-climb falls to the ground below.</p>
</article>
</main></body></html>"""


def test_a_wiki_article_inside_main_leaves_the_page_tools_out() -> None:
    """<main> holds the wiki's page tabs beside its one <article>: the article is the
    rules; MediaWiki's "From ... wiki" tagline is chrome."""
    result = parse_file("ember.html", WIKI_PAGE.encode(), game="ember")
    assert [(u.rule_id, u.text) for u in result.units] == [
        ("ember-lanterns", "Skirmish rules for lantern bearers."),
        ("ember-lanterns/moving", "A model moves up to 6 inches."),
        (
            "ember-lanterns/climbing",
            "Climbing costs double movement, and a model that ends its activation "
            "mid-climb falls to the ground below.",
        ),
    ]


@pytest.mark.parametrize(
    ("body", "titles"),
    [
        # an <article> that is an example box inside the rules
        (
            "<main><h2>Movement</h2><p>A model moves 6 inches.</p>"
            "<article class='example'><h3>Example</h3><p>Anna's scout moves 6 inches.</p>"
            "</article><h2>Morale</h2><p>Roll 2D6 against Leadership.</p></main>",
            ["Movement", "Example", "Morale"],
        ),
        # a summary <article> beside the sections
        (
            "<main><article><p>A short summary of the game for new players.</p></article>"
            "<section><h2>Setup</h2><p>Each player deploys within 12 inches of an edge."
            "</p></section></main>",
            ["Setup"],
        ),
        # several <article>s and no <main>: every one is read
        (
            "<article><h2>Turns</h2><p>Players alternate activations.</p></article>"
            "<article><h2>Dice</h2><p>All rolls use six-sided dice.</p></article>",
            ["Turns", "Dice"],
        ),
    ],
)
def test_an_article_that_is_not_the_whole_page_leaves_the_page_to_be_read(
    body: str, titles: list[str]
) -> None:
    page = f"<!DOCTYPE html><html><body>{body}</body></html>"
    units = parse_file("page.html", page.encode(), game="club").units
    assert [u.title for u in units if u.kind == "rule"][-len(titles) :] == titles
    assert all(t in {u.title for u in units} for t in titles)


def test_a_page_without_headings_becomes_plain_sections_with_a_warning() -> None:
    page = "<html><body><main>" + "<p>A rule sentence about moving units.</p>" * 60
    result = parse_file("flat.html", (page + "</main></body></html>").encode(), game="club")
    assert {u.kind for u in result.units} == {"section"} and len(result.units) > 1
    assert any("no headings found" in w for w in result.warnings)


def test_a_hostile_page_is_a_one_line_error_naming_the_file() -> None:
    """Nesting deep enough to break the reader's recursion is a bad file, not a crash."""
    import pytest

    from ruleslawyer.errors import RulebookError

    page = "<html><body><main>" + "<div>" * 3000 + "<p>text</p>" + "</div>" * 3000
    with pytest.raises(RulebookError, match=r"^deep\.html: "):
        parse_file("deep.html", page.encode(), game="club")


NOTES_PAGE = """<!DOCTYPE html><html><body>
<aside class="site-links"><p>Other games on this site: Bolt Action, Infinity.</p></aside>
<main><article>
<section><h2>Dousing</h2>
<p>A Lantern Bearer may douse its own lantern for free.</p>
<aside class="designer-note"><p>Designer's Note</p>
<blockquote><p>Dousing is the oldest trick in the marsh.</p></blockquote></aside>
</section>
<section><h2>Relighting</h2><p>Relighting costs a Light action.</p></section>
</article></main></body></html>"""


def test_an_aside_inside_the_rules_is_its_rules_note_and_one_outside_is_chrome() -> None:
    """A designer's note set in <aside> within a section stays with its rule (it was
    dropped as navigation); the page's own sidebar <aside> is still left out."""
    result = parse_file("ember.html", NOTES_PAGE.encode(), game="ember")
    by_id = {u.rule_id: u.text for u in result.units}
    assert sorted(by_id) == ["dousing", "relighting"]
    assert by_id["dousing"].endswith(
        "for free.\nDesigner's Note\nDousing is the oldest trick in the marsh."
    )
    assert all("Other games" not in text for text in by_id.values())
    assert result.dropped["navigation, headers and footers"] == 1


def test_raw_html_in_markdown_keeps_its_aside() -> None:
    """Raw HTML in a Markdown file is part of the rules, not a page with a sidebar."""
    md = "## Dousing\n\nDouse for free.\n\n<aside>\n<p>Designer's note: an old trick.</p>\n</aside>\n"
    (unit,) = parse_file("ember.md", md.encode(), game="ember").units
    assert unit.text == "Douse for free.\nDesigner's note: an old trick."


GLOSSARY_PAGE = """<!DOCTYPE html><html><body><main>
<h2>Glossary</h2>
<dl class="glossary">
<dt>Darkness</dt><dd>Any point on the battlefield outside every light radius.</dd>
<dt>Doused</dt><dt>Put out</dt><dd>A lantern deliberately put out by its bearer.</dd>
</dl>
<h2>Marsh Hound</h2>
<dl><dt>Move</dt><dd>8"</dd><dt>Attacks</dt><dd>2</dd><dt>Save</dt><dd>5+</dd></dl>
<h2>Editors</h2>
<dl class="description"><dt></dt><dd><p>Editor: J. Smith, who checked every rule.</p></dd></dl>
</main></body></html>"""


def test_a_glossary_list_gives_a_rule_per_term_and_a_stat_block_one_line_per_entry() -> None:
    """<dl> of prose definitions: each term a rule under the glossary, as a PDF's
    bold terms at the margin are; short values: "Move: 8"" so a value is never
    quoted without its name; an empty term (LaTeX's description lists): body text."""
    units = parse_file("ember.html", GLOSSARY_PAGE.encode(), game="ember").units
    assert [(u.rule_id, u.title, u.parent, u.text) for u in units] == [
        (
            "glossary/darkness",
            "Darkness",
            "Glossary",
            "Any point on the battlefield outside every light radius.",
        ),
        (
            "glossary/doused-put-out",
            "Doused / Put out",
            "Glossary",
            "A lantern deliberately put out by its bearer.",
        ),
        ("marsh-hound", "Marsh Hound", "", 'Move: 8"\nAttacks: 2\nSave: 5+'),
        ("editors", "Editors", "", "Editor: J. Smith, who checked every rule."),
    ]


def test_everything_in_a_definition_list_is_kept() -> None:
    """A note between entries, a term with no description and a <div> grouping
    an entry are all read; a list inside a description gives lines, not
    sections beside the outer terms, so the text after it stays in place."""
    page = """<!DOCTYPE html><html><body><main><h2>Glossary</h2><dl>
<div><dt>Darkness</dt><dd>Any point on the battlefield outside every light radius.</dd></div>
<p>Terms in italics are defined in the core book and are not repeated here.</p>
<dt>Burning</dt><dd><p>A burning model takes a wound at the start of each of its turns.</p>
<dl><dt>Ending it</dt><dd>Spend a whole action rolling on the ground to put out the flames.</dd></dl>
<p>It spreads to adjacent models on a 6.</p></dd>
<dt>Zone of control: every point within 1" of a model.</dt>
</dl></main></body></html>"""
    units = {u.rule_id: u.text for u in parse_file("g.html", page.encode(), game="g").units}
    assert units == {
        "glossary/darkness": "Any point on the battlefield outside every light radius.\n"
        "Terms in italics are defined in the core book and are not repeated here.",
        "glossary/burning": "A burning model takes a wound at the start of each of its turns.\n"
        "Ending it: Spend a whole action rolling on the ground to put out the flames.\n"
        "It spreads to adjacent models on a 6.\n"
        'Zone of control: every point within 1" of a model.',
    }


def test_a_stat_block_with_long_entries_stays_a_stat_block() -> None:
    page = """<!DOCTYPE html><html><body><main><h2>Marsh Hound</h2><dl>
<dt>Move</dt><dd>8"</dd><dt>Attacks</dt><dd>2</dd>
<dt>Special</dt><dd>Leaps over any terrain up to 3" high and ignores difficult ground.</dd>
<dt>Weakness</dt><dd>Cannot enter buildings or cross deep water of any kind at all.</dd>
</dl></main></body></html>"""
    (unit,) = parse_file("g.html", page.encode(), game="g").units
    assert unit.rule_id == "marsh-hound"
    assert unit.text.split("\n")[:3] == [
        'Move: 8"',
        "Attacks: 2",
        'Special: Leaps over any terrain up to 3" high and ignores difficult ground.',
    ]


def test_site_boxes_inside_main_are_chrome_and_a_complementary_note_is_not() -> None:
    page = """<!DOCTYPE html><html><body><main><h2>Charging</h2>
<p>A charging model moves double and fights first.</p>
<aside role="complementary"><p>Designer's note: charges decide most games.</p></aside>
<aside class="related"><h3>Related articles</h3><ul><li>How to paint lanterns</li></ul></aside>
<div class="share-buttons">Share this page</div>
</main></body></html>"""
    (unit,) = parse_file("g.html", page.encode(), game="g").units
    assert unit.text == (
        "A charging model moves double and fights first.\n"
        "Designer's note: charges decide most games."
    )


def test_a_glossary_with_short_cross_references_is_still_a_glossary() -> None:
    page = """<!DOCTYPE html><html><body><main><h2>Glossary</h2><dl>
<dt>Darkness</dt><dd>Any point on the battlefield outside every light radius.</dd>
<dt>Dusk</dt><dd>See Darkness.</dd>
<dt>Doused</dt><dd>A lantern deliberately put out by its bearer this turn.</dd>
<dt>Contact</dt><dd>Touching bases.</dd>
</dl><section class="related-rules"><h2>Charging</h2><p>A charge ends in contact.</p></section>
</main></body></html>"""
    ids = [u.rule_id for u in parse_file("g.html", page.encode(), game="g").units]
    assert ids == [
        "glossary/darkness",
        "glossary/dusk",
        "glossary/doused",
        "glossary/contact",
        "charging",
    ]


def test_a_main_role_in_any_case_is_the_page_root() -> None:
    # Outside the root, a page's own links are not rules; browsers compare
    # ARIA role tokens case-insensitively, so role="Main" is the root too.
    page = """<!DOCTYPE html><html><body>
<div class="site-links"><h2>Other games</h2><p>Visit our shop for more.</p></div>
<div role="Main"><h2>Charging</h2><p>A charging model moves double.</p></div>
</body></html>"""
    (unit,) = parse_file("g.html", page.encode(), game="g").units
    assert unit.rule_id == "charging"
    assert unit.text == "A charging model moves double."


def test_a_link_box_inside_the_rules_is_chrome_and_a_note_with_a_link_is_not() -> None:
    # A share bar or "see also" box inside an article is nearly all links; a
    # designer's note is prose and keeps its one link.
    page = """<!DOCTYPE html><html><body><main><article><h2>Charging</h2>
<p>A charging model moves double and fights first.</p>
<aside><p>Designer's note: charges decide most games, as the
<a href="/wiki/Tactics">tactics page</a> shows.</p></aside>
<aside><a href="/s?t">Twitter</a> <a href="/s?f">Facebook</a> <a href="/s?r">Reddit</a></aside>
<footer>See also: <a href="/wiki/Fighting">Fighting</a>, <a href="/wiki/Moving">Moving</a></footer>
</article></main></body></html>"""
    (unit,) = parse_file("g.html", page.encode(), game="g").units
    assert unit.text == (
        "A charging model moves double and fights first.\n"
        "Designer's note: charges decide most games, as the tactics page shows."
    )


def test_mediawiki_term_lines_open_sections_and_a_bold_sentence_does_not() -> None:
    # ";Charge" renders as a <dl> holding one <dt>: a pseudo-heading.
    page = """<!DOCTYPE html><html><body><main><h2>Actions</h2>
<p>Each model takes one action.</p>
<dl><dt>Charge</dt></dl><p>Move up to 12 inches into contact.</p>
<dl><dt>Hide</dt></dl><p>The model cannot be targeted until it moves.</p>
<dl><dt>Every action ends the model's activation.</dt></dl>
</main></body></html>"""
    units = {u.rule_id: u.text for u in parse_file("g.html", page.encode(), game="g").units}
    assert units == {
        "actions": "Each model takes one action.",
        "actions/charge": "Move up to 12 inches into contact.",
        "actions/hide": "The model cannot be targeted until it moves.\n"
        "Every action ends the model's activation.",
    }


def test_a_definition_list_in_a_list_item_keeps_its_terms() -> None:
    page = """<!DOCTYPE html><html><body><main><h2>Marsh Hound</h2><ul>
<li>Profile<dl><dt>Move</dt><dd>8"</dd><dt>Attacks</dt><dd>2</dd></dl></li>
<li>Leaps over low walls.</li>
</ul></main></body></html>"""
    (unit,) = parse_file("g.html", page.encode(), game="g").units
    assert unit.text == '- Profile\nMove: 8"\nAttacks: 2\n- Leaps over low walls.'


GENERATED_PAGE = """<!DOCTYPE html><html><body>
<div id="cookie-law-info-bar">This website uses cookies. <a href="#">Accept</a></div>
<div class="consent" role="dialog"><p>We value your privacy.</p></div>
<h1>Starship Rules</h1>
<div class="section" id="navigation"><h2>Navigation<a class="headerlink" href="#navigation">¶</a></h2>
<p>The pilot rolls Piloting each jump.</p></div>
<section id="menu"><h2 id="menu-h">Menu</h2><p>Each chef picks two dishes from the menu.</p></section>
<h2><span class="mw-headline" id="Sidebar">Sidebar</span><span class="mw-editsection">[edit]</span></h2>
<p>A sidebar move costs 1 AP.</p>
<h2 id="wounds">Wounds<a class="hash-link" href="#wounds">\u200b</a></h2>
<p>Each hit removes one wound.</p>
<h3><button class="accordion-button">Can a unit move through a friendly unit?</button></h3>
<p>Yes, but it may not end its move on top of it.</p>
<div id="comments" class="comments-area"><h2>3 thoughts on Starship Rules</h2>
<p>We always let the pilot reroll.</p></div>
<p class="copyright">© 2024 Starship Club</p>
</body></html>"""


def test_generated_pages_keep_sections_whose_ids_look_like_chrome() -> None:
    """Documentation generators and wikis name a section after its heading
    ("navigation", "menu", "Sidebar"), which the chrome names match: a
    heading, a section and a heading's anchor are the rules' own. A heading's
    permalink mark ("¶", a zero-width space) is no part of its title; an FAQ's
    question in a button inside its heading is the heading. Cookie banners,
    consent dialogs, comments and the copyright line are the site's."""
    result = parse_file("rules.html", GENERATED_PAGE.encode(), game="ship")
    by_title = {u.title: u.text for u in result.units}
    assert by_title == {
        "Navigation": "The pilot rolls Piloting each jump.",
        "Menu": "Each chef picks two dishes from the menu.",
        "Sidebar": "A sidebar move costs 1 AP.",
        "Wounds": "Each hit removes one wound.",
        "Can a unit move through a friendly unit?": "Yes, but it may not end its move on top of it.",
    }


def test_a_leading_number_that_is_part_of_the_title_stays() -> None:
    """A bare chapter number ("3 Infantry") is taken off the title; a number
    that tells two headings apart ("2 Player Game", "3 Player Game") or
    starts a phrase ("1 vs 1 Duels") is the title's."""
    md = (
        "# 3 Infantry\n\nTroopers move 8 dots.\n\n"
        "## 2 Player Game\n\nEach player controls two heroes.\n\n"
        "## 3 Player Game\n\nEach player controls one hero.\n\n"
        "## 1 vs 1 Duels\n\nEach duelist rolls 1d6.\n"
    )
    titles = [u.title for u in parse_file("rules.md", md.encode(), game="x").units]
    assert titles == ["Infantry", "2 Player Game", "3 Player Game", "1 vs 1 Duels"]


def test_preformatted_text_keeps_its_lines_and_a_page_wrapped_in_a_form_is_read() -> None:
    """An ASCII table in <pre> keeps a row a line; a page an ASP.NET site wraps
    whole in one <form> is the page (its search box still goes)."""
    page = """<!DOCTYPE html><html><body><form id="aspnetForm" action="/rules">
<input type="text" name="q"><button>Search</button>
<h1>Weapon Table</h1><p>Use this table when firing.</p>
<pre>Weapon      Range  Str
Rifle       24"    3
Lascannon   48"    9</pre>
</form></body></html>"""
    (unit,) = parse_file("rules.html", page.encode(), game="x").units
    assert unit.title == "Weapon Table"
    assert unit.text.split("\n") == [
        "Use this table when firing.",
        "Weapon Range Str",
        'Rifle 24" 3',
        'Lascannon 48" 9',
    ]


def test_a_rules_site_page_of_spans_in_a_form_and_a_one_cell_table_is_read_by_its_lines() -> None:
    """An ASP.NET rules site: the page wrapped in one <form>, no heading, its
    text in a <span> inside a table of one cell, lines set by <br>, a table
    inside the span. The form was taken for a search box and the page refused
    as having no text; with a heading, the span was read as one run of words
    and its inner table twice (once flattened into the outer table's row)."""
    page = """<!DOCTYPE html><html><body><form method="post" action="./Rules.aspx?ID=322">
<input type="hidden" name="__VIEWSTATE" value="abc">
<div class="header"><table class="menu"><tr><td><a href="/">Home</a></td>
<td><a href="/rules">Rules</a></td></tr></table></div>
<table id="MainContent_DataList"><tr><td><span id="Label_0">
<b>Blinded</b>: The creature cannot see.<br /><br />
<b>Grappled</b>: The creature cannot move. It may try to break free:<br />
&bull; Roll a Strength check.<br />&bull; On a success, it is free.<br /><hr />
<table class="inner"><tr><td><b>Condition</b></td><td><b>Defence</b></td></tr>
<tr><td>Blinded</td><td>-2</td></tr></table>
</span></td></tr></table></form></body></html>"""
    result = parse_file("rules.html", page.encode(), game="x")
    text = "\n".join(u.text for u in result.units)
    assert [line for line in text.split("\n") if line] == [
        "Blinded: The creature cannot see.",
        "Grappled: The creature cannot move. It may try to break free:",
        "\u2022 Roll a Strength check.",
        "\u2022 On a success, it is free.",
        "Condition | Defence",
        "Blinded | -2",
    ]
    # a search form beside the rules is still the site's, and so is a menu
    # form whose many options outnumber the page's words
    options = "".join(f"<option>Scenario {n}: the long march north</option>" for n in range(40))
    boxed = page.replace("<form", "<h1>Conditions</h1><form").replace(
        "</form>",
        "</form><form><input name='q'>Search the rules</form>"
        f"<form><label>Jump to</label><select>{options}</select><button>Go</button></form>",
    )
    units = parse_file("rules.html", boxed.encode(), game="x").units
    said = " ".join(u.text for u in units)
    assert "Search" not in said and "Jump to" not in said and "march" not in said
    # a data table whose cells hold small tables keeps its rows
    data = """<!DOCTYPE html><html><body><main><h2>Units</h2><table>
<tr><th>Unit</th><th>Move</th><th>Weapons</th></tr><tr><td>Knight</td><td>3</td>
<td><table><tr><td>Sword</td><td>+2</td></tr></table></td></tr></table></main></body></html>"""
    (unit,) = parse_file("units.html", data.encode(), game="x").units
    assert unit.text.split("\n")[:2] == ["Unit | Move | Weapons", "Knight | 3 | Sword +2"]


def test_a_tables_caption_is_read_before_its_rows() -> None:
    page = """<!DOCTYPE html><html><body><h1>Weapons</h1>
<table><caption>Ranged weapons (range in inches)</caption>
<tr><th>Weapon</th><th>Range</th></tr><tr><td>Rifle</td><td>24</td></tr></table>
</body></html>"""
    (unit,) = parse_file("rules.html", page.encode(), game="x").units
    assert unit.text.split("\n") == [
        "Ranged weapons (range in inches)",
        "Weapon | Range",
        "Rifle | 24",
    ]


def test_on_a_page_that_marks_no_rules_an_aside_of_prose_is_a_rule() -> None:
    """With no <main>, <article> or <section>, every <aside> lay outside "the
    rules" and was dropped, an optional rule and an example box with it. On
    such a page only an aside of links is the page's."""
    page = """<!DOCTYPE html><html><body><div class="wrapper">
<h1>Cover</h1><p>A model behind an obstacle is in cover.</p>
<aside class="note"><p>Example: a trooper behind a wall is in cover from the far side.</p></aside>
<aside class="optional-rule"><h3>Optional: Destructible Cover</h3>
<p>A wall hit by a heavy weapon on a 6 is destroyed.</p></aside>
<aside><a href="/a">Home</a> <a href="/b">Rules</a> <a href="/c">Forum</a></aside>
</div></body></html>"""
    by_title = {u.title: u.text for u in parse_file("cover.html", page.encode(), game="x").units}
    assert by_title == {
        "Cover": "A model behind an obstacle is in cover.\n"
        "Example: a trooper behind a wall is in cover from the far side.",
        "Optional: Destructible Cover": "A wall hit by a heavy weapon on a 6 is destroyed.",
    }


def test_a_cell_spanning_rows_is_read_in_every_row_it_spans() -> None:
    """A weapon table's category cell spans its weapons' rows; read in its first
    row only, the next rows lost a column and their cells shifted left."""
    page = """<!DOCTYPE html><html><body><h1>Weapons</h1><table>
<tr><th rowspan="2">Weapon</th><th colspan="2">Range</th><th rowspan="2">Notes</th></tr>
<tr><th>Short</th><th>Long</th></tr>
<tr><td rowspan="2">Rifle</td><td>12</td><td>24</td><td rowspan="2">Both fire twice</td></tr>
<tr><td>18</td><td>30</td></tr>
<tr><td rowspan="x">Pistol</td><td>6</td><td>12</td><td>-</td></tr>
</table></body></html>"""
    (unit,) = parse_file("rules.html", page.encode(), game="x").units
    assert unit.text.split("\n") == [
        "Weapon | Range |  | Notes",  # "Range" spans two columns: Notes stays under Notes
        "Weapon | Short | Long | Notes",
        "Rifle | 12 | 24 | Both fire twice",
        "Rifle | 18 | 30 | Both fire twice",
        "Pistol | 6 | 12 | -",
    ]


def test_a_table_inside_a_cell_is_not_read_into_the_outer_row() -> None:
    """An old site's layout table holds the rules, a to-hit table in one cell:
    the nested table's cells were also read into the outer row, a run of
    "| Target | To hit | Infantry | 4+" after the cell's text; and a heading
    in a cell ran into the text after it. (A cell holding a heading is now
    read as a block of the page: the heading opens its rule.)"""
    page = """<html><body><table><tr><td><h1>Firing</h1>Roll one die per gun.
<table><tr><th>Target</th><th>To hit</th></tr><tr><td>Infantry</td><td>4+</td></tr></table>
</td></tr></table></body></html>"""
    (unit,) = parse_file("rules.html", page.encode(), game="x").units
    assert (unit.title, unit.text.split("\n")) == (
        "Firing",
        ["Roll one die per gun.", "Target | To hit", "Infantry | 4+"],
    )


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        # cells an old site wraps in a <div> inside the row
        ("<tr><div><td>A</td></div><td>B</td></tr>", ["A | B"]),
        # a cell spanning two columns uses up the span it overlaps
        (
            "<tr><td>A</td><td rowspan=2>B</td></tr><tr><td colspan=2>C</td></tr>"
            "<tr><td>E</td><td>F</td></tr>",
            ["A | B", "C", "E | F"],
        ),
        # a span ends with its row group, as in a browser
        (
            "<thead><tr><th rowspan=3>W</th><th>R</th></tr></thead>"
            "<tbody><tr><td>Rifle</td><td>24</td></tr></tbody>",
            ["W | R", "Rifle | 24"],
        ),
        # a short row keeps its spanning cell in its column
        (
            "<tr><td>A</td><td>B</td><td rowspan=2>C</td></tr><tr><td>D</td></tr>",
            ["A | B | C", "D |  | C"],
        ),
        # "2px" is 2, as browsers read it; "-1" is 1
        ("<tr><td rowspan='2px'>A</td><td>B</td></tr><tr><td>C</td></tr>", ["A | B", "A | C"]),
        ("<tr><td rowspan='-1'>A</td><td>B</td></tr><tr><td>C</td></tr>", ["A | B", "C"]),
    ],
)
def test_malformed_spanning_tables(rows: str, expected: list[str]) -> None:
    page = f"<html><body><h1>T</h1><table>{rows}</table></body></html>"
    (unit,) = parse_file("rules.html", page.encode(), game="x").units
    assert [line for line in unit.text.split("\n") if line] == expected


def test_a_block_ending_inside_an_inline_tag_separates_words() -> None:
    page = (
        "<html><body><h1>T</h1><table><tr><td><a href='#'><h3>Firing</h3></a>Roll a die.</td>"
        "<td>x</td></tr></table></body></html>"
    )
    text = " ".join(u.text for u in parse_file("rules.html", page.encode(), game="x").units)
    assert "FiringRoll" not in text


def test_raw_html_in_markdown_keeps_a_box_named_like_page_chrome() -> None:
    """A Markdown rulebook's <div class="sidebar"> is a designer's sidebar: it
    was dropped as a site's sidebar, and its rule with it."""
    md = (
        "# Combat\n\n"
        '<div class="sidebar"><strong>Fleeing.</strong> A hero may flee instead of attacking.</div>\n\n'
        "Roll a d20 and add your weapon bonus.\n"
    )
    (unit,) = parse_file("rules.md", md.encode(), game="x").units
    assert "A hero may flee instead of attacking." in unit.text


def test_an_html_table_in_markdown_with_a_blank_line_between_rows_is_one_table() -> None:
    """CommonMark ends an HTML block at a blank line, so the rows after it came
    as a piece starting at <tr>, which alone is no table: 'Sword +2 Axe +3'."""
    md = (
        "# Weapons\n\n<table>\n  <tr><th>Weapon</th><th>Bonus</th></tr>\n\n"
        "  <tr><td>Sword</td><td>+2</td></tr>\n  <tr><td>Axe</td><td>+3</td></tr>\n</table>\n"
    )
    (unit,) = parse_file("rules.md", md.encode(), game="x").units
    assert unit.text.split("\n") == ["Weapon | Bonus", "Sword | +2", "Axe | +3"]


INFOBOX_PAGE = """<!DOCTYPE html><html><body><main><h1>Knight</h1>
<aside class="portable-infobox"><h2>Knight</h2>
<div class="pi-data"><h3>Type</h3><div>Cavalry</div></div>
<section><h2>Stats</h2>
<div class="pi-data"><h3>Move</h3><div>10"</div></div>
<div class="pi-data"><h3>Cost</h3><div>45 points</div></div></section></aside>
<p>The Knight is heavy cavalry. A Knight that charges adds +2 to its Attack.</p>
<h2>Special rules</h2><p>Knights cannot enter woods.</p>
<aside><h3>Designer's note</h3><p>Woods break up a charge, so we kept horses out of them entirely.</p></aside>
</main></body></html>"""


def test_a_wikis_infobox_is_a_card_of_labelled_values_not_sections() -> None:
    """Read as sections, each infobox label became a rule ("Cost": "45 points")
    and the article's first paragraph, after the card, went into "Cost"."""
    by_id = {u.rule_id: u for u in parse_file("knight.html", INFOBOX_PAGE.encode(), game="x").units}
    assert sorted(by_id) == [
        "knight",
        "knight/special-rules",
        "knight/special-rules/designer-s-note",
    ]
    assert by_id["knight"].text.split("\n") == [
        "Knight",
        "Type: Cavalry",
        "Stats",
        'Move: 10"',
        "Cost: 45 points",
        "The Knight is heavy cavalry. A Knight that charges adds +2 to its Attack.",
    ]
    # an aside of a heading and prose is a note, still a section
    assert "kept horses out" in by_id["knight/special-rules/designer-s-note"].text


def test_a_navigation_table_goes_and_a_rules_table_of_any_name_stays() -> None:
    """A wiki's navbox is a table of links to other articles: it was read as the
    last rule's table ("Cavalry | Knight • Scout"). A table named like page
    chrome whose cells are rules is still read."""
    page = """<html><body><main><h1>Knight</h1><p>Knights charge.</p>
<table class="navbox"><tr><th colspan="2"><a href="/Units">Units</a></th></tr>
<tr><td>Infantry</td><td><a href="/S">Spearman</a> • <a href="/A">Archer</a></td></tr>
<tr><td>Cavalry</td><td><a href="/K">Knight</a> • <a href="/Sc">Scout</a></td></tr></table>
<table class="header"><tr><th>Weapon</th><th>Range</th></tr>
<tr><td><a href="/L">Lance</a></td><td>1 inch</td></tr></table>
</main></body></html>"""
    (unit,) = parse_file("knight.html", page.encode(), game="x").units
    assert unit.text.split("\n") == ["Knights charge.", "Weapon | Range", "Lance | 1 inch"]


def test_a_wikis_category_line_and_edit_button_are_the_sites() -> None:
    """Fandom's header: "in: Units, Cavalry" became an intro rule and "Edit" a
    line of the article. A box of prose named "categories" is still read."""
    page = """<html><body><main><div class="page-header">
<div class="page-header__categories"><span>in:</span> <a href="/c/U">Units</a>, <a href="/c/C">Cavalry</a></div>
<h1>Knight</h1><a id="ca-edit" href="?action=edit"><span>Edit</span></a></div>
<p>Knights charge.</p><h2>Unit types</h2>
<div class="categories">Infantry fights on foot; cavalry rides.</div></main></body></html>"""
    units = parse_file("knight.html", page.encode(), game="x").units
    assert [(u.rule_id, u.text) for u in units] == [
        ("knight", "Knights charge."),
        ("knight/unit-types", "Infantry fights on foot; cavalry rides."),
    ]


def test_a_headings_edit_link_is_known_by_what_it_says() -> None:
    """Not every wiki names it "mw-editsection": "Altitude [edit]" was the rule's
    title, and `rules show Altitude` found nothing. A heading that is only "Edit",
    and a section on editing, are the rules' own."""
    page = """<html><body><h1>Zeppelin Duel</h1><p>Two airships fight.</p>
<h2 id="altitude">Altitude <span class="edit">[<a href="?edit=1">edit</a>]</span></h2>
<p>Each zeppelin is at altitude Low, Medium or High.</p>
<h2>Fire [<a href="?edit=2">edit source</a>]</h2><p>A burning zeppelin loses 1 hull.</p>
<h2><a href="#e">Edit</a></h2><p>Players may edit their fleet lists between games.</p>
</body></html>"""
    units = parse_file("zeppelin.html", page.encode(), game="x").units
    assert [u.title for u in units] == ["Zeppelin Duel", "Altitude", "Fire", "Edit"]
    assert [u.rule_id for u in units][1:3] == ["zeppelin-duel/altitude", "zeppelin-duel/fire"]


# How tools set a footnote: its mark links to the note, the note links back.
FOOTNOTE_PAGES = {
    "google docs": (
        '<p>Snipers ignore cover.<sup><a href="#ftnt1" id="ftnt_ref1">[1]</a></sup></p>',
        '<hr><div><p><a href="#ftnt_ref1" id="ftnt1">[1]</a>&nbsp;Only with a scope.</p></div>',
    ),
    "word": (
        '<p>Snipers ignore cover.<a href="#_ftn1" name="_ftnref1"><sup>[1]</sup></a></p>',
        '<div><hr><div id="ftn1"><p><a href="#_ftnref1" name="_ftn1">[1]</a> Only with a scope.'
        "</p></div></div>",
    ),
    "pandoc": (
        '<p>Snipers ignore cover.<a href="#fn1" class="footnote-ref" id="fnref1" '
        'role="doc-noteref"><sup>1</sup></a></p>',
        '<section class="footnotes" role="doc-endnotes"><hr><ol><li id="fn1"><p>Only with a '
        'scope.<a href="#fnref1" class="footnote-back" role="doc-backlink">\u21a9\ufe0e</a>'
        "</p></li></ol></section>",
    ),
    "mediawiki": (
        '<p>Snipers ignore cover.<sup id="cite_ref-1" class="reference"><a href="#cite_note-1">'
        "[1]</a></sup></p>",
        '<ol class="references"><li id="cite_note-1"><span class="mw-cite-backlink">'
        '<a href="#cite_ref-1">^</a></span> <span class="reference-text">Only with a scope.'
        "</span></li></ol>",
    ),
    "dokuwiki": (  # its marks read "1)"
        '<p>Snipers ignore cover.<sup><a href="#fn__1" id="fnt__1" class="fn_top">1)</a></sup></p>',
        '<div class="footnotes"><div class="fn"><sup><a href="#fnt__1" id="fn__1" '
        'class="fn_bot">1)</a></sup> <div class="content">Only with a scope.</div></div></div>',
    ),
}


@pytest.mark.parametrize("tool", sorted(FOOTNOTE_PAGES))
def test_a_footnote_goes_with_the_rule_that_refers_to_it(tool: str) -> None:
    """Word processors and converters put every footnote at the page's end, so all
    of them went into the last rule (Google Docs, Word, Pandoc), or made a rule of
    their own (a wiki's "References")."""
    ref, notes = FOOTNOTE_PAGES[tool]
    page = (
        f"<html><body><h1>Shooting</h1>{ref}<p>Roll a die.</p>"
        f"<h1>Melee</h1><p>Both sides roll.</p><h2>References</h2>{notes}</body></html>"
    )
    units = {u.rule_id: u.text for u in parse_file("r.html", page.encode(), game="x").units}
    assert units == {
        "shooting": "Snipers ignore cover.[1]\n[1] Only with a scope.\nRoll a die.",
        "melee": "Both sides roll.",
    }


def test_footnotes_keep_their_order_and_a_table_its_rows() -> None:
    """Two notes after one paragraph stay in order; a note referred to in a table
    goes after it. A link to a heading (a contents list, "see 2") has no link
    back, and is no footnote."""
    page = (
        '<html><body><h1>Shooting</h1><p>Roll<a id="r1" href="#n1">1</a> twice'
        '<a id="r2" href="#n2">2</a>, <a href="#melee">see 2</a>.</p>'
        '<table><tr><td>Rifle<a id="r3" href="#n3">*</a></td><td>24</td></tr>'
        "<tr><td>Pistol</td><td>12</td></tr></table>"
        '<h1 id="melee">Melee</h1><p>Both sides roll. <a href="#top">2</a></p><ol>'
        '<li id="n1"><a href="#r1">^</a> First.</li><li id="n2"><a href="#r2">^</a> Second.</li>'
        '<li id="n3"><a href="#r3">^</a> Scoped.</li></ol></body></html>'
    )
    units = {u.rule_id: u.text for u in parse_file("r.html", page.encode(), game="x").units}
    assert units["shooting"].split("\n") == [
        "Roll[1] twice[2], see 2.",
        "[1] First.",
        "[2] Second.",
        "Rifle[*] | 24",
        "Pistol | 12",
        "[*] Scoped.",
    ]
    assert units["melee"] == "Both sides roll. 2"


def test_a_footnote_marked_in_a_list_item_ends_that_item() -> None:
    page = (
        '<html><body><h2>Actions</h2><ul><li>Move 6.<a href="#fn1" id="fnref1"><sup>1</sup></a>'
        "</li><li>Attack.</li></ul><h2>Defense</h2><p>Roll.</p>"
        '<ol><li id="fn1"><p>Half in mud.<a href="#fnref1">\u21a9</a></p></li></ol></body></html>'
    )
    units = {u.rule_id: u.text for u in parse_file("r.html", page.encode(), game="x").units}
    assert units == {"actions": "- Move 6.[1] [1] Half in mud.\n- Attack.", "defense": "Roll."}


def test_a_footnote_of_several_paragraphs_moves_whole() -> None:
    """Google Docs and Word wrap each note in a box of its own; a box of all the
    notes (several marks link into it) is left as it was."""
    page = (
        '<html><body><h2>Move</h2><p>Move 6.<sup><a href="#ftnt1" id="ftnt_ref1">[1]</a></sup></p>'
        '<h2>Shoot</h2><p>Roll.<a href="#notes" id="m2">*</a></p><p>Aim.<a href="#notes" id="m3">'
        '\u2020</a></p><h2>Notes</h2><div><p><a href="#ftnt_ref1" id="ftnt1">[1]</a> In mud.</p>'
        '<p>Or snow.</p></div><div id="notes"><p>* Day. <a href="#m2">back</a></p>'
        '<p>\u2020 Night. <a href="#m3">back</a></p></div></body></html>'
    )
    units = {u.rule_id: u.text for u in parse_file("r.html", page.encode(), game="x").units}
    assert units["move"] == "Move 6.[1]\n[1] In mud. Or snow."
    assert units["shoot"] == "Roll.*\nAim.\u2020"
    assert "Day." in units["notes"] and "Night." in units["notes"]


@pytest.mark.parametrize(
    ("page", "rule", "text"),
    [
        # numbered rules that refer to each other
        (
            '<h2>Charging</h2><p id="r12">12. Charge +1. See <a href="#r40">40</a>.</p><h2>Counter'
            '-charges</h2><p id="r40">40. May counter-charge (see <a href="#r12">12</a>).</p>',
            "counter-charges",
            "40. May counter-charge (see 12).",
        ),
        # a contents list whose sections link back to its entries (docutils)
        (
            '<ul><li><a href="#move" id="toc-entry-1">1</a></li><li><a href="#shoot" '
            'id="toc-entry-2">2</a></li></ul><div id="move"><h2><a href="#toc-entry-1">Move</a>'
            '</h2><p>Move 6.</p></div><div id="shoot"><h2><a href="#toc-entry-2">Shoot</a></h2>'
            "<p>Roll.</p></div>",
            "shoot",
            "Roll.",
        ),
        # a mark loose in a section, where no block can take its note
        (
            '<section><h2>Move</h2>Move 6.<a href="#fn1" id="fnref1"><sup>1</sup></a></section>'
            '<ol><li id="fn1">Half in mud. <a href="#fnref1">^</a></li></ol>',
            "move",
            "Half in mud.",
        ),
    ],
    ids=["cross-references", "contents", "loose-mark"],
)
def test_links_that_are_no_footnotes_move_nothing(page: str, rule: str, text: str) -> None:
    """Only a note a mark links to and that links back moves; sections that link to
    each other, or a note no block can take, stay where they are."""
    units = parse_file("r.html", f"<html><body>{page}</body></html>".encode(), game="x").units
    assert text in {u.rule_id: u.text for u in units}[rule]


def test_a_footnote_at_the_end_of_a_box_moves_alone() -> None:
    """A note that ends a page's box is moved by itself: the box's other text (a
    paragraph running on from the page before, a designer's note) is not the
    note's and stays in its rule."""
    page = (
        '<html><body><div class="page"><h2>1 Move</h2><p>Move 6 inches.<sup><a href="#fn1" '
        'id="r1">1</a></sup></p><h2>2 Shoot</h2><p>Shooting starts here and</p></div>'
        '<div class="page"><p>continues on the next page: range is 24 inches.</p>'
        '<p id="fn1">1. Measure from the base. <a href="#r1">\u21a9</a></p></div></body></html>'
    )
    units = {u.rule_id: u.text for u in parse_file("r.html", page.encode(), game="x").units}
    assert units["move"] == "Move 6 inches.[1]\n[1] 1. Measure from the base."
    assert "continues on the next page" in units["shoot"]


CONTENTS_PAGE = """<!DOCTYPE html><html><body>
<h1>Brass Rules</h1>
<p>Table of Contents</p>
<ul>
  <li><a href="#movement">Movement</a>
    <ul><li><a href="#running">Running</a></li><li><a href="#charging">Charging</a></li></ul></li>
  <li><a href="#shooting">Shooting</a></li>
</ul>
<h2 id="movement">Movement</h2>
<p>Each model moves up to 6 inches. See <a href="#charging">Charging</a> for charges.</p>
<h3 id="running">Running</h3><p>A running model moves twice as far.</p>
<h3 id="charging">Charging</h3><p>A charging model moves into contact.</p>
<p><a href="#movement">Movement</a></p><p><a href="#running">Running</a></p>
<ul><li><a href="other.html#a">Armoury</a></li><li><a href="other.html#b">Units</a></li>
<li><a href="other.html#c">Terrain</a></li></ul>
<h2 id="shooting">Shooting</h2><p>Roll a die for each shot.</p>
</body></html>"""

# Google Docs' "Download as web page": entries are paragraphs of a link and a
# page number, the headings' ids its own.
DOCS_PAGE = """<html><body>
<p class="c1"><span><a class="c4" href="#h.30j0zll">Movement</a></span><span>&nbsp;3</span></p>
<p class="c1"><span><a class="c4" href="#h.1fob9te">Running</a></span><span> .... 4</span></p>
<p class="c1"><span><a class="c4" href="#h.3znysh7">Shooting</a></span><span>&nbsp;5</span></p>
<h1 class="c8" id="h.30j0zll"><span>Movement</span></h1><p>Each model moves up to 6 inches.</p>
<h2 id="h.1fob9te"><span>Running</span></h2><p>A running model moves twice as far.</p>
<h1 id="h.3znysh7"><span>Shooting</span></h1><p>Roll a die for each shot.</p>
</body></html>"""


def test_a_pages_own_contents_list_is_dropped_by_what_it_links_to() -> None:
    """A contents list (links to the page's own headings and nothing else, as a
    list or as paragraphs with page numbers) was read into the first rule,
    every heading's name in it. It goes with its label; a link in a sentence,
    two "see also" lines and a list of links to other pages stay."""
    result = parse_file("rules.html", CONTENTS_PAGE.encode(), game="club")
    by_id = {u.rule_id: u.text for u in result.units}
    assert list(by_id) == [
        "brass-rules/movement",
        "brass-rules/movement/running",
        "brass-rules/movement/charging",
        "brass-rules/shooting",
    ]
    assert "See Charging for charges." in by_id["brass-rules/movement"]
    charging = by_id["brass-rules/movement/charging"]
    assert charging.endswith("contact.\nMovement\nRunning\n- Armoury\n- Units\n- Terrain")
    assert result.dropped["table of contents lines"] == 5
    docs = parse_file("doc.html", DOCS_PAGE.encode(), game="club")
    assert [(u.rule_id, u.text) for u in docs.units] == [
        ("movement", "Each model moves up to 6 inches."),
        ("movement/running", "A running model moves twice as far."),
        ("shooting", "Roll a die for each shot."),
    ]
    assert docs.dropped["table of contents lines"] == 3


_TARGETS = """<h2 id="a">Knight</h2><p>A mounted warrior.</p><h2 id="b">Squire</h2><p>A helper.</p>
<h2 id="c">Archer</h2><p>Shoots arrows.</p>"""


@pytest.mark.parametrize(
    ("rule", "kept"),
    [
        # a lead-in sentence: the list is the rule's
        ('<p>The phases are:</p><ol><li><a href="#a">Knight</a></li><li><a href="#b">Squire</a>'
         '</li><li><a href="#c">Archer</a></li></ol>', "The phases are:\n1. Knight"),
        # points that go down are no page numbers
        ('<p>Costs</p><ul><li><a href="#a">Knight</a> 150</li><li><a href="#b">Squire</a> 40</li>'
         '<li><a href="#c">Archer</a> 25</li></ul>', "- Knight 150"),
        # a number with a dash or a sign, or before the link
        ('<p><a href="#a">Knight</a> - 24</p><p><a href="#b">Squire</a> - 12</p>'
         '<p><a href="#c">Archer</a> - 8</p>', "Knight - 24"),
        ('<ul><li><a href="#a">Knight</a> -1</li><li><a href="#b">Squire</a> -1</li>'
         '<li><a href="#c">Archer</a> -2</li></ul>', "- Knight -1"),
        ('<p>1 <a href="#a">Knight</a></p><p>2 <a href="#b">Squire</a></p>'
         '<p>3 <a href="#c">Archer</a></p>', "1 Knight\n2 Squire"),
        # links in a table's cell, as Google Docs writes a cell's lines
        ('<table><tr><td>Wolf Riders</td><td><p><a href="#a">Knight</a></p><p><a href="#b">'
         'Squire</a></p><p><a href="#c">Archer</a></p></td></tr></table>', "Wolf Riders | Knight"),
        # text after the list: it is the rule's
        ('<ul><li><a href="#a">Knight</a></li><li><a href="#b">Squire</a></li><li><a href="#c">'
         'Archer</a></li></ul><p>Then the other player goes.</p>', "- Knight\n- Squire"),
    ],
)  # fmt: skip
def test_a_list_of_links_inside_a_rule_is_the_rules(rule: str, kept: str) -> None:
    """Review cases: lists of links to the page's headings that are rule text,
    not a contents list, stay whole."""
    page = f"<html><body><h1>Army</h1>{rule}{_TARGETS}</body></html>"
    result = parse_file("army.html", page.encode(), game="x")
    assert kept in result.units[0].text
    assert "table of contents lines" not in result.dropped


@pytest.mark.parametrize(
    ("rule", "kept"),
    [
        # a section's own list of its subsections is its text
        ('<h2>Sequence of Play</h2><ol><li><a href="#a">Knight</a></li><li><a href="#b">Squire</a>'
         '</li><li><a href="#c">Archer</a></li></ol>', "1. Knight\n2. Squire"),
        # a lead-in or a follow-up as bare text, not in a paragraph
        ('<h2>Turn</h2>Each turn, in this order:<ol><li><a href="#a">Knight</a></li><li>'
         '<a href="#b">Squire</a></li><li><a href="#c">Archer</a></li></ol>', "1. Knight"),
        ('<h2>Turn</h2><ol><li><a href="#a">Knight</a></li><li><a href="#b">Squire</a></li><li>'
         '<a href="#c">Archer</a></li></ol>Both players finish each step first.', "1. Knight"),
        # a box around the list, after a lead-in
        ('<h2>Turn</h2><p>The phases are:</p><div><ol><li><a href="#a">Knight</a></li><li>'
         '<a href="#b">Squire</a></li><li><a href="#c">Archer</a></li></ol></div>', "1. Knight"),
        # points that rise, after a plain space: values, not page numbers
        ('<h2>Units and Costs</h2><ul><li><a href="#a">Knight</a> 50</li><li><a href="#b">Squire'
         '</a> 75</li><li><a href="#c">Archer</a> 150</li></ul>', "- Knight 50"),
    ],
)  # fmt: skip
def test_a_sections_own_list_of_links_is_its_text(rule: str, kept: str) -> None:
    """Second review round: lists of links that are a rule's text."""
    targets = _TARGETS.replace("<h2", "<h3").replace("</h2>", "</h3>")
    page = f"<html><body><h1>Army</h1><p>Intro.</p>{rule}{targets}</body></html>"
    result = parse_file("army.html", page.encode(), game="x")
    assert kept in result.units[1].text
    assert "table of contents lines" not in result.dropped


def test_a_contents_box_before_sections_and_a_deep_list_are_read() -> None:
    """Sphinx's contents box sits between the title and <section>s, which start
    with their headings: it goes. A list nested 400 deep is read, not refused."""
    sphinx = (
        '<html><body><div role="main"><section id="rules"><h1>Rules</h1>'
        '<div class="contents local topic"><p class="topic-title">Contents</p><ul>'
        '<li><p><a href="#m">Movement</a></p></li><li><p><a href="#s">Shooting</a></p></li>'
        '<li><p><a href="#f">Fighting</a></p></li></ul></div>'
        '<section id="m"><h2>Movement</h2><p>Move 6.</p></section>'
        '<section id="s"><h2>Shooting</h2><p>Roll.</p></section>'
        '<section id="f"><h2>Fighting</h2><p>Fight.</p></section></section></div></body></html>'
    )
    result = parse_file("rules.html", sphinx.encode(), game="x")
    assert [u.text for u in result.units] == ["Move 6.", "Roll.", "Fight."]
    assert result.dropped["table of contents lines"] == 4
    deep = "".join(f'<ul><li><a href="#h{i}">H{i}</a>' for i in range(400))
    deep += "</li></ul>" * 400
    deep += "".join(f'<h2 id="h{i}">H{i}</h2><p>Rule {i}.</p>' for i in range(400))
    result = parse_file("deep.html", f"<html><body>{deep}</body></html>".encode(), game="x")
    assert len(result.units) == 400
    assert result.dropped["table of contents lines"] == 400


def test_a_contents_list_beside_the_article_does_not_change_what_is_read() -> None:
    """Fifth review round: a contents list beside the page's one <article> was
    dropped before the article was measured against the page, so the article
    then passed for the whole page and the errata after it were lost."""
    entries = "".join(f'<li><a href="#r{i}">Rule {i}</a></li>' for i in range(8))
    rules = "".join(f'<h2 id="r{i}">Rule {i}</h2><p>Rule {i} text.</p>' for i in range(8))
    page = (
        f"<html><body><h1>Card Duel</h1><ul>{entries}</ul><article>{rules}</article>"
        "<p>Errata: none.</p></body></html>"
    )
    result = parse_file("duel.html", page.encode(), game="x")
    assert result.units[-1].text.endswith("Errata: none.")
    assert result.dropped["table of contents lines"] == 8


def test_ordered_lists_are_numbered_as_a_browser_numbers_them() -> None:
    """start, type and an item's value are read as browsers read them; a start
    that is no number ("x") is ignored, where it refused the whole page."""
    page = (
        b"<h1>Gear</h1><p>Kit.</p><ol start='x'><li>one</li><li>two</li></ol>"
        b"<ol type='a' start='2'><li>bee</li><li value='5'>e</li><li>f</li></ol>"
        b"<ol type='I' start=' 3 '><li>three</li></ol>"
    )
    (unit,) = parse_file("g.html", page, game="x").units
    assert unit.text.split("\n") == [
        "Kit.",
        "1. one",
        "2. two",
        "b. bee",
        "e. e",
        "f. f",
        "III. three",
    ]


EDGES = Path(__file__).parent / "fixtures" / "html-edges"


def test_headings_in_a_layout_tables_cells_open_their_sections() -> None:
    """An old fan site lays its page out with a <table>: a menu cell beside a
    cell holding the rules. Read as a table's rows, its h2-h4 were lost ("no
    headings found"), the menu ran into the one plain section and the weapons
    table inside the cell was read twice. A table whose cells hold headings is
    the page's layout: its cells are read as blocks, a cell of links alone is
    the site's menu."""
    result = parse_file("oldsite.html", (EDGES / "oldsite.html").read_bytes(), game="x")
    by_title = {u.title: u.text for u in result.units}
    assert list(by_title) == ["oldsite", "Movement", "Charging", "Failed charges", "Shooting"]
    assert by_title["oldsite"] == "Ashfall Skirmish Rules"
    assert by_title["Shooting"].split("\n")[:6] == [
        "Each roll of 4+ is a hit. Modifiers:",
        "a. -1 if the target is in cover",
        "b. -1 if the shooter moved",
        "Weapon | Range | AP",
        'Rivet Pistol | 8" | 0',
        'Slag Rifle | 24" | -1',
    ]
    assert all("Guestbook" not in text for text in by_title.values())
    assert result.dropped["navigation, headers and footers"] == 1
    assert not any("no headings" in w for w in result.warnings)


BOLD_PAGE = """<!DOCTYPE html><html><body>
<p><b>SKIRMISH - CORE RULES</b></p>
<p><b>2 The Turn</b></p>
<p><b>2.1 Initiative</b></p>
<p>Both players roll a D6. The higher roll activates first.</p>
<p><strong>2.2 Activations</strong></p>
<p>An activated model may take two actions.</p>
<p><b>Designer's Note</b></p>
<p>Two actions keep turns short.</p>
<p><b>Important!</b></p>
<p>A model can never shoot while engaged.</p>
<p><b>Range:</b> 12 inches for pistols.</p>
<p><span style="font-weight:bold;font-size:14pt">5 Fighting</span></p>
<p>Models in base contact fight.</p>
<div><b>6 Morale</b></div>
<div>Take Nerve tests when half the warband is gone.</div>
</body></html>"""


def test_bold_lines_are_the_headings_of_a_page_with_no_heading_elements() -> None:
    """A page typed with bold lines for headings (<b>, <strong>, a bold style, in
    a <p> or a <div>) and no h1-h6 was one plain section with a "no headings
    found" warning. A short line all in bold, no sentence, is a heading, as in
    a Word file made by hand; its level is its number's depth ("2.1" under
    "2"). Where the headings are numbered, an unnumbered bold line is a label
    in the rule ("Designer's Note") and the page's first line its title; a bold
    line ending as a sentence ("Important!") and a bold run-in label are text."""
    result = parse_file("bold.html", BOLD_PAGE.encode(), game="x")
    assert [(u.rule_id, u.title, u.parent) for u in result.units] == [
        ("2.1", "Initiative", "The Turn"),
        ("2.2", "Activations", "The Turn"),
        ("fighting", "Fighting", ""),
        ("morale", "Morale", ""),
    ]
    assert result.units[1].text.split("\n") == [
        "An activated model may take two actions.",
        "Designer's Note",
        "Two actions keep turns short.",
        "Important!",
        "A model can never shoot while engaged.",
        "Range: 12 inches for pistols.",
    ]
    assert not result.warnings


def test_bold_lines_made_bold_by_the_style_sheet_are_headings_too() -> None:
    """Google Docs' "Download as HTML" sets no <b>: each run's weight comes from a
    class in the page's style sheet (".c3{font-weight:700}"). Its bold lines
    were text, and the page one plain section. A class made normal again by a
    later rule, or bold only inside a compound selector, is not bold."""
    css = (
        ".c0{color:#000;font-weight:400;font-size:11pt}.c3{color:#000;font-weight:700;"
        "font-size:14pt}.c5{font-weight:bold}.c5{font-weight:normal}div .c6{font-weight:700}"
    )
    paras = [
        ("c3", "Movement"),
        ("c0", "A unit moves up to its Move value in inches."),
        ("c5", "Not a heading"),
        ("c0", "Units may not move within 1 inch of an enemy unless charging."),
        ("c3", "Shooting"),
        ("c0", "Roll one die per weapon; each roll over the Defence is a hit."),
        ("c6", "Nor this"),
        ("c0", "Units in cover add 1 to their Defence."),
    ]
    body = "".join(f'<p class="c2"><span class="{c}">{t}</span></p>' for c, t in paras)
    page = f'<html><head><style type="text/css">{css}</style></head><body>{body}</body></html>'
    result = parse_file("doc.html", page.encode(), game="x")
    assert [(u.rule_id, u.title) for u in result.units] == [
        ("movement", "Movement"),
        ("shooting", "Shooting"),
    ]
    assert "Not a heading" in result.units[0].text and "Nor this" in result.units[1].text
    assert not result.warnings


def test_bold_lines_unnumbered_are_headings_and_a_mostly_bold_page_has_none() -> None:
    """Bold lines with no numbers are headings of one level, as a Word file's
    are; a page set mostly in bold marks nothing by it, and stays plain
    sections with the warning."""
    page = (
        "<html><body><p><b>Moving</b></p><p>A model moves 6 inches.</p>"
        "<p><b>Shooting</b></p><p>Roll a die per shot.</p></body></html>"
    )
    assert [u.title for u in parse_file("b.html", page.encode(), game="x").units] == [
        "Moving",
        "Shooting",
    ]
    shouting = page.replace("<p>A", "<p><b>A").replace(".</p>", ".</b></p>")
    result = parse_file("b.html", shouting.encode(), game="x")
    assert any("no headings found" in w for w in result.warnings)


def test_aria_headings_toggles_and_emoji_icons_of_a_notion_export() -> None:
    """Notion and GitBook exports: <div role="heading" aria-level="3"> is a heading
    of that level (it was a line of the rule before it); a heading inside a
    toggle's <summary> opens a rule of the toggle's body, and so does a
    toggle whose summary is a bold numbered line (both were lines of 3.2);
    the page icon "⚔️" was a rule named after the file, and a callout's "💡" a
    line of its own: the icons Notion marks as its page's and its callouts'
    are decoration, dropped and counted."""
    result = parse_file("notion.html", (EDGES / "notion.html").read_bytes(), game="x")
    by_id = {u.rule_id: u for u in result.units}
    assert "notion" not in by_id
    assert (by_id["3.2.1"].title, by_id["3.2.1"].parent) == (
        "Failed charges",
        "Ashfall Core Rules > Movement > Charging",
    )
    assert by_id["3.2.1"].text.split("\n") == [
        "The model moves 3 inches toward the target and becomes Shaken.",
        "Designer's Note: The 3-inch stumble keeps the risk real.",
    ]
    assert by_id["3.3"].text == (
        "A model that falls more than 3 inches takes one wound per full 3 inches."
    )
    assert (by_id["4.3"].title, by_id["4.3"].parent) == (
        "Rolling to Hit",
        "Ashfall Core Rules > Shooting",
    )
    assert by_id["4.3"].text == "Each roll of 4+ is a hit.\nAn unmodified roll of 1 always misses."
    assert by_id["ashfall-core-rules/fighting"].title == "Fighting"
    assert result.dropped["decorations"] == 2
    assert all("💡" not in u.text and "⚔" not in u.text for u in result.units)


CP1252 = (
    "<h2>3 Movement</h2><p>Roll 2D6 \u00bd range, 6\u00bd inches. Caf\u00e9 \u2013 na\u00efve.</p>"
)


def test_a_page_with_no_charset_that_is_not_utf8_reads_as_windows_1252() -> None:
    """A page saved in Windows-1252 with no charset declared was decoded by a
    statistical guess, "6½ inches" as "6˝ inches" or "6� inches", and the
    --encoding option was not read. Now: the declared charset, else UTF-8 if
    the bytes are, else --encoding, else windows-1252 (the HTML standard's
    default), with a warning saying so."""
    data = CP1252.encode("cp1252")
    result = parse_file("old.html", data, game="x")
    assert result.units[0].text == "Roll 2D6 ½ range, 6½ inches. Café – naïve."
    assert any("windows-1252" in w and "--encoding" in w for w in result.warnings)
    # --encoding is taken at its word, with no warning
    told = parse_file("old.html", data, game="x", encoding="cp1250")
    assert "6˝ inches" in told.units[0].text and not told.warnings
    # a declared charset comes first, "iso-8859-1" read as browsers read it
    # (windows-1252: its "–" is 0x96); UTF-8 bytes read as UTF-8 whatever is given
    declared = parse_file(
        "d.html", b'<meta charset="iso-8859-1">' + data, game="x", encoding="cp1250"
    )
    assert declared.units[0].text == "Roll 2D6 ½ range, 6½ inches. Café – naïve."
    utf8 = parse_file("u.html", CP1252.encode(), game="x", encoding="cp1250")
    assert "6½ inches" in utf8.units[0].text and not utf8.warnings


def test_a_line_break_in_a_paragraph_is_a_line_of_the_rule() -> None:
    """ "Modifiers:<br>a) ...<br>b) ..." and a wiki's "<b>Range:</b> 12 inches.<br/>
    <b>AP:</b> 1" were each joined into one line, a value running into the next
    entry's name; a <br> in a heading or a table cell is still a space."""
    page = (
        "<html><body><h2>4.3<br>Rolling to Hit</h2>"
        "<p>Modifiers:<br>a) -1 in cover<br>b) -1 if the shooter moved<br></p>"
        "<p><b>Range:</b> 12 inches.<br/>\n<b>AP:</b> 1</p>"
        "<ul><li>Close<br>combat</li></ul><table><tr><td>Rivet<br>Pistol</td><td>8</td></tr></table>"
        "</body></html>"
    )
    (unit,) = parse_file("br.html", page.encode(), game="x").units
    assert (unit.rule_id, unit.title) == ("4.3", "Rolling to Hit")
    assert unit.text.split("\n") == [
        "Modifiers:",
        "a) -1 in cover",
        "b) -1 if the shooter moved",
        "Range: 12 inches.",
        "AP: 1",
        "- Close",
        "  combat",
        "Rivet Pistol | 8",
    ]


@pytest.mark.parametrize(
    ("head", "lists"),
    [
        # a list's own style, in any of CSS's names
        ("", "<ol style='list-style-type: lower-alpha'><li>x</li><li>y</li></ol>"),
        ("", "<ol style='list-style: upper-roman inside'><li>x</li><li>y</li></ol>"),
        # Sphinx (docutils) classes, numbered by a style sheet not in the page
        ("", "<ol class='loweralpha simple'><li>x</li><li>y</li></ol>"),
        # the page's own style sheet: a list-style-type, or Google Docs' counter
        (
            "<style>ol.alpha{list-style-type:upper-alpha}</style>",
            "<ol class='alpha'><li>x</li></ol>",
        ),
        (
            "<style>@import url(https://example.com/f.css);.lst-kix_q1-0>li:before"
            '{content:"" counter(lst-ctn-kix_q1-0,lower-latin) ") "}'
            "ol.lst-kix_q1-0{list-style-type:none}</style>",
            "<ol class='c7 lst-kix_q1-0 start' start='1'><li>x</li><li>y</li></ol>"
            "<p>Both.</p><ol class='c7 lst-kix_q1-0' start='3'><li>z</li></ol>",
        ),
    ],
)
def test_lists_lettered_by_css_or_by_class_keep_their_letters(head: str, lists: str) -> None:
    """Only <ol type="a"> was lettered: a list lettered or numbered in Roman by its
    style, by Sphinx's classes or by the page's style sheet read 1, 2, 3, and
    "see (b)" then pointed at nothing."""
    page = f"<html><head>{head}</head><body><h1>Modifiers</h1>{lists}</body></html>"
    (unit,) = parse_file("l.html", page.encode(), game="x").units
    expected = {
        "lower-alpha": ["a. x", "b. y"],
        "upper-roman": ["I. x", "II. y"],
        "loweralpha": ["a. x", "b. y"],
        "upper-alpha": ["A. x"],
        "lower-latin": ["a) x", "b) y", "Both.", "c) z"],
    }
    (kind,) = [k for k in expected if k in head + lists]
    assert unit.text.split("\n") == expected[kind]


def test_sphinx_permalinks_field_lists_and_footnote_labels_leave_no_marks() -> None:
    """Sphinx's "¶" permalinks stayed after a glossary term ("Engagement¶") and a
    table's caption; a field list's term keeps its own colon ("Range::
    12 inches"); and a footnote's label "[<a>1</a>]" left "[]" when its link
    back went ("[1] [] It still counts")."""
    page = """<html><body><div role="main"><section id="s">
<h2>Weapons<a class="headerlink" href="#s">¶</a></h2>
<p>Shaken <a class="footnote-reference brackets" href="#f1" id="id1">1</a>.</p>
<dl class="field-list"><dt>Range<span class="colon">:</span></dt><dd><p>12 inches</p></dd>
<dt>AP<span class="colon">:</span></dt><dd><p>1</p></dd></dl>
<table id="t1"><caption><span>Table 1 </span><span>Weapons</span><a class="headerlink"
 href="#t1">¶</a></caption><tr><td>Pistol</td><td>8</td></tr></table>
<dl class="glossary"><dt id="term-E">Engagement<a class="headerlink" href="#term-E">¶</a></dt>
<dd><p>Within 1 inch of an enemy model.</p></dd></dl>
<aside class="footnote brackets" id="f1" role="note"><span class="label"><span>[</span>
<a role="doc-backlink" href="#id1">1</a><span>]</span></span><p>It still counts.</p></aside>
</section></div></body></html>"""
    units = parse_file("s.html", page.encode(), game="x").units
    assert [(u.title, u.text.split("\n")) for u in units] == [
        (
            "Weapons",
            [
                "Shaken [1].",
                "[1] It still counts.",
                "Range: 12 inches",
                "AP: 1",
                "Table 1 Weapons",
                "Pistol | 8",
            ],
        ),
        ("Engagement", ["Within 1 inch of an enemy model."]),
    ]


def test_a_cell_spanning_columns_keeps_the_cells_after_it_under_their_headers() -> None:
    """ "Ember Thrower" spanning Weapon and Range was read once and the row closed
    up, "Ember Thrower | 3 | -2" under "Weapon | Range | Attacks | AP": 3
    read as its range. Each extra column it spans is an empty cell; at the
    row's end (a category's row across the table) none is added."""
    page = """<html><body><h1>Weapons</h1><table>
<tr><th>Weapon</th><th>Range</th><th>Attacks</th><th>AP</th></tr>
<tr><td>Slag Rifle</td><td>24</td><td>2</td><td>-1</td></tr>
<tr><td colspan="2">Ember Thrower (template)</td><td>3</td><td>-2</td></tr>
<tr><td colspan="4">Heavy weapons</td></tr></table></body></html>"""
    (unit,) = parse_file("w.html", page.encode(), game="x").units
    assert unit.text.split("\n") == [
        "Weapon | Range | Attacks | AP",
        "Slag Rifle | 24 | 2 | -1",
        "Ember Thrower (template) |  | 3 | -2",
        "Heavy weapons",
    ]


def test_a_wikis_page_tabs_go_but_licence_and_badge_class_names_drop_nothing() -> None:
    """A Fandom page's first rule began "Edit History Talk (0)": its tool bar
    ("page-header__actions", all links) is the page's. But a class naming a
    licence or a badge says nothing of a box's part in the page: a racing
    game's "Driver licence" rule ("licence-card", id "license") vanished, a
    heading's "Optional" badge was cut from its title, and a box of links to
    a game's actions ("unit-actions": the rule after it says "the actions
    above") was dropped as a tool bar."""
    page = """<html><body><main><div class="page-header">
<h1>Road Wars</h1><div class="page-header__actions"><a href="?action=edit">Edit</a>
<a href="?action=history">History</a> <a href="/Talk">Talk (0)</a></div></div>
<h2>Driver licence</h2>
<div class="card licence-card"><p>Each driver holds a licence with 3 points.</p></div>
<div id="license"><p>A driver without a licence cannot enter the Highway.</p></div>
<h2>Actions</h2>
<div class="unit-actions"><p><a href="#move">Move</a>, <a href="#ram">Ram</a></p></div>
<p>Each car takes two of the actions above per turn.</p>
<h2>Special rules <span class="badge">Optional</span></h2><p>Both players agree.</p>
</main></body></html>"""
    units = parse_file("wiki.html", page.encode(), game="x").units
    assert [(u.title, u.text) for u in units] == [
        (
            "Driver licence",
            "Each driver holds a licence with 3 points.\n"
            "A driver without a licence cannot enter the Highway.",
        ),
        ("Actions", "Move, Ram\nEach car takes two of the actions above per turn."),
        ("Special rules Optional", "Both players agree."),
    ]


def test_a_declared_charset_is_read_with_bad_bytes_replaced_and_counted() -> None:
    """One stray byte in a page declaring UTF-8 failed a strict decode, and the
    page was read as if it declared nothing: as windows-1252, every "½" and
    curly quote in it mojibake, with a false "no character set declared"
    warning. The declared charset wins; a byte it cannot read is U+FFFD, and
    the warning names the file and how many there were."""
    text = "Models move 6\u00bd inches \u2013 \u201cdifficult\u201d terrain."
    page = f'<html><head><meta charset="utf-8"></head><body><h2>Movement</h2><p>{text}</p>'
    data = page.encode() + b"<p>Str\xe9y byte.</p></body></html>"
    result = parse_file("stray.html", data, game="x")
    assert result.units[0].text.split("\n") == [text, "Str\ufffdy byte."]
    assert len(result.warnings) == 1
    assert "stray.html" in result.warnings[0] and " 1 " in result.warnings[0]
    assert "no character set" not in result.warnings[0]


RUSSIAN = (
    "<h1>\u041f\u0440\u0430\u0432\u0438\u043b\u0430</h1><h2>\u0414\u0432\u0438\u0436"
    "\u0435\u043d\u0438\u0435</h2><p>\u041c\u043e\u0434\u0435\u043b\u0438 \u0434\u0432"
    "\u0438\u0433\u0430\u044e\u0442\u0441\u044f \u043d\u0430 6 \u0434\u044e\u0439\u043c"
    "\u043e\u0432. \u0422\u0440\u0443\u0434\u043d\u0430\u044f \u043c\u0435\u0441\u0442"
    "\u043d\u043e\u0441\u0442\u044c \u0437\u0430\u043c\u0435\u0434\u043b\u044f\u0435"
    "\u0442 \u0432\u0434\u0432\u043e\u0435.</p>"
)
JAPANESE = (
    "<h1>\u30eb\u30fc\u30eb</h1><h2>\u79fb\u52d5</h2><p>\u30e2\u30c7\u30eb\u306f6\u30a4"
    "\u30f3\u30c1\u79fb\u52d5\u3059\u308b\u3002\u300c\u56f0\u96e3\u5730\u5f62\u300d"
    "\u3067\u306f\u534a\u5206\u306b\u306a\u308b\u3002</p><h2>\u5c04\u6483</h2><p>\u30c0"
    "\u30a4\u30b9\u3092\u632f\u308b\u3002</p>"
)


@pytest.mark.parametrize(
    ("page", "codec"),
    [(RUSSIAN, "cp1251"), (JAPANESE, "shift_jis")],
    ids=["russian-windows-1251", "japanese-shift_jis"],
)
def test_an_undeclared_page_in_a_non_latin_script_is_read_by_detection(
    page: str, codec: str
) -> None:
    """A page of Russian in windows-1251 or Japanese in Shift_JIS with no charset
    declared was read right by bs4's detection, and then, read as
    windows-1252, was mojibake. The detector is believed when what it reads
    is mostly letters of a script other than Latin (a page of English, which
    it took for Central European, is still windows-1252: see above); the
    warning says what the page was read as."""
    result = parse_file("ru.html", f"<html><body>{page}</body></html>".encode(codec), game="x")
    expected = parse_file("utf8.html", page.encode(), game="x")
    assert [(u.title, u.text) for u in result.units] == [(u.title, u.text) for u in expected.units]
    assert any("no character set declared" in w for w in result.warnings)


@pytest.mark.parametrize(
    ("label", "codec", "text"),
    [
        # Microsoft's characters in a page declaring the standard's narrower name
        ("Shift_JIS", "cp932", "\u624b\u9806\u2460\u79fb\u52d5\u2161"),
        ("euc-kr", "cp949", "\ubaa8\ub378 \ub620\ubc29\uac01\ud558"),
        ("gb2312", "gb18030", "\u6a21\u578b\u79fb\u52a8\u9555"),
        ("iso-8859-9", "cp1254", "Zar at\u0131l\u0131r \u2013 \u201cg\u00fc\u00e7\u201d"),
        ("tis-620", "cp874", "\u0e01\u0e0e\u2026"),
    ],
    ids=["shift_jis", "euc-kr", "gb2312", "iso-8859-9", "tis-620"],
)
def test_a_declared_label_is_read_as_browsers_widen_it(label: str, codec: str, text: str) -> None:
    """A page declaring "Shift_JIS" holding cp932's ① and Ⅲ, "euc-kr" holding
    cp949's extra Hangul, "gb2312" holding GBK's characters failed Python's
    codec of that exact name, and was read as undeclared (windows-1252): all
    mojibake, or "no text in the page". Labels are read as the WHATWG
    Encoding Standard maps them."""
    page = f'<html><head><meta charset="{label}"></head><body><h2>X</h2><p>{text}</p>'
    result = parse_file("w.html", page.encode(codec), game="x")
    assert result.units[0].text == text
    assert not result.warnings


def test_a_charset_declared_after_a_long_style_sheet_is_read() -> None:
    """bs4 looks for a <meta charset> in the first 2 KB only: after a long style
    sheet, a page declaring windows-1251 was read as undeclared. The whole
    <head> (or the first 64 KB) is looked in."""
    style = "".join(f".c{n} {{ margin: {n}px; color: #333; }}\n" for n in range(200))
    page = f"<html><head><style>{style}</style><meta charset='windows-1251'></head><body>"
    result = parse_file("late.html", (page + RUSSIAN).encode("cp1251"), game="x")
    assert result.units[0].text.startswith("\u041c\u043e\u0434\u0435\u043b\u0438 ")
    assert not result.warnings


def test_a_data_table_with_headings_in_its_cells_is_still_a_table() -> None:
    """1435ef4 took any table with a heading in a cell for a page's layout: a
    weapons table whose header cells are <h3>s, and a stat card with its
    name in an <h3> across its columns, were read a value per line
    ("Lever rifle", "18\"", "0"), under a rule named after the last header
    cell, and a <caption>'s heading was lost. A cell that is only a heading
    is a header cell; a layout table's cells hold a heading and its text."""
    page = """<html><body><h1>Ashfall</h1><h2>Weapons</h2><table border="1">
<tr><td><h3>Rifles</h3></td><td><h3>Range</h3></td><td><h3>AP</h3></td></tr>
<tr><td>Lever rifle</td><td>18"</td><td>0</td></tr></table>
<h2>Armour</h2><table><caption><h3>Armour table</h3></caption>
<tr><th>Type</th><th>Save</th></tr><tr><td>Light</td><td>6+</td></tr></table>
<h2>Bestiary</h2><table border="1"><tr><td colspan="4"><h3>Orc Warrior</h3></td></tr>
<tr><td>M</td><td>WS</td><td>BS</td><td>W</td></tr>
<tr><td>4</td><td>3</td><td>5</td><td>1</td></tr></table>
<table role="presentation"><tr><td>Wolves hunt in packs.</td><td>See below.</td></tr></table>
</body></html>"""
    units = parse_file("t.html", page.encode(), game="x").units
    assert [(u.title, u.text.split("\n")) for u in units] == [
        ("Weapons", ["Rifles | Range | AP", 'Lever rifle | 18" | 0']),
        ("Armour", ["Armour table", "Type | Save", "Light | 6+"]),
        (
            "Bestiary",
            [
                "Orc Warrior",
                "M | WS | BS | W",
                "4 | 3 | 5 | 1",
                # a table the page says is for layout: its cells are blocks
                "Wolves hunt in packs.",
                "See below.",
            ],
        ),
    ]


def test_a_heading_inside_a_list_item_after_its_text_stays_in_the_item() -> None:
    """Step 3 of a list held a note box with its own <h4>Note</h4>: the item was
    read as blocks of the page, its number lost, and the rest of the list
    went under a new rule "Note". Only an item opening with its heading (a
    Notion toggle list's) is read as blocks; otherwise the heading is text
    of the item."""
    page = """<html><body><h1>Core Rules</h1><h2>3 Turn sequence</h2><ol>
<li>Roll for initiative.</li><li>Shoot with your models.
<div class="note"><h4>Note</h4><p>Models that ran cannot shoot.</p></div></li>
<li>Fight in melee.</li></ol><h2>4 Morale</h2><p>Roll 2D6.</p></body></html>"""
    units = parse_file("l.html", page.encode(), game="x").units
    assert [(u.title, u.text.split("\n")) for u in units] == [
        (
            "Turn sequence",
            [
                "1. Roll for initiative.",
                "2. Shoot with your models. Note Models that ran cannot shoot.",
                "3. Fight in melee.",
            ],
        ),
        ("Morale", ["Roll 2D6."]),
    ]


def test_a_style_rule_for_nested_lists_leaves_the_outer_list_alone() -> None:
    """``ol.rules ol { list-style-type: lower-alpha }`` letters the lists inside
    ``ol.rules``, but was read as the rule of ``.rules`` itself: the outer
    list read "a. Move phase", "b. Shoot phase". A rule counts for a class
    only when its selector ends with it (or with the class's items'
    markers: ``ol.steps li::before``)."""
    page = """<html><head><style>ol.rules ol { list-style-type: lower-alpha; }
.faq ol ol ol { list-style-type: lower-roman; }</style></head><body><h1>Turn</h1>
<ol class="rules"><li>Move phase<ol><li>Move models</li></ol></li><li>Shoot phase</li></ol>
</body></html>"""
    (unit,) = parse_file("c.html", page.encode(), game="x").units
    assert unit.text.split("\n") == ["1. Move phase", "  1. Move models", "2. Shoot phase"]


def test_a_css_counter_label_keeps_the_spaces_written_in_it() -> None:
    """``content: "Step " counter(step) ": "`` labelled the items "Step1:": the
    strings around the counter were trimmed where they meet it."""
    page = """<html><head><style>ol.steps li:before { content: "Step " counter(step) ": "; }
ol.faq li::before { content: "Q" counter(list-item) ". "; }</style></head><body>
<h1>Turn</h1><ol class="steps"><li>Roll initiative.</li><li>Move.</li></ol>
<ol class="faq"><li>Can I run?</li></ol></body></html>"""
    (unit,) = parse_file("c.html", page.encode(), game="x").units
    assert unit.text.split("\n") == ["Step 1: Roll initiative.", "Step 2: Move.", "Q1. Can I run?"]


def test_lines_of_symbols_alone_are_text() -> None:
    """A line that was only emoji or symbols was dropped as decoration: a dice
    table's faces before each result, an icon legend's "⚔️" and "🛡️", a
    card's "★★★" rating. Each says something; only the icons Notion marks
    as its page's and its callouts' are decoration (see the Notion test)."""
    page = """<html><body><h1>Combat</h1><p>Roll one die:</p>
<div class="row"><div class="face">\u2680</div><div>Miss.</div></div>
<div class="row"><div class="face">\u2681 \u2682</div><div>Hit: 1 damage.</div></div>
<div class="legend"><div class="icon">\u2694\ufe0f</div><div>Attack: deal 1 damage.</div></div>
<p>\u2605\u2605\u2605</p><p>Three stars: a legendary card.</p></body></html>"""
    result = parse_file("d.html", page.encode(), game="x")
    assert result.units[0].text.split("\n") == [
        "Roll one die:",
        "\u2680",
        "Miss.",
        "\u2681 \u2682",
        "Hit: 1 damage.",
        "\u2694\ufe0f",
        "Attack: deal 1 damage.",
        "\u2605\u2605\u2605",
        "Three stars: a legendary card.",
    ]
    assert "decorations" not in result.dropped


def test_role_heading_with_no_aria_level_is_not_a_heading() -> None:
    """A callout's title ``<div role="heading">Tip</div>`` with no aria-level was
    made an <h2>, and the sections after it ("Running", "Charging") became
    its children, no longer under "Movement". A role heading needs its level."""
    page = """<html><body><h1>Core Rules</h1><h2>Movement</h2>
<div class="callout"><div class="callout-title" role="heading">Tip</div>
<p>Measure before you move.</p></div><h3>Running</h3><p>Double move.</p></body></html>"""
    units = parse_file("a.html", page.encode(), game="x").units
    assert [(u.title, u.parent, u.text) for u in units] == [
        ("Movement", "Core Rules", "Tip\nMeasure before you move."),
        ("Running", "Core Rules > Movement", "Double move."),
    ]


def test_a_hash_sign_link_is_text_unless_it_is_a_permalink() -> None:
    """Every link reading "#" was dropped as a permalink: a ranking table's sort
    link in its header ("| Player | Score"), a tag token in prose. Only one
    linking into its own page, or classed as a permalink, is one."""
    page = """<html><body><h1>Rules</h1><h2>Ranking</h2>
<table><tr><th><a href="?sort=rank">#</a></th><th>Player</th></tr>
<tr><td>1</td><td>Ann</td></tr></table>
<p>Use <a href="https://example.com/tags">#</a> for a tag.</p>
<p id="x">Cover <a href="#x">#</a> counts <a class="anchor-link" href="/p#c">\u00b6</a></p>
</body></html>"""
    (unit,) = parse_file("p.html", page.encode(), game="x").units
    assert unit.text.split("\n") == ["# | Player", "1 | Ann", "Use # for a tag.", "Cover counts"]


def test_a_list_styled_without_markers_reads_without_them() -> None:
    """ "list-style: none" shows no number or bullet: a rules page that numbers
    its items itself ("101.1. The active player...") reads as its rules."""
    page = (
        "<html><head><style>.plain { list-style-type: none }</style></head><body>"
        "<h1>Rules</h1><h2>101. Players</h2>"
        '<ol style="list-style: none"><li>101.1. The active player acts first.</li>'
        "<li>101.2. The other player waits.</li></ol>"
        '<h2>102. Turns</h2><ul class="plain"><li>Untap.</li><li>Draw.</li></ul></body></html>'
    )
    result = parse_file("rules.html", page.encode(), game="x")
    got = {u.rule_id: u.text for u in result.units}
    assert got["101.1"] == "The active player acts first."
    assert got["101.2"] == "The other player waits."
    assert got["rules/turns"] == "Untap.\nDraw."


TAB_PAGES = {
    "aria": (
        '<div><ul role="tablist"><li role="tab" id="t1" aria-controls="p1">First edition</li>'
        '<li role="tab" id="t2" aria-controls="p2">Second edition</li></ul>'
        '<div role="tabpanel" id="p2" aria-labelledby="t2"><p>{b}</p></div>'
        '<div role="tabpanel" id="p1"><p>{a}</p></div></div>'
    ),
    "bootstrap": (
        '<ul class="nav nav-tabs"><li><a href="#one">First edition</a></li>'
        '<li><a href="#two">Second edition</a></li></ul><div class="tab-content">'
        '<div class="tab-pane active" id="one"><p>{a}</p></div>'
        '<div class="tab-pane" id="two"><p>{b}</p></div></div>'
    ),
    "mkdocs": (
        '<div class="tabbed-set"><input checked id="__tabbed_1_1" name="__tabbed_1" type="radio">'
        '<input id="__tabbed_1_2" name="__tabbed_1" type="radio"><div class="tabbed-labels">'
        '<label for="__tabbed_1_1">First edition</label><label for="__tabbed_1_2">Second '
        'edition</label></div><div class="tabbed-content"><div class="tabbed-block"><p>{a}</p>'
        '</div><div class="tabbed-block"><p>{b}</p></div></div></div>'
    ),
    "fandom": (
        '<div class="tabber wds-tabber"><div class="wds-tabs__wrapper"><ul class="wds-tabs">'
        '<li class="wds-tabs__tab"><div class="wds-tabs__tab-label"><a href="#">First edition'
        '</a></div></li><li class="wds-tabs__tab"><div class="wds-tabs__tab-label"><a href="#">'
        'Second edition</a></div></li></ul></div><div class="wds-tab__content wds-is-current">'
        '<p>{a}</p></div><div class="wds-tab__content"><p>{b}</p></div></div>'
    ),
    "tabber": (
        '<div class="tabber"><div class="tabbertab" title="First edition"><p>{a}</p></div>'
        '<div class="tabbertab" title="Second edition"><p>{b}</p></div></div>'
    ),
}


@pytest.mark.parametrize("kind", list(TAB_PAGES))
def test_each_tab_panel_is_read_under_its_label(kind: str) -> None:
    """A wiki's editions as tabs: the labels were read first as a list, the two
    panels' rules after them, and an answer quoted both with nothing to tell
    which edition said which. Each panel now opens with its label (from ARIA,
    a tab pointing at it, its title, or its place in the row), and the row goes."""
    a = "The flamer hits every model under the template and ignores cover."
    b = "The flamer makes d6 hits. Cover still applies."
    tabs = TAB_PAGES[kind].format(a=a, b=b)
    page = f"<html><body><h1>Flamer</h1><h2>Rules</h2>{tabs}<h2>Cost</h2><p>10 points.</p>"
    result = parse_file("flamer.html", f"{page}</body></html>".encode(), game="x")
    rules = next(u for u in result.units if u.title == "Rules")
    first, second = ["First edition:", a], ["Second edition:", b]
    # (the ARIA page sets its second panel first)
    want = [*second, *first] if kind == "aria" else [*first, *second]
    assert rules.text.split("\n") == want, kind
    if kind != "tabber":
        assert result.dropped["rows of tab labels"] == 1


def test_a_row_of_tabs_that_does_not_match_its_panels_stays_as_it_was() -> None:
    """Three labels over two panels, nothing tying them: no label is guessed."""
    tabs = (
        '<ul class="wds-tabs"><li>One</li><li>Two</li><li>Three</li></ul>'
        '<div class="wds-tab__content"><p>First rule text.</p></div>'
        '<div class="wds-tab__content"><p>Second rule text.</p></div>'
    )
    page = f"<html><body><h1>Rules</h1><div>{tabs}</div></body></html>"
    result = parse_file("r.html", page.encode(), game="x")
    assert result.units[0].text.split("\n") == [
        "- One", "- Two", "- Three", "First rule text.", "Second rule text."
    ]  # fmt: skip


def test_a_toggle_title_in_a_list_is_a_line_of_its_own() -> None:
    """Notion exports a toggle list as items holding a <details>: its plain
    <summary> ran into the text under it ("- Effects During a storm...")."""
    page = (
        "<html><body><h1>Storms</h1><ul class='toggle'><li><details open>"
        "<summary>Effects</summary><p>During a storm, flying units must land.</p>"
        "</details></li></ul></body></html>"
    )
    result = parse_file("storms.html", page.encode(), game="x")
    assert result.units[0].text.split("\n") == [
        "- Effects",
        "  During a storm, flying units must land.",
    ]


def test_what_a_heading_hides_from_readers_is_no_part_of_its_title() -> None:
    """New Google Sites puts a "Copy heading link" tooltip, hidden from
    readers (aria-hidden), in every heading: every title began with it. A
    heading that says nothing else keeps what it says."""
    tooltip = (
        '<div class="CjVfdc"><div role="presentation" aria-label="Copy heading link"></div>'
        '<div class="rlgLX" aria-hidden="true"><div class="kvaGgb">Copy heading link</div></div>'
    )
    page = f"""<!DOCTYPE html><html><body><main>
<h2 id="h.r2">{tooltip}<span>Command Points</span></div></h2><p>Each player gets 3 CP.</p>
<h2><span aria-hidden="true">Morale</span></h2><p>Test at half strength.</p>
</main></body></html>"""
    units = parse_file("rules.html", page.encode(), game="x").units
    assert [(u.rule_id, u.title) for u in units] == [
        ("command-points", "Command Points"),
        ("morale", "Morale"),
    ]
    # a rule number hidden from readers is still the heading's number
    numbered = page.replace("<span>Command Points</span>", '<span aria-hidden="true">3.1</span> CP')
    assert parse_file("rules.html", numbered.encode(), game="x").units[0].rule_id == "3.1"


def test_a_sidebar_of_prose_inside_the_rules_is_the_books() -> None:
    """Tabletop books call a boxed aside a "sidebar": one inside <main> was
    dropped as the site's sidebar, with its rule text. The site's own sidebar
    (outside the rules, or mostly links) still goes."""
    page = """<!DOCTYPE html><html><body>
<div class="sidebar"><a href="/a">Home</a> <a href="/b">Rules</a></div><main>
<h2>Actions</h2><p>Players alternate activating one unit each.</p>
<div class="sidebar"><h4>Designer's Sidebar</h4><p>Alternating keeps both players engaged.</p></div>
<div class="sidebar"><a href="/x">Next page</a> <a href="/y">Previous page</a></div>
</main></body></html>"""
    text = " ".join(
        u.title + " " + u.text for u in parse_file("r.html", page.encode(), game="x").units
    )
    assert "Alternating keeps both players engaged." in text
    assert "Designer's Sidebar" in text
    assert "Home" not in text and "Next page" not in text


def test_an_aria_table_is_read_as_a_table() -> None:
    """GitBook draws every table as boxes with ARIA roles (a "table" of
    "row"s of "columnheader"s and "cell"s): each cell was read as a line of
    its own, and a row's cells no longer stood together."""
    cell = '<div role="{}"><p>{}</p></div>'
    rows = [("columnheader", "Range", "Modifier"), ("cell", 'Short (up to 6")', "+1")]
    body = "".join(
        '<div role="rowgroup"><div role="row">'
        + cell.format(kind, a)
        + cell.format(kind, b)
        + "</div></div>"
        for kind, a, b in rows
    )
    page = f"""<!DOCTYPE html><html><body><main><h2>Range Bands</h2>
<p>The range modifies the hit roll:</p><div role="table">{body}</div></main></body></html>"""
    (unit,) = parse_file("r.html", page.encode(), game="x").units
    assert unit.text.split("\n") == [
        "The range modifies the hit roll:",
        "Range | Modifier",
        'Short (up to 6") | +1',
    ]


def test_a_link_back_to_the_top_after_each_section_is_left_out() -> None:
    """A one-page rulebook's "↑ Back to top" after every section (a link to
    the page itself, or to "#") ended each rule. A link to a heading in the
    page, or a line with more to say, stays."""
    page = """<!DOCTYPE html><html><body id="top"><main>
<h2>Movement</h2><p>A unit moves 6 inches.</p>
<p class="back-to-top"><a href="#top">\u2191 Back to top</a></p>
<h2 id="charge">Charge</h2><p>Charge 2D6 inches.</p><p><a href="#">Back to top</a></p>
<h2>Rally</h2><p>Rally on a 4+.</p><p><a href="#charge">See Charge</a></p>
<p><a href="#top">Top</a> of the table is the attacker's edge.</p>
</main></body></html>"""
    result = parse_file("r.html", page.encode(), game="x")
    assert [u.text for u in result.units] == [
        "A unit moves 6 inches.",
        "Charge 2D6 inches.",
        "Rally on a 4+.\nSee Charge\nTop of the table is the attacker's edge.",
    ]
    assert result.dropped["links back to the top"] == 2


def test_a_wikidot_page_reads_as_its_rules_alone() -> None:
    """A Wikidot page as a browser saves it (many rules SRDs live there):
    its "side-bar", and after the rules its tags, "page revision" line, edit
    bar, licence and a hidden login dialog, were rules text or rules of their
    own; its title (a box, not a heading) named nothing; "+ Show example"
    toggles were lines of the rule; its tabs' labels stood apart from their
    panels; and its footnotes, linked by script, ended the last rule."""
    result = parse_file("wikidot.html", (EDGES / "wikidot.html").read_bytes(), game="x")
    by_title = {u.title: u.text for u in result.units}
    assert next(iter(by_title)) == "Combat"
    assert by_title["Combat"] == (
        "This page describes how fighting works. Terms in italics are defined in the Glossary."
    )
    assert by_title["Weapon Types"].split("\n") == [
        "Melee:",
        "May only attack a model in base contact.",
        "Ranged:",
        "May not fire while the firing model is engaged.",
    ]
    # a folded example: the "show" link names it, the "hide" link goes
    assert by_title["Attacking"].split("\n")[1:] == [
        "Show example",
        "Example: A goblin with Fight 3 attacks a knight with Defence 15. The goblin rolls 12,"
        " for a total of 15: the attack hits.",
    ]
    text = "\n".join(by_title.values())
    for chrome in ("Quick Links", "edit sidebar", "Hide example", "page revision",
                   "Unless otherwise stated", "Advertisement", "Watch: site"):  # fmt: skip
        assert chrome not in text
    # its footnote (a mark and a link back that scroll by script) after its
    # paragraph, not at the page's end under "Footnotes"
    assert by_title["Initiative"].endswith(
        "goes first.[1]\n[1] In a three-player game, roll off among all players."
    )
    # (its hidden login dialog, "Sign in", stays: a box hidden by its style may
    # be a keyword's pop-up, which is rules)
    assert by_title["Critical Hits"].split("\n")[0] == (
        "A natural 20 on the attack roll is a critical hit and deals double damage."
    )
    assert result.dropped["the page's boxes after its rules (tags, feedback, footer)"] > 0
    assert result.dropped["the page's controls (show / hide)"] == 1


def _page(body: str, title: str = "Rules") -> bytes:
    return f"<html><head><title>{title}</title></head><body>{body}</body></html>".encode()


def _texts(page: bytes) -> dict[str, str]:
    return {u.title: u.text for u in parse_file("p.html", page, game="x").units}


def test_what_follows_the_rules_box_goes_only_when_it_is_the_pages() -> None:
    """After the box holding the page's last heading, named boxes that are
    mostly links all together go (tags, an edit bar with its revision); a
    box hidden by its style stays where it is. Anything that may be rules
    keeps everything: a heading, a table, an accordion, a sentence, short
    rule lines in a named box, a paragraph that says nothing of what it is,
    text loose between tags, or a box like the rules' own (a book's next
    page)."""
    rules = (
        '<h2>Move</h2><p class="c0">A unit moves up to six inches, and may not move within one'
        " inch of an enemy unless it charges; difficult ground halves its move.</p>"
        '<h2>Shoot</h2><p class="c0">Roll a die for each gun. Each roll of four or more hits, and'
        " a target in cover ignores the first hit.</p>"
    )
    tail = (
        '<div class="post-tags"><a href="/t/a">rules</a> <a href="/t/b">core</a></div>'
        '<div class="page-tools"><a href="/e">Edit</a> <a href="/h">History</a> revision 14</div>'
    )
    hidden = '<div style="display:none"><p>Scout: deploys last.</p></div>'
    named = _texts(_page(f'<div class="content">{rules}</div>{tail}{hidden}'))
    assert named["Shoot"].split("\n")[1:] == ["Scout: deploys last."]
    kept = [
        '<div class="more"><h3>Errata</h3><p>None yet.</p></div>',
        "<table class=summary><tr><td>Move</td><td>6</td></tr></table>",
        '<details class="faq"><summary>Can I run?</summary><p>No.</p></details>',
        '<div class="errata">A unit that ran may not shoot.</div>',
        '<div class="rule-note">Heavy weapons: -1 to hit if the firer moved</div>',
        '<div class="summary"><p>Move: 6 inches</p><p>Run: double Move</p></div>',
        "<p>Errata: none yet.</p>",
        "<b>Errata:</b> none yet.",
        '<div class="content"><p>Errata: none yet.</p></div>',
    ]
    for after in kept:
        texts = _texts(_page(f'<div class="content">{rules}</div>{tail}{after}'))
        assert "rules core" in "\n".join(texts.values()), after  # nothing went
    # a pager and a "Last updated" line are the page's too, its date counted as
    # a link is (GitBook's); a dated line of words, not a date, stays
    pager = (
        '<div class="pager"><a href="/t">Previous Terrain</a> <a href="/s">Next Shooting</a></div>'
        '<div class="meta"><p>Last updated <time datetime="2024-11-03">3 days ago</time></p>'
        "<p>Was this helpful?</p></div>"
    )
    gone = _texts(_page(f'<div class="content">{rules}</div>{pager}'))
    assert gone["Shoot"].endswith("ignores the first hit.")
    dated = pager.replace("3 days ago", "2024-11-03").replace(
        "Last updated", "Errata issued on the day the charge range fell to ten inches,"
    )
    kept_dated = _texts(_page(f'<div class="content">{rules}</div>{dated}'))
    assert kept_dated["Shoot"].endswith("Was this helpful?")


def test_boxes_the_page_leaves_out_of_print_are_not_rules() -> None:
    """A docs theme's feedback box ("Was this page helpful?" and its Yes / No
    buttons, under a heading of its own) is marked as the page's by the class
    that keeps it out of print (Bootstrap's d-print-none, Tailwind's
    print:hidden), as is a box of links; a screen-only tip of prose, no
    controls and no links, is still the rules'."""
    body = (
        "<main><h1>Combat</h1><p>Roll to hit.</p><h2>Retreat</h2><p>Move 6 inches away.</p>"
        '<div class="d-print-none"><h2>Feedback</h2><p>Was this page helpful?</p>'
        "<button>Yes</button><button>No</button></div>"
        '<div class="print:hidden"><a href="/edit">Edit this page</a></div>'
        '<div class="d-print-none"><p>Tip: terrain costs Woods 2, Rough 3.</p></div></main>'
    )
    texts = _texts(_page(body))
    assert list(texts) == ["Combat", "Retreat"]
    assert texts["Retreat"] == "Move 6 inches away.\nTip: terrain costs Woods 2, Rough 3."


def test_the_title_a_page_shows_names_its_opening_text() -> None:
    """A wiki's page title set in a box, not a heading, that is the first part
    of the page's <title> names the text before the first heading; the site's
    name (a later part) does not."""
    body = '<div id="page-title">Combat</div><p>How fights work.</p><h2>Melee</h2><p>Roll.</p>'
    assert next(iter(_texts(_page(body, "Combat - Skirmish SRD")).items())) == (
        "Combat",
        "How fights work.",
    )
    site = '<div class="logo">Skirmish SRD</div><p>How fights work.</p><h2>Melee</h2><p>Roll.</p>'
    first = next(iter(_texts(_page(site, "Combat - Skirmish SRD")).items()))
    assert first == ("p", "Skirmish SRD\nHow fights work.")


def test_tabs_known_by_their_shape_read_under_their_labels() -> None:
    """A list of short labels, one marked as chosen, and then a box of as many
    boxes, one shown, alone in their box, are tabs (Wikidot's, Wiki.js's):
    each panel reads under its label. The same shape with no label chosen
    (a unit card's keywords over its profile), or a different number of
    boxes, is a list."""
    tabs = (
        '<div class="tabset"><ul><li class="selected">Flares</li><li>Searchlights</li></ul>'
        "<div><div><p>A flare lights 12 inches.</p></div>"
        '<div style="display:none"><p>A searchlight ignores night.</p></div></div></div>'
    )
    text = _texts(_page(f"<h2>Night</h2><p>Range is 18 inches.</p>{tabs}"))["Night"]
    assert text.split("\n") == [
        "Range is 18 inches.",
        "Flares:",
        "A flare lights 12 inches.",
        "Searchlights:",
        "A searchlight ignores night.",
    ]
    for plain in (
        tabs.replace(' class="selected"', ""),
        tabs.replace("</div></div></div>", "</div><div><p>Third.</p></div></div></div>"),
    ):
        lines = _texts(_page(f"<h2>Night</h2><p>Range is 18 inches.</p>{plain}"))["Night"]
        assert lines.split("\n")[1:3] == ["- Flares", "- Searchlights"]


def test_the_reviews_look_alikes_read_as_before() -> None:
    """A review's probes of the same rules: a script link that is a rule's
    whole text (an army builder's), a <title> whose first part opens a table
    or a bold term's sentence, a page's own "side-bar" of prose among its
    sections, and a note in a table's cell, each read as it was."""
    builder = (
        '<h2>Gear</h2><p><a href="javascript:void(0)">Longbow: range 24 inches.</a></p>'
        "<h2>Skills</h2><p>Roll.</p>"
    )
    assert _texts(_page(builder))["Gear"] == "Longbow: range 24 inches."
    table = "<table><tr><th>Weapons</th><th>Range</th></tr><tr><td>Gun</td><td>12</td></tr></table>"
    first = next(iter(_texts(_page(f"{table}<h2>Use</h2><p>Roll.</p>", "Weapons | Wiki")).values()))
    assert first.split("\n") == ["Weapons | Range", "Gun | 12"]
    term = "<p><b>Charge</b>: a move that ends in contact.</p><h2>Use</h2><p>Roll.</p>"
    assert "Charge: a move that ends in contact." in _texts(_page(term, "Charge - Glossary"))["p"]
    aside = (
        "<div><h1>Ambush</h1><p>Hide a unit.</p>"
        '<div class="side-bar"><p>Designer\'s aside: ambushers are revealed at 6 inches.</p></div>'
        "<h2>Springing</h2><p>Reveal it.</p></div>"
    )
    assert "Designer's aside" in _texts(_page(aside))["Ambush"]
    cell = (
        "<h2>Arms</h2><table><tr><th>Weapon</th><th>Note</th><th>Range</th></tr><tr><td>Spear"
        '<sup><a href="#n1" id="r1">1</a></sup></td><td><p id="n1">Reach <a href="#r1">^</a></p>'
        '</td><td>1"</td></tr></table><h2>End</h2><p>Done.</p>'
    )
    assert _texts(_page(cell))["Arms"].split("\n")[1].count(" | ") == 2


def test_the_second_reviews_look_alikes_read_as_before() -> None:
    """A second review's probes: a hidden list of script links (a keyword
    pop-up list) and a script link opening "-1" before a hidden box, a blog's
    sidebar with headings of its own after the post, a line that is the
    <title> and all the text before the first heading, and a unit card whose
    keyword list and profile are classed apart, each read as it was."""
    keywords = (
        '<h2>Scouts</h2><p>They scout.</p><p><a href="javascript:;">Show keywords</a></p>'
        '<ul style="display:none"><li><a href="javascript:;">Scout: deploy last</a></li>'
        '<li><a href="javascript:;">Stealth: -1 to be hit</a></li></ul><h2>End</h2><p>Done.</p>'
    )
    assert _texts(_page(keywords))["Scouts"].split("\n")[-2:] == [
        "- Scout: deploy last",
        "- Stealth: -1 to be hit",
    ]
    minus = (
        '<h2>Woods</h2><div><a href="javascript:;">-1 to hit when charging through woods</a></div>'
        '<div style="display:none">More.</div><h2>End</h2><p>Done.</p>'
    )
    assert _texts(_page(minus))["Woods"].startswith("-1 to hit when charging")
    blog = (
        '<div id="content"><h2>Move</h2><p>Move six inches.</p></div><div id="sidebar">'
        "<h3>About me</h3><p>I have played since 1985.</p><h3>Archives</h3>"
        '<ul><li><a href="/2019">2019</a></li></ul></div>'
    )
    assert list(_texts(_page(blog))) == ["Move"]
    alone = "<p>Always round up</p><h2>Move</h2><p>Move six.</p><h2>Shoot</h2><p>Roll.</p>"
    assert "Always round up" in _texts(_page(alone, "Always round up | House rules")).values()
    card = (
        '<h2>Knights</h2><div class="unit"><ul><li class="cost">Cavalry</li><li>Elite</li></ul>'
        '<div><div class="stat">Move 8</div><div class="stat special">Lance: +1 when charging'
        "</div></div></div><h2>End</h2><p>Done.</p>"
    )
    assert _texts(_page(card))["Knights"].split("\n")[:2] == ["- Cavalry", "- Elite"]


def test_a_heading_linked_to_itself_is_the_heading() -> None:
    """mdBook writes every heading as a link to itself, classed "header"; taken
    for a page header by its class, every heading of the book went and the
    page was one plain section. An edit link in a heading still goes."""
    page = _page(
        '<main><h1 id="actions"><a class="header" href="#actions">Actions</a></h1>'
        "<p>Each fighter takes two actions.</p>"
        '<h2 id="aim"><a class="header" href="#aim">Aim</a>'
        '<span class="mw-editsection">[<a href="/edit">edit</a>]</span></h2>'
        "<p>Add 1 to the next hit roll.</p></main>"
    )
    assert _texts(page) == {
        "Actions": "Each fighter takes two actions.",
        "Aim": "Add 1 to the next hit roll.",
    }


def test_a_posts_byline_and_dates_are_not_its_rules() -> None:
    """A blog's or a docs site's byline and dateline, known by the standard
    marks they carry (<time>, rel="author" and "tag" links, schema.org's
    author and date properties), ended the last rule ("...flees. Published
    January 3, 2024 By Mara Quill"), opened the first, or, with the
    author's name set as a heading (Ghost), took the first rule for theirs.
    A rule's sentence holding a date, a short line of dates that is a
    sentence, and a changelog's entries stay."""
    page = _page(
        "<main><article><header><h1>Morale</h1>"
        '<div class="byline"><h4 class="author-name"><a href="/author/mara">Mara Quill</a></h4>'
        '<time datetime="2024-01-03">Jan 3, 2024</time> \u2022 4 min read</div></header>'
        "<p>Test morale at the end of each round.</p>"
        "<h2>Rallying</h2><p>A broken fighter rallies on a 4+.</p>"
        '<p>Errata issued on <time datetime="2024-01-03">3 January 2024</time>.</p>'
        '<ul><li><time datetime="2024-01-03">2024-01-03</time>: rally roll now 4+</li></ul>'
        '<footer class="entry-footer"><span>Published <time datetime="2024-01-03">January 3, '
        '2024</time></span> <span>By <a rel="author" href="/author/mara">Mara Quill</a></span>'
        ' <span>Tagged <a rel="tag" href="/tag/morale">morale</a></span></footer>'
        "</article></main>"
    )
    assert _texts(page) == {
        "Morale": "Test morale at the end of each round.",
        "Rallying": "A broken fighter rallies on a 4+.\nErrata issued on 3 January 2024.\n"
        "- 2024-01-03: rally roll now 4+",
    }
    # a list of posts titles each by a link to it, over its dateline; a
    # duration, a clock time and a glossary's tag links are no byline
    stays = _page(
        '<main><article><header><h2><a rel="bookmark" href="/movement">Movement</a></h2>'
        '<div>Published <time datetime="2024-01-03">Jan 3, 2024</time></div></header>'
        "<p>Move 6 inches.</p></article>"
        '<article><header><h2><a rel="bookmark" href="/spells">Spells</a></h2></header>'
        '<dl><dt>Duration</dt><dd><time datetime="PT1M">1 minute</time></dd></dl>'
        "<p>First turn: <time>14:00</time></p>"
        '<footer><dl><dt><a rel="tag" href="/tag/haste">Haste</a></dt>'
        "<dd>Double the move</dd></dl></footer></article></main>"
    )
    assert _texts(stays) == {
        "Movement": "Move 6 inches.",
        "Spells": "Duration: 1 minute\nFirst turn: 14:00\nHaste: Double the move",
    }


def test_a_heading_titling_a_note_among_paragraphs_is_a_line_of_its_rule() -> None:
    """A note or an alert titled by a heading (Bootstrap's and Docsy's
    "alert-heading"), set between a rule's paragraphs, was read as a
    section, and the paragraph after the box, the rule's own, went with
    the note. A page whose sections are each a box opening with its
    heading, and a wiki's box holding a heading alone, still open sections."""
    note = _page(
        "<main><h2>Nerve tests</h2><p>Roll 2D6 against the leader's Nerve.</p>"
        '<div class="alert" role="alert"><h4 class="alert-heading">Designer\'s note</h4>'
        "<p>The test moved to the round's start.</p></div>"
        "<p>Two failed tests in a row and the warband flees.</p>"
        "<h2>Rallying</h2><p>Rally on a 4+.</p>"
        "<aside><h3>Optional</h3><p>Rally on a 3+ near the leader.</p></aside>"
        "<ul><li>Once per game.</li></ul></main>"
    )
    assert _texts(note) == {
        "Nerve tests": "Roll 2D6 against the leader's Nerve.\nDesigner's note\n"
        "The test moved to the round's start.\nTwo failed tests in a row and the warband flees.",
        "Rallying": "Rally on a 4+.\nOptional\nRally on a 3+ near the leader.\n- Once per game.",
    }
    # boxes of other kinds between paragraphs (a stat block, a rule in a box),
    # a note titled as deep as its section or by a rule's number, a wiki's
    # heading wrapper: sections
    boxes = _page(
        "<main><h1>Actions</h1><p>Two actions each.</p>"
        '<div class="statblock"><h2>Goblin</h2><p>Move 6, Fight 3.</p></div>'
        "<p>Goblins flee easily.</p>"
        "<aside><h1>Fleeing</h1><p>Flee 2D6 inches.</p></aside><p>Then rally.</p>"
        "<aside><h3>5.1 Aim</h3><p>Add 1 to hit.</p></aside><p>Actions may not repeat.</p>"
        '<div class="mw-heading"><h2>Hide</h2></div><p>Hide in cover.</p></main>'
    )
    assert list(_texts(boxes)) == ["Actions", "Goblin", "Fleeing", "Aim", "Hide"]


def test_a_title_heading_set_above_the_main_box_heads_its_rules() -> None:
    """WordPress's block themes set the post's title <h1> above <main>: the
    text before the first heading inside was named after the file, and the
    sections had no parent. A heading above <main> that is not the
    <title>'s first part (a site's name), or a page whose <main> has its own
    title, stay as they were."""
    body = (
        '<div><h1 class="wp-block-post-title">Terrain</h1></div>'
        "<main><p>Set up terrain before deployment.</p>"
        "<h2>Ash pits</h2><p>Roll a D6 on entering: on a 1 lose a wound.</p></main>"
    )
    units = parse_file("p.html", _page(body, "Terrain \u2013 Ashfall"), game="x").units
    assert [(u.title, u.parent) for u in units] == [("Terrain", ""), ("Ash pits", "Terrain")]
    assert units[0].text == "Set up terrain before deployment."
    site_first = parse_file("p.html", _page(body, "Ashfall \u2013 Terrain"), game="x").units
    assert [(u.title, u.parent) for u in site_first] == [("p", ""), ("Ash pits", "")]
    own = body.replace("<main>", "<main><h1>Terrain</h1>")
    units = parse_file("p.html", _page(own, "Terrain"), game="x").units
    assert [(u.title, u.parent) for u in units] == [("Terrain", ""), ("Ash pits", "Terrain")]


def test_links_alone_before_the_first_heading_are_dropped_and_an_opening_line_is_not() -> None:
    """A hand-made page's back-link before its title was a rule named after the
    file ("<< back to the rules index"), quoted in answers. Only when links are
    all there is before the first heading: one word of text there and the page
    opens with its rules (a link cut out of "A unit that Advanced this turn
    cannot shoot." turned it around)."""
    rules = "<h1>Close Combat</h1><h2>Melee</h2><p>Each model in base contact rolls one die.</p>"
    page = """<html><head><title>Close Combat</title></head><body>
<p><a href="index.html">&lt;&lt; back to the rules index</a></p>
<div><a href="a.pdf">Download the PDF</a> | <a href="b.html">Print</a></div>
<!-- the site's menu -->
{rules}</body></html>"""
    result = parse_file("close-combat.html", page.format(rules=rules).encode(), game="g")
    assert result.dropped["links before the rules' first heading"] == 2
    assert [u.title for u in result.units] == ["Melee"]
    # the page's own title, outside the body, is no text before the rules
    for title in ("Close Combat, v2", "Ch. 3 Close Combat"):
        titled = page.replace("<title>Close Combat</title>", f"<title>{title}</title>")
        result = parse_file("close-combat.html", titled.format(rules=rules).encode(), game="g")
        assert result.dropped["links before the rules' first heading"] == 2, title
    kept = {
        "a sentence around a link": 'A unit that <em><a href="adv.html">Advanced</a></em> this turn cannot shoot.',
        "a list after its lead-in": '<p>Core abilities:</p><ul><li><a href="d.html">Deep Strike</a></li></ul>',
        "a link that is a sentence": '<p><a href="r.html">Read the Movement chapter first.</a></p>',
        "a datasheet's keywords": '<p><a href="/kw/inf">Infantry</a>, <a href="/kw/core">Core</a></p>',
        "a list of linked terms": '<ol><li><a href="cp.html">Command Re-roll</a></li></ol>',
        "a linked sentence, its full stop after the link": '<p><a href="r.html">Read the rules first</a>.</p>',
        "an unclosed back-link holding the page": '<a href="index.html">Back to the index',
        "an empty href": '<p><a href="">Deep Strike</a></p>',
        "an in-page link": '<p><a href="#melee">Melee</a></p>',
        "hidden keywords, read as the rules' (a pop-up)": (
            '<p style="display:none">Keywords: <a href="inf.html">Infantry</a>, '
            '<a href="core.html">Core</a>.</p>'
        ),
    }
    for case, opening in kept.items():
        html = f"<html><body>{opening}{rules}</body></html>"
        result = parse_file("p.html", html.encode(), game="g")
        assert "links before the rules' first heading" not in result.dropped, case
        assert len(result.units) == 2, case


def test_a_word_web_pages_header_footer_and_contents_go_by_words_own_marks() -> None:
    """Word's "Save as Web Page" with its header and footer inline: the header
    was the first rule, the footer the last rule's end, and the contents line
    "3.5 Hand Limit." answered "What is the hand limit?"."""
    page = """<html><body><div class=WordSection1>
<div style='mso-element:header' id=h1><p class=MsoHeader>Lantern Market - Rulebook v2.3 - DRAFT</p></div>
<p class=MsoTitle>Lantern Market</p>
<p class=MsoTocHeading>Contents</p>
<p class=MsoToc1><a href="#_Toc1">3 Turn<span style='display:none'>3</span></a></p>
<p class=MsoToc2><a href="#_Toc2">3.5 Hand Limit.<span style='display:none'>4</span></a></p>
<h1><a name="_Toc1"></a>3 Turn</h1>
<h2><a name="_Toc2"></a>3.5 Hand Limit</h2>
<p class=MsoNormal>At the end of your turn you may hold at most 7 goods cards.<o:p></o:p></p>
<div style='mso-element:footer' id=f1><p class=MsoFooter>(c) 2026 Brasswick Games - Page 1</p></div>
</div></body></html>"""
    result = parse_file("market.htm", page.encode(), game="g")
    text = "\n".join(u.text for u in result.units)
    assert "Hand Limit." not in text and "DRAFT" not in text and "Brasswick" not in text, text
    assert result.units[-1].rule_id == "3.5"
    assert result.units[-1].text == "At the end of your turn you may hold at most 7 goods cards."
    assert result.dropped["table of contents lines"] == 3
    assert result.dropped["running headers and footers"] == 2


def test_a_word_web_pages_outline_level_makes_a_heading() -> None:
    """A heading Word's web page sets as a bold paragraph with its outline level
    (mso-outline-level) was missed among bold headings the page finds by look,
    and an appendix's clarifications were cited as the last variant's rule."""
    page = """<html><body>
<p class=MsoNormal style='mso-outline-level:1'><b><span style='font-size:20pt'>8 Variants</span></b></p>
<p class=MsoNormal style='mso-outline-level:2'><b><span style='font-size:14pt'>8.2 Quick Game</span></b></p>
<p class=MsoNormal>The end of the game is triggered at 15 Renown.</p>
<p class=MsoNormal style='mso-outline-level:1'><b><span style='font-size:20pt'>Appendix A: Clarifications</span></b></p>
<p class=MsoNormal>Q: Can I reroll the storm die twice? A: No.</p>
</body></html>"""
    units = parse_file("market.htm", page.encode(), game="g").units
    assert [(u.rule_id, u.title) for u in units] == [
        ("8.2", "Quick Game"),
        ("appendix-a-clarifications", "Appendix A: Clarifications"),
    ]
    # a rule's sentence a style set at a level stays the rule's text
    sentence = page.replace(
        "<p class=MsoNormal>The end", "<p style='mso-outline-level:3'>Play goes on. The end"
    )
    quick = parse_file("market.htm", sentence.encode(), game="g").units[0]
    assert quick.rule_id == "8.2" and quick.text.startswith("Play goes on. The end")
