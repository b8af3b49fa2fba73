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

Rule sites and rulebook tools write Markdown dialects; their markup is
read as markup, never as rule text:

- heading attributes, ``## Charge {#charge .rule}`` (Pandoc, kramdown,
  MkDocs, Hugo): the braces are taken off the title, so the ID is
  ``charge`` and ``rules show Charge`` finds it;
- fenced blocks set apart from the text (Pandoc's fenced divs and the
  admonitions of Docusaurus and VitePress, ``::: note``, with
  mdit-py-plugins' container; MkDocs' ``!!! tip "Title"`` with its
  admonitions; GitHub's ``> [!NOTE]`` alerts) and Homebrewery's ``{{note``
  ... ``}}`` blocks: a note belongs to the rule it sits in, as a block
  quote does, so a heading inside one (Homebrewery heads its notes with
  ``#####``) is a line of its text, not a rule of its own;
- definition lists (``Term`` / ``: definition``, Pandoc and PHP Markdown
  Extra) are read as the HTML reader reads a ``<dl>``: a glossary's terms
  become rules, a stat block's entries "Move: 6" lines;
- Homebrewery's page and column breaks (``\\page``, ``\\column``) and its
  vertical spacers (a line of colons) are layout, and dropped.

A file with no heading at all is ingested as plain sections, with a
warning (``outline.build_units``).
"""

from __future__ import annotations

import re
from dataclasses import replace
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
_INLINE_MARKUP = re.compile(r"[*_`~\[]")  # what inline Markdown would change
# A heading's attribute block, last in its text: "{#charge .rule data-x=1}",
# Pandoc's "{-}" (unnumbered). One "{...}" of such items only: a title that
# merely ends in braces ("Roll {x}") is left as it is.
_ATTR_ITEM = r"""(?:[#.][\w:.-]+|[\w-]+=(?:"[^"]*"|'[^']*'|[^\s{}"']+)|-)"""
_HEADING_ATTRS = re.compile(rf"\s*\{{\s*{_ATTR_ITEM}(?:\s+{_ATTR_ITEM})*\s*\}}\s*$")
# GitHub's alerts: "> [!NOTE]" first in a block quote.
_ALERT = re.compile(r"^\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*", re.I)
# Homebrewery's layout lines: page and column breaks, and vertical spacers
# (a line of colons; "::: name" opens a fenced block, a bare ":::" closes one).
_LAYOUT_LINE = re.compile(r"^[ \t]*\\(?:page|pagebreak|column|columnbreak)[ \t]*$", re.M)
_SPACER = re.compile(r"^:+$")
# Homebrewery's blocks: "{{note" (classes, attributes) alone on a line, up to "}}".
_BREW_OPEN = re.compile(r"^[ \t]*\{\{([^{}\n]*)$")
_BREW_CLOSE = re.compile(r"^[ \t]*\}\}[ \t]*$")


def sniff(head: bytes) -> bool:
    """Several Markdown headings: enough that a text file is really Markdown."""
    return len(_ATX.findall(head)) + len(_SETEXT.findall(head)) >= 3


def _parser() -> Any:
    from markdown_it import MarkdownIt
    from mdit_py_plugins.admon import admon_plugin
    from mdit_py_plugins.container import container_plugin
    from mdit_py_plugins.deflist import deflist_plugin
    from mdit_py_plugins.footnote import footnote_plugin

    return (
        MarkdownIt("commonmark")
        .enable("table")
        .enable("strikethrough")
        .use(footnote_plugin)
        .use(deflist_plugin)
        .use(admon_plugin)
        # any named fenced block ("::: note", ":::tip[Title]", "::: {.sidebar}");
        # a bare ":::" opens none
        .use(container_plugin, name="aside", validate=lambda params, *_: bool(params.strip()))
    )


def _brew_blocks(text: str) -> str:
    """Homebrewery's ``{{name`` ... ``}}`` blocks as fenced blocks, its layout
    lines dropped. A fence closes at the first bare fence at least as long as
    it, so a block is given more colons than every block inside it."""
    text = _LAYOUT_LINE.sub("", text)
    lines = text.split("\n")
    opens: list[int] = []  # line numbers of the blocks still open
    height: dict[int, int] = {}  # open line -> how deep its nested blocks go
    pairs: list[tuple[int, int]] = []
    for n, line in enumerate(lines):
        if _BREW_OPEN.match(line):
            opens.append(n)
            height[n] = 0
        elif _BREW_CLOSE.match(line) and opens:
            start = opens.pop()
            pairs.append((start, n))
            if opens:
                height[opens[-1]] = max(height[opens[-1]], height[start] + 1)
    for start, end in pairs:
        fence = ":" * (3 + height[start])
        name = _BREW_OPEN.match(lines[start]).group(1).strip()  # type: ignore[union-attr]
        lines[start] = f"{fence} {name or 'block'}"
        lines[end] = fence
    return "\n".join(lines)


def _aside_title(params: str) -> str:
    """The title a fenced block gives after its kind: "note Designer's note",
    ":::tip[Remember]"; not its kind or attributes alone."""
    params = re.sub(r"\{[^{}]*\}", " ", params).strip()
    kind, _, rest = params.partition(" ")
    bracket = re.search(r"\[(.*)\]", kind)
    return " ".join((bracket.group(1) if bracket else rest).split()).strip("\"' ")


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
    text = _brew_blocks(text)
    env: dict[str, Any] = {}
    md = _parser()
    tokens = md.parse(text, env)
    lists: list[list[int]] = []  # per open list: [next number or -1 for bullets]
    item_prefix = ""
    row: list[str] | None = None
    heading_level = 0
    referred: dict[str, int] = {}  # footnote label -> the block that first refers to it
    notes: dict[str, list[str]] = {}  # footnote label -> its paragraphs
    note: str | None = None  # the footnote being read
    in_table: list[str] = []  # footnotes referred to in the table being read
    raw: list[str] = []  # consecutive HTML blocks, read as one
    aside = 0  # depth of notes set apart (fenced blocks, admonitions)
    quote_start = False  # the next paragraph opens a block quote
    skip_to = -1
    for n, tok in enumerate(tokens):
        if n < skip_to:
            continue
        t = tok.type
        if raw and t != "html_block":
            _read_html(outline, raw, md)
        if t == "dl_open" and note is None:
            # read as the HTML reader reads a <dl>, so both formats agree
            end = _closing(tokens, n)
            raw.append(md.renderer.render(tokens[n : end + 1], md.options, env))
            _read_html(outline, raw)
            skip_to = end + 1
        elif t in ("container_aside_open", "admonition_open"):
            aside += 1
            if t == "container_aside_open" and (caption := _aside_title(tok.info)):
                outline.blocks.append(Block(caption))
        elif t in ("container_aside_close", "admonition_close"):
            aside -= 1
        elif t == "blockquote_open":
            quote_start = True
        elif t == "footnote_open":
            note = tok.meta["label"]
            notes.setdefault(note, [])
        elif t == "footnote_close":
            note = None
        elif note is not None:
            if t == "inline" and (content := _inline_text(tok)):
                notes[note].append(" ".join(content.split()))
        elif t == "heading_open":
            # a heading inside a note is a line of the note
            heading_level = 0 if aside else int(tok.tag[1])
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
            if quote_start:
                content = _ALERT.sub("", content)
                quote_start = False
            if row is not None:
                row.append(" ".join(content.split()))
            elif heading_level:
                heading = _HEADING_ATTRS.sub("", " ".join(content.split())) or content
                outline.blocks.append(Block(heading, level=heading_level))
            elif _SPACER.match(content):
                outline.dropped["layout lines"] += 1
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
        _read_html(outline, raw, md)
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


def _closing(tokens: list[Any], start: int) -> int:
    """The index of the token that closes ``tokens[start]``."""
    depth = 0
    for n in range(start, len(tokens)):
        depth += tokens[n].nesting
        if depth == 0:
            return n
    return len(tokens) - 1


def _read_html(outline: Outline, raw: list[str], md: Any = None) -> None:
    """Raw HTML, read as the HTML reader reads a page, so an ``<h3>`` in a
    wiki export opens its section like ``###`` does, and its tables and
    lists keep their rows and items. CommonMark ends an HTML block at a
    blank line, so a table with a blank line between its rows arrives in
    pieces (a second piece starting at ``<tr>``, which alone is no table):
    consecutive pieces are read together. Empties ``raw``.

    With ``md``, the text is the author's Markdown: CommonMark leaves the
    lines of an HTML block as they are, so Notion's exported callout
    (``<aside>`` then "**Note:** text" with no blank line between) kept its
    asterisks. Each line's inline Markdown is read as a paragraph's is."""
    fragment = html.outline_of("\n".join(raw).encode("utf-8"), fragment=True)
    raw.clear()
    outline.dropped.update(fragment.dropped)
    if not fragment.blocks:
        outline.dropped["HTML markup"] += 1
    for block in fragment.blocks:
        if md is not None and _INLINE_MARKUP.search(block.text):
            lines = (_inline_text(md.parseInline(line)[0]) for line in block.text.split("\n"))
            block = replace(block, text="\n".join(line for line in lines if line))
        if block.text:
            outline.blocks.append(block)


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
