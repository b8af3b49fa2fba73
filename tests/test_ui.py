"""The Gradio page without a server: pure formatting (ui/format.py) and the
handlers called directly with the fake-model service."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ruleslawyer.errors import RulesLawyerError
from ruleslawyer.records import Answer, Citation, RuleUnit, SearchResult
from ruleslawyer.ui import format as fmt

ZORGON = (
    "3.01 Test Rule\nEach time a Zorgon moves, it glows.\n3.02 Other Rule\nZorgons cannot fly.\n"
)


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
    ("verdict", "label"),
    [
        ("yes", "Yes"),
        ("no", "No"),
        ("depends", "Depends"),
        ("not_found", "Not in these rules"),
        ("answer", "Answer"),
    ],
)
def test_badge_per_verdict(verdict: str, label: str) -> None:
    assert fmt.badge_text(verdict) == label
    assert f"rl-badge-{verdict}" in fmt.badge_html(verdict)
    assert label in fmt.badge_html(verdict)


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
    text = fmt.plain_answer(answer("yes", "Yes. They can.", (Citation(u, "Units\ncan"),)))
    assert text == '[Yes] Yes. They can.\n40k 24.21 [LANCE]: "Units can"'


def test_stream_words_grows_one_word_at_a_time() -> None:
    prefixes = list(fmt.stream_words("No.  40k 16.01: quote"))
    assert prefixes == ["No.", "No.  40k", "No.  40k 16.01:", "No.  40k 16.01: quote"]


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
    ],
)
def test_standalone_questions_are_left_alone(msg: str) -> None:
    assert not fmt.is_follow_up(msg, PREV)
    assert fmt.rewrite_query(msg, PREV) == (msg, False)


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


def test_build_app_makes_blocks_without_launching(seeded_service: Any) -> None:
    import gradio as gr

    from ruleslawyer.ui.app import build_app

    demo = build_app(seeded_service)
    assert isinstance(demo, gr.Blocks)
    names = {d.get("api_name") for d in demo.config["dependencies"]}
    assert {"chat", "ask"} <= names


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
    assert "AoS" in page and "evidence only" in page
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
    result = handlers.api_ask("What does Redeploy do in AoS?", "auto", False)
    assert result["verdict"] in ("yes", "no", "depends", "answer", "not_found")
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
    assert len(table) == len(handlers.service.rulebooks())
    assert sum(table["Rules"]) == len(handlers.service.units())


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


def test_upload_uses_the_original_name_from_a_gradio_file_object(
    handlers: Any, tmp_path: Path
) -> None:
    tmp_file = tmp_path / "tmpab12cd"
    tmp_file.write_text(ZORGON, encoding="utf-8")
    upload = SimpleNamespace(name=str(tmp_file), orig_name="../../etc/zorgons.txt")
    status, table = handlers.add_rulebook(upload, "40k", None)
    assert "rl-ok" in status and "zorgons.txt" in list(table["File"])
