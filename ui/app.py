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
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import gradio as gr

from ruleslawyer.errors import InputError, RulesLawyerError
from ruleslawyer.ingest import formats
from ruleslawyer.ingest.sources import check_game, safe_name, slugify
from ruleslawyer.service import rule_key
from ruleslawyer.ui import format as fmt

log = logging.getLogger(__name__)

EXAMPLES = [
    "Can a battle-shocked unit start an action?",
    "Can my warcaster cast a spell before it runs?",
    "What does Redeploy do in AoS?",
    "How many attack dice does a [BLAST 2] weapon with A3 get against 12 models?",
]
AUTO = "auto"
ALL = "__all__"
_T = TypeVar("_T")
NEW_GAME = "__new__"  # the Sources tab's "New game" choice
# Without it, a file named like one in the library is refused, not swapped in.
REPLACE_LABEL = "Replace the library's file of the same name"
BROWSE_HEADERS = ["Game", "Rule", "Title", "Section", "Title from", "Merged", "File"]
SOURCE_HEADERS = ["Game", "File", "Format", "Units", "Pages", "Left out", "Warnings"]
MAX_LABEL_CHARS = 80  # a new game's display name or edition
# Characters that reorder the text around them: not in a game's name.
_BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
SHOW_CHOICES = [
    ("All rules", "all"),
    ("Titles inferred", "inferred"),
    ("Duplicates merged", "merged"),
]
STAGES = {"reading": "reading the rulebooks", "embedding": "indexing the rules"}
PROGRESS = gr.Progress()  # Gradio gives each event its own tracker through this default
RULE_PLACEHOLDER = "Click a citation chip under an answer to read the whole rule here."
MAX_BROWSE_ROWS = 500
KEPT_MESSAGES = 40  # the last 20 questions and answers survive a reload

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
    // On a phone the Rule panel is below the chat, out of sight: bring it up.
    if (window.innerWidth <= 760) {
      setTimeout(function () {
        const panel = document.getElementById('rl-rule-panel');
        if (panel) panel.scrollIntoView({behavior: 'smooth', block: 'start'});
      }, 400);
    }
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
.rl-badge-yes-likely { background: #fff; color: #15803d; border: 2px solid #15803d; }
.rl-badge-no-likely { background: #fff; color: #b91c1c; border: 2px solid #b91c1c; }
.rl-badge-quote { background: #b45309; }
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
/* A phone: the rule beside a table or the chat gets a few letters a line; stack them. */
@media (max-width: 760px) {
  .rl-stack { flex-direction: column !important; }
  .rl-stack > * { min-width: 100% !important; max-width: 100% !important; }
}
"""


def restored(kept: Any) -> tuple[list[Any], str | None, str | None]:
    """(chat, follow-up topic, game) from what a browser kept, or empties for
    anything that is not what ``keep`` wrote (an old page's, a hand-edited one)."""
    if not isinstance(kept, dict):
        return [], None, None
    chat = kept.get("chat")
    if not isinstance(chat, list) or not all(
        isinstance(m, dict) and m.get("role") in ("user", "assistant") for m in chat
    ):
        chat = []
    topic = kept.get("topic")
    game = kept.get("game")
    return (
        list(chat),
        topic if isinstance(topic, str) else None,
        game if isinstance(game, str) else None,
    )


def game_arg(service: Any, choice: str | None) -> str | None:
    """The page's game choice as ``service.ask``'s ``game``: None for auto (or all games),
    else the slug of the loaded game it names; an unknown game raises ``InputError``."""
    # any case: an API caller writes the page's labels ("Auto", "All games")
    if not choice or str(choice).strip().casefold() in (AUTO, ALL, "all games"):
        return None
    try:
        return str(service.game(str(choice)))
    except InputError:
        # A page left open while another removed the game: the CLI's "run ingest"
        # hint means nothing here.
        raise InputError(
            f"no game {choice!r} is loaded (removed since this page was opened?): reload "
            "the page for the current games, or add its rulebook on the Sources tab"
        ) from None


def _label(text: str | None, what: str) -> str:
    """A new game's display name or edition: one line of printable text, or a refusal."""
    text = "".join(
        " " if ch.isspace() else ch
        for ch in str(text or "")
        if ch.isspace() or (unicodedata.category(ch) != "Cc" and ch not in _BIDI_CONTROLS)
    )
    text = " ".join(text.split())
    if len(text) > MAX_LABEL_CHARS:
        raise InputError(f"the {what} is {len(text)} characters; at most {MAX_LABEL_CHARS}")
    return text


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

    # --- games ------------------------------------------------------------------------
    def games(self) -> list[Any]:
        """The loaded games (``GameInfo``), as the service lists them; none if no index."""
        try:
            return list(self.service.games())
        except RulesLawyerError:
            return []

    def game_names(self) -> dict[str, str]:
        """Slug -> display name of every loaded game, in the service's order."""
        return {g.slug: g.display for g in self.games()}

    def names_a_rule(self, text: str) -> bool:
        """Whether a short message names a loaded rule (then it is no follow-up)."""
        try:
            return bool(self.service.names_a_rule(text))
        except RulesLawyerError:
            return False  # no rules to name yet: a short message is a follow-up

    def game_arg(self, choice: str | None) -> str | None:
        return game_arg(self.service, choice)

    def choices(self) -> tuple[list[tuple[str, str]], ...]:
        """(chat, rule browser, sources) choices for the game selectors, from the loaded games."""
        games = [(g.display, g.slug) for g in self.games()]
        return (
            [("Auto", AUTO), *games],
            [("All games", ALL), *games],
            [*games, ("New game…", NEW_GAME)],
        )

    def selectors(
        self, chat: str | None = AUTO, browse: str | None = ALL, source: str | None = None
    ) -> tuple[Any, Any, Any]:
        """Updates for the three game selectors with the current games, keeping each
        selection that is still there (a game added since the page loaded shows up)."""
        chat_c, browse_c, source_c = self.choices()

        def keep(value: str | None, choices: list[tuple[str, str]], default: str | None) -> Any:
            return value if value in {v for _, v in choices} else default

        return (
            gr.Radio(choices=chat_c, value=keep(chat, chat_c, AUTO)),
            gr.Dropdown(choices=browse_c, value=keep(browse, browse_c, ALL)),
            gr.Dropdown(choices=source_c, value=keep(source, source_c, None)),
        )

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
        query, followed = fmt.rewrite_query(message, topic, self.names_a_rule)
        shown_query = query if followed else None
        new_topic = topic if followed else message
        history.append({"role": "user", "content": fmt.user_html(message)})
        history.append({"role": "assistant", "content": fmt.pending_html(shown_query)})
        yield list(history), "", new_topic, ""
        try:
            game = self.game_arg(game_choice)
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
                    "content": fmt.answer_html(payload, shown_query, self.game_names()),
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
            answer = self.ask(question, self.game_arg(game), bool(evidence_only))
        except RulesLawyerError as err:
            # A refused question is the caller's mistake, not the server's: no traceback in the log.
            raise gr.Error(fmt.one_line(str(err)), print_exception=False) from None
        result: dict[str, Any] = answer.to_dict()
        result["answer_html"] = fmt.answer_html(answer, None, self.game_names())
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
            units = self.service.units(self.game_arg(game_choice))
        except RulesLawyerError:
            units = []
        parents = sorted({u.parent for u in units if u.parent})
        return gr.Dropdown(choices=[("All sections", ALL), *[(p, p) for p in parents]], value=ALL)

    def find_units(self, game_choice: str, section: str, text: str, show: str) -> list[Any]:
        units = self.service.units(self.game_arg(game_choice))
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

    def browse_game(self, game_choice: str, text: str, show: str) -> tuple[Any, ...]:
        """(sections, table, rule view, count line) for a newly picked game.

        One step, not sections then browse: two events would each read the filters
        when sent, and the later-sent one could finish first and be overwritten.
        """
        return (self.sections(game_choice), *self.browse(game_choice, ALL, text, show))

    def browse_select(self, evt: gr.SelectData) -> str:
        row = evt.row_value or []
        if len(row) < 2:
            return gr.skip()
        game, rule_id = str(row[0]), str(row[1])
        try:
            units = self.service.units(game)
        except RulesLawyerError as err:
            return fmt.error_html(str(err))
        for u in units:
            if u.rule_id == rule_id:
                return fmt.rule_html(u)
        return fmt.error_html(f"no rule {rule_id} in {game}")

    # --- sources --------------------------------------------------------------------------
    def sources_table(self) -> Any:
        """Each loaded game with its files: format, units, pages, what was left out, warnings."""
        try:
            rows = self.service.sources()
        except RulesLawyerError:
            return _table([], SOURCE_HEADERS)
        return _table(fmt.source_rows(rows, self.game_names()), SOURCE_HEADERS)

    def add_rulebook(
        self,
        upload: Any,
        game: str | None,
        progress: Any = None,
        *,
        slug: str | None = "",
        name: str | None = "",
        edition: str | None = "",
        replace: bool = False,
    ) -> tuple[str, Any]:
        """Ingest an uploaded rulebook: (status line, sources table).

        ``upload`` is a file path (or Gradio file object), or a list of them for
        a rulebook in several files (a Markdown book in chapters). ``game`` is a
        loaded game, or ``NEW_GAME`` to create the game ``slug`` shown as
        ``name`` (``edition`` optional). ``replace``: see ``add_rulebook_to``.
        """
        status, table, _ = self.add_rulebook_to(
            upload, game, progress, slug, name, edition, replace
        )
        return status, table

    def add_rulebook_to(
        self,
        upload: Any,
        game: str | None,
        progress: Any = None,
        slug: str | None = "",
        name: str | None = "",
        edition: str | None = "",
        replace: bool = False,
    ) -> tuple[str, Any, str | None]:
        """``add_rulebook``, plus the slug of the game the rulebook went to (None on failure).

        ``replace``: a file may take the place of the library's file of the same
        name, or move from another game (else that is refused: it would lose a
        rulebook without a word)."""

        def add() -> tuple[str, str | None]:
            uploads = [u for u in (upload if isinstance(upload, list | tuple) else [upload]) if u]
            if not uploads:
                raise InputError(
                    "choose a rulebook file to upload (PDF, Word, Markdown, HTML or plain text)"
                )
            g, game_name, game_edition = self._upload_game(game, slug, name, edition)
            names = self._ingest_upload(
                uploads, g, game_name, game_edition, progress, replace=replace
            )
            return self._added_message(names, g), g

        return self._change_sources(add, "ingest of an upload", None)

    def _change_sources(
        self, change: Callable[[], tuple[str, _T]], what: str, failed: _T
    ) -> tuple[str, Any, _T]:
        """Run a change to the loaded rulebooks for the Sources tab: (status line,
        sources table, the change's result, or ``failed`` when it was refused).

        A refusal (a bad file, an unknown name) is shown as the error it is; a
        bug keeps the page alive, is logged, and leaves the table as it was.
        """
        try:
            message, result = change()
        except RulesLawyerError as err:
            return fmt.error_html(str(err)), self.sources_table(), failed
        except Exception as err:  # a bug: keep the page alive, log it
            log.exception("%s failed", what)
            return (
                fmt.error_html(f"internal error ({err.__class__.__name__}); see the server log"),
                gr.skip(),
                failed,
            )
        return fmt.ok_html(message), self.sources_table(), result

    def _upload_game(
        self, game: str | None, slug: str | None, name: str | None, edition: str | None
    ) -> tuple[str, str | None, str | None]:
        """(slug, display name, edition) for an upload; name and edition only for a new game."""
        if not game:
            raise InputError("choose which game this rulebook is for, or New game")
        if game != NEW_GAME:
            try:
                return self.service.game(str(game)), None, None
            except InputError:
                raise InputError(
                    f"no game {game!r} is loaded: choose one from the list, or New game"
                ) from None
        raw = " ".join(str(slug or "").split())
        label = _label(name, "display name")
        game_edition = _label(edition, "edition")
        if not raw:
            hint = slugify(label) or "bolt-action"
            raise InputError(f"type a slug for the new game, e.g. {hint}")
        shown = repr(raw if len(raw) <= 60 else raw[:40] + "…")
        try:
            new = check_game(raw)
        except InputError:
            hint = slugify(raw)[:40].strip("-")
            suggestion = f", e.g. {hint}" if hint else ""
            if hint and not label and len(raw) <= MAX_LABEL_CHARS:
                suggestion += f" (and {shown} as the display name)"
            raise InputError(
                f"{shown} is not a usable game slug: use lower-case letters, digits and "
                f"hyphens, at most 40 characters{suggestion}"
            ) from None
        games = self.games()
        same = check_game(new, games)
        loaded = {g.slug: g.display for g in games}
        if same in loaded:
            raise InputError(
                f"{shown} is already loaded as {loaded[same]}: choose it from the list "
                "instead of New game"
            )
        return new, label, game_edition

    def added_files(self) -> list[tuple[str, str]]:
        """(label, file) of every rulebook added to the library: what can be removed."""
        names = self.game_names()
        return [
            (f"{b.file} ({names.get(b.game, b.game)})", b.file)
            for b in self.service.rulebooks()
            if b.origin == "library"
        ]

    def remove_rulebook(self, file: str | None) -> tuple[str, Any, bool]:
        """Take an added rulebook out of the library and the index: (status, sources
        table, whether it went)."""

        def remove() -> tuple[str, bool]:
            if not file:
                raise InputError("choose an added rulebook to remove")
            with self.lock:  # not while an answer is being written from it
                removed, report = self.service.remove([file])
            return f"Removed {', '.join(removed)}. {report.units} rules remain loaded.", True

        return self._change_sources(remove, "removing a rulebook", False)

    def _added_message(self, names: list[str], game: str) -> str:
        files = set(names)
        units = [u for u in self.service.units(game) if u.source.file in files]
        # "24.21 [LANCE]", "Line of Sight": each label without its game
        shown = [u.label.removeprefix(f"{u.game} ") for u in units[:6]]
        ids = ", ".join(shown) + (", …" if len(units) > 6 else "")
        rows = [r for r in self.service.sources() if r.get("file") in files]
        pages = sum(int(r.get("pages") or 0) for r in rows)
        where = f" from {pages} page{'' if pages == 1 else 's'}" if pages else ""
        warnings = sum(len(r.get("warnings") or ()) for r in rows)
        warned = (
            f" {warnings} warning{'' if warnings == 1 else 's'}: see the table." if warnings else ""
        )
        display = self.game_names().get(game, game)
        plural = "" if len(units) == 1 else "s"
        return (
            f"Added {', '.join(names)} to {display}: {len(units)} rule{plural}{where} ({ids}). "
            f"They are searchable now.{warned}"
        )

    def _ingest_upload(
        self,
        uploads: list[Any],
        game: str,
        game_name: str | None,
        edition: str | None,
        progress: Any,
        *,
        replace: bool = False,
    ) -> list[str]:
        """Ingest the uploaded files (one rulebook, maybe in several files): their names."""
        sources: list[tuple[Path, str]] = []
        for upload in uploads:
            src = Path(
                upload if isinstance(upload, str | os.PathLike) else getattr(upload, "name", "")
            )
            original = getattr(upload, "orig_name", None) or src.name
            name = safe_name(original, formats.extensions())
            if any(name == n for _, n in sources):
                raise InputError(f"two files are called {name}: rename one, or add them one by one")
            sources.append((src, name))
        names = [n for _, n in sources]
        tmp = Path(tempfile.mkdtemp(prefix="ruleslawyer-upload-"))
        try:
            paths = []
            for src, name in sources:
                path = tmp / name
                try:
                    os.symlink(src.resolve(), path)
                except OSError:
                    shutil.copyfile(src, path)
                paths.append(path)

            def report(stage: str, done: int, total: int) -> None:
                if progress is not None and total:
                    progress((done, total), desc=STAGES.get(stage, stage))

            if progress is not None:
                progress(0, desc=f"checking {', '.join(names)}")
            try:
                if not self.lock.acquire(blocking=False):
                    if progress is not None:
                        progress(0, desc="waiting for the current answer to finish")
                    self.lock.acquire()
                try:
                    self.service.ingest(
                        paths,
                        game=game,
                        game_name=game_name,
                        edition=edition,
                        progress=report,
                        replace=replace,
                        keep_sources=False,  # an upload's path is ours, and temporary
                    )
                finally:
                    self.lock.release()
            except RulesLawyerError as err:
                # Name the files as the user knows them, not by our temp paths.
                message = str(err)
                for path, name in zip(paths, names, strict=True):
                    message = message.replace(str(path), name)
                message = message.replace("add --replace", f'tick "{REPLACE_LABEL}"')
                raise type(err)(message.replace(str(tmp) + os.sep, "")) from None
            return names
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


def build_app(service: Any, *, word_delay: float = 0.02) -> gr.Blocks:
    """The whole page for ``service``; nothing is served until ``launch``."""
    h = Handlers(service, word_delay=word_delay)
    model = h.model_label()
    chat_choices, browse_choices, source_choices = h.choices()

    with gr.Blocks(title="ruleslawyer", analytics_enabled=False) as demo:
        demo.handlers = h
        gr.HTML(
            '<div id="rl-header"><span class="rl-title">⚖️ ruleslawyer</span>'
            '<span class="rl-sub">Rules answers for your tabletop games, '
            "quoted and cited from the rulebooks. Offline.</span>"
            f'<span class="rl-model" id="rl-model">Model: {fmt.esc(model)}</span></div>',
            js_on_load=None,
        )
        topic = gr.State(None)
        kept_chat = gr.BrowserState({}, storage_key="ruleslawyer-chat")
        with gr.Tabs():
            with gr.Tab("Ask", id="ask"), gr.Row(equal_height=False, elem_classes="rl-stack"):
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
                    game = gr.Radio(chat_choices, value=AUTO, label="Game", elem_id="rl-game")
                    # With no model (--no-llm) every answer is the evidence alone:
                    # the box says so and cannot be unticked.
                    no_model = service.settings.llm == "none"
                    evidence = gr.Checkbox(
                        label="Evidence only (quote the rules, no model)",
                        value=no_model,
                        interactive=not no_model,
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
                        browse_choices,
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
                with gr.Row(equal_height=False, elem_classes="rl-stack"):
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
                    label="Loaded games and their rulebooks",
                    wrap=True,
                    column_widths=["12%", "19%", "10%", "6%", "6%", "30%", "17%"],
                    max_height=1000,
                    elem_id="rl-s-table",
                )
                # named from the registry, so a new format needs no change here
                kinds = [f.label for f in formats.formats()]
                gr.Markdown(
                    f"**Add a rulebook**: a {', '.join(kinds[:-1])} or {kinds[-1]} file. It is "
                    "checked, copied into your library and indexed with the rest."
                )
                with gr.Row():
                    main_extensions = ", ".join(f.extensions[0] for f in formats.formats())
                    s_file = gr.File(
                        label=f"Rulebook: one file, or its chapters ({main_extensions})",
                        file_types=formats.extensions(),
                        file_count="multiple",
                        type="filepath",
                        elem_id="rl-s-file",
                    )
                    with gr.Column():
                        s_game = gr.Dropdown(
                            source_choices,
                            value=None,
                            label="Game of this rulebook",
                            elem_id="rl-s-game",
                        )
                        with gr.Column(visible=False, elem_id="rl-s-new") as s_new:
                            s_slug = gr.Textbox(
                                label="Slug",
                                placeholder="e.g. bolt-action",
                                info="lower-case letters, digits and hyphens; "
                                "citations and questions use it",
                                max_lines=1,
                                elem_id="rl-s-slug",
                            )
                            with gr.Row():
                                s_name = gr.Textbox(
                                    label="Display name",
                                    placeholder="e.g. Bolt Action",
                                    max_lines=1,
                                    elem_id="rl-s-name",
                                )
                                s_edition = gr.Textbox(
                                    label="Edition",
                                    placeholder="e.g. 2nd edition",
                                    max_lines=1,
                                    elem_id="rl-s-edition",
                                )
                        s_replace = gr.Checkbox(False, label=REPLACE_LABEL, elem_id="rl-s-replace")
                        s_add = gr.Button("Add rulebook", variant="primary", elem_id="rl-s-add")
                with gr.Row(equal_height=True):
                    s_remove_file = gr.Dropdown(
                        h.added_files(),
                        value=None,
                        label="Remove an added rulebook (the seed rulebooks stay)",
                        scale=3,
                        elem_id="rl-s-remove-file",
                    )
                    s_remove = gr.Button("Remove", variant="stop", scale=1, elem_id="rl-s-remove")
                s_status = gr.HTML("", elem_id="rl-s-status", js_on_load=None)
                added = gr.State(None)

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

        def keep(history: list[Any] | None, topic_now: str | None, game_now: str) -> Any:
            return {
                "chat": list(history or [])[-KEPT_MESSAGES:],
                "topic": topic_now,
                "game": game_now,
            }

        def switch(history: list[Any] | None, game_now: str) -> tuple[Any, Any]:
            # Another game is another conversation: a short question asked after
            # the switch is not a follow-up of the last game's question. (One
            # event, so what is kept never holds the old game's topic.)
            return None, keep(history, None, game_now)

        # The conversation is kept in this browser's local storage, as it stands
        # after each answer, a game switch or a clear.
        chatbot.change(
            keep,
            inputs=[chatbot, topic, game],
            outputs=[kept_chat],
            api_visibility="private",
            queue=False,
            show_progress="hidden",
        )
        game.change(
            switch,
            inputs=[chatbot, game],
            outputs=[topic, kept_chat],
            api_visibility="private",
            queue=False,
            show_progress="hidden",
        )

        reset_outputs = [chatbot, topic, last_answer, rule_panel]
        clear.click(reset, outputs=reset_outputs, api_visibility="private", queue=False)
        chatbot.clear(reset, outputs=reset_outputs, api_visibility="private", queue=False)
        copy.click(None, inputs=[last_answer], js=COPY_JS, api_visibility="private", queue=False)

        browse_inputs = [b_game, b_section, b_text, b_show]
        browse_outputs = [b_table, b_rule, b_count]
        # Every event that redraws the browser is in one queue of one at a time, so
        # results land in the order the filters changed: with several at once, a
        # slow early redraw (the game picked, the filter still empty) could land
        # after a later one (the filter typed) and leave the stale view on screen.
        in_order: dict[str, Any] = {
            "api_visibility": "private",
            "concurrency_id": "browse",
            "concurrency_limit": 1,
        }
        b_game.change(
            h.browse_game,
            inputs=[b_game, b_text, b_show],
            outputs=[b_section, *browse_outputs],
            trigger_mode="always_last",
            **in_order,
        )
        for trigger in (b_section.change, b_show.change, b_text.change):
            trigger(
                h.browse,
                inputs=browse_inputs,
                outputs=browse_outputs,
                trigger_mode="always_last",
                show_progress="hidden",
                **in_order,
            )
        b_table.select(
            h.browse_select,
            inputs=None,
            outputs=[b_rule],
            api_visibility="private",
            concurrency_limit=None,
        )

        def sync_choices() -> None:
            # The components' own choices are what an API call (no page session) is
            # checked against: keep them in step with the games a rulebook added.
            chat_now, browse_now, source_now = h.choices()
            game.choices = list[Any](chat_now)
            b_game.choices = list[Any](browse_now)
            s_game.choices = list[Any](source_now)

        def add(
            upload: Any,
            game_choice: str | None,
            slug: str | None,
            name: str | None,
            edition: str | None,
            replace: bool,
            progress: gr.Progress = PROGRESS,
        ) -> tuple[str, Any, str | None]:
            result = h.add_rulebook_to(
                upload, game_choice, progress, slug, name, edition, bool(replace)
            )
            if result[2] is not None:
                sync_choices()
            return result

        def after_add(
            slug: str | None, chat_choice: str | None, browse_choice: str | None
        ) -> tuple[Any, ...]:
            if not slug:  # refused: leave the form as it was, to be fixed
                return (gr.skip(),) * 7
            return (
                *h.selectors(chat_choice, browse_choice, slug),
                gr.Column(visible=False),
                "",
                "",
                "",
            )

        s_game.change(
            lambda choice: gr.Column(visible=choice == NEW_GAME),
            inputs=[s_game],
            outputs=[s_new],
            api_visibility="private",
            queue=False,
        )

        def removable() -> Any:
            return gr.Dropdown(choices=h.added_files(), value=None)

        s_add.click(
            add,
            inputs=[s_file, s_game, s_slug, s_name, s_edition, s_replace],
            outputs=[s_status, s_table, added],
            api_name="add_rulebook",
        ).then(
            after_add,
            inputs=[added, game, b_game],
            outputs=[game, b_game, s_game, s_new, s_slug, s_name, s_edition],
            api_visibility="private",
        ).then(removable, outputs=[s_remove_file], api_visibility="private", queue=False).then(
            h.browse_game,
            inputs=[b_game, b_text, b_show],
            outputs=[b_section, *browse_outputs],
            **in_order,
        )

        def remove(file: str | None) -> tuple[str, Any, bool]:
            result = h.remove_rulebook(file)
            if result[2]:
                sync_choices()
            return result

        def after_remove(
            removed: bool, chat_choice: str | None, browse_choice: str | None, source: str | None
        ) -> tuple[Any, ...]:
            if not removed:
                return (gr.skip(),) * 4
            return (*h.selectors(chat_choice, browse_choice, source), removable())

        removed = gr.State(False)
        s_remove.click(
            remove,
            inputs=[s_remove_file],
            outputs=[s_status, s_table, removed],
            api_name="remove_rulebook",
        ).then(
            after_remove,
            inputs=[removed, game, b_game, s_game],
            outputs=[game, b_game, s_game, s_remove_file],
            api_visibility="private",
        ).then(
            h.browse_game,
            inputs=[b_game, b_text, b_show],
            outputs=[b_section, *browse_outputs],
            **in_order,
        )

        def on_load(
            chat_choice: str,
            source_choice: str | None,
            game_choice: str,
            section: str,
            text: str,
            show: str,
            kept: Any,
        ) -> tuple[Any, ...]:
            # The conversation this browser had before a reload (a phone that
            # locked, a pull-to-refresh at the table), in the game it was in.
            chat, topic_then, game_then = restored(kept)
            # The games as they are now: another visitor may have added one.
            return (
                *h.selectors(game_then or chat_choice, game_choice, source_choice),
                h.sources_table(),
                removable(),
                *h.browse_game(game_choice, text, show),
                chat if chat else gr.skip(),
                topic_then if chat else gr.skip(),
            )

        demo.load(
            on_load,
            inputs=[game, s_game, *browse_inputs, kept_chat],
            outputs=[
                game,
                b_game,
                s_game,
                s_table,
                s_remove_file,
                b_section,
                *browse_outputs,
                chatbot,
                topic,
            ],
            **in_order,
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
