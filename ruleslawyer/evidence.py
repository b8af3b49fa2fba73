"""Pick the sentences that answer a question out of the retrieved rules.

A 1,500-character rule is a poor answer; the sentence in it that decides the
question is a good one. Sentences are scored by meaning (MiniLM cosine
against the question) and by shared rare words (IDF-weighted overlap), with
a bonus for the retriever's rank. Every quote is a span of the unit's
original text, so it is verbatim by construction.

A list item ("It is battle-shocked.") means nothing without the line that
introduces it ("A unit is eligible to start an action unless one or more of
the following apply to that unit:"), so a chosen item is widened back to
its list header when that is close; and the header means nothing without
its items, so a chosen header is widened on to them. Where the items are
rules of their own, numbered under the header's rule ("702.3. The state
checks are:" over "702.3a ...", as card games number them), they follow it
as quotes of their own (``list_items``). A table row ("60 Degrees 2 4") or a
table's header ("Shots AP Cost") means nothing without the rest of the
table, so a chosen line of a table is widened to the whole table, and to
the line introducing it when that ends in a colon. The PDF, HTML and
Markdown readers write a table as a run of lines, a row each (cells joined
by " | " from HTML and Markdown; in a PDF, a short line set apart by
spaces); that layout, not any word, is what marks it. A table longer than
a quote is quoted from its header down to the chosen row. (The plain-text
fallback keeps blank lines between blocks, so its tables are not widened.)
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ruleslawyer.ingest.embed import Embedder
from ruleslawyer.ingest.units import trim_span
from ruleslawyer.records import Hit, RuleUnit, numbered_under
from ruleslawyer.retrieval.sentences import SentenceVectors, sentence_spans, span_text
from ruleslawyer.retrieval.tokens import tokenize

MAX_HEADER_GAP = 420
# A rule this short is quoted whole: its sentences only make sense together.
WHOLE_UNIT_CHARS = 400
# A word used by at least this share of the loaded rules is the rulebooks'
# common vocabulary ("move", "unit", "make"), not a condition of an FAQ question.
COMMON_SHARE = 0.05
# A sentence's score: meaning (MiniLM cosine with the question), shared rare
# words, and a bonus for its rule's retrieval rank and fused score. A grid over
# these on *fit* (27 settings) found no rank bonus better there (facts shown
# 0.805 -> 0.832), but it tied on *choose* (facts 0.800, rule cited 0.925), so
# the incumbent weights stay.
W_MEANING = 0.55
W_WORDS = 0.45
W_RANK = 0.08
W_RETRIEVER = 0.03
# What is left of an overlapping second quote is dropped below this.
MIN_QUOTE_WORDS = 4
# A table: at least TABLE_ROWS consecutive rows (see ``_table_row``: a short
# line that is no sentence or list item, or cells joined by " | "), quoted
# whole when it is no longer than TABLE_CHARS.
TABLE_ROWS = 3
TABLE_ROW_CHARS = 80
TABLE_CHARS = 600
_SENTENCE_END = re.compile(r"[.!?:;,][\"'\u2019\u201d)\]]*$")
_LIST_MARK = re.compile(r"^(?:[-*+\u2013\u25aa\u2022]|\d+[.)]|\(?[a-zA-Z]\))\s")


# A list quoted after its header: items up to this many characters in all (a
# display length, as TABLE_CHARS is; nothing fitted).
LIST_CHARS = 800
# A line longer than this is running text, not a list item.
ITEM_CHARS = 120


@dataclass(frozen=True)
class Evidence:
    unit: RuleUnit
    start: int
    end: int
    score: float
    # An item of the list the quote before it introduces (``list_items``): the
    # answer shows it with that quote.
    item: bool = False

    @property
    def quote(self) -> str:
        return self.unit.text[self.start : self.end]


class EvidencePicker:
    def __init__(
        self,
        embedder: Embedder,
        units: Sequence[RuleUnit],
        vectors: SentenceVectors | None = None,
    ) -> None:
        """``vectors``: the sentence cache the retriever fills (its top rules'
        sentences are the ones quoted), else a cache of its own."""
        self.embedder = embedder
        self.vectors = vectors or SentenceVectors(embedder)
        self.units = units
        df: dict[str, int] = {}
        for u in units:
            for t in set(tokenize(u.search_text)):
                df[t] = df.get(t, 0) + 1
        n = max(1, len(units))
        self.idf = {t: math.log(1 + n / c) for t, c in df.items()}
        self.default_idf = math.log(1 + n)
        self._share = {t: c / n for t, c in df.items()}

    def missing_conditions(self, question: str, narrower: str) -> list[str]:
        """The words of ``narrower`` (an FAQ's question) that ``question`` lacks and
        that could be a condition: words under ``COMMON_SHARE`` of the loaded rules
        use. "Can a unit embark within a TRANSPORT after making a scout move?"
        answers "Can a unit embark within a transport?" only if scouting is asked
        about too; "make" and "move", which most rules use, are not conditions."""
        asked = set(tokenize(question))
        return [
            t
            for t in dict.fromkeys(tokenize(narrower))
            if t not in asked and self._share.get(t, 0.0) < COMMON_SHARE
        ]

    def opening(self, unit: RuleUnit, score: float) -> Evidence | None:
        """The first sentence of ``unit`` (all of a short one), quoted as a picked
        sentence is: for a question that asks for nothing but the rule."""
        text = unit.text
        spans = [(0, len(text))] if len(text) <= WHOLE_UNIT_CHARS else sentence_spans(text)
        if not spans:
            return None
        start, end = spans[0]
        if len(spans) > 1 and _run_in_label(text, end, spans[1][0]):
            end = spans[1][1]  # "Pierce:" says nothing without its sentence
        return with_context(Evidence(unit, start, end, score))

    def items(self, header: Evidence) -> list[Evidence]:
        """The rules that are the items of the list ``header`` introduces (``list_items``)."""
        return list_items(header, self.units)

    def _lexical(self, q_tokens: set[str], sentence: str) -> float:
        s_tokens = set(tokenize(sentence))
        if not q_tokens:
            return 0.0
        shared = sum(self.idf.get(t, self.default_idf) for t in q_tokens & s_tokens)
        total = sum(self.idf.get(t, self.default_idf) for t in q_tokens)
        return shared / total if total else 0.0

    def pick(
        self, question: str, hits: Sequence[Hit], *, per_unit: int = 1, units: int = 3
    ) -> list[Evidence]:
        """Best sentences, at most ``per_unit`` from each of the top ``units`` hits."""
        candidates: list[tuple[int, Hit, int, int]] = []
        after: dict[tuple[tuple[str, str], int], int] = {}  # a span's start -> the next's end
        for rank, hit in enumerate(hits[:units]):
            text = hit.unit.text
            spans = [(0, len(text))] if len(text) <= WHOLE_UNIT_CHARS else sentence_spans(text)
            for (s, e), nxt in zip(spans, [*spans[1:], None], strict=True):
                candidates.append((rank, hit, s, e))
                if nxt is not None and _run_in_label(text, e, nxt[0]):
                    after[(hit.unit.key, s)] = nxt[1]
        if not candidates:
            return []
        texts = [span_text(h.unit.text, s, e) for _, h, s, e in candidates]
        vecs = self.vectors.embed([question, *texts])
        cos = vecs[1:] @ vecs[0]
        q_tokens = set(tokenize(question))
        scored: list[Evidence] = []
        for (rank, hit, s, e), c, text in zip(candidates, cos, texts, strict=True):
            lex = self._lexical(q_tokens, text)
            score = (
                W_MEANING * float(c) + W_WORDS * lex + W_RANK / (1 + rank) + W_RETRIEVER * hit.score
            )
            # A run-in label ("Pierce:") matches a question naming it, but says
            # nothing alone: it is quoted with the sentence it opens.
            scored.append(Evidence(hit.unit, s, after.get((hit.unit.key, s), e), score))
        best: dict[tuple[str, str], list[Evidence]] = {}
        for ev in sorted(scored, key=lambda ev: ev.score, reverse=True):
            lst = best.setdefault(ev.unit.key, [])
            if len(lst) < per_unit:
                lst.append(ev)
        order = [h.unit.key for h in hits[:units]]
        out: list[Evidence] = []
        for key in order:
            kept: list[Evidence] = []
            for ev in best.get(key, []):
                rest = without_overlap(with_context(ev), kept)
                if rest is not None:
                    kept.append(rest)
            out.extend(kept)
        return out


LABEL_WORDS = 4  # "Pierce:", "Line of sight:"


def _run_in_label(text: str, end: int, next_start: int) -> bool:
    """Is the span ending at ``end`` a run-in label: a few words and a colon,
    with the sentence it opens after it on the same line (a bold "Pierce:"
    before its rule)? A lead-in before a list on the next lines is not."""
    line_start = text.rfind("\n", 0, end) + 1
    label = text[line_start:end].strip()
    return (
        label.endswith(":")
        and len(label.split()) <= LABEL_WORDS
        and "\n" not in text[end:next_start]
    )


def without_overlap(ev: Evidence, kept: Sequence[Evidence]) -> Evidence | None:
    """The part of ``ev`` no quote already ``kept`` from its rule shows.

    Two items of one list both widen back to the list's header; shown as they
    are, the player reads the header and the first item twice. The longest
    uncovered piece is kept (still a verbatim span), or nothing when what is
    left is too short to say anything.
    """
    pieces = [(ev.start, ev.end)]
    for k in kept:
        pieces = [
            part
            for s, e in pieces
            for part in ((s, min(e, k.start)), (max(s, k.end), e))
            if part[1] > part[0]
        ]
    if pieces == [(ev.start, ev.end)]:
        return ev
    text = ev.unit.text
    trimmed = []
    for s, e in pieces:
        while s < e and text[s] in " \t\n:;,.":
            s += 1
        trimmed.append((s, e))
    best = max(trimmed, key=lambda p: p[1] - p[0], default=None)
    if best is None or len(text[best[0] : best[1]].split()) < MIN_QUOTE_WORDS:
        return None
    return Evidence(ev.unit, best[0], best[1], ev.score)


def with_context(ev: Evidence) -> Evidence:
    """The chosen span with what it cannot be read without: the header of its
    list, the list its header introduces, or the rest of its table (with its
    introduction, "...as follows:")."""
    table = with_table(ev)
    if table != ev:
        return with_introduction(table)
    answered = with_its_answer(ev)
    if answered != ev:
        return answered
    return with_list_header(with_following_items(ev))


# an FAQ's marks of its question, opening its line, and of its answer, on the
# question's line or the next
_QUESTION_MARK = re.compile(r"[ \t]*Q[ \t]*[:.][ \t]*")
_ANSWER_MARK = re.compile(r"(?:(?<=\s)|^)A[ \t]*[:.][ \t]*(?=\S)", re.M)
# another entry's question mark between a question and an answer (the text
# reader may have joined the two entries' lines)
_NEXT_QUESTION = re.compile(r"(?:^|\s)(?:q|question)[ \t]*[:.]", re.I | re.M)


def with_its_answer(ev: Evidence) -> Evidence:
    """An FAQ's question ("Q: Does a critical hit ignore hard cover?") quoted
    with its "Q:" and its answer ("A: Yes, a critical hit ignores all cover."),
    on its line or the next: the question alone answers nothing, and widened
    back as a list's item is, to the line before, the entry before's answer
    ("No, only enemy fighters...") read as its own. Any sentence of a question
    of several ("Q: My Leader was removed as a casualty. Can I still rally?")
    stands for the whole entry: its first alone was quoted as the answer."""
    text = ev.unit.text
    line_start = text.rfind("\n", 0, ev.start) + 1
    question = _QUESTION_MARK.match(text, line_start)
    if question is None or question.end() > ev.start:
        return ev
    answer = _ANSWER_MARK.search(text, question.end())
    # the chosen sentence is the question's: its answer's mark comes after it,
    # on the question's line or the next
    if answer is None or answer.start() < ev.end or text.count("\n", ev.end, answer.start()) > 1:
        return ev
    if _NEXT_QUESTION.search(text, ev.end, answer.start()):
        return ev  # the entry has no answer: the next one's is not its
    if text.count("\n", question.end(), ev.start):
        return ev
    end = text.find("\n", answer.end())
    end = len(text) if end < 0 else end
    if end - line_start > LIST_CHARS:
        return ev
    s, e = trim_span(text, line_start, end)
    return Evidence(ev.unit, s, e, ev.score)


def introduces_list(quote: str) -> bool:
    """Does the quote end as a list's header does, in a colon?"""
    return quote.rstrip().rstrip("\"'\u2019\u201d").endswith(":")


def with_following_items(ev: Evidence) -> Evidence:
    """A chosen list header ("...unless one or more of the following apply:")
    widened on to the items on the lines after it, up to ``LIST_CHARS``. Not a
    sentence going on after its colon ("Roll a D6: if the result..."): the items
    start on a line of their own, and each is a short line."""
    text = ev.unit.text
    if not introduces_list(ev.quote) or not text[ev.end :].lstrip(" \t").startswith("\n"):
        return ev
    first = text[ev.end :].lstrip()
    if first[:1].islower() and not _LIST_MARK.match(first):
        return ev  # a hard-wrapped sentence going on, not a list
    end = ev.end
    pos = text.find("\n", ev.end)
    while pos >= 0:
        nxt = text.find("\n", pos + 1)
        line_end = len(text) if nxt < 0 else nxt
        line = text[pos + 1 : line_end].strip()
        # a blank line, a long one (running text) or a new header ends the list
        if not line or len(line) > ITEM_CHARS or introduces_list(line):
            break
        if line_end - ev.start > LIST_CHARS:
            break
        end = line_end
        pos = nxt
    if end == ev.end:
        return ev
    s, e = trim_span(text, ev.start, end)
    return Evidence(ev.unit, s, e, ev.score)


def list_items(header: Evidence, units: Sequence[RuleUnit]) -> list[Evidence]:
    """The items of the list ``header`` introduces when they are rules of their
    own: its rule ends in the colon, and the rules numbered directly under it
    in the same file ("702.3a" ... "702.3g" under "702.3"), whole, in the book's
    order. The numbering, not any word, marks them."""
    unit = header.unit
    if not introduces_list(header.quote) or unit.text[header.end :].strip():
        return []
    under = [
        u
        for u in units
        if u.game == unit.game
        and u.source.file == unit.source.file
        and numbered_under(u.rule_id, unit.rule_id)
    ]
    # directly under: "702.3a", not "702.3a.1" (an item of an item)
    direct = [u for u in under if not any(numbered_under(u.rule_id, v.rule_id) for v in under)]
    return [
        Evidence(u, *trim_span(u.text, 0, len(u.text)), header.score, item=True)
        for u in sorted(direct, key=lambda u: u.source.start)
    ]


def with_introduction(table: Evidence) -> Evidence:
    """A table with the sentence just before it when that ends in a colon: the
    same quote whichever of its rows was chosen."""
    before = table.unit.text[: table.start].rstrip()
    if not before.endswith(":"):
        return table
    sentences = sentence_spans(before)
    start = sentences[-1][0] if sentences else 0
    return Evidence(table.unit, start, table.end, table.score)


def _table_row(line: str) -> bool:
    """A row of a table: cells joined by " | " (HTML, Markdown), or a short line
    that is neither a sentence nor a list item (a PDF's cells set apart by spaces)."""
    line = line.strip()
    if not line or _LIST_MARK.match(line):
        return False
    if " | " in line:
        return len(line) <= TABLE_CHARS
    return len(line) <= TABLE_ROW_CHARS and not _SENTENCE_END.search(line)


def with_table(ev: Evidence) -> Evidence:
    """Widen a chosen line of a table to the whole table (the run of row lines it
    sits in); a table longer than a quote, from its first line (the header) to
    the chosen row, if that fits."""
    text = ev.unit.text
    start = text.rfind("\n", 0, ev.start) + 1
    end = text.find("\n", ev.end)
    end = len(text) if end < 0 else end
    if "\n" in text[ev.start : ev.end] or not _table_row(text[start:end]):
        return ev
    lines = text.split("\n")
    offsets = [0]
    for line in lines[:-1]:
        offsets.append(offsets[-1] + len(line) + 1)
    row = offsets.index(start)
    first = last = row
    while first > 0 and _table_row(lines[first - 1]):
        first -= 1
    while last + 1 < len(lines) and _table_row(lines[last + 1]):
        last += 1
    if last - first + 1 < TABLE_ROWS:
        return ev
    for stop in (last, row):  # the whole table, else its header down to the row
        s, e = trim_span(text, offsets[first], offsets[stop] + len(lines[stop]))
        if e - s <= TABLE_CHARS:
            return Evidence(ev.unit, s, e, ev.score)
    return ev


def with_list_header(ev: Evidence) -> Evidence:
    """Widen a list item back to the line introducing the list ("...following apply:")."""
    text = ev.unit.text
    before = text[max(0, ev.start - MAX_HEADER_GAP) : ev.start]
    colon = before.rfind(":")
    if colon < 0 or len(" ".join(text[ev.start : ev.end].split())) > 120:
        return ev
    # the colon of the quote's own run-in label ("Q:", "Pierce:") opening its
    # line heads no list
    if _run_in_label(text, ev.start, ev.start):
        return ev
    # the list must run from the colon to this item with only short items between,
    # starting on a line of its own or as a sentence does (not "Roll a D6: if
    # the result...", a sentence going on after its colon)
    between = before[colon + 1 :]
    items = [i for i in re.split(r"\n|[.]\s", between) if i.strip()]
    if any(len(i) > 120 for i in items):
        return ev
    if between.lstrip(" \t")[:1].islower():
        return ev
    header_start = ev.start - len(before) + colon
    sentences = sentence_spans(text[: header_start + 1])
    start = sentences[-1][0] if sentences else 0
    return Evidence(ev.unit, start, ev.end, ev.score)
