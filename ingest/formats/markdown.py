"""Markdown rulebooks, parsed with markdown-it-py (CommonMark plus tables).

Every heading, at whatever depth, opens a section (``ingest.outline``); the
body is rendered to plain text the way a reader sees it: emphasis, code
marks and link syntax are dropped, list items keep their marker, a table
becomes one line per row with its cells joined by " | ", and a block quote
(a designer's note) stays with the rule it sits in. A bold run-in label
(``**Range:** 12"``) is just text: only headings make rules.

Footnotes (``[^1]``, mdit-py-plugins): their texts sit at the end of the
file, which would put every one under the last heading, in whatever rule
that is. So a footnote goes right after the paragraph that first refers
to it, as "[1] text", and the reference reads "[1]" where it stands. A
footnote nothing refers to stays at the end (the plugin drops it; its text
is taken from the source).

A file with no heading at all is ingested as plain sections, with a
warning (``outline.build_units``).
"""

from __future__ import annotations

import re
from typing import Any

from ruleslawyer.ingest.formats import Format, ReadRequest, html
from ruleslawyer.ingest.outline import Block, Outline, build_units
from ruleslawyer.ingest.reader import decode_rulebook
from ruleslawyer.ingest.units import ParseResult

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FRONT_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.M)
_ATX = re.compile(rb"^ {0,3}#{1,6}[ \t]+\S", re.M)
_SETEXT = re.compile(rb"^\S.*\n(?:=+|-{3,})[ \t]*$", re.M)
_BR = re.compile(r"<br\s*/?>", re.I)  # inline HTML line break: "add<br>your bonus"


def sniff(head: bytes) -> bool:
    """Several Markdown headings: enough that a text file is really Markdown."""
    return len(_ATX.findall(head)) + len(_SETEXT.findall(head)) >= 3


def _parser() -> Any:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.footnote import footnote_plugin

    return MarkdownIt("commonmark").enable("table").enable("strikethrough").use(footnote_plugin)


def _inline_text(token: Any) -> str:
    """Plain text of an inline token: what the words say, without the markup."""
    out: list[str] = []
    for child in token.children or []:
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type == "softbreak":
            out.append(" ")
        elif child.type == "hardbreak" or (
            child.type == "html_inline" and _BR.match(child.content)
        ):
            out.append("\n")
        elif child.type == "image":
            out.append(child.content or "")
        elif child.type == "footnote_ref":
            out.append(f"[{child.meta['label']}]")
    return "".join(out).strip()


def _footnote_refs(token: Any) -> list[str]:
    return [c.meta["label"] for c in token.children or [] if c.type == "footnote_ref"]


def outline_of(text: str) -> Outline:
    outline = Outline()
    m = _FRONT_MATTER.match(text)
    if m:
        title = _FRONT_TITLE.search(m.group(1))
        if title:
            outline.title = title.group(1).strip("'\"")
        outline.dropped["front matter"] += 1
        text = text[m.end() :]
    env: dict[str, Any] = {}
    tokens = _parser().parse(text, env)
    lists: list[list[int]] = []  # per open list: [next number or -1 for bullets]
    item_prefix = ""
    row: list[str] | None = None
    heading_level = 0
    referred: dict[str, int] = {}  # footnote label -> the block that first refers to it
    notes: dict[str, list[str]] = {}  # footnote label -> its paragraphs
    note: str | None = None  # the footnote being read
    in_table: list[str] = []  # footnotes referred to in the table being read
    raw: list[str] = []  # consecutive HTML blocks, read as one
    for tok in tokens:
        t = tok.type
        if raw and t != "html_block":
            _read_html(outline, raw)
        if t == "footnote_open":
            note = tok.meta["label"]
            notes.setdefault(note, [])
        elif t == "footnote_close":
            note = None
        elif note is not None:
            if t == "inline" and (content := _inline_text(tok)):
                notes[note].append(" ".join(content.split()))
        elif t == "heading_open":
            heading_level = int(tok.tag[1])
        elif t == "heading_close":
            heading_level = 0
        elif t in ("bullet_list_open", "ordered_list_open"):
            start = int(tok.attrs.get("start", 1) or 1) if t == "ordered_list_open" else -1
            lists.append([start])
        elif t in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
        elif t == "list_item_open":
            number = lists[-1][0] if lists else -1
            indent = "  " * (len(lists) - 1)
            if number < 0:
                item_prefix = f"{indent}- "
            else:
                item_prefix = f"{indent}{number}. "
                lists[-1][0] += 1
        elif t == "tr_open":
            row = []
        elif t == "tr_close" and row is not None:
            if any(cell for cell in row):
                outline.blocks.append(Block(" | ".join(row)))
            row = None
        elif t == "inline":
            content = _inline_text(tok)
            if row is not None:
                row.append(" ".join(content.split()))
            elif heading_level:
                outline.blocks.append(Block(" ".join(content.split()), level=heading_level))
            elif content:
                outline.blocks.append(Block(item_prefix + content))
                item_prefix = ""
            # a reference in a table waits for the table's end: a note inside
            # it would split its rows
            for label in _footnote_refs(tok):
                if row is not None:
                    in_table.append(label)
                else:
                    referred.setdefault(label, len(outline.blocks) - 1)
        elif t == "table_close":
            for label in in_table:
                referred.setdefault(label, len(outline.blocks) - 1)
            in_table.clear()
        elif t in ("fence", "code_block"):
            if tok.content.strip():
                outline.blocks.append(Block(tok.content.strip("\n")))
        elif t == "html_block":
            raw.append(tok.content)
    if raw:
        _read_html(outline, raw)
    # The plugin drops a footnote nothing refers to; its text is kept, as read
    # from the source (its first line and the indented lines after it).
    for key, ref in env.get("footnotes", {}).get("refs", {}).items():
        label = key[1:]
        if ref < 0 and label not in notes:
            found = re.search(
                rf"(?m)^ {{0,3}}\[\^{re.escape(label)}\]:(.*(?:\n(?: {{4}}|\t).*)*)", text
            )
            if found and found.group(1).strip():
                notes[label] = [" ".join(found.group(1).split())]
    _place_footnotes(outline, notes, referred)
    return outline


def _read_html(outline: Outline, raw: list[str]) -> None:
    """Raw HTML, read as the HTML reader reads a page, so an ``<h3>`` in a
    wiki export opens its section like ``###`` does, and its tables and
    lists keep their rows and items. CommonMark ends an HTML block at a
    blank line, so a table with a blank line between its rows arrives in
    pieces (a second piece starting at ``<tr>``, which alone is no table):
    consecutive pieces are read together. Empties ``raw``."""
    fragment = html.outline_of("\n".join(raw).encode("utf-8"), fragment=True)
    raw.clear()
    outline.dropped.update(fragment.dropped)
    if fragment.blocks:
        outline.blocks.extend(fragment.blocks)
    else:
        outline.dropped["HTML markup"] += 1


def _place_footnotes(
    outline: Outline, notes: dict[str, list[str]], referred: dict[str, int]
) -> None:
    """Each footnote after the block that first refers to it; the others at the end."""
    after: dict[int, list[Block]] = {}
    for label, paragraphs in notes.items():
        if not paragraphs:
            continue
        block = Block(f"[{label}] " + " ".join(paragraphs))
        at = referred.get(label, len(outline.blocks) - 1)
        after.setdefault(max(at, -1), []).append(block)
    for at in sorted(after, reverse=True):
        outline.blocks[at + 1 : at + 1] = after[at]


def read(data: bytes, request: ReadRequest) -> ParseResult:
    text = decode_rulebook(data, request.name, request.encoding)
    outline = outline_of(text)
    return build_units(
        outline,
        file=request.name,
        game=request.game,
        parser="markdown",
        title_fixes=request.title_fixes,
        title=request.title,
    )


FORMAT = Format(
    name="markdown",
    extensions=(".md", ".markdown", ".mdown", ".mkd"),
    read=read,
    sniff=sniff,
    priority=60,
)
