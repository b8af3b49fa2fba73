"""Markdown rulebooks, parsed with markdown-it-py (CommonMark plus tables).

Every heading, at whatever depth, opens a section (``ingest.outline``); the
body is rendered to plain text the way a reader sees it: emphasis, code
marks and link syntax are dropped, list items keep their marker, a table
becomes one line per row with its cells joined by " | ", and a block quote
(a designer's note) stays with the rule it sits in. A bold run-in label
(``**Range:** 12"``) is just text: only headings make rules.

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

    return MarkdownIt("commonmark").enable("table").enable("strikethrough")


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
    return "".join(out).strip()


def outline_of(text: str) -> Outline:
    outline = Outline()
    m = _FRONT_MATTER.match(text)
    if m:
        title = _FRONT_TITLE.search(m.group(1))
        if title:
            outline.title = title.group(1).strip("'\"")
        outline.dropped["front matter"] += 1
        text = text[m.end() :]
    tokens = _parser().parse(text)
    lists: list[list[int]] = []  # per open list: [next number or -1 for bullets]
    item_prefix = ""
    row: list[str] | None = None
    heading_level = 0
    for tok in tokens:
        t = tok.type
        if t == "heading_open":
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
        elif t in ("fence", "code_block"):
            if tok.content.strip():
                outline.blocks.append(Block(tok.content.strip("\n")))
        elif t == "html_block":
            # Raw HTML is read as the HTML reader reads a page, so an
            # ``<h3>`` in a wiki export opens its section like ``###`` does,
            # and its tables and lists keep their rows and items.
            fragment = html.outline_of(tok.content.encode("utf-8"), fragment=True)
            outline.dropped.update(fragment.dropped)
            if fragment.blocks:
                outline.blocks.extend(fragment.blocks)
            else:
                outline.dropped["HTML markup"] += 1
    return outline


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
