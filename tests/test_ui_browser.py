"""The page as a person uses it, in headless Chromium (Debian's /usr/bin/chromium).

The app is served in-process (fake models, seeded index) and driven with
Playwright: ask, watch the answer stream, open a cited rule from its chip,
switch the game, upload a rulebook and find it in the rule browser. A
screenshot of each step goes to artifacts/screenshots/.
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
SHOTS = PROJECT_ROOT / "artifacts" / "screenshots"
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
        pg.wait_for_selector("#rl-question textarea", timeout=30_000)
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
        timeout=20_000,
    )
    return page.locator("#rl-chat .rl-done, #rl-chat .rl-failed").last


def test_ask_cite_filter_upload_browse(page: Any) -> None:
    shot(page, "01-start")

    # Ask: the answer streams in (a growing partial message), then ends with a badge and chips.
    page.locator("#rl-question textarea").fill("Can a battle-shocked unit start an action?")
    page.locator("#rl-send").click()
    page.wait_for_selector("#rl-chat .rl-streaming", timeout=10_000)
    shot(page, "02-streaming")
    page.wait_for_selector("#rl-chat .rl-done", timeout=20_000)
    answer = page.locator("#rl-chat .rl-done").last
    assert answer.locator(".rl-badge").inner_text().strip()
    chip = answer.locator(".rl-chip", has_text="16.01").first
    chip.wait_for(timeout=5_000)
    shot(page, "03-answer")

    # A chip opens the rule's full text in the Rule panel, the quote marked.
    chip.click()
    panel = page.locator("#rl-rule-panel")
    panel.locator("mark").first.wait_for(timeout=10_000)
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

    # Game filter: AoS.
    page.locator("#rl-game").get_by_text("AoS", exact=True).click()
    assert page.locator("#rl-game input[value='aos']").is_checked()
    page.locator("button", has_text="What does Redeploy do in AoS?").first.click()  # an example
    page.wait_for_function(
        "() => document.querySelector('#rl-question textarea').value === 'What does Redeploy do in AoS?'",
        timeout=10_000,
    )
    before = page.locator("#rl-chat .rl-done").count()
    page.locator("#rl-send").click()
    page.wait_for_function(
        "n => document.querySelectorAll('#rl-chat .rl-done').length > n", arg=before, timeout=20_000
    )
    aos = page.locator("#rl-chat .rl-done").last
    assert "AoS" in aos.locator(".rl-meta").inner_text()
    assert aos.locator(".rl-chip", has_text="aos").count() >= 1
    shot(page, "05-aos")

    # Clear chat empties the conversation and the Rule panel.
    page.locator("#rl-clear").click()
    page.wait_for_function("() => !document.querySelector('#rl-chat .rl-answer')", timeout=10_000)
    page.locator("#rl-rule-panel .rl-placeholder").wait_for(timeout=10_000)

    # Sources: upload a rulebook for 40k.
    page.get_by_role("tab", name="Sources").click()
    page.locator("#rl-s-table").wait_for(timeout=10_000)
    upload = SHOTS.parent / "zorgon-rules.txt"
    SHOTS.mkdir(parents=True, exist_ok=True)
    upload.write_text(ZORGON, encoding="utf-8")
    page.locator("#rl-s-file input[type=file]").set_input_files(str(upload))
    page.locator("#rl-s-file").get_by_text("zorgon-rules.txt").first.wait_for(timeout=10_000)
    page.locator("#rl-s-game input").click()
    page.get_by_role("option", name="Warhammer 40,000").click()
    page.locator("#rl-s-add").click()
    status = page.locator("#rl-s-status .rl-ok")
    status.wait_for(timeout=30_000)
    assert "zorgon-rules.txt" in status.inner_text() and "3.01" in status.inner_text()
    page.locator("#rl-s-table").get_by_text("zorgon-rules.txt").first.wait_for(timeout=10_000)
    shot(page, "06-sources")

    # Rule browser: the new rule is there.
    page.get_by_role("tab", name="Rule browser").click()
    page.locator("#rl-b-text input, #rl-b-text textarea").first.fill("3.01")
    view = page.locator("#rl-browser-rule")
    view.get_by_text("Zorgon", exact=False).first.wait_for(timeout=10_000)
    assert "glows" in view.inner_text()
    table = page.locator("#rl-b-table")
    table.get_by_text("Test Rule", exact=True).locator("visible=true").first.wait_for(
        timeout=10_000
    )
    page.locator("#rl-b-text input, #rl-b-text textarea").first.fill("zorgon")
    table.get_by_text("Other Rule", exact=True).locator("visible=true").first.click()
    view.get_by_text("Zorgons cannot fly").first.wait_for(timeout=10_000)
    shot(page, "07-browser")

    assert not page.page_errors, page.page_errors
