"""The records passed between stages: plain frozen dataclasses.

They are the project's vocabulary. Everything that goes to disk or to JSON
goes through ``to_dict``/``from_dict`` here, so the on-disk format and the
CLI's JSON shape are defined in one place.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

_T = TypeVar("_T")

# A game is data: a slug ("40k", "skirmishers", "bolt-action") named by the
# rulebook manifests, never a fixed list in code (see ``GameInfo``).
Game = str

Verdict = Literal["yes", "no", "quote", "answer", "not_found"]
VERDICTS: tuple[Verdict, ...] = ("yes", "no", "quote", "answer", "not_found")


# A line ending in one of these ends its thought: the next line starts anew.
_LINE_ENDS = (".", "!", "?", ":", ";")


def shown_quote(quote: str) -> str:
    """A quote as an answer shows it: spaces collapsed, its lines kept, wraps joined.

    The PDF, HTML and Markdown readers keep a line break only where the rulebook
    has one (paragraphs, list items, a table's rows), so a table quoted whole
    reads as rows, not as one run of cells ("Shots AP Cost 30 Degrees 1 2 ...").
    A plain-text rulebook may be hard-wrapped, though (text pasted out of a PDF):
    a line that does not end a sentence and is followed by one starting in lower
    case ("up to its Move" / "stat.") is a wrap, and is joined with a space.
    """
    out: list[str] = []
    for line in (" ".join(raw.split()) for raw in quote.splitlines()):
        if not line:
            continue
        if out and line[0].islower() and not out[-1].endswith(_LINE_ENDS):
            out[-1] = f"{out[-1]} {line}"
        else:
            out.append(line)
    return "\n".join(out)


def verdict_words(verdict: str, source: str = "") -> str:
    """How a verdict is said (the badge): the rulebook's own answer plainly ("Yes"),
    a model's as a likelihood ("Likely yes"), a withheld one as the quote ("The rule
    says"), an open question's "Answer", and "No clear rule" (or "Choose the
    game" when it was turned away only because no game was chosen or named)."""
    if verdict in ("yes", "no"):
        return verdict.capitalize() if source == "faq" else f"Likely {verdict}"
    if verdict == "not_found" and source == "game":
        return "Choose the game"
    return {
        "quote": "The rule says",
        "answer": "Answer",
        "not_found": "No clear rule",
    }.get(verdict, "Answer")


def first_game_first(items: Sequence[_T], game: Callable[[_T], str]) -> tuple[list[_T], list[_T]]:
    """``items`` (citations, chips) of the first one's game, and those of other
    games, each in order. Asked across games (none given or clear), a quote of
    another game shown among the first's read as one more rule of that game,
    so the answer and the page show them apart."""
    first = game(items[0]) if items else None
    return [i for i in items if game(i) == first], [i for i in items if game(i) != first]


def numbered_under(rule_id: str, number: str) -> bool:
    """Is ``rule_id`` numbered under ``number``: "100.2" and "100.2a" under
    "100", "702.19a" under "702.19" (a card game's lettered sub-rule)?"""
    return rule_id.startswith(number + ".") or (rule_id[:-1] == number and rule_id[-1:].isalpha())


def rules_under(number: str, rules: Iterable[tuple[_T, str, bool]]) -> list[_T]:
    """Of ``rules`` (a key, the rule's ID, whether it is a paragraph read under
    its section's heading), the keys of those filed under ``number``, in the
    order given: the rules numbered under it ("100.2" of "100", "601.4a" of
    "601.4"), else, where there are none, a wargame's cases of it ("8.31" of
    "8.3") that the book shows as its paragraphs (``case_of``). The exact
    lookup and ``rules show`` both ask this, so a number finds the same
    rules either way."""
    rules = list(rules)
    under = [key for key, rule_id, _ in rules if numbered_under(rule_id, number)]
    return under or [
        key for key, rule_id, in_heading in rules if in_heading and case_of(rule_id, number)
    ]


def case_of(rule_id: str, number: str) -> bool:
    """Is ``rule_id`` a case of section ``number`` as wargames number them, a
    digit added ("8.32" of "8.3")? Elsewhere "8.32" is the 32nd section of 8:
    ask only where the book shows it (a paragraph read under its section's
    heading, ``RuleUnit.in_its_heading``; a heading "1.10" is none of 1.1)."""
    return (
        "." in number
        and rule_id.startswith(number)
        and len(rule_id) > len(number)
        and rule_id[len(number) :].isdigit()
    )


@dataclass(frozen=True)
class GameInfo:
    """One game the index knows: its slug and what the manifests say about it.

    ``aliases`` are other names players use for it ("wh40k"); ``cues`` are
    optional hand-written regexes of jargon only this game uses. Both only
    help detect the game from a question; a game without them is detected
    from its own rules' words and rule names (``retrieval.games``).
    """

    slug: str
    name: str = ""
    edition: str = ""
    aliases: tuple[str, ...] = ()
    cues: tuple[str, ...] = ()

    @property
    def display(self) -> str:
        return self.name or self.slug

    def to_dict(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "name": self.name,
            "edition": self.edition,
            "aliases": list(self.aliases),
            "cues": list(self.cues),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameInfo:
        return cls(
            slug=str(d["slug"]),
            name=str(d.get("name", "")),
            edition=str(d.get("edition", "")),
            aliases=tuple(str(a) for a in d.get("aliases", ())),
            cues=tuple(str(c) for c in d.get("cues", ())),
        )


@dataclass(frozen=True)
class Source:
    """Where a unit's text came from: file name, character span in the text
    read from it, and the page it starts on (formats with pages: PDF).

    ``page_breaks``: where a rule runs on over a page, (offset in the unit's
    text, page) for each later page, so a quote is cited with the page it is
    printed on, not the page its rule starts on."""

    file: str
    start: int
    end: int
    page: int | None = None
    page_breaks: tuple[tuple[int, int], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"file": self.file, "start": self.start, "end": self.end}
        if self.page is not None:
            d["page"] = self.page
        if self.page_breaks:
            d["page_breaks"] = [list(b) for b in self.page_breaks]
        return d

    def page_at(self, offset: int) -> int | None:
        """The page of the unit text's character ``offset``."""
        page = self.page
        for at, later in self.page_breaks:
            if offset < at:
                break
            page = later
        return page

    @property
    def last_page(self) -> int | None:
        return self.page_breaks[-1][1] if self.page_breaks else self.page

    @property
    def where(self) -> str:
        """``skirmishers.pdf p. 8`` (``pp. 20-21`` for a rule over two pages): how an
        answer says where the rule is."""
        if self.page is None:
            return self.file
        if self.last_page not in (None, self.page):
            return f"{self.file} pp. {self.page}-{self.last_page}"
        return f"{self.file} p. {self.page}"


@dataclass(frozen=True)
class RuleUnit:
    """One rule a player can cite: a numbered rule, an ability, a ruling.

    ``text`` is the original text (what we quote). ``search_text`` is the
    same text with PDF damage normalised (curly quotes, non-breaking hyphens,
    broken line joins) and is what retrieval indexes.
    """

    rule_id: str
    game: str
    title: str
    text: str
    parent: str = ""
    source: Source = field(default_factory=lambda: Source("", 0, 0))
    refs: tuple[str, ...] = ()
    title_inferred: bool = False
    # printed | heading | body | nav | chapter | manifest | first-words | ""
    # (see ingest.numbered; "heading" = a PDF/Markdown/HTML heading, whose
    # rule_id is the slug of its heading path when no number is printed)
    title_source: str = ""
    merged: int = 0  # identical copies of this unit dropped at ingest
    kind: str = "rule"  # rule | ability | ruling | faq | appendix | example | section
    search_text: str = ""
    # The bare number printed before a heading's title when it is no rule ID
    # ("2" of "2. Morale", whose ID is the slug ".../morale"): players still
    # say "rule 2" and "chapter 2", so lookups and the chip use it.
    number: str = ""

    @property
    def key(self) -> tuple[str, str]:
        return (self.game, self.rule_id)

    @property
    def label(self) -> str:
        """How a citation chip shows the unit: ``40k 24.21 [LANCE]``, or for a
        heading with no printed number ``skirmishers Resolving Fire``."""
        if not self.title or self.title_source == "first-words":
            return f"{self.game} {self.rule_id}"
        if self.title.lower().startswith(self.rule_id.lower()) or self.slug_id:
            number = f" {self.number}" if self.number else ""
            return f"{self.game}{number} {self.title}"
        return f"{self.game} {self.rule_id} {self.title}"

    def page_of(self, quote: str = "") -> int | None:
        """The page ``quote`` (a span of ``text``) is printed on; without one, or
        when it is not found, the page the rule starts on."""
        at = self.text.find(quote) if quote else -1
        return self.source.page_at(at) if at >= 0 else self.source.page

    @property
    def in_its_heading(self) -> bool:
        """Is this a rule numbered in its paragraph (a card game's ``100.2``, a
        wargame's case ``8.32``), titled by the heading it is in, which ends its
        breadcrumb? A heading's own unit is titled by itself, under its parent."""
        return bool(self.title) and self.parent.rsplit(" > ", 1)[-1] == self.title

    @property
    def slug_id(self) -> bool:
        """True when ``rule_id`` is a heading path slug, not a printed number or name."""
        return self.title_source == "heading" and not self.rule_id[:1].isdigit()

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id,
            "game": self.game,
            "title": self.title,
            "title_inferred": self.title_inferred,
            "title_source": self.title_source,
            "text": self.text,
            "parent": self.parent,
            "source": self.source.to_dict(),
            "refs": list(self.refs),
            "merged": self.merged,
            "kind": self.kind,
            **({"number": self.number} if self.number else {}),
        }

    def to_record(self) -> dict[str, Any]:
        """The on-disk form: the public dict plus the search text."""
        record = self.to_dict()
        record["search_text"] = self.search_text
        return record

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> RuleUnit:
        src = d.get("source") or {}
        return cls(
            rule_id=str(d["rule_id"]),
            game=str(d["game"]),
            title=str(d.get("title", "")),
            text=str(d["text"]),
            parent=str(d.get("parent", "")),
            source=Source(
                str(src.get("file", "")),
                int(src.get("start", 0)),
                int(src.get("end", 0)),
                None if src.get("page") is None else int(src["page"]),
                tuple((int(a), int(b)) for a, b in src.get("page_breaks", ())),
            ),
            refs=tuple(d.get("refs", ())),
            title_inferred=bool(d.get("title_inferred", False)),
            title_source=str(d.get("title_source", "")),
            merged=int(d.get("merged", 0)),
            kind=str(d.get("kind", "rule")),
            search_text=str(d.get("search_text", "")),
            number=str(d.get("number", "")),
        )


@dataclass(frozen=True)
class Hit:
    """A retrieved unit, its fused score and which retrievers found it."""

    unit: RuleUnit
    score: float
    # "dense" | "bm25" | "exact" | "ref" | "list" (an item of a quoted list's rule)
    why: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule_id": self.unit.rule_id,
            "game": self.unit.game,
            "title": self.unit.title,
            "text": self.unit.text,
            "score": round(self.score, 4),
            "why": list(self.why),
            "source": self.unit.source.to_dict(),
        }


@dataclass(frozen=True)
class SearchResult:
    """What the retriever returns for one question."""

    query: str
    game: str | None  # the game searched: given, detected, or None for all
    game_detected: bool
    hits: tuple[Hit, ...]
    relevant: bool  # False when nothing clears the relevance floor
    relevance: float = 0.0  # 0..1, how well the best unit matches
    warnings: tuple[str, ...] = ()
    # rule numbers the question names ("rule 99.99") that no rule in scope has
    missing_numbers: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "game": self.game,
            "game_detected": self.game_detected,
            "relevant": self.relevant,
            "relevance": round(self.relevance, 4),
            "warnings": list(self.warnings),
            "missing_numbers": list(self.missing_numbers),
            "results": [h.to_dict() for h in self.hits],
        }


@dataclass(frozen=True)
class Citation:
    """A verified citation: ``quote`` is a verbatim span of ``unit.text``."""

    unit: RuleUnit
    quote: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule_id": self.unit.rule_id,
            "game": self.unit.game,
            "title": self.unit.title,
            "title_source": self.unit.title_source,
            "parent": self.unit.parent,
            "quote": self.quote,
            "text": self.unit.text,
            "source": self.unit.source.to_dict(),
            "page": self.unit.page_of(self.quote),  # the quote's own page (None: no pages)
            **({"number": self.unit.number} if self.unit.number else {}),
        }


@dataclass(frozen=True)
class Answer:
    question: str
    game: str | None
    verdict: Verdict
    answer: str
    citations: tuple[Citation, ...]
    search: SearchResult
    model: str
    timings_ms: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    confidence: float | None = None
    # "faq" (the rulebook's own answer) | "model" | "" for a verdict; for
    # not_found, "game": turned away with no game chosen and rules of several
    # close, so the player is asked for the game (still an abstention).
    verdict_source: str = ""
    # The model's probability of "yes", when it was asked (also when below the floor),
    # so an eval can draw the precision/coverage curve of its verdicts.
    p_yes: float | None = None
    # The model's explanation as shown at the head of ``answer`` ("" when none
    # was generated or it failed the checks), so an eval can judge it alone.
    explanation: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "game": self.game,
            "verdict": self.verdict,
            "verdict_source": self.verdict_source,
            "answer": self.answer,
            "citations": [c.to_dict() for c in self.citations],
            "retrieved": [h.to_dict() for h in self.search.hits],
            "model": self.model,
            "confidence": None if self.confidence is None else round(self.confidence, 4),
            "p_yes": None if self.p_yes is None else round(self.p_yes, 4),
            "explanation": self.explanation,
            "notes": list(self.notes),
            "timings_ms": {k: round(v, 1) for k, v in self.timings_ms.items()},
        }
