"""The Gradio page without a server: pure formatting (ui/format.py) and the
handlers called directly with the fake-model service."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ruleslawyer.errors import RulesLawyerError
from ruleslawyer.records import Answer, Citation, RuleUnit, SearchResult, Source
from ruleslawyer.settings import PROJECT_ROOT
from ruleslawyer.ui import format as fmt

ZORGON = (
    "3.01 Test Rule\nEach time a Zorgon moves, it glows.\n3.02 Other Rule\nZorgons cannot fly.\n"
)
RULEBOOKS = PROJECT_ROOT / "tests" / "fixtures" / "rulebooks"
BRASS_MD = sorted((RULEBOOKS / "markdown").glob("0*.md"))
BRASS_HTML = RULEBOOKS / "html" / "brass-and-bayonet.html"


def unit(text: str = "Plain text.", **kw: Any) -> RuleUnit:
    base: dict[str, Any] = {"rule_id": "24.21", "game": "40k", "title": "[LANCE]", "text": text}
    base.update(kw)
    return RuleUnit(**base)


def answer(
    verdict: str = "yes", text: str = "Yes. It can.", citations: tuple[Citation, ...] = ()
) -> Answer:
    search = SearchResult("q", "40k", False, (), True)
    return Answer("q", "40k", verdict, text, citations, search, "fake")  # type: ignore[arg-type]


# --- escaping ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "nasty",
    [
        "<script>alert(1)</script>",
        '<img src=x onerror="alert(1)">',
        "**bold** _em_ `code` [link](http://evil.example) ![img](x.png)",
        "$x^2$ and ${value} and {{value}}",
        "~~strike~~ | a | b |",
    ],
)
def test_esc_leaves_no_markup(nasty: str) -> None:
    out = fmt.esc(nasty)
    for ch in "<>*_`[]$~|{}":
        assert ch not in out, (ch, out)
    assert "http://" not in out  # no bare autolink either
    assert html_text(out) == nasty


def html_text(s: str) -> str:
    import html

    return html.unescape(s.replace("<br>", "\n"))


def test_esc_keeps_newlines_as_br_and_plain_text_readable() -> None:
    assert (
        fmt.esc("16.01 Actions\nIt is battle-shocked.") == "16.01 Actions<br>It is battle-shocked."
    )


def test_user_and_rule_text_are_escaped_everywhere() -> None:
    evil = unit("Do <script>alert('x')</script> **this**", title="<b>T</b>", parent="P <i>")
    rendered = fmt.rule_html(evil, "alert")
    assert "<script>" not in rendered and "<b>T" not in rendered and "<i>" not in rendered
    assert "**" not in rendered
    assert "<script" not in fmt.user_html("<script>x</script>")
    ans = answer(text="<script>alert(1)</script>", citations=(Citation(evil, "Do"),))
    page = fmt.answer_html(ans, "<img src=x>")
    assert "<script>" not in page and "<img" not in page
    assert "&lt;script&gt;" in page


def test_highlight_marks_the_quote_inside_escaped_text() -> None:
    text = "Before <tag> the quoted *part* & after."
    out = fmt.highlight(text, "the quoted *part* &")
    assert out.count("<mark") == 1
    marked = out.split('<mark class="rl-mark">')[1].split("</mark>")[0]
    assert html_text(marked) == "the quoted *part* &"
    assert "&lt;tag&gt;" in out and "<tag>" not in out


def test_highlight_finds_a_quote_with_different_spacing_and_quotes() -> None:
    text = "If a unit's models\nare   battle-shocked, it can't act."
    out = fmt.highlight(text, "are battle-shocked, it can’t act.")
    assert "<mark" in out
    assert fmt.highlight(text, "not there at all") == fmt.esc(text)
    assert fmt.highlight(text, None) == fmt.esc(text)


def test_highlight_marks_several_quotes() -> None:
    out = fmt.highlight("one two three four", ["one", "three"])
    assert out.count("<mark") == 2


@pytest.mark.parametrize(
    ("verdict", "source", "label", "css"),
    [
        ("yes", "faq", "Yes", "yes"),
        ("no", "faq", "No", "no"),
        ("yes", "model", "Likely yes", "yes-likely"),
        ("no", "model", "Likely no", "no-likely"),
        ("quote", "", "The rule says", "quote"),
        ("not_found", "", "No clear rule", "not_found"),
        ("not_found", "game", "Choose the game", "not_found"),
        ("answer", "", "Answer", "answer"),
    ],
)
def test_badge_per_verdict(verdict: str, source: str, label: str, css: str) -> None:
    """Only the rulebook's own answer gets a plain Yes/No; a model's is "likely"."""
    assert fmt.badge_text(verdict, source) == label
    assert f'rl-badge-{css}"' in fmt.badge_html(verdict, source)
    assert label in fmt.badge_html(verdict, source)


def test_chips_carry_rule_and_quotes_and_group_by_rule() -> None:
    u = unit("Each time an attack is made with a [LANCE] weapon, add 1 to the wound roll.")
    cites = (Citation(u, "add 1 to the wound roll"), Citation(u, "Each time an attack"))
    html_ = fmt.chips_html(cites)
    assert html_.count('class="rl-chip"') == 1
    assert "40k 24.21 &#91;LANCE&#93;" in html_
    import html as h

    value = h.unescape(html_.split('value="')[1].split('"')[0])
    assert fmt.parse_chip_value(value) == (
        "40k",
        "24.21",
        ["add 1 to the wound roll", "Each time an attack"],
    )
    assert fmt.parse_chip_value("not json") is None
    assert fmt.parse_chip_value('["a", "", []]') is None


def test_chips_of_another_game_come_after_under_their_own_label() -> None:
    """Asked across games, a chip of another game among the first game's read as
    one more rule of that game."""
    first = unit("Roll off; the winner goes first.", game="ironfen", rule_id="1.1", title="Order")
    other = unit("If you went second, you may choose to go first.", game="aos", rule_id="Gambit")
    again = unit("The holder of the token activates first.", game="ironfen", rule_id="1.2")
    html_ = fmt.chips_html(
        (Citation(first, "Roll off"), Citation(other, "choose"), Citation(again, "token"))
    )
    assert html_.index("ironfen 1.2") < html_.index("Other games:") < html_.index("aos Gambit")
    assert "Other games:" not in fmt.chips_html((Citation(first, "Roll off"),))


def test_answer_html_has_badge_text_chips_and_searched_for() -> None:
    u = unit("Units can do things.")
    page = fmt.answer_html(
        answer("no", "No. They cannot.", (Citation(u, "Units can"),)), "prev q follow"
    )
    assert "rl-badge-no" in page and "No. They cannot." in page
    assert "Searched for: prev q follow" in page
    assert "rl-chip" in page
    assert "Searched for" not in fmt.answer_html(answer())


def test_plain_answer_for_the_clipboard() -> None:
    u = unit("Units can do things.")
    text = fmt.plain_answer(answer("yes", "Yes. They can.", (Citation(u, "Units  can"),)))
    assert text == '[Likely yes] Yes. They can.\n40k 24.21 [LANCE]: "Units can"'
    # A quoted table keeps its rows (a unit's line breaks are the rulebook's).
    table = Citation(u, "Range   Dice\n\n6 1\n12 2")
    text = fmt.plain_answer(answer("yes", "Yes.", (table,)))
    assert text.endswith('40k 24.21 [LANCE]: "Range Dice\n6 1\n12 2"')
    # A hard-wrapped text rulebook's wraps are joined; its sentence and list breaks kept.
    wrapped = Citation(u, "A unit can move up to its Move\nstat. Then it ends:\n- it must stop")
    text = fmt.plain_answer(answer("yes", "Yes.", (wrapped,)))
    assert text.endswith('"A unit can move up to its Move stat. Then it ends:\n- it must stop"')
    # The answer's own quote is copied once, as it reads on the page.
    said = 'The rule says: 40k 24.21 [LANCE]: "Units can do things."'
    text = fmt.plain_answer(answer("quote", said, (Citation(u, "Units can do things."),)))
    assert text.count("Units can do things.") == 1


def test_stream_words_grows_one_word_at_a_time() -> None:
    prefixes = list(fmt.stream_words("No.  40k 16.01: quote"))
    assert prefixes == ["No.", "No.  40k", "No.  40k 16.01:", "No.  40k 16.01: quote"]


def pdf_unit(**kw: Any) -> RuleUnit:
    """A unit as the PDF reader makes it: a heading-path slug ID, a breadcrumb, a page."""
    base: dict[str, Any] = {
        "rule_id": "infantry/combat/line-of-sight",
        "game": "skirmishers",
        "title": "Line of Sight",
        "title_source": "heading",
        "parent": "Infantry > Combat",
        "text": "A model can see a target if a straight line can be drawn to it.",
        "source": Source("skirmishers.pdf", 0, 10, page=9),
    }
    base.update(kw)
    return RuleUnit(**base)


def test_chip_and_rule_panel_show_title_file_and_page() -> None:
    u = pdf_unit()
    assert fmt.chip_label(u) == "skirmishers Line of Sight · p. 9"
    chips = fmt.chips_html((Citation(u, "a straight line"),))
    assert ">skirmishers Line of Sight · p. 9</button>" in chips
    assert fmt.parse_chip_value(html_text(chips.split('value="')[1].split('"')[0])) == (
        "skirmishers",
        "infantry/combat/line-of-sight",
        ["a straight line"],
    )
    assert fmt.rule_where(u) == "Infantry > Combat · skirmishers.pdf p. 9"
    panel = fmt.rule_html(u, "a straight line")
    head = panel.split('class="rl-rule-head">')[1].split("</div>")[0]
    meta = panel.split('class="rl-rule-meta">')[1].split("</div>")[0]
    assert html_text(head) == "skirmishers Line of Sight"
    assert html_text(meta) == "Infantry > Combat · skirmishers.pdf p. 9"
    assert "<mark" in panel
    text = fmt.plain_answer(answer(citations=(Citation(u, "a straight line"),)))
    assert 'skirmishers Line of Sight · p. 9: "a straight line"' in text


def test_a_chip_shows_the_page_its_quote_is_printed_on() -> None:
    """The rule starts on p. 9; its second sentence is printed on p. 10."""
    text = "A model can see a target if a line can be drawn. Smoke blocks the line."
    u = pdf_unit(text=text, source=Source("skirmishers.pdf", 0, 10, 9, ((49, 10),)))
    assert fmt.chip_label(u, ["Smoke blocks the line."]) == "skirmishers Line of Sight · p. 10"
    assert fmt.chip_label(u, ["A model can see a target"]) == "skirmishers Line of Sight · p. 9"
    assert fmt.rule_where(u) == "Infantry > Combat · skirmishers.pdf pp. 9-10"
    chips = fmt.chips_html((Citation(u, "Smoke blocks the line."),))
    assert ">skirmishers Line of Sight · p. 10</button>" in chips
    text_answer = fmt.plain_answer(answer(citations=(Citation(u, "Smoke blocks the line."),)))
    assert 'Line of Sight · p. 10: "Smoke blocks the line."' in text_answer


def test_a_turned_away_answer_offers_its_closest_rules_as_chips() -> None:
    """They were only named in the text, so a player had to look them up by hand;
    two rules with one label are told apart by their section."""
    from ruleslawyer.records import Hit

    melee = pdf_unit(rule_id="infantry/melee-combat", title="Melee Combat", parent="Infantry")
    armour = pdf_unit(
        rule_id="power-armor/melee-combat", title="Melee Combat", parent="Power Armor"
    )
    search = SearchResult("q", "skirmishers", False, (Hit(melee, 1.0), Hit(armour, 0.9)), False)
    turned = Answer(
        "q", "skirmishers", "not_found", "Not covered. Closest rules: ...", (), search, "fake"
    )
    html = fmt.answer_html(turned)
    assert "Closest rules:" in html and html.count('class="rl-chip"') == 2
    assert ">skirmishers Melee Combat · p. 9 (Infantry)</button>" in html
    assert ">skirmishers Melee Combat · p. 9 (Power Armor)</button>" in html
    value = html_text(html.split('value="')[2].split('"')[0])
    assert fmt.parse_chip_value(value) == ("skirmishers", "power-armor/melee-combat", [])
    # an answered question's chips are its citations only
    assert "Closest rules" not in fmt.answer_html(answer(citations=(Citation(melee, "A"),)))


def test_no_page_no_page_mark() -> None:
    u = unit(parent="Core Abilities", source=Source("004.txt", 0, 10))
    assert fmt.chip_label(u) == "40k 24.21 [LANCE]"
    assert fmt.rule_where(u) == "Core Abilities · 004.txt"
    md = pdf_unit(source=Source("rules.md", 0, 10), parent="")
    assert fmt.chip_label(md) == "skirmishers Line of Sight"
    assert fmt.rule_where(md) == "rules.md"


def test_answer_names_the_game_by_its_display_name() -> None:
    assert not hasattr(fmt, "GAME_LABELS")
    names = {"40k": "Warhammer 40,000", "bolt-action": "Bolt Action"}
    assert "Warhammer 40,000 · fake" in html_text(fmt.answer_html(answer(), None, names))
    assert "40k · fake" in fmt.answer_html(answer())  # no names: the slug
    assert fmt.game_display(None, names) == "all games"
    assert fmt.game_display("bolt-action", names) == "Bolt Action"
    assert fmt.game_display("unknown", names) == "unknown"


def test_source_rows_group_by_game_and_say_what_was_left_out() -> None:
    rows = [
        {
            "file": "zeta.txt",
            "game": "40k",
            "format": "text",
            "parser": "numbered",
            "units": 12,
            "pages": 0,
            "dropped": {},
            "furniture": ["page number", "running header"],
            "furniture_chars": 1234,
            "warnings": [],
            "origin": "seeds",
        },
        {
            "file": "skirmishers.pdf",
            "game": "skirmishers",
            "format": "pdf",
            "parser": "pdf",
            "units": 40,
            "pages": 12,
            "dropped": {"table of contents lines": 8, "running headers and footers": 28},
            "warnings": ["page 3 has no text layer\n(scanned?)", "2 headings without text"],
            "origin": "library",
        },
        {"file": "alpha.txt", "game": "40k", "format": "text", "parser": "text", "units": 3},
    ]
    names = {"skirmishers": "Skirmishers", "40k": "Warhammer 40,000"}
    out = fmt.source_rows(rows, names)
    assert [r[:2] for r in out] == [
        ["Skirmishers", "skirmishers.pdf"],
        ["Warhammer 40,000", "alpha.txt"],
        ["Warhammer 40,000", "zeta.txt"],
    ]
    assert out[0] == [
        "Skirmishers",
        "skirmishers.pdf",
        "PDF",
        40,
        12,
        "28 running headers and footers, 8 table of contents lines",
        "page 3 has no text layer; 2 headings without text",
    ]
    assert out[1][2:6] == ["text", 3, "", ""]
    assert out[2][2] == "text (numbered)"
    assert out[2][5] == "page number, running header (1,234 characters)"
    assert fmt.left_out({"dropped": {"cover lines": 0}}) == ""


def test_title_note_for_inferred_and_merged() -> None:
    assert fmt.title_note(unit()) == ""
    assert "rule text" in fmt.title_note(unit(title_inferred=True, title_source="body"))
    assert "printed 3 times" in fmt.title_note(unit(merged=2))


# --- follow-ups ----------------------------------------------------------------------
PREV = "Can a battle-shocked unit start an action?"


@pytest.mark.parametrize(
    "msg",
    [
        "what about an engaged one?",
        "And if it advanced?",
        "What if it is a TITANIC unit?",
        "and Aircraft?",
        "Can it shoot?",
        "does that apply to them?",
        "how about in AoS",
        "does it need to be visible?",
        "what about one with a shield?",
        # a rules word after the pronoun names nothing it stands for
        "Do I get cover against it?",
        "Can I charge them?",
        "How far can it move?",
        "how far?",
        # a pronoun after a preposition points back whatever came before it
        "What's the range on it?",
        "Is there an exception for them?",
        "does 13.4 change that?",  # a rule number is no subject
        "Do punts ignore it?",  # "it" stands for no plural
        "can heroes do them too?",
        "how many can I use per phase?",
        "even the invisible ones??",
    ],
)
def test_follow_ups_are_detected_and_rewritten(msg: str) -> None:
    assert fmt.is_follow_up(msg, PREV)
    query, rewritten = fmt.rewrite_query(msg, PREV)
    assert rewritten and query == f"{PREV} {msg}"


@pytest.mark.parametrize(
    "msg",
    [
        "Can my warcaster cast a spell before it runs?",
        "What does Redeploy do in AoS?",
        "How many attack dice does a [BLAST 2] weapon with A3 get against 12 models?",
        "Can a unit shoot after it advances?",
        "What does 24.21 say about the wound roll for a lance?",
        # "it" standing for nothing, with an added game's words (AP, doorway)
        "How many AP does it cost to shoot?",
        "Is it possible to move through a doorway?",
        # "one" the number, not the pronoun
        "can my embercaller cast twice in one activation?",
        # the pronoun's subject named before it, in any game's words
        "Can gunboats fire after they ram?",
        "Does the Skald lose its rage?",
        "Is it true that riders dismount in woods?",
        # a clause's own subject, a negated auxiliary, a relative "that"
        "When units charge, do they get +1 attack?",
        "Why can't units shoot after they advance?",
        "What happens to models that flee?",
        "is it allowed to measure before moving?",
        # short, and asking what something is or for its rules
        "what's trample",
        "Overwatch rules",
        # a player's page test: "how much does" with its own subject, and a
        # possessive after a preposition whose noun is in the question
        "How much does cover add to my save?",
        "how much does difficult terrain slow me down",
        "Can an engaged unit shoot with its pistols?",
    ],
)
def test_standalone_questions_are_left_alone(msg: str) -> None:
    assert not fmt.is_follow_up(msg, PREV)
    assert fmt.rewrite_query(msg, PREV) == (msg, False)


def test_a_short_message_naming_a_loaded_rule_is_a_question_of_its_own() -> None:
    """A short message is a follow-up unless it names one of the loaded rules,
    which the page learns from the index (no list of one game's nouns)."""
    names = {"redeploy", "deep strike"}.__contains__

    def named(text: str) -> bool:
        return names(text.lower().strip("?! "))

    assert not fmt.is_follow_up("Deep Strike?", PREV, named)
    assert not fmt.is_follow_up("Redeploy?", PREV, named)
    assert fmt.is_follow_up("Deep Strike?", PREV)  # nothing to look names up in
    assert fmt.is_follow_up("really?", PREV, named)
    assert fmt.rewrite_query("how far?", PREV, named) == (f"{PREV} how far?", True)


def test_chat_asks_the_index_whether_a_short_message_names_a_rule(handlers: Any) -> None:
    first = list(handlers.chat(PREV, [], "auto", False, None))[-1]
    own = list(handlers.chat("Redeploy?", first[0], "auto", False, first[2]))[-1]
    assert "Searched for:" not in content(own[0]) and own[2] == "Redeploy?"
    followed = list(handlers.chat("how far?", first[0], "auto", False, first[2]))[-1]
    assert f"Searched for: {PREV} how far?" in content(followed[0])
    # a rule's name inside a fragment is not the fragment naming a rule
    inside = list(handlers.chat("after a Redeploy?", first[0], "auto", False, first[2]))[-1]
    assert f"Searched for: {PREV} after a Redeploy?" in content(inside[0])
    # ...but a rule's name and one word more asks about that rule
    ranged = list(handlers.chat("Feel No Pain roll?", first[0], "auto", False, first[2]))[-1]
    assert "Searched for:" not in content(ranged[0]), content(ranged[0])


def test_no_follow_up_without_a_previous_question() -> None:
    assert fmt.rewrite_query("what about it?", None) == ("what about it?", False)
    assert fmt.rewrite_query("  spaced   out  ", "") == ("spaced out", False)


# --- handlers with the fake service ---------------------------------------------------------
@pytest.fixture
def handlers(seeded_service: Any) -> Any:
    from ruleslawyer.ui.app import Handlers

    return Handlers(seeded_service, word_delay=0)


def content(history: list[Any]) -> str:
    return str(history[-1]["content"])


def component(demo: Any, elem_id: str) -> Any:
    return next(b for b in demo.blocks.values() if getattr(b, "elem_id", None) == elem_id)


def choice_values(block: Any) -> list[str]:
    return [v for _, v in block.choices]


def test_with_no_model_the_evidence_box_is_ticked_and_fixed(seeded_settings: Any) -> None:
    """Started with --no-llm, the header said "evidence only" and the box was unticked."""
    from dataclasses import replace

    from ruleslawyer.service import RulesService
    from ruleslawyer.ui.app import build_app

    evidence = component(
        build_app(RulesService(replace(seeded_settings, llm="none"))), "rl-evidence"
    )
    assert evidence.value is True and evidence.interactive is False
    evidence = component(build_app(RulesService(seeded_settings)), "rl-evidence")
    assert evidence.value is False and evidence.interactive is not False


def test_build_app_makes_blocks_without_launching(seeded_service: Any) -> None:
    import gradio as gr

    from ruleslawyer.ui.app import build_app

    demo = build_app(seeded_service)
    assert isinstance(demo, gr.Blocks)
    names = {d.get("api_name") for d in demo.config["dependencies"]}
    assert {"chat", "ask", "add_rulebook"} <= names


def test_game_selectors_come_from_the_loaded_games(seeded_service: Any) -> None:
    from ruleslawyer.ui.app import build_app

    games = seeded_service.games()
    demo = build_app(seeded_service)
    chat = component(demo, "rl-game")
    assert chat.choices == [("Auto", "auto"), *[(g.display, g.slug) for g in games]]
    assert ("Age of Sigmar", "aos") in chat.choices
    assert choice_values(component(demo, "rl-b-game")) == ["__all__", *[g.slug for g in games]]
    assert choice_values(component(demo, "rl-s-game")) == [*[g.slug for g in games], "__new__"]
    header = next(
        b.value for b in demo.blocks.values() if "rl-header" in str(getattr(b, "value", ""))
    )
    assert "your tabletop games" in header and "Age of Sigmar" not in header
    for ext in (".pdf", ".docx", ".odt", ".md", ".markdown", ".mdx", ".html", ".htm", ".txt"):
        assert ext in component(demo, "rl-s-file").file_types
    # the upload names every registered format, from the registry
    from ruleslawyer.ingest.formats import formats

    label = component(demo, "rl-s-file").label
    assert all(f.extensions[0] in label for f in formats())
    values = [str(getattr(b, "value", "")) for b in demo.blocks.values()]
    add = next(v for v in values if "Add a rulebook" in v)
    assert all(f.label in add for f in formats()) and "OpenDocument" in add


def test_game_selectors_list_a_game_added_at_run_time(handlers: Any) -> None:
    from ruleslawyer.ui.app import build_app

    service = handlers.service
    chat, browse, source = handlers.selectors("aos", "40k", "40k")
    assert ("Brass & Bayonet", "brass-and-bayonet") not in chat.choices

    service.ingest(BRASS_MD, game="brass-and-bayonet", game_name="Brass & Bayonet", edition="1.2")

    chat, browse, source = handlers.selectors("aos", "40k", "40k")
    assert chat.choices[0] == ("Auto", "auto")
    assert ("Brass & Bayonet", "brass-and-bayonet") in chat.choices
    assert ("Brass & Bayonet", "brass-and-bayonet") in browse.choices
    assert ("Brass & Bayonet", "brass-and-bayonet") in source.choices
    assert source.choices[-1] == ("New game…", "__new__")
    assert (chat.value, browse.value, source.value) == ("aos", "40k", "40k")  # selections kept
    chat, _, source = handlers.selectors("gone", "__all__", None)
    assert chat.value == "auto" and source.value is None
    # A page built now lists it from the start, and a question can be limited to it.
    assert "brass-and-bayonet" in choice_values(component(build_app(service), "rl-game"))
    final = list(handlers.chat("How far can a unit move?", [], "brass-and-bayonet", True, None))
    page = content(final[-1][0])
    assert "rl-done" in page and "Brass &amp; Bayonet" in page
    table, _, _ = handlers.browse("brass-and-bayonet", "__all__", "", "all")
    assert set(table["Game"]) == {"brass-and-bayonet"} and len(table) > 10


def test_unknown_game_is_a_one_line_error(handlers: Any) -> None:
    import gradio as gr

    page = content(list(handlers.chat("Can a unit shoot?", [], "chess", False, None))[-1][0])
    assert "rl-error" in page and "chess" in page and "Traceback" not in page
    with pytest.raises(gr.Error, match="chess"):
        handlers.api_ask("Can a unit shoot?", "chess", False)
    # Names and aliases of loaded games resolve to their slug.
    from ruleslawyer.ui.app import game_arg

    service = handlers.service
    assert game_arg(service, "Age of Sigmar") == "aos"
    assert game_arg(service, "wh40k") == "40k"
    assert game_arg(service, "auto") is None and game_arg(service, "__all__") is None
    # the page's own labels, as an API caller writes them
    assert game_arg(service, "Auto") is None and game_arg(service, "All games") is None
    # a page left open after its game was removed: page words, not the CLI's
    with pytest.raises(RulesLawyerError, match="reload the page") as refused:
        game_arg(service, "chess")
    assert "ruleslawyer ingest" not in str(refused.value)
    table, view, _ = handlers.browse("chess", "__all__", "", "all")
    assert len(table) == 0 and "rl-error" in view


def test_chat_streams_progressively_then_ends_with_citations(handlers: Any) -> None:
    outs = list(
        handlers.chat("Can a battle-shocked unit start an action?", [], "auto", False, None)
    )
    texts = [content(o[0]) for o in outs]
    assert len(texts) > 5
    assert "Looking up the rules" in texts[0]
    streamed = [t for t in texts[1:] if "rl-streaming" in t]  # texts[0] is the placeholder
    lengths = [len(t) for t in streamed]
    assert len(lengths) > 5 and lengths == sorted(lengths) and lengths[-1] > lengths[0]
    final = texts[-1]
    assert "rl-done" in final and "rl-badge-" in final
    assert "16.01" in final and 'class="rl-chip"' in final
    history, box, topic, plain = outs[-1]
    assert [m["role"] for m in history] == ["user", "assistant"]
    assert box == "" and topic == "Can a battle-shocked unit start an action?"
    assert "16.01" in plain


def test_chat_follow_up_shows_the_rewritten_query(handlers: Any) -> None:
    first = list(handlers.chat(PREV, [], "auto", False, None))[-1]
    second = list(handlers.chat("what about an engaged one?", first[0], "auto", False, first[2]))[
        -1
    ]
    assert f"Searched for: {PREV} what about an engaged one?" in content(second[0])
    assert len(second[0]) == 4
    assert second[2] == PREV  # the topic stays the standalone question


def test_chat_evidence_only_and_game_filter(handlers: Any) -> None:
    final = list(handlers.chat("What does Redeploy do?", [], "aos", True, None))[-1]
    page = content(final[0])
    assert "Age of Sigmar" in page and "evidence only" in page
    assert "aos Redeploy" in page


@pytest.mark.parametrize(
    ("exc", "shown"),
    [
        (
            RulesLawyerError("the model failed: out of memory\nTraceback (most recent call last):"),
            "out of memory",
        ),
        (RuntimeError("boom\nTraceback"), "internal error (RuntimeError)"),
    ],
)
def test_chat_shows_one_line_error_not_a_traceback(
    handlers: Any, monkeypatch: pytest.MonkeyPatch, exc: Exception, shown: str
) -> None:
    def failing_ask(question: str, **kw: Any) -> Any:
        raise exc

    monkeypatch.setattr(handlers.service, "ask", failing_ask)
    final = list(handlers.chat(PREV, [], "auto", False, None))[-1]
    page = content(final[0])
    assert "rl-error" in page and shown in page
    assert "Traceback" not in page and "<br>" not in page


def test_chat_ignores_an_empty_message(handlers: Any) -> None:
    outs = list(handlers.chat("   ", [], "auto", False, None))
    assert len(outs) == 1 and outs[0][0] == []


def test_model_stream_is_shown_as_it_comes(handlers: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    real_ask = handlers.service.ask

    def streaming_ask(question: str, **kw: Any) -> Any:
        for piece in ("Battle-", "shocked units ", "cannot start actions."):
            kw["on_text"](piece)
        return real_ask(question, game=kw["game"], evidence_only=kw["evidence_only"])

    monkeypatch.setattr(handlers.service, "ask", streaming_ask)
    texts = [content(o[0]) for o in handlers.chat(PREV, [], "auto", False, None)]
    assert any("Battle-</div>" in t or "Battle-<span" in t for t in texts)
    assert any("shocked units cannot start actions." in t for t in texts)
    assert "rl-done" in texts[-1]


def test_cited_rule_marks_the_quote(handlers: Any) -> None:
    view = handlers.cited_rule("40k", "16.01", ["It is battle-shocked."])
    assert "<mark" in view and "battle-shocked" in view and "40k 16.01" in view
    assert "rl-error" in handlers.cited_rule("40k", "99.99", [])


def test_on_chip_reads_the_event_data(handlers: Any) -> None:
    import gradio as gr

    evt = gr.EventData(None, {"cite": '["40k", "16.01", ["It is battle-shocked."]]'})
    assert "<mark" in handlers.on_chip(evt)
    skipped = handlers.on_chip(gr.EventData(None, {"cite": "garbage"}))
    assert isinstance(skipped, dict) and skipped.get("__type__") == "update"


def test_api_ask_returns_the_answer_as_json(handlers: Any) -> None:
    result = handlers.api_ask("Redeploy", "auto", False)  # a lookup: relevant with any embedder
    assert result["verdict"] in ("yes", "no", "quote", "answer", "not_found")
    assert result["citations"] and "answer_html" in result


def test_browser_filters_and_flags(handlers: Any) -> None:
    table, view, count = handlers.browse("__all__", "__all__", "24.21", "all")
    assert (
        table["Rule"].iloc[0] == "24.21"
        and count.startswith("1 rule ·")
        and "<mark" not in view
        and "24.21" in view
    )
    table, _, _ = handlers.browse("aos", "__all__", "", "all")
    assert set(table["Game"]) == {"aos"}
    table, _, _ = handlers.browse("__all__", "__all__", "", "inferred")
    assert len(table) > 0 and "printed" not in set(table["Title from"])
    table, _, _ = handlers.browse("__all__", "__all__", "", "merged")
    assert len(table) > 0 and all(m != "" for m in table["Merged"])
    section = handlers.service.units("40k")[0].parent
    table, _, _ = handlers.browse("40k", section, "", "all")
    assert set(table["Section"]) == {section}
    _, view, _ = handlers.browse("__all__", "__all__", "no such rule zzz", "all")
    assert "No loaded rule matches" in view


def test_sources_table_counts_units_per_file(handlers: Any) -> None:
    table = handlers.sources_table()
    assert list(table.columns) == [
        "Game",
        "File",
        "Format",
        "Units",
        "Pages",
        "Left out",
        "Warnings",
    ]
    assert len(table) == len(handlers.service.rulebooks())
    assert sum(table["Units"]) == len(handlers.service.units())
    assert set(table["Game"]) == {g.display for g in handlers.service.games()}
    games = list(table["Game"])  # grouped: each game's files together
    assert games == sorted(games, key=games.index)
    assert all(f.startswith("text") for f in table["Format"])
    assert all(table["Left out"])  # the seeds all lose some page furniture


def test_sources_table_shows_format_left_out_and_warnings(
    handlers: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [
        {
            "file": "skirmishers.pdf",
            "game": "40k",
            "format": "pdf",
            "parser": "pdf",
            "units": 40,
            "pages": 12,
            "dropped": {"running headers and footers": 28, "table of contents lines": 8},
            "warnings": ["page 3 has no text layer"],
            "origin": "library",
        }
    ]
    monkeypatch.setattr(handlers.service, "sources", lambda: rows)
    table = handlers.sources_table()
    assert table.iloc[0].tolist() == [
        "Warhammer 40,000",
        "skirmishers.pdf",
        "PDF",
        40,
        12,
        "28 running headers and footers, 8 table of contents lines",
        "page 3 has no text layer",
    ]


def data_fingerprint(data_dir: Path) -> dict[str, str]:
    return {
        str(p.relative_to(data_dir)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(data_dir.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock")
    }


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("empty.txt", b"", "empty"),
        ("binary.txt", b"\x00\x01\x02PNG\x00" * 100, "binary"),
        ("latin1.txt", "3.01 Règle\nÉté à 10€.".encode("cp1252"), "UTF-8"),
    ],
)
def test_bad_upload_shows_the_error_and_leaves_the_index(
    handlers: Any, seeded_settings: Any, tmp_path: Path, name: str, data: bytes, message: str
) -> None:
    before = data_fingerprint(seeded_settings.data_dir)
    upload = tmp_path / "gradio" / name
    upload.parent.mkdir()
    upload.write_bytes(data)
    status, _ = handlers.add_rulebook(str(upload), "40k", None)
    assert "rl-error" in status and message in status
    assert (
        str(tmp_path) not in status and "ruleslawyer-upload-" not in status
    )  # names the file, not temp paths
    assert data_fingerprint(seeded_settings.data_dir) == before


def test_huge_upload_is_refused(handlers: Any, seeded_settings: Any, tmp_path: Path) -> None:
    handlers.service.settings = seeded_settings.with_overrides(max_rulebook_bytes=1000)
    before = data_fingerprint(seeded_settings.data_dir)
    upload = tmp_path / "huge.txt"
    upload.write_text("3.01 Big\n" + "word " * 1000, encoding="utf-8")
    status, _ = handlers.add_rulebook(str(upload), "40k", None)
    assert "rl-error" in status and "limit" in status
    assert data_fingerprint(seeded_settings.data_dir) == before


def test_upload_needs_a_file_and_a_game(handlers: Any, tmp_path: Path) -> None:
    status, _ = handlers.add_rulebook(None, "40k", None)
    assert "rl-error" in status and "choose a rulebook" in status
    upload = tmp_path / "zorgon.txt"
    upload.write_text(ZORGON, encoding="utf-8")
    status, _ = handlers.add_rulebook(str(upload), None, None)
    assert "rl-error" in status and "game" in status


def test_an_added_rulebook_can_be_removed(
    handlers: Any, seeded_settings: Any, tmp_path: Path
) -> None:
    from ruleslawyer.ui.app import NEW_GAME

    assert handlers.added_files() == []
    status, _, removed = handlers.remove_rulebook(None)
    assert not removed and "rl-error" in status and "choose an added rulebook" in status
    upload = tmp_path / "zorgon.txt"
    upload.write_text(ZORGON, encoding="utf-8")
    status, _ = handlers.add_rulebook(str(upload), NEW_GAME, None, slug="zorgon", name="Zorgon")
    assert "rl-ok" in status, status
    assert handlers.added_files() == [("zorgon.txt (Zorgon)", "zorgon.txt")]
    assert "zorgon" in [slug for _, slug in handlers.choices()[0]]

    # the seeds cannot go, and a refusal changes nothing
    before = data_fingerprint(seeded_settings.data_dir)
    seed = handlers.service.rulebooks()[0].file
    status, _, removed = handlers.remove_rulebook(seed)
    assert not removed and "rl-error" in status and "seed rulebook" in status
    assert data_fingerprint(seeded_settings.data_dir) == before

    status, table, removed = handlers.remove_rulebook("zorgon.txt")
    assert removed and "rl-ok" in status and "Removed zorgon.txt" in status
    assert handlers.added_files() == []
    assert "zorgon" not in [slug for _, slug in handlers.choices()[0]]
    assert "zorgon.txt" not in str(table)
    assert not any(u.game == "zorgon" for u in handlers.service.units())


def test_valid_upload_is_ingested_and_searchable(handlers: Any, tmp_path: Path) -> None:
    upload = tmp_path / "gradio" / "Zorgon rules!.txt"
    upload.parent.mkdir()
    upload.write_text(ZORGON, encoding="utf-8")
    steps: list[tuple[Any, str]] = []
    status, table = handlers.add_rulebook(
        str(upload), "40k", lambda v, desc="": steps.append((v, desc))
    )
    assert "rl-ok" in status and "3.01" in status, status
    service = handlers.service
    (found,) = service.find_rules("3.01", "40k")
    assert "Zorgon" in found.text and found.source.file == "Zorgon rules_.txt"
    assert "Zorgon rules_.txt" in list(table["File"])
    assert steps  # progress was reported
    table, view, _ = handlers.browse("__all__", "__all__", "3.01", "all")
    assert "glows" in view


def test_an_upload_named_like_a_library_file_needs_the_replace_box(
    handlers: Any, seeded_settings: Any, tmp_path: Path
) -> None:
    """A second zorgon.txt would put the first out of the library without a word."""
    first = tmp_path / "a" / "zorgon.txt"
    first.parent.mkdir()
    first.write_text(ZORGON, encoding="utf-8")
    status, _ = handlers.add_rulebook(str(first), "40k", None)
    assert "rl-ok" in status, status
    second = tmp_path / "b" / "zorgon.txt"
    second.parent.mkdir()
    second.write_text(ZORGON.replace("glows", "hums"), encoding="utf-8")
    before = data_fingerprint(seeded_settings.data_dir)
    status, _ = handlers.add_rulebook(str(second), "40k", None)
    assert "rl-error" in status and "already holds a different zorgon.txt" in status, status
    assert "Replace the library&#x27;s file of the same name" in status or (
        "Replace the library's file of the same name" in status
    )
    assert "--replace" not in status and str(tmp_path) not in status
    assert data_fingerprint(seeded_settings.data_dir) == before
    status, _ = handlers.add_rulebook(str(second), "40k", None, replace=True)
    assert "rl-ok" in status, status
    (found,) = handlers.service.find_rules("3.01", "40k")
    assert "hums" in found.text and "glows" not in found.text


def test_upload_uses_the_original_name_from_a_gradio_file_object(
    handlers: Any, tmp_path: Path
) -> None:
    tmp_file = tmp_path / "tmpab12cd"
    tmp_file.write_text(ZORGON, encoding="utf-8")
    upload = SimpleNamespace(name=str(tmp_file), orig_name="../../etc/zorgons.txt")
    status, table = handlers.add_rulebook(upload, "40k", None)
    assert "rl-ok" in status and "zorgons.txt" in list(table["File"])


# --- new games through the Sources tab ------------------------------------------------
def test_upload_of_markdown_creates_a_new_game(handlers: Any, tmp_path: Path) -> None:
    from ruleslawyer.ui.app import NEW_GAME

    upload = tmp_path / "gradio" / "03-shooting.md"
    upload.parent.mkdir()
    upload.write_bytes((RULEBOOKS / "markdown" / "03-shooting.md").read_bytes())
    steps: list[tuple[Any, str]] = []
    status, table = handlers.add_rulebook(
        str(upload),
        NEW_GAME,
        lambda v, desc="": steps.append((v, desc)),
        slug="brass-and-bayonet",
        name="Brass & Bayonet",
        edition="1.2",
    )
    assert "rl-ok" in status and "Added 03-shooting.md to Brass &amp; Bayonet" in status, status
    assert "3.2 Range and Line of Sight, Weapons" in status  # titles, not heading-path slugs
    assert steps and "03-shooting.md" in steps[0][1]
    service = handlers.service
    (info,) = [g for g in service.games() if g.slug == "brass-and-bayonet"]
    assert (info.display, info.edition) == ("Brass & Bayonet", "1.2")
    row = table[table["File"] == "03-shooting.md"].iloc[0]
    assert row["Game"] == "Brass & Bayonet" and row["Format"] == "Markdown" and row["Units"] > 3
    chat, _, source = handlers.selectors("auto", "__all__", "brass-and-bayonet")
    assert ("Brass & Bayonet", "brass-and-bayonet") in chat.choices
    assert source.value == "brass-and-bayonet"
    units = service.units("brass-and-bayonet")
    assert all(u.source.file == "03-shooting.md" for u in units)
    overwatch = next(u for u in units if u.title == "Overwatch")
    assert overwatch.slug_id and overwatch.parent.endswith("Special Rules")
    view = handlers.cited_rule("brass-and-bayonet", overwatch.rule_id, [])
    assert ">brass-and-bayonet Overwatch<" in view
    assert "Special Rules · 03-shooting.md" in view
    # A second file for the now loaded game is added by choosing it.
    second = tmp_path / "04-close-combat.md"
    second.write_bytes((RULEBOOKS / "markdown" / "04-close-combat.md").read_bytes())
    status, table = handlers.add_rulebook(str(second), "brass-and-bayonet", None)
    assert "rl-ok" in status and "Brass &amp; Bayonet" in status, status
    assert list(table["Game"]).count("Brass & Bayonet") == 2


def test_upload_of_a_rulebook_in_chapters(handlers: Any, tmp_path: Path) -> None:
    from ruleslawyer.ui.app import NEW_GAME

    status, table = handlers.add_rulebook(
        [str(p) for p in BRASS_MD], NEW_GAME, None, slug="brass-and-bayonet", name="Brass & Bayonet"
    )
    assert "rl-ok" in status and "01-basics.md, 02-movement.md" in status, status
    rows = table[table["Game"] == "Brass & Bayonet"]
    assert sorted(rows["File"]) == [p.name for p in BRASS_MD]
    assert set(rows["Format"]) == {"Markdown"}
    assert "front matter" in rows[rows["File"] == "01-basics.md"].iloc[0]["Left out"]
    units = handlers.service.units("brass-and-bayonet")
    assert sum(rows["Units"]) == len(units) and {u.source.file for u in units} == set(rows["File"])
    # Two uploads with one name cannot both go in the library: refused, nothing added.
    other = tmp_path / "x" / "01-basics.md"
    other.parent.mkdir()
    other.write_bytes(BRASS_MD[1].read_bytes())
    status, _ = handlers.add_rulebook([str(BRASS_MD[0]), str(other)], "brass-and-bayonet", None)
    assert "rl-error" in status and "two files are called 01-basics.md" in status


def test_upload_of_html_creates_a_new_game(handlers: Any, tmp_path: Path) -> None:
    from ruleslawyer.ui.app import NEW_GAME

    upload = SimpleNamespace(name=str(BRASS_HTML), orig_name="Brass & Bayonet.html")
    status, table = handlers.add_rulebook(
        upload, NEW_GAME, None, slug="brass", name="Brass & Bayonet (web)"
    )
    assert "rl-ok" in status and "Brass_Bayonet.html" not in status, status
    files = list(table["File"])
    (name,) = [f for f in files if f.endswith(".html")]
    row = table[table["File"] == name].iloc[0]
    assert row["Game"] == "Brass & Bayonet (web)" and row["Format"] == "HTML"
    assert "navigation, headers and footers" in row["Left out"]
    units = handlers.service.units("brass")
    assert units and all(u.source.file == name for u in units)
    text = " ".join(u.text for u in units)
    assert "<script" not in text and "<nav" not in text


def test_upload_of_a_libreoffice_document_creates_a_new_game(handlers: Any, tmp_path: Path) -> None:
    from ruleslawyer.ui.app import NEW_GAME

    upload = tmp_path / "club.odt"
    upload.write_bytes(
        (PROJECT_ROOT / "tests" / "fixtures" / "odt" / "writer-outline-numbered.odt").read_bytes()
    )
    status, table = handlers.add_rulebook(str(upload), NEW_GAME, None, slug="club", name="Club")
    assert "rl-ok" in status and "Added club.odt to Club" in status, status
    row = table[table["File"] == "club.odt"].iloc[0]
    assert row["Format"] == "OpenDocument" and row["Units"] == 4
    assert "3 table of contents lines" in row["Left out"]
    (falling_back,) = handlers.service.find_rules("1.2", "club")
    assert falling_back.title == "Falling Back"


@pytest.mark.parametrize(
    ("slug", "name", "shown"),
    [
        ("Bolt Action", "", "bolt-action"),
        ("bolt/action", "Bolt Action", "bolt-action"),
        ("", "Bolt Action", "bolt-action"),
        ("-", "", "lower-case letters"),
        ("wh40k", "", "already loaded as Warhammer 40,000"),
        ("bolt-action", "x" * 200, "at most 80"),
    ],
)
def test_bad_new_game_is_refused_with_one_line(
    handlers: Any, seeded_settings: Any, tmp_path: Path, slug: str, name: str, shown: str
) -> None:
    from ruleslawyer.ui.app import NEW_GAME

    before = data_fingerprint(seeded_settings.data_dir)
    upload = tmp_path / "rules.md"
    upload.write_bytes(BRASS_MD[0].read_bytes())
    status, _ = handlers.add_rulebook(str(upload), NEW_GAME, None, slug=slug, name=name)
    assert "rl-error" in status and shown in status, status
    assert "<br>" not in status and "Traceback" not in status and "--game" not in status
    assert data_fingerprint(seeded_settings.data_dir) == before
    assert "bolt-action" not in {g.slug for g in handlers.service.games()}


def test_new_game_name_is_one_line_of_plain_text(handlers: Any, tmp_path: Path) -> None:
    from ruleslawyer.ui.app import NEW_GAME

    upload = tmp_path / "rules.md"
    upload.write_bytes(BRASS_MD[0].read_bytes())
    status, table = handlers.add_rulebook(
        str(upload), NEW_GAME, None, slug="bb", name='Brass\x00 "&"\n<b>Bayonet</b>', edition="1\t2"
    )
    assert "rl-ok" in status, status
    (info,) = [g for g in handlers.service.games() if g.slug == "bb"]
    assert info.display == 'Brass "&" <b>Bayonet</b>' and info.edition == "1 2"
    assert "<b>" not in status  # escaped on the page
    assert info.display in list(table["Game"])


def test_upload_to_an_unknown_game_is_refused(handlers: Any, tmp_path: Path) -> None:
    upload = tmp_path / "rules.md"
    upload.write_bytes(BRASS_MD[0].read_bytes())
    status, _ = handlers.add_rulebook(str(upload), "chess", None)
    assert "rl-error" in status and "chess" in status and "New game" in status


@pytest.mark.parametrize(
    ("kept", "expected"),
    [
        (
            {"chat": [{"role": "user", "content": "q"}], "topic": "q", "game": "aos"},
            ([{"role": "user", "content": "q"}], "q", "aos"),
        ),
        ({}, ([], None, None)),
        (None, ([], None, None)),
        ("junk", ([], None, None)),
        ({"chat": [{"role": "system", "content": "x"}], "topic": 3, "game": []}, ([], None, None)),
        ({"chat": "not a list", "game": "40k"}, ([], None, "40k")),
    ],
)
def test_a_kept_conversation_is_restored_only_as_written(kept: Any, expected: Any) -> None:
    """What a browser kept is the page's own, but an old page's or a hand-edited one
    must not break the page on load."""
    from ruleslawyer.ui.app import restored

    assert restored(kept) == expected
