"""The page as a person uses it, in headless Chromium (Debian's /usr/bin/chromium).

The app is served in-process (fake models, seeded index) and driven with
Playwright: ask, watch the answer stream, open a cited rule from its chip,
switch the game, upload a rulebook and find it in the rule browser, upload a
Markdown rulebook as a new game and find it in every game selector without a
reload. A screenshot of each step goes to artifacts/screenshots/.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ruleslawyer.settings import PROJECT_ROOT

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# One ceiling for every wait on the page: a passing run never waits it out. 10 s
# timed out on an upload's file name and on the rule browser's redraw while other
# jobs kept both cores busy; 30 s has not.
WAIT = 30_000
SHOTS = PROJECT_ROOT / "artifacts" / "screenshots"
# A Markdown rulebook in five chapter files.
BRASS_MD = sorted((PROJECT_ROOT / "tests" / "fixtures" / "rulebooks" / "markdown").glob("0*.md"))
ZORGON = (
    "3.01 Test Rule\nEach time a Zorgon moves, it glows.\n3.02 Other Rule\nZorgons cannot fly.\n"
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.timeout(120),
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="needs Debian's chromium: apt-get install -y chromium"
    ),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def app_url(seeded_service: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    from ruleslawyer.ui.app import launch

    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    port = free_port()
    demo = launch(seeded_service, host="127.0.0.1", port=port, prevent_thread_lock=True, quiet=True)
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        demo.close()


@pytest.fixture
def page(app_url: str) -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=app_url.rstrip("/"))
        pg = context.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda err: errors.append(str(err)))
        pg.goto(app_url, wait_until="load")
        pg.wait_for_selector("#rl-question textarea", timeout=WAIT)
        pg.page_errors = errors  # type: ignore[attr-defined]
        try:
            yield pg
        finally:
            browser.close()


def shot(page: Any, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path


def ask(page: Any, question: str) -> Any:
    before = page.locator("#rl-chat .rl-done, #rl-chat .rl-failed").count()
    page.locator("#rl-question textarea").fill(question)
    page.locator("#rl-send").click()
    page.wait_for_function(
        "n => document.querySelectorAll('#rl-chat .rl-done, #rl-chat .rl-failed').length > n",
        arg=before,
        timeout=WAIT,
    )
    return page.locator("#rl-chat .rl-done, #rl-chat .rl-failed").last


def attach(page: Any, paths: list[Path], shown: str) -> None:
    """Drop files on the Sources upload and wait until it lists them."""
    page.locator("#rl-s-file input[type=file]").set_input_files([str(p) for p in paths])
    # By the row's label, not its text: Gradio draws the name as two spans, stem and
    # extension, and some renders put a space between them ("zorgon-rules .txt"),
    # which a text match never finds (seen under load, 1 run in 5).
    uploaded = page.locator("#rl-s-file").get_by_label(shown, exact=True)
    uploaded.filter(visible=True).first.wait_for(timeout=WAIT)


def seen(where: Any, text: str, exact: bool | None = None) -> None:
    """Wait until `text` shows in `where`. Only a visible match counts: while Gradio
    redraws a component the old copy can linger hidden beside the new one, and a
    plain `.first` that lands on it waits for it forever (seen under load)."""
    where.get_by_text(text, exact=exact).filter(visible=True).first.wait_for(timeout=WAIT)


def test_ask_cite_filter_upload_browse(page: Any) -> None:
    shot(page, "01-start")

    # Ask: the answer streams in (a growing partial message), then ends with a badge and chips.
    page.locator("#rl-question textarea").fill("Can a battle-shocked unit start an action?")
    page.locator("#rl-send").click()
    page.wait_for_selector("#rl-chat .rl-streaming", timeout=WAIT)
    shot(page, "02-streaming")
    page.wait_for_selector("#rl-chat .rl-done", timeout=WAIT)
    answer = page.locator("#rl-chat .rl-done").last
    assert answer.locator(".rl-badge").inner_text().strip()
    chip = answer.locator(".rl-chip", has_text="16.01").first
    chip.wait_for(timeout=5_000)
    # A list (or a table) quoted whole keeps its lines; they ran together into one.
    said = answer.locator(".rl-text").inner_text()
    assert "apply to that unit:\nIt is not on the battlefield." in said, said
    shot(page, "03-answer")

    # A chip opens the rule's full text in the Rule panel, the quote marked.
    chip.click()
    panel = page.locator("#rl-rule-panel")
    panel.locator("mark").first.wait_for(timeout=WAIT)
    assert "16.01" in panel.inner_text()
    assert "battle-shocked" in panel.locator(".rl-rule-text").inner_text()
    assert "battle-shocked" in panel.locator("mark").first.inner_text()
    shot(page, "04-rule")

    # Copy answer puts the plain answer on the clipboard.
    page.locator("#rl-copy").click()
    page.wait_for_timeout(300)
    clipboard = page.evaluate("() => navigator.clipboard.readText()")
    assert "16.01" in clipboard and "<" not in clipboard

    # A follow-up is searched together with the previous question.
    follow = ask(page, "what about an engaged one?")
    assert (
        "Searched for: Can a battle-shocked unit start an action? what about an engaged one?"
        in follow.inner_text()
    )

    # User text is shown as text, never run or rendered.
    nasty = ask(
        page, "<img src=x onerror=window.__pwned=1> **bold** <script>window.__pwned=1</script>"
    )
    user_bubbles = page.locator("#rl-chat .rl-user")
    assert "<img src=x onerror=window.__pwned=1> **bold**" in user_bubbles.last.inner_text()
    assert page.evaluate("() => window.__pwned") is None
    assert nasty.count() == 1

    # Game filter: Age of Sigmar (the games and their names come from the index).
    page.locator("#rl-game").get_by_text("Age of Sigmar", exact=True).click()
    assert page.locator("#rl-game input[value='aos']").is_checked()
    page.locator("button", has_text="What does Redeploy do in AoS?").first.click()  # an example
    page.wait_for_function(
        "() => document.querySelector('#rl-question textarea').value === 'What does Redeploy do in AoS?'",
        timeout=WAIT,
    )
    before = page.locator("#rl-chat .rl-done").count()
    page.locator("#rl-send").click()
    page.wait_for_function(
        "n => document.querySelectorAll('#rl-chat .rl-done').length > n", arg=before, timeout=WAIT
    )
    aos = page.locator("#rl-chat .rl-done").last
    assert "Age of Sigmar" in aos.locator(".rl-meta").inner_text()
    assert aos.locator(".rl-chip", has_text="aos").count() >= 1
    shot(page, "05-aos")

    # Clear chat empties the conversation and the Rule panel.
    page.locator("#rl-clear").click()
    page.wait_for_function("() => !document.querySelector('#rl-chat .rl-answer')", timeout=WAIT)
    page.locator("#rl-rule-panel .rl-placeholder").wait_for(timeout=WAIT)

    # Sources: upload a rulebook for 40k.
    page.get_by_role("tab", name="Sources").click()
    page.locator("#rl-s-table").wait_for(timeout=WAIT)
    upload = SHOTS.parent / "zorgon-rules.txt"
    SHOTS.mkdir(parents=True, exist_ok=True)
    upload.write_text(ZORGON, encoding="utf-8")
    attach(page, [upload], "zorgon-rules.txt")
    page.locator("#rl-s-game input").click()
    page.get_by_role("option", name="Warhammer 40,000").click()
    assert not page.locator("#rl-s-slug").is_visible()  # only for a new game
    page.locator("#rl-s-add").click()
    status = page.locator("#rl-s-status .rl-ok")
    status.wait_for(timeout=WAIT)
    assert "zorgon-rules.txt" in status.inner_text() and "3.01" in status.inner_text()
    seen(page.locator("#rl-s-table"), "zorgon-rules.txt")
    shot(page, "06-sources")

    # Rule browser: the new rule is there.
    page.get_by_role("tab", name="Rule browser").click()
    page.locator("#rl-b-text input, #rl-b-text textarea").first.fill("3.01")
    view = page.locator("#rl-browser-rule")
    seen(view, "Zorgon", exact=False)
    assert "glows" in view.inner_text()
    table = page.locator("#rl-b-table")
    seen(table, "Test Rule", exact=True)
    page.locator("#rl-b-text input, #rl-b-text textarea").first.fill("zorgon")
    table.get_by_text("Other Rule", exact=True).locator("visible=true").first.click()
    seen(view, "Zorgons cannot fly")
    shot(page, "07-browser")

    # Sources: a Markdown rulebook (five chapter files) as a new game, with a display name.
    page.get_by_role("tab", name="Sources").click()
    page.locator(
        "#rl-s-file button[aria-label='Clear'], #rl-s-file .label-clear-button"
    ).first.click()
    attach(page, BRASS_MD, "01-basics.md")
    page.locator("#rl-s-game input").click()
    page.get_by_role("option", name="New game…").click()
    slug = page.locator("#rl-s-slug input, #rl-s-slug textarea").first
    slug.wait_for(state="visible", timeout=WAIT)
    slug.fill("Brass & Bayonet")  # a name, not a slug: refused with the slug to use
    page.locator("#rl-s-add").click()
    error = page.locator("#rl-s-status .rl-error")
    error.wait_for(timeout=WAIT)
    assert "brass-bayonet" in error.inner_text() and "\n" not in error.inner_text().strip()
    slug.fill("brass-and-bayonet")
    page.locator("#rl-s-name input, #rl-s-name textarea").first.fill("Brass & Bayonet")
    page.locator("#rl-s-edition input, #rl-s-edition textarea").first.fill("1.2")
    page.locator("#rl-s-add").click()
    status = page.locator("#rl-s-status .rl-ok")
    status.wait_for(timeout=WAIT)
    assert "01-basics.md, 02-movement.md" in status.inner_text()
    assert "Brass & Bayonet" in status.inner_text()
    table = page.locator("#rl-s-table")
    seen(table, "03-shooting.md")
    seen(table, "Markdown", exact=True)
    page.locator("#rl-s-slug").wait_for(state="hidden", timeout=WAIT)
    assert page.locator("#rl-s-game input").input_value() == "Brass & Bayonet"
    shot(page, "08-new-game")

    # The new game is in the other tabs' game selectors, without reloading the page.
    page.get_by_role("tab", name="Rule browser").click()
    page.locator("#rl-b-game input").click()
    page.get_by_role("option", name="Brass & Bayonet").click()
    page.locator("#rl-b-text input, #rl-b-text textarea").first.fill("Overwatch")
    seen(view, "brass-and-bayonet Overwatch")
    assert "Special Rules · 03-shooting.md" in view.inner_text()
    page.get_by_role("tab", name="Ask").click()
    page.locator("#rl-game").get_by_text("Brass & Bayonet", exact=True).click()
    assert page.locator("#rl-game input[value='brass-and-bayonet']").is_checked()
    page.locator("#rl-evidence input").check()
    brass = ask(page, "Can a Disordered unit go on Overwatch?")
    assert "Brass & Bayonet" in brass.locator(".rl-meta").inner_text()
    assert brass.locator(".rl-chip", has_text="brass-and-bayonet").count() >= 1
    chip = brass.locator(".rl-chip", has_text="brass-and-bayonet").first
    chip.click()
    seen(page.locator("#rl-rule-panel .rl-rule-meta"), "03-shooting.md", exact=False)
    shot(page, "09-new-game-answer")

    # Sources: remove the rulebook added to 40k; it leaves the table and the index.
    page.get_by_role("tab", name="Sources").click()
    page.locator("#rl-s-remove-file input").click()
    page.get_by_role("option", name="zorgon-rules.txt (Warhammer 40,000)").click()
    page.locator("#rl-s-remove").click()
    status = page.locator("#rl-s-status .rl-ok", has_text="Removed zorgon-rules.txt")
    status.wait_for(timeout=WAIT)
    table = page.locator("#rl-s-table")
    seen(table, "03-shooting.md")
    assert "zorgon-rules.txt" not in table.inner_text()
    page.locator("#rl-s-remove-file input").click()
    seen(page, "03-shooting.md (Brass & Bayonet)")
    assert page.get_by_role("option", name="zorgon-rules.txt (Warhammer 40,000)").count() == 0
    page.keyboard.press("Escape")
    shot(page, "10-removed")

    assert not page.page_errors, page.page_errors


def test_on_a_phone_a_chip_brings_up_its_rule_and_another_game_starts_afresh(page: Any) -> None:
    """At phone width the Rule panel sits below the chat: a tapped chip seemed to do
    nothing. And a short question asked after switching games was glued to the last
    game's question as a follow-up."""
    page.set_viewport_size({"width": 390, "height": 844})
    answer = ask(page, "Can a battle-shocked unit start an action?")
    answer.locator(".rl-chip", has_text="16.01").first.click()
    panel = page.locator("#rl-rule-panel")
    panel.locator("mark").first.wait_for(timeout=WAIT)
    page.wait_for_function(
        "() => { const r = document.getElementById('rl-rule-panel').getBoundingClientRect();"
        " return r.top >= -5 && r.top < window.innerHeight / 2; }",
        timeout=WAIT,
    )
    chat = page.locator("#rl-chat").bounding_box()
    assert panel.bounding_box()["x"] == pytest.approx(chat["x"], abs=40)  # stacked, not beside
    shot(page, "phone-rule")

    page.locator("#rl-game").get_by_text("Age of Sigmar", exact=True).click()
    page.wait_for_timeout(500)
    after = ask(page, "can it shoot?")
    assert after.locator(".rl-searched").count() == 0, after.inner_text()

    # A reload (a phone that locked) keeps the conversation and its game. It is
    # saved by an event of its own once the answer is shown (chatbot.change),
    # which must land first: reloaded at once, a clean-clone run lost the last
    # answer (2026-12-07); a player reloads after reading it.
    page.wait_for_timeout(1500)
    page.reload(wait_until="load")
    page.locator("#rl-chat .rl-done").nth(1).wait_for(timeout=WAIT)
    chat = page.locator("#rl-chat").inner_text()
    assert "battle-shocked" in chat and "can it shoot?" in chat
    assert page.locator("#rl-game input[value='aos']").is_checked()
    # Clear chat forgets it for good.
    page.locator("#rl-clear").click()
    page.wait_for_timeout(800)
    page.reload(wait_until="load")
    page.wait_for_selector("#rl-question textarea", timeout=WAIT)
    page.wait_for_timeout(1500)
    assert page.locator("#rl-chat .rl-done").count() == 0


def test_game_names_are_shown_as_text(seeded_service: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """A game's display name comes from whoever added it: never markup on the page."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from ruleslawyer.ui.app import launch

    evil = "<img src=x onerror=window.__pwned=1>**b** $x$"
    seeded_service.ingest(BRASS_MD[:1], game="evil", game_name=evil)
    monkeypatch.setenv("GRADIO_ANALYTICS_ENABLED", "False")
    port = free_port()
    demo = launch(seeded_service, port=port, prevent_thread_lock=True, quiet=True)
    try:
        with sync_api.sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
            )
            pg = browser.new_page(viewport={"width": 1280, "height": 900})
            pg.goto(f"http://127.0.0.1:{port}/", wait_until="load")
            pg.wait_for_selector("#rl-question textarea", timeout=WAIT)
            pg.locator("#rl-game").get_by_text(evil, exact=True).click()
            pg.locator("#rl-evidence input").check()
            answer = ask(pg, "How are dice rolled?")
            assert evil in answer.locator(".rl-meta").inner_text()
            pg.get_by_role("tab", name="Sources").click()
            pg.wait_for_function(
                "t => document.querySelector('#rl-s-table').textContent.includes(t)",
                arg=evil,
                timeout=WAIT,
            )
            pg.locator("#rl-s-game input").click()
            pg.get_by_role("option", name=evil).wait_for(timeout=WAIT)
            shot(pg, "10-hostile-game-name")
            assert pg.evaluate("() => window.__pwned") is None
            assert pg.locator("#rl-chat img, #rl-s-table img, #rl-game img").count() == 0
            browser.close()
    finally:
        demo.close()
