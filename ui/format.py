"""Pure formatting for the Gradio page: no Gradio, no service, easy to test.

Everything that came from a rulebook or a user goes through ``esc`` before it
is put into HTML. ``esc`` escapes HTML and also turns the characters that
Markdown, LaTeX and Gradio's HTML templates give meaning to into numeric
entities, so a rulebook holding ``<script>``, ``**bold**``, ``[link](x)``,
``$x$`` or ``${value}`` shows exactly that text, in a chat bubble (rendered as
Markdown) as well as in an HTML panel.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ruleslawyer.ingest.normalize import find_span
from ruleslawyer.records import VERDICTS, first_game_first, shown_quote, verdict_words

# Characters that mean something to Markdown (marked), KaTeX or the gr.HTML
# template engine; as numeric entities they are shown and never interpreted.
# Line-start markers (#, -, 1.) need no escaping: newlines become <br>, so no
# escaped text ever starts a Markdown line.
_MD_TABLE = str.maketrans({ch: f"&#{ord(ch)};" for ch in "\\`*_{}[]|~$@"})
_AUTOLINK = re.compile(r"(?i)(://|www\.)")
# Control characters are not allowed in HTML text (NUL, ESC, DEL, C1...): shown
# as U+FFFD. Tab, newline, carriage return and form feed are whitespace and kept.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
# Defence in depth for text that is already escaped (so it is never markup):
# no "javascript:"-style scheme and no "onerror="-style handler survives even
# as plain text, in case a later renderer (Markdown, a sanitizer) re-parses it.
_SCHEME = re.compile(r"(?i)\b(javascript|vbscript|data)(\s*):")
_HANDLER = re.compile(r"(?i)\b(on[a-z]+)(\s*)=")


def _defang(escaped: str) -> str:
    escaped = _SCHEME.sub(lambda m: f"{m.group(1)}{m.group(2)}&#58;", escaped)
    return _HANDLER.sub(lambda m: f"{m.group(1)}{m.group(2)}&#61;", escaped)


TITLE_SOURCES: dict[str, str] = {
    "printed": "printed",
    "body": "recovered from the rule text",
    "nav": "recovered from page navigation",
    "chapter": "taken from the chapter heading",
    "manifest": "supplied by the rulebook manifest",
    "first-words": "first words (no printed title)",
}


# --- escaping -------------------------------------------------------------------
def esc(text: str) -> str:
    """Text -> HTML that shows it literally, even inside Markdown; newlines -> <br>."""
    text = _CONTROLS.sub("\ufffd", str(text))
    escaped = html.escape(text, quote=True).translate(_MD_TABLE)
    # No bare URL becomes a link: break "://" and "www." with an entity.
    escaped = _AUTOLINK.sub(lambda m: m.group(1)[:-1] + f"&#{ord(m.group(1)[-1])};", escaped)
    return _defang(escaped).replace("\r\n", "\n").replace("\n", "<br>")


def esc_attr(text: str) -> str:
    """Text for an HTML attribute value (in double quotes)."""
    text = " ".join(_CONTROLS.sub("\ufffd", str(text)).split())
    return _defang(html.escape(text, quote=True).replace("$", "&#36;").replace("{", "&#123;"))


# --- verdicts and citations --------------------------------------------------------
def badge_text(verdict: str, source: str = "") -> str:
    """The badge's words: the book's own yes/no plainly, a model's as "Likely yes"."""
    return verdict_words(verdict, source)


def badge_html(verdict: str, source: str = "") -> str:
    v = verdict if verdict in VERDICTS else "answer"  # each has a badge style
    # A model's "likely" verdict never wears the solid green/red of a certain one.
    css = f"{v}-likely" if v in ("yes", "no") and source != "faq" else v
    return f'<span class="rl-badge rl-badge-{css}">{esc(badge_text(v, source))}</span>'


def page_of(unit: Any, quotes: Sequence[str] = ()) -> int | None:
    """The page of the first of ``quotes`` (else the page the unit starts on),
    when its format has pages (PDF); else None."""
    finder = getattr(unit, "page_of", None)
    if finder is not None:
        return finder(quotes[0] if quotes else "")
    return getattr(getattr(unit, "source", None), "page", None)


def chip_label(unit: Any, quotes: Sequence[str] = ()) -> str:
    """What a chip says: the unit's label and, when known, the page of its quote:
    ``40k 24.21 [LANCE]``, ``skirmishers Line of Sight · p. 9``."""
    page = page_of(unit, quotes)
    return str(unit.label) + (f" · p. {page}" if page is not None else "")


def group_citations(citations: Sequence[Any]) -> list[tuple[Any, list[str]]]:
    """One entry per cited rule, in order: (unit, its distinct quotes)."""
    groups: dict[tuple[str, str], tuple[Any, list[str]]] = {}
    for c in citations:
        _, quotes = groups.setdefault((c.unit.game, c.unit.rule_id), (c.unit, []))
        if c.quote and c.quote not in quotes:
            quotes.append(c.quote)
    return list(groups.values())


def chip_value(unit: Any, quotes: Sequence[str]) -> str:
    """What a chip carries to the Rule panel: JSON [game, rule_id, [quotes]].

    It rides in the button's ``value`` attribute: the chat's HTML sanitizer
    keeps ``value`` but drops ``data-*`` attributes.
    """
    return json.dumps([unit.game, unit.rule_id, list(quotes)], ensure_ascii=False)


def parse_chip_value(value: Any) -> tuple[str, str, list[str]] | None:
    """The inverse of ``chip_value``; None for anything malformed."""
    try:
        data = json.loads(value)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, list) or len(data) != 3:
        return None
    game, rule_id, quotes = data
    if isinstance(quotes, str):
        quotes = [quotes]
    if not (isinstance(game, str) and isinstance(rule_id, str) and isinstance(quotes, list)):
        return None
    if not rule_id or not all(isinstance(q, str) for q in quotes):
        return None
    return game, rule_id, quotes


def chip_html(unit: Any, quotes: Sequence[str], label: str = "") -> str:
    """A clickable chip; the page script sends its value to the Rule panel."""
    return (
        f'<button type="button" class="rl-chip" value="{esc_attr(chip_value(unit, quotes))}" '
        f'title="Show the whole rule">{esc(label or chip_label(unit, quotes))}</button>'
    )


def closest_html(answer: Any, count: int = 3) -> str:
    """A turned-away answer's closest rules as chips, so the player can open them
    (the answer's text names them too, for the clipboard and the CLI). Two with
    one label ("Melee Combat" of two books or sections) say which section."""
    if answer.verdict != "not_found" or answer.citations:
        return ""
    hits = list(getattr(answer.search, "hits", ()) or ())[:count]
    if not hits:
        return ""
    labels = [chip_label(h.unit) for h in hits]
    chips = []
    for h, label in zip(hits, labels, strict=True):
        if labels.count(label) > 1 and h.unit.parent:
            label = f"{label} ({h.unit.parent.rsplit(' > ', 1)[-1]})"
        chips.append(chip_html(h.unit, [], label))
    return (
        '<div class="rl-chips rl-closest"><span class="rl-note">Closest rules:</span>'
        + "".join(chips)
        + "</div>"
    )


def chips_html(citations: Sequence[Any]) -> str:
    """One chip per cited rule (a rule quoted twice gets one chip marking both);
    those of another game than the first one's after them, under "Other games:"
    (asked across games, they read as more rules of the same game)."""
    groups = group_citations(citations)
    if not groups:
        return ""
    own, others = first_game_first(groups, lambda g: str(g[0].game))
    chips = [chip_html(u, q) for u, q in own]
    if others:
        chips += ['<span class="rl-note">Other games:</span>']
        chips += [chip_html(u, q) for u, q in others]
    return '<div class="rl-chips">' + "".join(chips) + "</div>"


def _spans(text: str, quotes: Sequence[str]) -> list[tuple[int, int]]:
    spans = []
    for quote in quotes:
        if not quote or not quote.strip():
            continue
        start = text.find(quote)
        span = (start, start + len(quote)) if start >= 0 else find_span(text, quote)
        if span:
            spans.append(span)
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(b, merged[-1][1]))
        else:
            merged.append((a, b))
    return merged


def highlight(text: str, quotes: str | Sequence[str] | None) -> str:
    """The rule text escaped, with each quoted span (found verbatim or loosely) in <mark>."""
    if isinstance(quotes, str):
        quotes = [quotes]
    out, pos = [], 0
    for a, b in _spans(text, quotes or ()):
        out.append(esc(text[pos:a]) + '<mark class="rl-mark">' + esc(text[a:b]) + "</mark>")
        pos = b
    out.append(esc(text[pos:]))
    return "".join(out)


def title_note(unit: Any) -> str:
    """Why a rule's title may not be printed, or '' when it is."""
    notes = []
    if unit.title_inferred and unit.title_source:
        notes.append(f"title {TITLE_SOURCES.get(unit.title_source, unit.title_source)}")
    if unit.merged:
        copies = unit.merged + 1
        notes.append(f"printed {copies} times in the source; duplicates merged")
    return "; ".join(notes)


def rule_where(unit: Any) -> str:
    """Where a rule is: its heading breadcrumb, file and page,
    e.g. ``Infantry > Combat · skirmishers.pdf p. 9``."""
    source = unit.source
    # "rules.pdf pp. 20-21" for a rule over two pages
    place = source.where if source.file and source.page is not None else source.file
    return " · ".join(x for x in (unit.parent, place) if x)


def rule_html(unit: Any, quote: str | Sequence[str] | None = None) -> str:
    """The Rule panel: label, where it comes from, full text with the quote marked."""
    where = rule_where(unit)
    note = title_note(unit)
    parts = [
        '<div class="rl-rule">',
        f'<div class="rl-rule-head">{esc(unit.label)}</div>',
        f'<div class="rl-rule-meta">{esc(where)}</div>' if where else "",
        f'<div class="rl-rule-note">{esc(note)}</div>' if note else "",
        f'<div class="rl-rule-text">{highlight(unit.text, quote)}</div>',
    ]
    if unit.refs:
        parts.append(f'<div class="rl-rule-meta">Refers to: {esc(", ".join(unit.refs))}</div>')
    parts.append("</div>")
    return "".join(parts)


def placeholder_html(text: str) -> str:
    return f'<div class="rl-placeholder">{esc(text)}</div>'


def one_line(message: str) -> str:
    """The first line of an error message: what the page shows, never a traceback."""
    return message.strip().splitlines()[0] if message.strip() else "unknown error"


def error_html(message: str) -> str:
    return f'<div class="rl-error">{esc(one_line(message))}</div>'


def ok_html(message: str) -> str:
    return f'<div class="rl-ok">{esc(message)}</div>'


# --- chat messages ---------------------------------------------------------------------
def user_html(message: str) -> str:
    return f'<div class="rl-user">{esc(message)}</div>'


def searched_html(query: str | None) -> str:
    if not query:
        return ""
    return f'<div class="rl-searched">Searched for: {esc(query)}</div>'


def pending_html(query: str | None, partial: str = "") -> str:
    """An answer still being written: what is there so far and a cursor."""
    body = esc(partial) if partial else '<span class="rl-wait">Looking up the rules…</span>'
    return (
        f'<div class="rl-answer rl-streaming">{searched_html(query)}'
        f'<div class="rl-text">{body}<span class="rl-cursor">▍</span></div></div>'
    )


def game_display(game: str | None, names: Mapping[str, str] | None = None) -> str:
    """A game as the page shows it: its display name from ``names`` (slug -> name), or the slug."""
    if not game:
        return "all games"
    return (names or {}).get(game) or game


def answer_html(
    answer: Any, query: str | None = None, names: Mapping[str, str] | None = None
) -> str:
    """The finished answer: badge, text, citation chips, notes.

    ``names`` maps game slugs to display names (``GameInfo.display``).
    """
    scope = game_display(answer.game, names)
    meta = f"{scope} · {answer.model}"
    parts = [
        '<div class="rl-answer rl-done">',
        searched_html(query),
        f'<div class="rl-head">{badge_html(answer.verdict, answer.verdict_source)}'
        f'<span class="rl-meta">{esc(meta)}</span></div>',
        f'<div class="rl-text">{esc(answer.answer)}</div>',
        chips_html(answer.citations),
        closest_html(answer),
    ]
    for note in answer.notes:
        parts.append(f'<div class="rl-note">{esc(note)}</div>')
    parts.append("</div>")
    return "".join(parts)


def error_answer_html(message: str, query: str | None = None) -> str:
    return f'<div class="rl-answer rl-failed">{searched_html(query)}{error_html(message)}</div>'


def plain_answer(answer: Any) -> str:
    """The answer as plain text, for the clipboard."""
    lines = [f"[{badge_text(answer.verdict, answer.verdict_source)}] {answer.answer}"]
    for c in answer.citations:
        quoted = f'"{shown_quote(c.quote)}"'
        if quoted in answer.answer:
            continue  # the answer's own quote, said once (the CLI's "quoted above")
        lines.append(f"{chip_label(c.unit, [c.quote])}: {quoted}")
    return "\n".join(lines)


def stream_words(text: str) -> Iterable[str]:
    """Progressively longer prefixes of ``text``, one word more each time."""
    for m in re.finditer(r"\S+", text):
        yield text[: m.end()]


# --- the Sources table ------------------------------------------------------------------
def format_label(row: Mapping[str, Any]) -> str:
    """A rulebook's format, with the text parser used: ``PDF``, ``text (numbered)``."""
    from ruleslawyer.errors import InputError
    from ruleslawyer.ingest.formats import by_name

    name = str(row.get("format") or "text")
    try:
        label = by_name(name).label or name
    except InputError:  # a library written by a version with another format
        label = name
    parser = str(row.get("parser") or "")
    return f"{label} ({parser})" if parser and parser != name else label


def left_out(row: Mapping[str, Any]) -> str:
    """What ingest left out of a rulebook, most first:
    ``28 running headers and footers, 8 table of contents lines``."""
    dropped = row.get("dropped") or {}
    counts = sorted(
        ((int(n), str(why)) for why, n in dropped.items() if n), key=lambda c: (-c[0], c[1])
    )
    parts = [f"{n} {why}" for n, why in counts]
    furniture = [str(f) for f in row.get("furniture") or ()]
    if furniture:
        chars = int(row.get("furniture_chars") or 0)
        size = f" ({chars:,} characters)" if chars else ""
        parts.append(", ".join(furniture) + size)
    return ", ".join(parts)


def source_rows(
    rows: Sequence[Mapping[str, Any]], names: Mapping[str, str] | None = None
) -> list[list[Any]]:
    """The Sources table: one row per rulebook file, grouped by game in ``names``' order.

    Columns: game, file, format, units, pages, left out, warnings.
    """
    names = names or {}
    order = {slug: i for i, slug in enumerate(names)}
    ranked = sorted(
        rows,
        key=lambda r: (
            order.get(str(r.get("game")), len(order)),
            str(r.get("game")),
            str(r.get("file")),
        ),
    )
    return [
        [
            game_display(str(r.get("game") or ""), names),
            str(r.get("file") or ""),
            format_label(r),
            int(r.get("units") or 0),
            int(r.get("pages") or 0) or "",
            left_out(r),
            "; ".join(one_line(str(w)) for w in r.get("warnings") or ()),
        ]
        for r in ranked
    ]


# --- follow-up questions ---------------------------------------------------------------
_FOLLOW_UP_OPENERS = (
    "what about",
    "how about",
    "and if",
    "what if",
    "but what",
    "but if",
    "and what",
    "and can",
    "and does",
    "and ",
    "also ",
    "same for",
    "same with",
    "even if",
    "then ",
    "so ",
    "or ",
)
# ("one" as a pronoun, "what about one with a shield?"; not the number of
# "cast twice in one activation"; "ones": "even the invisible ones??")
_PRONOUNS = re.compile(
    r"\b(?:it|its|that|thats|they|theyre|them|their|this|those|these|he|she|ones)\b"
    r"|\bone\b(?=\s+(?:with|that|who|which|of|in|on|if)\b|\s*[?.!,]|\s*$)",
    re.I,
)
_RULE_REF = re.compile(r"\d{1,2}\.\d{1,2}|\[[A-Z][A-Z -]+(?: \d+\+?)?\]")
# "it" standing for nothing: "how many AP does it cost to shoot?", "is it possible
# to move through a doorway?", "is it legal to charge twice?". English grammar, in
# any game: the question names its subject after the "to".
# ("does it need to be visible?" keeps its "it": only costs and "is it possible to".)
_EXPLETIVE_IT = re.compile(
    r"\bit\s+(?:costs?|takes?)\b(?:\s+\w+){0,3}?\s+to\s+\w+"
    r"|\b(?:is|it's|would)\s+(?:it\s+)?(?:be\s+)?(?:even\s+)?"
    r"(?:possible|impossible|legal|illegal|ok|okay|fine|necessary|allowed|permitted)\s+to\s+\w+"
    r"|\bis\s+it\s+true(?:\s+that)?\b",
    re.I,
)
# Asked like the last one: "can heroes do them too?", "monsters as well?"
_LIKE_THE_LAST = re.compile(r"\b(?:too|as well|either)\W*$", re.I)
# How many of what: "how many can I use per phase?"
_ELLIPTICAL = re.compile(
    r"^how\s+(?:many|much)\s+(?:can|could|do|does|did|is|are|may|must|should|will|would)"
    r"\s+(?:i|we|you|they|he|she)\b",
    re.I,
)
# A short question that names what it asks about: "what's trample", "what is a
# Warlord?", "Overwatch rules", "rules for terrain"
_ASKS_WHAT = re.compile(
    r"^(?:what|who)(?:'s|s|\s+is|\s+are)\s+(?:(?:a|an|the)\s+)?(?!it\b|that\b|this\b|those\b|these\b|they\b|them\b)[^\W\d_]",
    re.I,
)
_ASKS_FOR_RULES = re.compile(r"\brules?\W*$|^rules?\s+(?:for|on|about|of)\b", re.I)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Whether a question names what its pronoun stands for is told by English
# grammar, not by a list of one game's nouns (a hand-written one knew only the
# seeds' "warjacks" and "stratagems"): a noun after a determiner ("a unit", "my
# warcaster"), in a question's subject place ("can units ..."), or opening a
# clause ("when units charge, do they ...") before the first pronoun is what it
# stands for, "it" a singular one ("Do punts ignore it?" asks about the last
# rule). A pronoun after a preposition ("the range on it", "an exception for
# them") points back whatever came before it. "Can it shoot?", "Can I charge
# them?" name nothing before their pronoun: they ask about the previous
# question's subject. Chosen on the first half of a labelled set of follow-ups
# (``python -m benchmarks followups``), reported on the second.
_AUXILIARIES = _words(
    "can could may might must shall should will would do does did is are was were am has have "
    "had can't cant cannot couldn't don't dont doesn't doesnt didn't didnt isn't isnt aren't "
    "arent won't wont wouldn't shouldn't mustn't wasn't weren't hasn't haven't"
)
_DETERMINERS = _words("a an the my your our each every any another some all both either neither no")
_OPENS_CLAUSE = _words(
    "when whenever if after before while once until unless because since as though although"
)
_PREPOSITIONS = _words(
    "on for to with at against of from by about in into onto near through over under behind "
    "without within toward towards"
)
_FUNCTION_WORDS = (
    _AUXILIARIES
    | _DETERMINERS
    | _OPENS_CLAUSE
    | _PREPOSITIONS
    | _words(
        "what which who whom whose why how where many much far long often and or but so then "
        "also even still just only not never i you we me us there be been being get gets ok "
        "okay hmm yeah"
    )
)
_WORD_OF_QUESTION = re.compile(r"[\w\[\]][\w\[\]'+.\-]*[\w\]]|[\w\[\]]")


def _names_its_subject(before: str, pronoun: str) -> bool:
    """Does the text before a question's first pronoun name what it stands for?"""
    words = _WORD_OF_QUESTION.findall(before.lower())
    if words and words[-1] in _PREPOSITIONS and pronoun not in ("its", "their"):
        return False  # "the range on it": it points back ("with its pistols" may not)
    first_aux = next((i for i, w in enumerate(words) if w in _AUXILIARIES), None)
    for i, word in enumerate(words):
        if word in _FUNCTION_WORDS or not word[:1].isalpha():
            continue  # (a rule number names no subject: "does 13.4 change that?")
        before_it = words[i - 1] if i else ""
        subject = (
            before_it in _DETERMINERS
            or before_it in _OPENS_CLAUSE
            or (i - 1 == first_aux and "who" not in words[: i - 1])
        )
        plural = word.endswith("s") and not word.endswith(("ss", "us", "is"))
        if subject and not (pronoun in ("it", "its") and plural):
            return True
    return False


def _referring_pronoun(text: str) -> re.Match[str] | None:
    """The first pronoun of ``text`` that may point back: "that" just after a
    noun, with words after it, opens a clause about it ("models that flee"),
    and is none."""
    for m in _PRONOUNS.finditer(text):
        if m.group(0) == "that" and re.match(r"\s*\w", text[m.end() :]):
            # (at the end it points back: "does 13.4 change that?")
            before = _WORD_OF_QUESTION.findall(text[: m.start()])
            if before and before[-1] not in _FUNCTION_WORDS and before[-1][:1].isalpha():
                continue
        return m
    return None


def is_follow_up(
    message: str, previous: str | None, names_a_rule: Callable[[str], bool] | None = None
) -> bool:
    """Whether ``message`` only makes sense after ``previous`` (a short follow-up).

    ``names_a_rule`` says whether a short message is the name or number of one
    of the loaded rules ("Deep Strike?"): such a message asks about that rule,
    not about the previous question. Without it, a message of three words or
    fewer, with no rule number and not asking what something is ("what's
    trample"), is taken as a follow-up."""
    if not previous or not previous.strip():
        return False
    text = " ".join(message.replace("\u2019", "'").split())
    low = text.lower()
    words = low.split()
    if not words:
        return False
    if any(low.startswith(o) for o in _FOLLOW_UP_OPENERS) and len(words) <= 14:
        return True
    plain = _EXPLETIVE_IT.sub(" ", low)
    if len(words) <= 12:
        if _LIKE_THE_LAST.search(low) or (_ELLIPTICAL.match(low) and plain == low):
            return True
        pronoun = _referring_pronoun(plain)
        if pronoun is not None:
            if pronoun.group(0) in ("one", "ones"):
                return True  # "the invisible ones": ones of what the last asked about
            return not _names_its_subject(plain[: pronoun.start()], pronoun.group(0))
    if _RULE_REF.search(text):
        return False  # names its own rule: a question of its own
    if len(words) > 3 or _ASKS_WHAT.match(low) or _ASKS_FOR_RULES.search(low):
        return False
    return not (names_a_rule is not None and names_a_rule(text))


def rewrite_query(
    message: str, previous: str | None, names_a_rule: Callable[[str], bool] | None = None
) -> tuple[str, bool]:
    """The retrieval query for ``message``: with the previous question when it is a follow-up."""
    message = " ".join(message.split())
    if previous and is_follow_up(message, previous, names_a_rule):
        return f"{' '.join(previous.split())} {message}", True
    return message, False
