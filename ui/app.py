"""The Gradio page: chat with cited answers, a rule browser, and the rulebooks.

``build_app(service)`` makes the ``gr.Blocks`` (testable without a server);
``launch(service, host=, port=, share=, auth=)`` serves it and blocks, as the
``ruleslawyer ui`` command expects. Handlers live on ``Handlers`` as small
methods that call the service and format with ``ruleslawyer.ui.format``; a
domain error (``RulesLawyerError``) becomes a one-line message on the page.

One model is shared by every visitor: answers go through one queue slot
(``concurrency_id="llm"``, limit 1) and a lock, so concurrent users wait their
turn instead of running llama.cpp twice at once.
"""

from __future__ import annotations

import logging
import os
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import gradio as gr

from ruleslawyer.errors import InputError, RulesLawyerError
from ruleslawyer.ingest.sources import check_game, safe_name
from ruleslawyer.records import GAME_NAMES, GAMES
from ruleslawyer.service import rule_key
from ruleslawyer.ui import format as fmt

log = logging.getLogger(__name__)

EXAMPLES = [
    "Can a battle-shocked unit start an action?",
    "Can my warcaster cast a spell before it runs?",
    "What does Redeploy do in AoS?",
    "How many attack dice does a [BLAST 2] weapon with A3 get against 12 models?",
]
GAME_CHOICES = [("Auto", "auto"), ("40k", "40k"), ("AoS", "aos"), ("Warmachine", "warmachine")]
ALL = "__all__"
BROWSE_HEADERS = ["Game", "Rule", "Title", "Section", "Title from", "Merged", "File"]
SOURCE_HEADERS = ["File", "Game", "Title", "Origin", "Rules"]
SHOW_CHOICES = [
    ("All rules", "all"),
    ("Titles inferred", "inferred"),
    ("Duplicates merged", "merged"),
]
PROGRESS = gr.Progress()  # Gradio gives each event its own tracker through this default
RULE_PLACEHOLDER = "Click a citation chip under an answer to read the whole rule here."
MAX_BROWSE_ROWS = 500

# Sends a chip's data (in a chat answer or anywhere on the page) to the Rule
# panel's "click" event. One document listener; the latest trigger is used.
CHIP_JS = """
window.__rlTrigger = trigger;
if (!window.__rlChipListener) {
  window.__rlChipListener = true;
  document.addEventListener('click', function (e) {
    const chip = e.target && e.target.closest ? e.target.closest('.rl-chip') : null;
    if (!chip) return;
    e.preventDefault();
    document.querySelectorAll('.rl-chip.rl-active').forEach(function (c) { c.classList.remove('rl-active'); });
    chip.classList.add('rl-active');
    window.__rlTrigger('click', {cite: chip.value || ''});
  });
}
"""

COPY_JS = """
(text) => {
  if (!text) return [];
  const done = () => {
    const b = document.querySelector('#rl-copy');
    if (b) { const old = b.textContent; b.textContent = 'Copied'; setTimeout(() => { b.textContent = old; }, 1500); }
  };
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(text).then(done, () => {});
  } else {
    const t = document.createElement('textarea');
    t.value = text; t.style.position = 'fixed'; t.style.left = '-9999px';
    document.body.appendChild(t); t.select();
    try { document.execCommand('copy'); done(); } catch (err) {}
    t.remove();
  }
  return [];
}
"""

CSS = """
.gradio-container { max-width: 1400px !important; }
#rl-header { display: flex; align-items: baseline; gap: 14px; flex-wrap: wrap; margin: 2px 0 4px; }
#rl-header .rl-title { font-size: 1.55rem; font-weight: 700; letter-spacing: -0.01em; }
#rl-header .rl-sub { color: var(--body-text-color-subdued); }
.rl-model { display: inline-block; padding: 2px 10px; border-radius: 999px; font-size: 0.85rem;
  background: var(--block-background-fill); border: 1px solid var(--border-color-primary); }
.rl-answer .rl-head { display: flex; align-items: center; gap: 10px; margin-bottom: 6px; }
.rl-answer .rl-meta { color: var(--body-text-color-subdued); font-size: 0.8rem; }
.rl-answer .rl-text { line-height: 1.5; }
.rl-badge { display: inline-block; padding: 1px 10px; border-radius: 6px; font-weight: 700;
  font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.04em; color: #fff; }
.rl-badge-yes { background: #15803d; }
.rl-badge-no { background: #b91c1c; }
.rl-badge-depends { background: #b45309; }
.rl-badge-answer { background: #1d4ed8; }
.rl-badge-not_found { background: #4b5563; }
.rl-searched { font-size: 0.8rem; color: var(--body-text-color-subdued); margin-bottom: 6px;
  font-style: italic; }
.rl-chips { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 10px; }
button.rl-chip { cursor: pointer; font-size: 0.8rem; font-weight: 600; padding: 3px 10px;
  border-radius: 999px; border: 1px solid #6366f1; background: #eef2ff; color: #3730a3;
  font-family: var(--font-mono); }
button.rl-chip:hover, button.rl-chip.rl-active { background: #6366f1; color: #fff; }
.rl-note { font-size: 0.75rem; color: var(--body-text-color-subdued); margin-top: 6px; }
.rl-cursor { animation: rl-blink 1s steps(1) infinite; margin-left: 1px; }
@keyframes rl-blink { 50% { opacity: 0; } }
.rl-wait { color: var(--body-text-color-subdued); font-style: italic; }
.rl-rule { padding: 4px 2px; }
.rl-rule-head { font-weight: 700; font-size: 1.05rem; font-family: var(--font-mono); margin-bottom: 2px; }
.rl-rule-meta { color: var(--body-text-color-subdued); font-size: 0.8rem; margin-bottom: 4px; }
.rl-rule-note { font-size: 0.8rem; color: #b45309; margin-bottom: 4px; }
.rl-rule-text { line-height: 1.55; margin-top: 6px; max-height: 560px; overflow-y: auto; }
mark.rl-mark { background: #fde68a; color: #111827; padding: 0 2px; border-radius: 3px; }
.rl-placeholder { color: var(--body-text-color-subdued); font-style: italic; padding: 8px 2px; }
.rl-error { color: #b91c1c; font-weight: 600; }
.rl-ok { color: #15803d; font-weight: 600; }
#rl-rule-panel { border: 1px solid var(--border-color-primary); border-radius: var(--radius-lg);
  padding: 10px 14px; min-height: 220px; background: var(--block-background-fill); }
#rl-browser-rule { border: 1px solid var(--border-color-primary); border-radius: var(--radius-lg);
  padding: 10px 14px; min-height: 200px; }
"""


def game_arg(choice: str | None) -> str | None:
    """The page's game choice as ``service.ask``'s ``game``: None for auto."""
    if not choice or choice in ("auto", ALL):
        return None
    return check_game(choice)


def _table(rows: list[list[Any]], headers: list[str]) -> Any:
    import pandas as pd

    return pd.DataFrame(rows, columns=headers)


class Handlers:
    """What the page's events call. Usable directly in tests, without a server."""

    def __init__(self, service: Any, *, word_delay: float = 0.02) -> None:
        self.service = service
        self.word_delay = word_delay  # pacing of word-by-word streaming of unstreamed answers
        self.lock = threading.Lock()  # one model: one answer (or ingest) at a time
        # Every answer runs on this one long-lived thread. llama.cpp's grammar
        # sampling leaves ~85 MB in the malloc arena of the thread that ran
        # it; answering on each request's own thread made the page grow by
        # that much per new thread under load (+200-290 MB in 2 minutes).
        self._model_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rl-model")

    # --- header -------------------------------------------------------------------
    def model_label(self) -> str:
        try:
            llm = self.service.llm()
        except RulesLawyerError as err:
            return f"model unavailable: {fmt.one_line(str(err))}"
        return "evidence only (no model)" if llm is None else str(llm.name)

    # --- chat -----------------------------------------------------------------------
    def ask(
        self,
        query: str,
        game: str | None,
        evidence_only: bool,
        on_text: Callable[[str], None] | None = None,
    ) -> Any:
        with self.lock:
            job = self._model_thread.submit(
                self.service.ask, query, game=game, evidence_only=evidence_only, on_text=on_text
            )
            return job.result()

    def stream_answer(
        self, query: str, game: str | None, evidence_only: bool
    ) -> Iterator[tuple[str, Any]]:
        """Yield ("text", answer so far) events, then ("answer", Answer) or ("error", message)."""
        events: queue.Queue[tuple[str, Any]] = queue.Queue()

        def work() -> None:
            try:
                answer = self.ask(
                    query, game, evidence_only, on_text=lambda t: events.put(("piece", t))
                )
                events.put(("answer", answer))
            except RulesLawyerError as err:
                events.put(("error", str(err)))
            except Exception as err:  # a bug: log it, show one line
                log.exception("answering %r failed", query)
                events.put(
                    ("error", f"internal error ({err.__class__.__name__}); see the server log")
                )

        threading.Thread(target=work, name="ruleslawyer-ask", daemon=True).start()
        text = ""
        while True:
            kind, payload = events.get()
            if kind == "piece":
                text += payload
                yield "text", text
                continue
            if kind == "answer" and not text:
                # No token stream (evidence only, or the model's text was not used):
                # show the composed answer word by word so the page still updates.
                delay = min(self.word_delay, 1.5 / max(1, len(payload.answer.split())))
                for prefix in fmt.stream_words(payload.answer):
                    yield "text", prefix
                    if delay:
                        time.sleep(delay)
            yield kind, payload
            return

    def chat(
        self,
        message: str,
        history: list[Any] | None,
        game_choice: str,
        evidence_only: bool,
        topic: str | None,
    ) -> Iterator[tuple[Any, ...]]:
        """Streaming chat handler: yields (history, textbox, topic, plain answer)."""
        history = list(history or [])
        if not history:
            topic = None  # a new conversation (or an API call without history): no follow-up
        message = (message or "").strip()
        if not message:
            yield list(history), "", topic, gr.skip()
            return
        query, followed = fmt.rewrite_query(message, topic)
        shown_query = query if followed else None
        new_topic = topic if followed else message
        history.append({"role": "user", "content": fmt.user_html(message)})
        history.append({"role": "assistant", "content": fmt.pending_html(shown_query)})
        yield list(history), "", new_topic, ""
        try:
            game = game_arg(game_choice)
        except RulesLawyerError as err:
            history[-1] = {
                "role": "assistant",
                "content": fmt.error_answer_html(str(err), shown_query),
            }
            yield list(history), "", new_topic, ""
            return
        for kind, payload in self.stream_answer(query, game, bool(evidence_only)):
            if kind == "text":
                history[-1] = {
                    "role": "assistant",
                    "content": fmt.pending_html(shown_query, payload),
                }
                yield list(history), "", new_topic, gr.skip()
            elif kind == "answer":
                history[-1] = {
                    "role": "assistant",
                    "content": fmt.answer_html(payload, shown_query),
                }
                yield list(history), "", new_topic, fmt.plain_answer(payload)
            else:
                history[-1] = {
                    "role": "assistant",
                    "content": fmt.error_answer_html(payload, shown_query),
                }
                yield list(history), "", new_topic, ""

    def api_ask(
        self, question: str, game: str = "auto", evidence_only: bool = False
    ) -> dict[str, Any]:
        """Answer one question (no streaming): the answer as JSON, like `ruleslawyer ask --json`."""
        try:
            answer = self.ask(question, game_arg(game), bool(evidence_only))
        except RulesLawyerError as err:
            # A refused question is the caller's mistake, not the server's: no traceback in the log.
            raise gr.Error(fmt.one_line(str(err)), print_exception=False) from None
        result: dict[str, Any] = answer.to_dict()
        result["answer_html"] = fmt.answer_html(answer)
        return result

    # --- the Rule panel -------------------------------------------------------------
    def cited_rule(self, game: str, rule_id: str, quotes: Sequence[str] = ()) -> str:
        """The cited rule's full text with the ``quotes`` marked, or a one-line error."""
        if isinstance(quotes, str):
            quotes = [quotes]
        try:
            units = self.service.find_rules(rule_id, game or None)
        except RulesLawyerError as err:
            return fmt.error_html(str(err))
        # Several units may share an ID (e.g. across rulebooks): prefer the one quoted.
        unit = next((u for u in units if "<mark" in fmt.highlight(u.text, quotes)), units[0])
        return fmt.rule_html(unit, quotes)

    def on_chip(self, evt: gr.EventData) -> str:
        data = getattr(evt, "_data", None) or {}
        cite = fmt.parse_chip_value(data.get("cite", "")) if isinstance(data, dict) else None
        if cite is None:
            return gr.skip()
        return self.cited_rule(*cite)

    # --- rule browser ---------------------------------------------------------------
    def sections(self, game_choice: str) -> Any:
        try:
            units = self.service.units(game_arg(game_choice))
        except RulesLawyerError:
            units = []
        parents = sorted({u.parent for u in units if u.parent})
        return gr.Dropdown(choices=[("All sections", ALL), *[(p, p) for p in parents]], value=ALL)

    def find_units(self, game_choice: str, section: str, text: str, show: str) -> list[Any]:
        units = self.service.units(game_arg(game_choice))
        if section and section != ALL:
            units = [u for u in units if u.parent == section]
        if show == "inferred":
            units = [u for u in units if u.title_inferred]
        elif show == "merged":
            units = [u for u in units if u.merged > 0]
        q = " ".join((text or "").split())
        if not q:
            return list(units)
        key = rule_key(q)
        ranked = []
        for i, u in enumerate(units):
            rid, title = rule_key(u.rule_id), rule_key(u.title)
            if rid == key:
                rank = 0
            elif title and title.strip("[]") == key.strip("[]"):
                rank = 1
            elif rid.startswith(key):
                rank = 2
            elif key in title:
                rank = 3
            elif q.lower() in u.text.lower():
                rank = 4
            else:
                continue
            ranked.append((rank, i, u))
        return [u for _, _, u in sorted(ranked, key=lambda r: (r[0], r[1]))]

    def browse(self, game_choice: str, section: str, text: str, show: str) -> tuple[Any, str, str]:
        """(table, rule view, count line) for the browser's filters."""
        try:
            units = self.find_units(game_choice, section, text, show)
        except RulesLawyerError as err:
            return _table([], BROWSE_HEADERS), fmt.error_html(str(err)), ""
        rows = [
            [
                u.game,
                u.rule_id,
                u.title,
                u.parent,
                fmt.TITLE_SOURCES.get(u.title_source, u.title_source)
                if u.title_inferred
                else "printed",
                u.merged or "",
                u.source.file,
            ]
            for u in units[:MAX_BROWSE_ROWS]
        ]
        inferred = sum(1 for u in units if u.title_inferred)
        merged = sum(1 for u in units if u.merged)
        more = f" (first {MAX_BROWSE_ROWS} shown)" if len(units) > MAX_BROWSE_ROWS else ""
        plural = "" if len(units) == 1 else "s"
        count = (
            f"{len(units)} rule{plural}{more} · {inferred} with an inferred title · "
            f"{merged} with duplicates merged"
        )
        if (text or "").strip() and units:
            view = fmt.rule_html(units[0])
        elif (text or "").strip():
            view = fmt.placeholder_html(f"No loaded rule matches {text.strip()!r}.")
        else:
            view = fmt.placeholder_html("Select a rule in the table, or type a number or name.")
        return _table(rows, BROWSE_HEADERS), view, count

    def browse_select(self, evt: gr.SelectData) -> str:
        row = evt.row_value or []
        if len(row) < 2:
            return gr.skip()
        game, rule_id = str(row[0]), str(row[1])
        for u in self.service.units(game):
            if u.rule_id == rule_id:
                return fmt.rule_html(u)
        return fmt.error_html(f"no rule {rule_id} in {game}")

    # --- sources --------------------------------------------------------------------------
    def sources_table(self) -> Any:
        try:
            books = self.service.rulebooks()
            counts: dict[str, int] = {}
            for u in self.service.units():
                counts[u.source.file] = counts.get(u.source.file, 0) + 1
        except RulesLawyerError:
            return _table([], SOURCE_HEADERS)
        rows = [[b.file, b.game, b.title, b.origin, counts.get(b.file, 0)] for b in books]
        return _table(rows, SOURCE_HEADERS)

    def add_rulebook(self, upload: Any, game: str | None, progress: Any = None) -> tuple[str, Any]:
        """Ingest an uploaded rulebook: (status line, sources table)."""
        try:
            name = self._ingest_upload(upload, game, progress)
        except RulesLawyerError as err:
            return fmt.error_html(str(err)), self.sources_table()
        except Exception as err:  # a bug: keep the page alive, log it
            log.exception("ingest of an upload failed")
            return fmt.error_html(
                f"internal error ({err.__class__.__name__}); see the server log"
            ), gr.skip()
        g = check_game(game or "")
        units = [u for u in self.service.units(g) if u.source.file == name]
        ids = ", ".join(u.rule_id for u in units[:6]) + (", …" if len(units) > 6 else "")
        msg = (
            f"Added {name} to {GAME_NAMES[g]}: {len(units)} rules ({ids}). They are searchable now."
        )
        return fmt.ok_html(msg), self.sources_table()

    def _ingest_upload(self, upload: Any, game: str | None, progress: Any) -> str:
        if upload is None:
            raise InputError("choose a rulebook .txt file to upload")
        if not game:
            raise InputError("choose which game this rulebook is for")
        g = check_game(game)
        src = Path(upload if isinstance(upload, str | os.PathLike) else getattr(upload, "name", ""))
        original = getattr(upload, "orig_name", None) or src.name
        name = safe_name(original)
        tmp = Path(tempfile.mkdtemp(prefix="ruleslawyer-upload-"))
        try:
            path = tmp / name
            try:
                os.symlink(src.resolve(), path)
            except OSError:
                shutil.copyfile(src, path)

            def report(stage: str, done: int, total: int) -> None:
                if progress is not None and total:
                    progress((done, total), desc=f"{stage}")

            if progress is not None:
                progress(0, desc="checking the file")
            try:
                with self.lock:
                    self.service.ingest([path], game=g, progress=report)
            except RulesLawyerError as err:
                # Name the file as the user knows it, not by our temp path.
                raise type(err)(
                    str(err).replace(str(path), name).replace(str(tmp) + os.sep, "")
                ) from None
            return name
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def build_app(service: Any, *, word_delay: float = 0.02) -> gr.Blocks:
    """The whole page for ``service``; nothing is served until ``launch``."""
    h = Handlers(service, word_delay=word_delay)
    model = h.model_label()

    with gr.Blocks(title="ruleslawyer", analytics_enabled=False) as demo:
        demo.handlers = h
        gr.HTML(
            '<div id="rl-header"><span class="rl-title">⚖️ ruleslawyer</span>'
            '<span class="rl-sub">Rules answers for Warhammer 40k, Age of Sigmar and Warmachine, '
            "quoted and cited from the rulebooks. Offline.</span>"
            f'<span class="rl-model" id="rl-model">Model: {fmt.esc(model)}</span></div>',
            js_on_load=None,
        )
        topic = gr.State(None)
        with gr.Tabs():
            with gr.Tab("Ask", id="ask"), gr.Row(equal_height=False):
                with gr.Column(scale=3):
                    chatbot = gr.Chatbot(
                        label="Rules chat",
                        show_label=False,
                        elem_id="rl-chat",
                        height=560,
                        buttons=[],
                        latex_delimiters=[],
                        feedback_options=None,
                        placeholder=(
                            "**Ask a rules question.** Answers quote the rule they rest on; "
                            "click a citation chip to read the whole rule."
                        ),
                    )
                    with gr.Row():
                        question = gr.Textbox(
                            placeholder="e.g. Can a battle-shocked unit start an action?",
                            show_label=False,
                            lines=1,
                            max_lines=4,
                            scale=6,
                            elem_id="rl-question",
                            autofocus=True,
                        )
                        send = gr.Button("Ask", variant="primary", scale=1, elem_id="rl-send")
                    gr.Examples(
                        examples=[[q] for q in EXAMPLES], inputs=[question], label="Examples"
                    )
                with gr.Column(scale=2):
                    game = gr.Radio(GAME_CHOICES, value="auto", label="Game", elem_id="rl-game")
                    evidence = gr.Checkbox(
                        label="Evidence only (quote the rules, no model)",
                        value=False,
                        elem_id="rl-evidence",
                    )
                    with gr.Row():
                        clear = gr.Button("Clear chat", size="sm", elem_id="rl-clear")
                        copy = gr.Button("Copy answer", size="sm", elem_id="rl-copy")
                    last_answer = gr.Textbox(visible=False, label="answer text")
                    gr.Markdown("**Rule**")
                    rule_panel = gr.HTML(
                        fmt.placeholder_html(RULE_PLACEHOLDER),
                        elem_id="rl-rule-panel",
                        js_on_load=CHIP_JS,
                    )

            with gr.Tab("Rule browser", id="browser"):
                with gr.Row():
                    b_game = gr.Dropdown(
                        [("All games", ALL), *[(fmt.GAME_LABELS[g], g) for g in GAMES]],
                        value=ALL,
                        label="Game",
                        elem_id="rl-b-game",
                    )
                    b_section = gr.Dropdown(
                        [("All sections", ALL)], value=ALL, label="Section", elem_id="rl-b-section"
                    )
                    b_text = gr.Textbox(
                        label="Number or name",
                        placeholder="e.g. 24.21, Lance, Redeploy",
                        elem_id="rl-b-text",
                    )
                    b_show = gr.Radio(SHOW_CHOICES, value="all", label="Show", elem_id="rl-b-show")
                b_count = gr.Markdown(elem_id="rl-b-count")
                with gr.Row(equal_height=False):
                    b_table = gr.Dataframe(
                        headers=BROWSE_HEADERS,
                        interactive=False,
                        max_height=520,
                        wrap=True,
                        scale=3,
                        column_widths=["8%", "9%", "20%", "18%", "17%", "9%", "19%"],
                        elem_id="rl-b-table",
                    )
                    b_rule = gr.HTML(
                        fmt.placeholder_html("Select a rule in the table."),
                        elem_id="rl-browser-rule",
                        js_on_load=None,
                        min_width=320,
                    )

            with gr.Tab("Sources", id="sources"):
                s_table = gr.Dataframe(
                    headers=SOURCE_HEADERS,
                    interactive=False,
                    label="Loaded rulebooks",
                    elem_id="rl-s-table",
                )
                gr.Markdown(
                    "**Add a rulebook**: a UTF-8 text file (copy the text out of your PDF). "
                    "It is checked, copied into your library and indexed with the rest."
                )
                with gr.Row():
                    s_file = gr.File(
                        label="Rulebook (.txt)",
                        file_types=[".txt"],
                        type="filepath",
                        elem_id="rl-s-file",
                    )
                    with gr.Column():
                        s_game = gr.Dropdown(
                            [(GAME_NAMES[g], g) for g in GAMES],
                            value=None,
                            label="Game of this rulebook",
                            elem_id="rl-s-game",
                        )
                        s_add = gr.Button("Add rulebook", variant="primary", elem_id="rl-s-add")
                s_status = gr.HTML("", elem_id="rl-s-status", js_on_load=None)

        # --- events ------------------------------------------------------------------
        chat_inputs = [question, chatbot, game, evidence, topic]
        chat_outputs = [chatbot, question, topic, last_answer]
        gr.on(
            [send.click, question.submit],
            h.chat,
            inputs=chat_inputs,
            outputs=chat_outputs,
            api_name="chat",
            concurrency_limit=1,
            concurrency_id="llm",
            show_progress="hidden",
        )
        gr.api(h.api_ask, api_name="ask", concurrency_limit=1, concurrency_id="llm")
        rule_panel.click(
            h.on_chip,
            inputs=None,
            outputs=rule_panel,
            api_visibility="private",
            concurrency_limit=None,
            show_progress="hidden",
        )

        def reset() -> tuple[Any, ...]:
            return [], None, "", fmt.placeholder_html(RULE_PLACEHOLDER)

        reset_outputs = [chatbot, topic, last_answer, rule_panel]
        clear.click(reset, outputs=reset_outputs, api_visibility="private", queue=False)
        chatbot.clear(reset, outputs=reset_outputs, api_visibility="private", queue=False)
        copy.click(None, inputs=[last_answer], js=COPY_JS, api_visibility="private", queue=False)

        browse_inputs = [b_game, b_section, b_text, b_show]
        browse_outputs = [b_table, b_rule, b_count]
        b_game.change(
            h.sections, inputs=[b_game], outputs=[b_section], api_visibility="private"
        ).then(h.browse, inputs=browse_inputs, outputs=browse_outputs, api_visibility="private")
        for trigger in (b_section.change, b_show.change, b_text.change):
            trigger(
                h.browse,
                inputs=browse_inputs,
                outputs=browse_outputs,
                api_visibility="private",
                trigger_mode="always_last",
                show_progress="hidden",
                concurrency_limit=None,
            )
        b_table.select(
            h.browse_select,
            inputs=None,
            outputs=[b_rule],
            api_visibility="private",
            concurrency_limit=None,
        )

        def add(
            upload: Any, game_choice: str | None, progress: gr.Progress = PROGRESS
        ) -> tuple[str, Any]:
            return h.add_rulebook(upload, game_choice, progress)

        s_add.click(
            add, inputs=[s_file, s_game], outputs=[s_status, s_table], api_name="add_rulebook"
        ).then(
            h.browse, inputs=browse_inputs, outputs=browse_outputs, api_visibility="private"
        ).then(h.sections, inputs=[b_game], outputs=[b_section], api_visibility="private")

        def on_load(game_choice: str, section: str, text: str, show: str) -> tuple[Any, ...]:
            return (
                h.sources_table(),
                h.sections(game_choice),
                *h.browse(game_choice, ALL, text, show),
            )

        demo.load(
            on_load,
            inputs=browse_inputs,
            outputs=[s_table, b_section, *browse_outputs],
            api_visibility="private",
        )
    return demo


# Fonts bundled with Gradio only: the page must not reach for a font CDN offline.
THEME = gr.themes.Soft(
    primary_hue="indigo",
    secondary_hue="amber",
    neutral_hue="slate",
    font=[gr.themes.LocalFont("Source Sans Pro"), "ui-sans-serif", "system-ui", "sans-serif"],
    font_mono=[gr.themes.LocalFont("IBM Plex Mono"), "ui-monospace", "Consolas", "monospace"],
)


def launch(
    service: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 7860,
    share: bool = False,
    auth: tuple[str, str] | None = None,
    **kwargs: Any,
) -> gr.Blocks:
    """Serve the page; blocks until stopped (unless ``prevent_thread_lock=True``)."""
    os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
    # Load the index and the models now: a broken setup fails here with one line,
    # and the first visitor does not wait for them to load.
    service.answerer()  # the index, the embedder, the retriever and the LLM
    # warm_up loads the weights too (MiniLM alone is ~4 s on first use) and
    # checks the LLM, so an LLM server that is down fails here as well.
    warm_up = getattr(service, "warm_up", None) or getattr(service, "check_llm", None)
    if warm_up is not None:
        warm_up()
    demo = build_app(service, word_delay=kwargs.pop("word_delay", 0.02))
    demo.queue(default_concurrency_limit=1, max_size=64)
    demo.launch(
        server_name=host,
        server_port=port,
        share=share,
        auth=auth,
        show_error=False,
        theme=THEME,
        css=CSS,
        footer_links=["api"],
        **kwargs,
    )
    return demo
