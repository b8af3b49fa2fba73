"""Markdown rulebooks, parsed with markdown-it-py (CommonMark plus tables).

Every heading, at whatever depth, opens a section (``ingest.outline``); the
body is rendered to plain text the way a reader sees it: emphasis, code
marks and link syntax are dropped, list items keep their marker, a table
becomes one line per row with its cells joined by " | ", and a block quote
(a designer's note) stays with the rule it sits in. A bold run-in label
(``**Range:** 12"``) is just text: only headings make rules.

Three places where CommonMark's reading is not the writer's:

- a file with no ``#`` or setext headings (but perhaps one title line above
  everything) whose headings are paragraphs set wholly in bold
  (``**3.2 Charging**`` alone on its line, as a word processor's or a
  chat's export writes them) is read as the Word reader reads hand-made
  headings, with the same rule (``ingest.typeset``: a short line, no
  sentence end, all bold where bold is not most of the text, two or more
  of them; a bold question or exclamation is a line of text, as in the
  HTML reader: a FAQ's "**Can I charge after running?**"); a heading's
  level is its number's depth ("3.2" under "3") where it has one. Left
  alone, the whole book was one rule;
- lines that open with a list label CommonMark does not know ("a)", "(a)",
  "a.", "(i)", "A)") are no list to it, so "a) ... / b) ... / c) ..." ran
  together into one line. Where every line of a paragraph after its first
  (a lead-in, or the first item) opens with one, its line breaks stay:
  those lines are items (indented under a list item they continue);
- a ``---`` line right under a paragraph makes it a setext heading. In a
  file that otherwise uses ``#`` headings, one that spans several lines or
  runs past ``HEADING_WORDS`` words is a paragraph followed by a thematic
  break, and stays text of the rule it is in: read as a heading it emptied
  that rule, and became a rule titled with a sentence. A short one-line
  setext heading is a heading, as written, whatever its punctuation
  ("WAAAGH!", "Did You Know?").

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
- Homebrewery's page and column breaks (``\\page``, ``\\column``; GM
  Binder's ``\\pagebreakNum``), its vertical spacers (a line of colons), its
  page furniture (``{{pageNumber,auto}}``, the running footer
  ``{{footnote PART 1 | SCAVENGING}}``, a cover's marker) and the style it
  sets on an image (``![map](x.png) {position:absolute,width:40%}``) are
  layout, and dropped; another one-line block keeps its text.

- an emoji's shortcode (GitHub's ``:crossed_swords:``) is left out of
  titles and text alike, as are badges (a paragraph of images alone: their
  words describe pictures); a cell's escaped ``\\|`` stays ``\\|``, not a
  column's edge;
- A site's sources read as the site renders them (``_rendered_markup``):
  Liquid tags (Jekyll, GitBook) and Hugo's shortcodes left out but for a
  tab's title (a line over its panel) and a figure's caption, their
  comments and MDX's import lines and comments left out, kramdown's
  attribute lines and contents marker, and Hugo's TOML front matter.
- Obsidian's notes read as Obsidian shows them (``_shown_markup``, which
  also takes out the emoji codes above): a link
  ``[[Turn Sequence#Fight Phase|Fight phase]]`` is its words ("Fight
  phase"; with none, "Turn Sequence > Fight Phase"), an embed ``![[x]]``,
  a comment ``%% ... %%``, a block ID ``^rule-3`` and a line of tags
  ``#rules #core`` are left out, and a callout's title (``> [!note]-
  Multiple combats``) is a line of its own, as a note's is.

A file with no heading at all is ingested as plain sections, with a
warning (``outline.build_units``).
"""

from __future__ import annotations

import itertools
import re
from bisect import bisect_right
from collections import Counter
from html import escape
from itertools import pairwise
from typing import Any
from urllib.parse import unquote

from ruleslawyer.ingest.formats import Format, ReadRequest, html
from ruleslawyer.ingest.formats.html import contents as html_contents
from ruleslawyer.ingest.outline import Block, Outline, opens_numbered_rule
from ruleslawyer.ingest.reader import decode_rulebook
from ruleslawyer.ingest.typeset import HEADING_WORDS, MAX_LEVEL, Line, typeset_headings
from ruleslawyer.ingest.units import ParseResult

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FRONT_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.M)
_ATX = re.compile(rb"^ {0,3}#{1,6}[ \t]+\S", re.M)
_SETEXT = re.compile(rb"^\S.*\n(?:=+|-{3,})[ \t]*$", re.M)
_BR = re.compile(r"<br\s*/?>", re.I)  # inline HTML line break: "add<br>your bonus"
# A Markdown span with both its ends: strong or emphasis (not "2*3*4"), code, a link.
_MARKDOWN_SPAN = re.compile(
    r"\*\*\S(?:[^*\n]*\S)?\*\*|__\S(?:[^_\n]*\S)?__"
    r"|(?<![\w*])\*(?=\S)[^*\n]+(?<=\S)\*(?![\w*])|(?<![\w_])_(?=\S)[^_\n]+(?<=\S)_(?![\w_])"
    r"|`[^`\n]+`|\[[^\]\n]+\]\([^)\s]+\)"
)
_LITERAL_TAGS = ("pre", "code", "kbd", "samp", "script", "style", "textarea")
# A heading's attribute block, last in its text: "{#charge .rule data-x=1}",
# Pandoc's "{-}" (unnumbered), kramdown's and Python-Markdown's "{: #charge }".
# One "{...}" of such items only: a title that merely ends in braces ("Roll
# {x}") is left as it is.
_ATTR_ITEM = r"""(?:[#.][\w:.-]+|[\w-]+=(?:"[^"]*"|'[^']*'|[^\s{}"']+)|-)"""
_HEADING_ATTRS = re.compile(rf"\s*\{{:?\s*{_ATTR_ITEM}(?:\s+{_ATTR_ITEM})*\s*\}}\s*$")
# A heading's explicit ID in its attribute block: "{#charge .rule}".
_HEADING_ID = re.compile(r"\{[^{}]*#([\w:.-]+)[^{}]*\}\s*$")
# What a contents list holds: items of links, nothing set apart (code, HTML).
_LIST_TOKENS = frozenset(
    {"bullet_list_open", "bullet_list_close", "ordered_list_open", "ordered_list_close",
     "list_item_open", "list_item_close", "paragraph_open", "paragraph_close", "inline"}
)  # fmt: skip
_ONLY_COMMENTS = re.compile(r"(?:\s*<!--.*?-->)+\s*", re.S)
# Placeholders tools fill with a table of contents (Python-Markdown, GitLab,
# kramdown, Typora, markdown-toc's comment is an HTML comment and goes anyway).
_TOC_PLACEHOLDER = re.compile(r"^(?:\[\[?_?toc_?\]\]?|\{:toc\})$", re.I)
# GitHub's alerts: "> [!NOTE]" first in a block quote.
_ALERT = re.compile(r"^\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*", re.I)
# Homebrewery's layout lines: page and column breaks, and vertical spacers
# (a line of colons; "::: name" opens a fenced block, a bare ":::" closes one).
_LAYOUT_LINE = re.compile(
    r"^[ \t]*\\(?:page|pagebreak|pagebreakNum|column|columnbreak)[ \t]*$", re.M
)
# A Homebrewery block on one line: "{{pageNumber,auto}}", "{{footnote PART 1 |
# SCAVENGING}}", "{{wide Some text}}": its name and classes, then its text.
_BREW_LINE = re.compile(r"^[ \t]*\{\{([\w-]+(?:,[^\s{}]*)*)(?:[ \t]+([^{}\n]*?))?\}\}[ \t]*$")
# The page's furniture in Homebrewery's own snippets: page numbers, the running
# footer ("footnote"), covers and the counters they skip.
_BREW_FURNITURE = frozenset(
    {"pageNumber", "footnote", "frontCover", "insideCover", "backCover", "partCover",
     "skipCounting", "resetCounting"}
)  # fmt: skip
# The style Homebrewery sets on an image after it: "![map](x.png) {width:40%}"
_IMAGE_STYLE = re.compile(r"(!\[[^\]\n]*\]\([^)\n]*\))[ \t]*\{[\w-]+:[^{}\n]*\}")
_SPACER = re.compile(r"^:+$")
_CODE_FENCE = re.compile(r"^ {0,3}(?:```|~~~)")
MAX_BREW_DEPTH = 20  # Homebrewery blocks nested deeper are left as text
# Homebrewery's blocks: "{{note" (classes, attributes) alone on a line, up to "}}".
_BREW_OPEN = re.compile(r"^[ \t]*\{\{([^{}\n]*)$")
_BREW_CLOSE = re.compile(r"^[ \t]*\}\}[ \t]*$")
# A list label CommonMark takes for none, first on a line: "a)", "(a)", "a.",
# "i)", "(iv)", "A)", "(1)" (a single letter, or a Roman numeral), then words.
_LABEL = r"(?:[A-Za-z]|[ivxlc]{1,6}|[IVXLC]{1,6})"
_LETTERED = re.compile(rf"^[ \t]*(?:\({_LABEL}\)|\(\d{{1,3}}\)|{_LABEL}[.)])[ \t]+\S")
# A dotted rule number made unique by the outline ("4.3-2", the second 4.3)
_REPEATED_NUMBER = re.compile(r"(\d+(?:\.\d+)+)-(\d+)")
# Obsidian's block ID, last in a heading: "Activations ^activations"
_BLOCK_ID = re.compile(r"\s+\^[A-Za-z0-9-]+$")
_HTML_HEADING = re.compile(r"<h[1-6][\s>]", re.I)
# A heading's dotted number: "3", "3.2", "3.2.1." (its depth is its level)
_HEADING_NUMBER = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?\s+\S")


# Obsidian: comments, embeds, links (target, heading, words), a block ID at
# a line's end, a line of tags, a callout's first line (its type, fold, title)
_OBSIDIAN_COMMENT = re.compile(r"%%.*?%%", re.S)
_OBSIDIAN_EMBED = re.compile(r"!\[\[[^\[\]\n]*\]\]")
_OBSIDIAN_LINK = re.compile(r"\[\[([^\[\]|#\n]*)(?:#([^\[\]|\n]*))?(?:\|([^\[\]\n]*))?\]\]")
# (lower-case, as Obsidian makes them and people type them: "^H" is a control key)
_OBSIDIAN_BLOCK_ID = re.compile(r"(?<=\S)[ \t]+\^(?=[\w-]*[a-z])[a-z0-9-]{2,}[ \t]*$", re.M)
_TAG = r"#[\w/-]*[^\W\d][\w/-]*"  # "#rules", "#ashfall/core" (not "#92", no heading)
_TAG_LINE = re.compile(rf"^[ \t]*{_TAG}(?:[ \t]+{_TAG})*[ \t]*$", re.M)
# code, left as written: a fenced block (in a list item too), a code span
_CODE = re.compile(r"(^[ \t]*(?:```|~~~).*?^[ \t]*(?:```|~~~)[^\n]*$|`[^`\n]+`)", re.M | re.S)
_CALLOUT = re.compile(r"^([ \t]*(?:>[ \t]*)+)\[![A-Za-z][\w-]*\][+-]?[ \t]*(.*)$", re.M)
# GitHub's (and Slack's, Discord's) emoji shortcodes: ":crossed_swords:", ":+1:"
_SHORTCODE = re.compile(r"[ \t]?(?<![\w:]):(?=[\w+-]*[a-z])[a-z0-9_+-]{2,}:(?![\w:])")


# Template languages' markup in a site's Markdown sources, which the site
# renders away: Liquid's (Jekyll, GitBook) "{% tag %}" and its comments,
# Hugo's shortcodes "{{< name >}}" and "{{% name %}}", MDX's import and
# export lines and "{/* comments */}", kramdown's attribute lines "{: .x }"
# and its contents marker ("* TOC" over "{:toc}"), Hugo's TOML front matter.
_LIQUID_COMMENT = re.compile(r"\{%-?\s*comment\s*-?%\}.*?\{%-?\s*endcomment\s*-?%\}", re.S)
_MDX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.S)
# a tab's title, the label its panel is read under ("Melee:")
_TAB_TAG = re.compile(
    r"\{(?:%|\{[<%])-?\s*tab\s+(?:title|header|name)=\"([^\"\n]*)\"[^\n]*?(?:[>%]\}|-?%)\}"
    r"|<TabItem\b[^>\n]*?\blabel=\"([^\"\n]*)\"[^>\n]*>"
)
# a site variable in a link's target ("[Combat]({{ site.baseurl }}/combat)"),
# whose spaces kept the link from being one
_LINK_LIQUID = re.compile(r"(\]\([^)\n]*?)\{\{[^{}\n]*\}\}")
# a figure's caption is its words
_FIGURE_TAG = re.compile(r"\{\{[<%]\s*figure\b[^\n]*?caption=\"([^\"\n]*)\"[^\n]*?[>%]\}\}")
_TEMPLATE_TAG = re.compile(r"\{%-?[^\n]*?-?%\}|\{\{[<%][^\n]*?[>%]\}\}")
# (first in a block, and written as code is: "export default goods only
# when..." in a paragraph is a rule's words)
_MDX_IMPORT = re.compile(
    r"(?:\A\s*|(?<=\n\n))(?:import\s+[\w{}, *]+?\s+from\s+['\"][^'\"\n]+['\"];?[ \t]*(?:\n|\Z))+"
)
_MDX_EXPORT = re.compile(
    r"(?:\A\s*|(?<=\n\n))export\s+(?:(?:const|let|var)\s+\w+\s*=|(?:default\s+)?(?:async\s+)?"
    r"function\b|class\s+\w+|default\s+\w+;?[ \t]*(?:\n|\Z)).*?(?:\n[ \t]*\n|\Z)",
    re.S,
)
_KRAMDOWN_ATTRS = re.compile(rf"^[ \t]*\{{:\s*{_ATTR_ITEM}(?:\s+{_ATTR_ITEM})*\s*\}}[ \t]*$", re.M)
_KRAMDOWN_TOC = re.compile(r"^[ \t]*(?:[*+-]|1\.)[ \t]+TOC[ \t]*\n[ \t]*\{:toc\}[ \t]*$", re.M)
_TOML_FRONT_MATTER = re.compile(r"\A\+\+\+[ \t]*\n(.*?)\n\+\+\+[ \t]*(?:\n|\Z)", re.S)
_TOML_TITLE = re.compile(r"^title\s*=\s*(.+?)\s*$", re.M)


def _rendered_markup(text: str) -> tuple[str, int]:
    """Template and site-generator markup (above) as the site renders it:
    a tab's title a line of its own over its panel, a figure its caption,
    every other tag and comment left out, outside code; how many pieces were
    left out. Text with none of it is returned as it is."""
    marks = ("{%", "{{<", "{{%", "{/*", "{:", "import ", "export ", "<TabItem", "]({{")
    if not any(mark in text for mark in marks):
        return text, 0
    left_out = 0
    pieces = _CODE.split(text)
    for n in range(0, len(pieces), 2):  # the odd pieces are code
        piece = _TAB_TAG.sub(lambda m: f"\n\n{m.group(1) or m.group(2)}:\n\n", pieces[n])
        while _LINK_LIQUID.search(piece):
            piece = _LINK_LIQUID.sub(r"\1", piece)
        piece = _FIGURE_TAG.sub(lambda m: m.group(1), piece)
        for rx in (
            _LIQUID_COMMENT,
            _MDX_COMMENT,
            _TEMPLATE_TAG,
            _MDX_EXPORT,  # (before the imports over it, whose blank line it follows)
            _MDX_IMPORT,
            _KRAMDOWN_TOC,
            _KRAMDOWN_ATTRS,
        ):
            piece, found = rx.subn("", piece)
            left_out += found
        pieces[n] = piece
    return "".join(pieces), left_out


def _shown_markup(text: str) -> tuple[str, int]:
    """Obsidian's own markup read as Obsidian shows a note, and emoji codes
    left out (see the module docstring), outside code; how many pieces were
    left out. Text with none of it is returned as it is."""
    if not any(mark in text for mark in ("[[", "%%", "[!", "^", "#", ":")):
        return text, 0
    left_out = 0

    def link(m: re.Match[str]) -> str:
        target, heading, words = (g.strip() if g else "" for g in m.groups())
        return words or " > ".join(p for p in (target, heading) if p)

    def callout(m: re.Match[str]) -> str:
        quote, title = m.group(1), m.group(2).strip()
        return f"{quote}{title}\n{quote.rstrip()}" if title else quote.rstrip()

    pieces = _CODE.split(text)
    for n in range(0, len(pieces), 2):  # the odd pieces are code
        piece = pieces[n]
        for rx in (_OBSIDIAN_COMMENT, _OBSIDIAN_EMBED, _OBSIDIAN_BLOCK_ID, _TAG_LINE, _SHORTCODE):
            piece, found = rx.subn("", piece)
            left_out += found
        piece = _OBSIDIAN_LINK.sub(link, piece)
        pieces[n] = _CALLOUT.sub(callout, piece)
    return "".join(pieces), left_out


def sniff(head: bytes) -> bool:
    """Several Markdown headings: enough that a text file is really Markdown."""
    return len(_ATX.findall(head)) + len(_SETEXT.findall(head)) >= 3


# Markdown's own marks, which typed text does not use: "#" headings, words in
# strong emphasis, links. Two or more (a typed book's "*****" divider or a
# "______" blank to fill in is one look-alike; "# of players" is none: a
# heading opens with a capital or a number).
_MARKUP = re.compile(
    r"^ {0,3}#{1,6}[ \t]+[^\W_a-z]"
    r"|\*\*[^\W\d_][^*\n]*?[^\s*]\*\*|__[^\W\d_][^_\n]*?[^\s_]__"
    r"|\[[^\]\n]+\]\((?:https?://|/|#|\.)[^)\s]*\)",
    re.M,
)
MIN_MARKS = 2


def marked_up(text: str) -> bool:
    """Does ``text`` use Markdown's own marks, twice or more? Underlined
    headings alone are typed text's as much as Markdown's."""
    return sum(1 for _ in itertools.islice(_MARKUP.finditer(text), MIN_MARKS)) >= MIN_MARKS


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


def _brew_blocks(text: str) -> tuple[str, int]:
    """Homebrewery's ``{{name`` ... ``}}`` blocks as fenced blocks, and how many
    layout lines were dropped; text that has none of them is returned as it is.

    Homebrewery renders a page at a time, so a block is paired within its
    page; lines inside a code fence are the code's. A fence closes at the
    first bare fence at least as long as it, so a block is given more colons
    than every block inside it, and a line of colons in such a file is a
    spacer, not a fence. Blocks nested deeper than ``MAX_BREW_DEPTH`` are
    left as text (a hostile file's thousand would make fences of thousands).
    """
    if not (_LAYOUT_LINE.search(text) or ("{{" in text and "}}" in text)):
        return text, 0
    text, styles = _IMAGE_STYLE.subn(r"\1", text)
    lines = text.split("\n")
    code = False
    opens: list[int] = []  # line numbers of the blocks still open on this page
    height: dict[int, int] = {}  # open line -> how deep its nested blocks go
    pairs: list[tuple[int, int]] = []
    layout: list[int] = []
    spacers: list[int] = []
    for n, line in enumerate(lines):
        if _CODE_FENCE.match(line):
            code = not code
            continue
        if code:
            continue
        if _SPACER.match(line.strip()):
            spacers.append(n)
        one = _BREW_LINE.match(line)
        if _LAYOUT_LINE.match(line):
            layout.append(n)
            if re.search(r"page", line):
                opens.clear()  # a block never closed on its page ends with it
        elif one:
            if _BREW_FURNITURE.isdisjoint(one.group(1).split(",")):
                lines[n] = one.group(2) or ""
            else:
                layout.append(n)
        elif _BREW_OPEN.match(line):
            opens.append(n)
            height[n] = 0
        elif _BREW_CLOSE.match(line) and opens:
            start = opens.pop()
            pairs.append((start, n))
            if opens:
                height[opens[-1]] = max(height[opens[-1]], height[start] + 1)
    if not pairs and not layout:
        return "\n".join(lines), styles
    for n in [*layout, *spacers]:
        lines[n] = ""  # a spacer too: the only fences are the ones made below
    for start, end in pairs:
        if height[start] >= MAX_BREW_DEPTH:
            continue
        fence = ":" * (3 + height[start])
        name = _BREW_OPEN.match(lines[start]).group(1).strip()  # type: ignore[union-attr]
        lines[start] = f"{fence} {name or 'block'}"
        lines[end] = fence
    return "\n".join(lines), len(layout) + len(spacers) + styles


# a grid table's border: "+-----+-----+", "+=====+" under its header, with
# Pandoc's alignment colons ("+:----+")
_GRID_BORDER = re.compile(r"^[ \t]*\+(?:[-=:]+\+)+[ \t]*$")
_GRID_ROW = re.compile(r"^[ \t]*[|+].*[|+][ \t]*$")
# what a table's lines share before it: a list item's indent, a block quote's
# markers ("> ", a designer's note holding a table)
_LEAD = re.compile(r"^(?:[ \t]*>[ \t]?)*[ \t]*")


def _grid_tables(text: str) -> str:
    """Pandoc's and reStructuredText's grid tables as pipe tables, which the
    parser reads as it reads any table (one row per line, cells joined by
    " | "); markdown-it has no grid tables, and read as text a table was one
    line of border soup ("+------+ | Weapon | Range | ..."). docutils parses
    them: cells over several lines (a wrapped cell, a cell's list) joined
    into one, a cell spanning columns followed by empty ones, so its row's
    cells stay under their headers; a table indented in a list item, or
    in a block quote, stays in it. A table docutils cannot parse (a border
    out of line) stays as it was, as does one in code: where the code is,
    fenced or indented, is what markdown-it itself finds. Trade-off: a
    drawing of boxes in the text, not in code, that is a grid ("+---+---+"
    over "| A | B |") reads as a table's row, as Pandoc renders it."""
    if "+-" not in text and "+=" not in text and "+:" not in text:
        return text
    from docutils.parsers.rst.tableparser import GridTableParser, TableMarkupError
    from docutils.statemachine import StringList

    lines = text.split("\n")
    code = _code_lines(text)
    out: list[str] = []
    n = 0
    while n < len(lines):
        line = lines[n]
        lead = m.group() if (m := _LEAD.match(line)) else ""
        if n in code or not _GRID_BORDER.match(line[len(lead) :]):
            out.append(line)
            n += 1
            continue
        end = n + 1
        while (
            end < len(lines)
            and end not in code
            and lines[end].startswith(lead)
            and _GRID_ROW.match(lines[end][len(lead) :])
        ):
            end += 1
        while end > n + 1 and not _GRID_BORDER.match(lines[end - 1][len(lead) :]):
            end -= 1  # a table ends on its border
        block = [
            (b.replace(":", "=" if "=" in b else "-") if _GRID_BORDER.match(b) else b)
            for b in (x[len(lead) :] for x in lines[n:end])
        ]
        try:
            _, head, body = GridTableParser().parse(StringList([b.rstrip() for b in block]))
        except (TableMarkupError, IndexError, ValueError, AssertionError):
            # (docutils asserts on some broken layouts, a border out of line)
            out.extend(lines[n:end])
            n = end
            continue
        rows = [
            [
                " ".join(" ".join(cell[3]).split()).replace("|", "\\|") if cell else ""
                for cell in row
            ]
            for row in [*head, *body]
        ]
        if not any(cell for row in rows for cell in row):  # borders alone: a drawn line
            out.extend(lines[n:end])
            n = end
            continue
        out.extend(_pipe_table(rows, lead))
        n = end
    return "\n".join(out)


def _pipe_table(rows: list[list[str]], pad: str) -> list[str]:
    """``rows`` (the first the header) as a pipe table's lines, led by
    ``pad`` (a list item's indent, a block quote's markers), set apart by
    blank lines (in a block quote, lines of its markers alone)."""
    table = [rows[0], ["---"] * len(rows[0]), *rows[1:]]
    blank = pad.rstrip() if ">" in pad else ""
    return [blank, *(pad + "| " + " | ".join(r) + " |" for r in table), blank]


def _code_lines(text: str, kinds: tuple[str, ...] = ("fence", "code_block")) -> set[int]:
    """The numbers of the lines markdown-it reads as code: fenced or indented,
    or only the ``kinds`` asked for."""
    return {
        n for tok in _parser().parse(text) if tok.type in kinds and tok.map for n in range(*tok.map)
    }


# a simple table's rule: two or more runs of dashes, apart ("-----  ------")
_DASH_GROUPS = re.compile(r"^[ \t]*-{3,}(?:[ \t]+-{3,})+[ \t]*$", re.M)


def _simple_tables(text: str) -> str:
    """Pandoc's simple tables as pipe tables: a header line over runs of
    dashes, one per column, then a row per line to a blank line; or, with no
    header, rows between two such lines. Read as Markdown, the dashes were a
    rule line and every row ran into one line ("Knife 0 1 Grenade 6 2"). A
    row is cut between the columns' runs of dashes, halfway across the gap;
    a table with a word across a cut, or in code, stays as it was."""
    if not _DASH_GROUPS.search(text):
        return text
    lines = text.split("\n")
    code = _code_lines(text)
    # a right-aligned cell opens its row with spaces, which after the rule
    # markdown-it reads as indented code: only a fence ends the rows
    fenced = _code_lines(text, ("fence",))
    out: list[str] = []
    n = 0
    since = 0  # lines from here on were passed on as they are
    while n < len(lines):
        line = lines[n]
        if n in code or not _DASH_GROUPS.match(line):
            out.append(line)
            n += 1
            continue
        multiline = _multiline_table(lines, n, code)
        if multiline is not None and multiline[0] >= since:
            start, stop, cells = multiline
            del out[len(out) - (n - start) :]  # its rule and header, already passed on
            out.extend(_pipe_table(cells, ""))
            n = since = stop + 1
            continue
        has_head = n > 0 and bool(lines[n - 1].strip()) and n - 1 not in code
        end = n + 1
        while (
            end < len(lines)
            and lines[end].strip()
            and end not in fenced
            and not _DASH_GROUPS.match(lines[end])
            and not (has_head and _FULL_RULE.match(lines[end]))
        ):
            end += 1
        # (a table with a header may end on a rule of one run, Pandoc's way;
        # left, it made its last row a setext heading)
        closed = end < len(lines) and bool(
            _DASH_GROUPS.match(lines[end]) or (has_head and _FULL_RULE.match(lines[end]))
        )
        cuts, _ = _columns(line)
        source = ([lines[n - 1]] if has_head else []) + lines[n + 1 : end]
        rows = [_cut_row(row, cuts) for row in source]
        if (not has_head and not closed) or end == n + 1 or any(r is None for r in rows):
            out.append(line)
            n += 1
            continue
        if has_head:
            out.pop()  # the header line, already passed on
        cells = [r for r in rows if r is not None]
        out.extend(_pipe_table(cells, line[: len(line) - len(line.lstrip())]))
        n = since = end + 1 if closed else end
    return "\n".join(out)


# a multiline table's opening and closing rule: one run of dashes
_FULL_RULE = re.compile(r"^[ \t]*-{3,}[ \t]*$")


def _multiline_table(
    lines: list[str], n: int, code: set[int]
) -> tuple[int, int, list[list[str]]] | None:
    """Pandoc's multiline table whose header sits over the runs of dashes on
    line ``n``: a rule of one run above the header, rows apart by blank
    lines, each row's lines cut between the runs and joined cell by cell,
    to a closing rule of one run. Read as a simple table, only the first
    line of each row was; the rest ran on as text, a cell's second line a
    row of its own ("Knife | 1 | May be used in close combat", " | | after a
    charge."). Returns the lines of its opening and closing rules and its
    rows (the header first), or None for anything else: a word across a
    cut, code, a heading or a list item among its rows. Each rule stands
    apart as Pandoc asks, a blank line (or the file's edge) before the top
    one and after the closing one, so a setext heading's underline is none;
    and a rule is as wide as the table, so a thematic break's "---" is
    none. Rows one line each, none apart by a blank line and none going on
    under an empty first cell, are a simple table's under a rule line."""
    cuts, span = _columns(lines[n])

    def rule(k: int) -> bool:
        return bool(_FULL_RULE.match(lines[k])) and len(lines[k].strip()) >= 0.9 * span

    top = n - 1
    while top >= 0 and lines[top].strip() and top not in code and not _FULL_RULE.match(lines[top]):
        top -= 1
    if (
        top < 0
        or top == n - 1
        or not rule(top)
        or top in code
        or (top > 0 and lines[top - 1].strip())
    ):
        return None
    stop = next((k for k in range(n + 1, len(lines)) if _FULL_RULE.match(lines[k])), None)
    if (
        stop is None
        or not rule(stop)
        or (stop + 1 < len(lines) and lines[stop + 1].strip())
        or any(k in code for k in range(n + 1, stop))
    ):
        return None
    body = lines[n + 1 : stop]
    if any(re.match(r"[ \t]*(?:#|[-*+][ \t])", line) for line in body):
        return None  # a heading or a list item: text, not a row
    groups: list[list[str]] = [lines[top + 1 : n], []]
    for line in body:
        if line.strip():
            groups[-1].append(line)
        elif groups[-1]:
            groups.append([])
    rows: list[list[str]] = []
    going_on = False  # a row's line under an empty first cell
    for group in (g for g in groups if g):
        cut = [_cut_row(line, cuts) for line in group]
        if any(c is None for c in cut):
            return None
        going_on = going_on or any(c is not None and not c[0] for c in cut[1:])
        rows.append([" ".join(" ".join(parts).split()) for parts in zip(*cut, strict=True)])
    if len(rows) < 2 or (not going_on and not any(not line.strip() for line in body)):
        return None
    return top, stop, rows


def _columns(rule: str) -> tuple[list[int], int]:
    """A table's line of dashes, one run per column: where its rows are cut
    (halfway across each gap between runs), and how wide its runs reach."""
    runs = [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]
    return [(a[1] + b[0]) // 2 for a, b in pairwise(runs)], runs[-1][1] - runs[0][0]


def _cut_row(row: str, cuts: list[int]) -> list[str] | None:
    """A simple table's row cut into its cells at ``cuts``; None when a word
    runs across a cut (not a table's row)."""
    if any(0 < c < len(row) and not row[c - 1].isspace() and not row[c].isspace() for c in cuts):
        return None
    edges = [0, *cuts, max(len(row), cuts[-1] if cuts else 0)]
    return [row[a:b].strip().replace("|", "\\|") for a, b in pairwise(edges)]


def _aside_title(params: str) -> str:
    """The title a fenced block gives after its kind: "note Designer's note",
    ":::tip[Remember]"; not its kind or attributes alone."""
    params = re.sub(r"\{[^{}]*\}", " ", params).strip()
    _, _, rest = params.partition(" ")
    # (":::warning[Heavy armour]": the bracket after the kind, spaces and all)
    bracket = re.match(r"[\w-]*\[(.*)\]", params)
    return " ".join((bracket.group(1) if bracket else rest).split()).strip("\"' ")


def _inline_text(token: Any, *, lines: bool = False, labels: bool = False) -> str:
    """Plain text of an inline token: what the words say, without the markup;
    with ``lines``, a line break in the source stays one; with ``labels``,
    one before a bold run-in label ("**Range:** 12\"") does."""
    out: list[str] = []
    kids = token.children or []
    label_line = labels and _opens_label(kids)  # the line so far opened with a label
    for n, child in enumerate(kids):
        if child.type in ("text", "code_inline"):
            out.append(child.content)
        elif child.type == "softbreak":
            after = kids[n + 1].content if n + 1 < len(kids) else ""
            # one numbered rule a line stays one a line ("100.1. ...\n100.2. ...");
            # the text so far is joined only for a line that opens with a digit
            # a label opens a line of a stat block: after a line that opened
            # with one, or after a sentence (not "...a model with\n**Armour:**
            # ignores it", a wrapped sentence)
            label = labels and _opens_label(kids[n + 1 :])
            apart = (
                lines
                or (after[:1].isdigit() and opens_numbered_rule(after, "".join(out)))
                or (label and _ends_stat_line("".join(out), label_line))
            )
            out.append("\n" if apart else " ")
            if apart:
                label_line = label
        elif child.type == "hardbreak" or (
            child.type == "html_inline" and _BR.match(child.content)
        ):
            out.append("\n")
        elif child.type == "image":
            out.append(child.content or "")
        elif child.type == "footnote_ref":
            out.append(f"[{_footnote_mark(child.meta)}]")
    return "".join(out).strip()


# The most words a stat block's line has ('Dice: one D6 per cannon'): a longer
# line opened by a label is a definition, wrapped ("Pierce: each point of
# Pierce lowers the save by one, and a model with / **Armour:** ignores it.")
STAT_LINE_WORDS = 8


def _ends_stat_line(so_far: str, label_line: bool) -> bool:
    """Does the text ``so_far`` end a line a label may follow: a stat line (one
    opened by a label, ``label_line``, of at most ``STAT_LINE_WORDS``) or a
    sentence?"""
    line = so_far[so_far.rfind("\n") + 1 :]
    return (label_line and len(line.split()) <= STAT_LINE_WORDS) or so_far.rstrip().endswith(
        (".", "!", "?", ":")
    )


def _opens_label(kids: list[Any]) -> bool:
    """Does the line these inline tokens open start with a bold run-in label
    ("**Range:** 12\"")? A stat block's lines, written one under another
    without blank lines, are one paragraph to Markdown; joined, they read
    'Range: 12" Dice: one D6 Hits: 4+'."""
    # (markdown-it puts an empty text token before the emphasis)
    kids = list(itertools.dropwhile(lambda k: k.type == "text" and not k.content, kids))
    if len(kids) < 3 or kids[0].type != "strong_open":
        return False
    label = []
    close = 0
    for at, kid in enumerate(kids[1:], 1):
        if kid.type == "strong_close":
            close = at
            break
        if kid.type in ("em_open", "em_close"):
            continue  # "**Range (*long*):**"
        if kid.type not in ("text", "code_inline"):
            return False
        label.append(kid.content)
    else:
        return False
    words = "".join(label).strip()
    after = kids[close + 1].content if close + 1 < len(kids) else ""
    return bool(words) and (words.endswith(":") or after.startswith(":"))


def _footnote_key(meta: dict[str, Any]) -> str:
    """A footnote's own name: its label ("[^a]"), or for an inline note
    ("text.^[note]", Pandoc's), which has none, its place among the notes."""
    label = meta.get("label")
    return str(label) if label is not None else f"^{meta['id']}"


def _footnote_mark(meta: dict[str, Any]) -> str:
    """The mark a footnote is shown with: its label, or for an inline note
    its number among the notes, as Pandoc prints it."""
    label = meta.get("label")
    return str(label) if label is not None else str(meta["id"] + 1)


def _images_only(token: Any) -> bool:
    """Is this paragraph pictures alone (badges, linked or not), no words?"""
    kids = token.children or []
    return any(k.type == "image" for k in kids) and all(
        k.type in ("image", "link_open", "link_close", "softbreak", "hardbreak")
        or (k.type == "text" and not k.content.strip())
        for k in kids
    )


def _lettered(token: Any) -> bool:
    """Does every line of this paragraph after its first open with a list label
    (two labelled lines at least)? Then they are items: "a) -1 in cover" /
    "b) -1 if moved" on lines of their own read as one line."""
    lines = token.content.split("\n")
    labelled = [bool(_LETTERED.match(line)) for line in lines]
    return len(lines) >= 2 and all(labelled[1:]) and sum(labelled) >= 2


def _footnote_refs(token: Any) -> list[str]:
    return [_footnote_key(c.meta) for c in token.children or [] if c.type == "footnote_ref"]


def outline_of(text: str) -> Outline:
    outline = Outline()
    # YAML front matter, then Hugo's TOML ("+++"), whose title names the book
    for front, title_of in ((_FRONT_MATTER, _FRONT_TITLE), (_TOML_FRONT_MATTER, _TOML_TITLE)):
        m = front.match(text)
        if m:
            title = title_of.search(m.group(1))
            if title and not outline.title:
                outline.title = title.group(1).strip("'\"")
            outline.dropped["front matter"] += 1
            text = text[m.end() :]
    text, rendered = _rendered_markup(text)
    if rendered:
        outline.dropped["template tags and comments"] += rendered
    text, layout = _brew_blocks(text)
    if layout:
        outline.dropped["layout lines"] += layout
    text = _simple_tables(_grid_tables(text))
    text, hidden = _shown_markup(text)
    if hidden:
        outline.dropped["comments, embeds, tags and emoji codes"] += hidden
    env: dict[str, Any] = {}
    md = _parser()
    tokens = md.parse(text, env)
    _sentences_under_rules(tokens)
    _bold_headings(tokens)
    source_lines = text.split("\n")
    lists: list[list[int]] = []  # per open list: [next number or -1 for bullets]
    item_prefix = ""
    row: list[str] | None = None
    heading_level = 0
    referred: dict[str, int] = {}  # footnote label -> the block that first refers to it
    notes: dict[str, list[str]] = {}  # footnote label -> its paragraphs
    marks: dict[str, str] = {}  # footnote label -> the mark it is shown with
    note: str | None = None  # the footnote being read
    in_table: list[str] = []  # footnotes referred to in the table being read
    raw: list[str] = []  # consecutive HTML blocks, read as one
    # per open block set apart (a fenced block, an admonition): closed by a
    # fence of its own? (one never closed is no note)
    asides: list[bool] = []
    section = 0  # the level of the last heading read
    quotes = 0  # depth of block quotes
    quote_start = False  # the next paragraph opens a block quote
    skip_to = -1
    contents = _contents_lists(tokens)
    for n, tok in enumerate(tokens):
        if n < skip_to:
            continue
        t = tok.type
        if raw and t != "html_block":
            _read_html(outline, raw, md)
        if n in contents:
            end, lines = contents[n]
            outline.dropped["table of contents lines"] += lines
            skip_to = end + 1
            continue
        if t == "dl_open" and note is None:
            end = _closing(tokens, n)
            part = tokens[n : end + 1]
            if lists or asides or quotes:
                # inside a list, a note or a quote: lines, never rules of its own
                outline.blocks.extend(Block(line) for line in _definition_lines(part))
            else:
                # read as the HTML reader reads a <dl>, so both formats agree
                raw.append(md.renderer.render(part, md.options, env))
                _read_html(outline, raw)
            for inline in part:
                for label in _footnote_refs(inline) if inline.type == "inline" else ():
                    referred.setdefault(label, len(outline.blocks) - 1)
            skip_to = end + 1
        elif t == "admonition_open":
            asides.append(True)
        elif t == "container_aside_open":
            if _closed(tok, source_lines):
                asides.append(True)
                if caption := _aside_title(tok.info):
                    outline.blocks.append(Block(caption))
            else:
                # a fence never closed ("::: Optional rule :::" in prose) is text
                asides.append(False)
                if words := tok.info.strip(" :"):
                    outline.blocks.append(Block(words))
        elif t in ("container_aside_close", "admonition_close"):
            asides.pop()
        elif t == "blockquote_open":
            quotes += 1
            quote_start = True
        elif t == "blockquote_close":
            quotes -= 1
        elif t == "footnote_open":
            note = _footnote_key(tok.meta)
            marks[note] = _footnote_mark(tok.meta)
            notes.setdefault(note, [])
        elif t == "footnote_close":
            note = None
        elif note is not None:
            if t == "inline" and (content := _inline_text(tok)):
                notes[note].append(" ".join(content.split()))
        elif t == "heading_open":
            heading_level = int(tok.tag[1])
            # A heading inside a note that skips a level below the section it
            # is in (Homebrewery heads a note with #####) is the note's title,
            # a line of it; one that does not (a stat block's "## Goblin", a
            # Pandoc chapter's "## Combat") is a section of its own.
            if any(asides) and heading_level >= section + 2:
                heading_level = 0
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
        elif t == "inline" and row is None and _images_only(tok):
            outline.dropped["images"] += 1  # badges, a picture: no rule's words
        elif t == "inline":
            lettered = row is None and not heading_level and _lettered(tok)
            # a stat block's label lines in a paragraph (in a list item, an
            # API's "**Default:**" goes on the item's line)
            content = _inline_text(tok, lines=lettered, labels=not lists and row is None)
            if lettered and lists:
                # the items continue a list item: set under it, as a nested list is
                content = content.replace("\n", "\n" + "  " * len(lists))
            if quote_start:
                content = _ALERT.sub("", content)
                quote_start = False
            if row is not None:
                # a "|" written in a cell ("\\|") is no column's edge
                row.append(" ".join(content.replace("|", "\\|").split()))
            elif heading_level:
                heading = _HEADING_ATTRS.sub("", " ".join(content.split())) or content
                heading = _BLOCK_ID.sub("", heading) or heading
                outline.blocks.append(Block(heading, level=heading_level))
                section = heading_level
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
    _place_footnotes(outline, notes, referred, marks)
    return outline


def _sentences_under_rules(tokens: list[Any]) -> None:
    """Turn back into paragraphs the setext headings that are a paragraph with a
    thematic break under it (see the module docstring), in place.

    CommonMark makes any paragraph with a ``---`` line right under it a
    heading, however long; a writer who uses ``#`` headings and puts a rule
    line after a paragraph meant a paragraph and a rule line (the rule it sat
    in was emptied and vanished, and a sentence became a rule of its own).
    Only ``---``: ``===`` is heading markup and nothing else. The break
    itself separates nothing in a rule's text, so it is not put back.
    """
    atx = any(t.type == "heading_open" and t.markup.startswith("#") for t in tokens)
    if not atx:
        return  # a file of setext headings means them all
    for n, tok in enumerate(tokens[:-2]):
        if tok.type != "heading_open" or not tok.markup.startswith("-"):
            continue
        inline = tokens[n + 1]
        words = " ".join(_inline_text(inline).split())
        several_lines = "\n" in inline.content.strip()
        # (not its punctuation alone: "WAAAGH!" and "Did You Know?" are headings)
        sentence = len(words.split()) > HEADING_WORDS
        if several_lines or sentence:
            tok.type, tok.tag, tok.markup = "paragraph_open", "p", ""
            close = tokens[n + 2]
            close.type, close.tag, close.markup = "paragraph_close", "p", ""


def _wholly_bold(inline: Any) -> bool:
    """Is this paragraph one bold (or bold-italic) span, on one line?"""
    kids = [c for c in inline.children or [] if c.type != "text" or c.content.strip()]
    if any(c.type in ("softbreak", "hardbreak") for c in kids):
        return False
    bold = False
    while len(kids) >= 2 and kids[0].type in ("strong_open", "em_open"):
        opener, closer = kids[0].type, kids[0].type.replace("_open", "_close")
        depth, end = 0, 0
        for end, kid in enumerate(kids):  # noqa: B007 (where the span closes)
            depth += 1 if kid.type == opener else -1 if kid.type == closer else 0
            if depth == 0:
                break
        if end != len(kids) - 1:  # the span ends before the paragraph does
            return False
        bold = bold or opener == "strong_open"
        kids = kids[1:-1]
    return bold and bool(kids)


def _bold_headings(tokens: list[Any]) -> None:
    """Make headings, in place, of the paragraphs wholly in bold that a file
    with no headings of its own uses as headings (see the module docstring).

    Decided as the Word reader decides a hand-made heading
    (``ingest.typeset``), on what Markdown can say of a line: bold or not (no
    sizes). Only paragraphs at the top (not in a list, a quote, a note or a
    table) can be headings; all count as text. A file with one heading
    before everything else (its title, "# Ashfall Rules") still qualifies:
    the bold headings go under it. Levels: a dotted number's depth where
    there is one ("3" 1, "3.2" 2), else the level ``typeset`` ranks it at.
    """
    heads = [n for n, t in enumerate(tokens) if t.type == "heading_open"]
    if len(heads) > 1 or (heads and any(t.block for t in tokens[: heads[0]])):
        return
    if any(t.type == "html_block" and _HTML_HEADING.search(t.content) for t in tokens):
        return  # its headings are HTML's (a wiki export's <h3>)
    base = int(tokens[heads[0]].tag[1]) if heads else 0
    chars: Counter[float] = Counter()
    bold_chars = 0
    lines: list[Line] = []
    for n, tok in enumerate(tokens[:-1]):
        if tok.type != "paragraph_open" or tokens[n + 1].type != "inline":
            continue
        inline = tokens[n + 1]
        text = " ".join(_inline_text(inline).split())
        if not text:
            continue
        chars[1.0] += len(text)
        depth = 0
        for kid in inline.children or []:
            depth += 1 if kid.type == "strong_open" else -1 if kid.type == "strong_close" else 0
            if depth > 0 and kid.type in ("text", "code_inline"):
                bold_chars += len(kid.content)
        top = tok.level == 0
        # a bold question or exclamation is a line of its rule ("**Can I
        # charge after running?**" over its answer), as in the HTML reader
        asks = text.endswith(("?", "!"))
        lines.append(Line(n, text, 1.0, top and not asks and _wholly_bold(inline), listed=not top))
    found = typeset_headings(lines, chars, bold_chars)
    text_of = {line.element: line.text for line in lines}
    for n, ranked in found.headings:
        number = _HEADING_NUMBER.match(text_of[n])
        depth = number.group(1).count(".") + 1 if number else ranked
        level = max(1, min(base + depth, MAX_LEVEL))
        for tok in (tokens[n], tokens[n + 2]):
            tok.type = tok.type.replace("paragraph", "heading")
            tok.tag, tok.markup = f"h{level}", "**"


def _contents_lists(tokens: list[Any]) -> dict[int, tuple[int, int]]:
    """The file's own tables of contents: start token -> (end token, lines).

    Read as the HTML reader reads a page's (``html.contents._drop_contents``): a list of
    three or more items, each nothing but links to headings further down the
    file (``- [Charging](#charging)``), perhaps with a page number set off by
    leader dots that never goes down, alone between headings but for a short
    label line above it, which goes too (an HTML comment, as doctoc and
    markdown-toc mark theirs, or a rule line beside it changes nothing); and
    a tool's placeholder for one (``[TOC]``, ``[[_TOC_]]``, ``{:toc}``), which
    the tool would have filled with the same. Left in, every heading's name
    was a rule's text. The anchors are compared as letters and digits, so
    GitHub's, GitLab's and MkDocs' slugs all match (``#running--walking`` and
    ``#running-walking`` for "Running & Walking", percent-encoded or not,
    with GitHub's ``-1`` for a repeated heading), as does an explicit
    ``{#id}``. A section's own list of its subsections ("## Sequence of
    Play" over links to its phases) is its text, as in HTML, and so is a list
    after a lead-in, with a code span, or before more text.
    """
    heads: list[tuple[int, int]] = []  # (token, level)
    names: dict[int, str] = {}  # heading token -> its name
    anchors: dict[str, list[int]] = {}  # anchor key -> where its headings are
    for n, tok in enumerate(tokens[:-1]):
        if tok.type == "heading_open" and tokens[n + 1].type == "inline":
            heads.append((n, int(tok.tag[1])))
            title = tokens[n + 1].content
            names[n] = _HEADING_ATTRS.sub("", _inline_text(tokens[n + 1]))
            explicit = _HEADING_ID.search(title)
            if explicit:
                anchors.setdefault(html_contents.anchor_key(explicit.group(1)), []).append(n)
            anchors.setdefault(html_contents.anchor_key(_HEADING_ATTRS.sub("", title)), []).append(
                n
            )
    levels = dict(heads)
    starts = [pos for pos, _ in heads]
    ends: dict[int, int] = {}  # where each heading's section ends
    open_: list[int] = []
    for pos, level in heads:
        while open_ and levels[open_[-1]] >= level:
            ends[open_.pop()] = pos
        open_.append(pos)
    top = min(levels.values(), default=0)
    title_level = top if sum(1 for level in levels.values() if level == top) == 1 else 0

    def heading_at(href: str) -> int:
        target = unquote(href[1:])
        if (key := html_contents.anchor_key(target)) in anchors:
            return anchors[key][0]
        # GitHub's "#example-1": the second heading named "Example"
        repeat = re.fullmatch(r"(.*)-(\d+)", target)
        if repeat:
            same = anchors.get(html_contents.anchor_key(repeat.group(1)), [])
            if int(repeat.group(2)) < len(same):
                return same[int(repeat.group(2))]
        return -1

    def entry(inline: Any, at: int) -> tuple[list[int] | None, int | None]:
        """The headings an item links to (None: no contents entry), its page."""
        found: list[int] = []
        depth = 0
        rest: list[str] = []
        for child in inline.children or ():
            if child.type == "link_open":
                href = str(child.attrs.get("href") or "")
                if not href.startswith("#") or heading_at(href) <= at:
                    return None, None
                found.append(heading_at(href))
                depth += 1
            elif child.type == "link_close":
                depth -= 1
            elif depth == 0:
                if not found and child.content.strip():
                    return None, None  # words before the link: "1 [Ambush](#ambush)"
                rest.append(child.content if child.type != "softbreak" else " ")
        tail = "".join(rest)
        if not found or not html_contents.CONTENTS_TAIL.match(tail):
            return None, None
        # an entry names its heading ("[1.2 Charging](#charging)" for "Charging")
        if not html_contents.names_heading(_inline_text(inline), names[found[0]]):
            return None, None
        digits = re.search(r"\d+", tail)
        return found, int(digits.group()) if digits else None

    def own_subsections(at: int, linked: list[int]) -> bool:
        """Do the links all point below the heading the list sits under, inside
        its section (and is that heading not the file's title)?"""
        i = bisect_right(starts, at) - 1
        if i < 0 or levels[starts[i]] == title_level:
            return False
        owner = starts[i]
        level, end = levels[owner], ends.get(owner, len(tokens))
        return all(levels[h] > level and h < end for h in linked)

    def in_order(linked: list[int], end: int) -> bool:
        """The headings in the file's order, each once, from the first after the
        list: a list of links to definitions elsewhere (a class's spells) is no
        contents list."""
        after = bisect_right(starts, end)
        return (
            bool(linked)
            and after < len(starts)
            and starts[after] == linked[0]
            and all(a < b for a, b in pairwise(linked))
        )

    def is_label(n: int) -> bool:
        """Is the paragraph opening at ``n`` a short label line ("Contents")?"""
        text = tokens[n + 1].content.strip() if n + 1 < len(tokens) else ""
        return (
            tokens[n].type == "paragraph_open"
            and html_contents.label_line(text)
            and "](" not in text
        )

    def neutral(tok: Any) -> bool:
        """A token that says nothing: a comment (doctoc's markers), a rule line."""
        return tok.type == "hr" or (
            tok.type == "html_block" and bool(_ONLY_COMMENTS.fullmatch(tok.content))
        )

    found: dict[int, tuple[int, int]] = {}
    placeholders = {
        n
        for n, tok in enumerate(tokens[:-2])
        if tok.type == "paragraph_open" and _TOC_PLACEHOLDER.match(tokens[n + 1].content.strip())
    }
    for n in placeholders:
        found[n] = (n + 2, 1)
    n = 0
    while n < len(tokens):
        tok = tokens[n]
        if tok.type not in ("bullet_list_open", "ordered_list_open"):
            n += 1
            continue
        end = _closing(tokens, n)
        part = tokens[n:end]
        items = sum(1 for t in part if t.type == "list_item_open")
        checked = [entry(t, n) for t in part if t.type == "inline"]
        pages = [p for _, p in checked if p is not None]
        if (
            items >= html_contents.MIN_CONTENTS_ENTRIES
            and all(t.type in _LIST_TOKENS for t in part)
            and all(linked is not None for linked, _ in checked)
            and all(a <= b for a, b in pairwise(pages))
            and in_order([h for linked, _ in checked for h in linked or ()], end)
            and not own_subsections(n, [h for linked, _ in checked for h in linked or ()])
        ):
            # alone: a heading (or the start, or a placeholder) before it, but
            # for a label line; a heading (or the end, or a placeholder) after
            before = n
            while before > 0 and neutral(tokens[before - 1]):
                before -= 1
            label = -1
            if (
                before >= 3
                and tokens[before - 1].type == "paragraph_close"
                and is_label(before - 3)
            ):
                label = before = before - 3
                while before > 0 and neutral(tokens[before - 1]):
                    before -= 1
            first = (
                before == 0
                or tokens[before - 1].type == "heading_close"
                or (before >= 3 and before - 3 in placeholders)
            )
            after = end + 1
            while after < len(tokens) and neutral(tokens[after]):
                after += 1
            last = (
                after >= len(tokens)
                or tokens[after].type == "heading_open"
                or (after in placeholders)
            )
            if first and last:
                if label >= 0:
                    found[label] = (end, items + 1)
                else:
                    found[n] = (end, items)
        n = end + 1
    return found


def _closed(tok: Any, lines: list[str]) -> bool:
    """Was fenced block ``tok`` closed by a fence of its own? The plugin closes
    an unclosed one at the end of the file (or of the list it is in)."""
    end = tok.map[1] if tok.map else len(lines)
    if end >= len(lines):
        return False
    fence = lines[end].strip()
    return fence.startswith(tok.markup) and not fence.strip(":")


def _definition_lines(tokens: list[Any]) -> list[str]:
    """A definition list as "Term: definition" lines (a second paragraph of a
    definition on a line of its own)."""
    lines: list[str] = []
    term = ""
    depth = 0  # inside a <dd>
    first = False  # the next paragraph is the definition's first
    for tok in tokens:
        if tok.type == "dd_open":
            depth += 1
            first = True
        elif tok.type == "dd_close":
            depth -= 1
            if first and term:
                lines.append(term)  # a term with an empty definition
            first = False
        elif tok.type == "inline":
            words = " ".join(_inline_text(tok).split())
            if not depth:
                if term and first:
                    lines.append(term)
                term = words
            elif first:
                lines.append(f"{term}: {words}" if term else words)
                first = False
            elif words:
                lines.append(words)
    return [line for line in lines if line]


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

    With ``md``, the HTML's text may be the author's Markdown: CommonMark
    leaves the lines of an HTML block as they are, so Notion's exported
    callout (``<aside>`` then "**Note:** text" with no blank line between)
    kept its asterisks. Text that holds a Markdown span, emphasis, code or
    a link, both its ends (``**Note:**``, ``_this_``, ``[Cover](c.md)``), is
    read as Markdown; other text, and anything in ``<pre>`` or ``<code>``,
    as written ("2*3*4", "C:\\path\\*.txt")."""
    source = "\n".join(raw)
    raw.clear()
    if md is not None and _MARKDOWN_SPAN.search(source):
        source = _markdown_in_text(source, md)
    fragment = html.outline_of(source.encode("utf-8"), fragment=True)
    outline.dropped.update(fragment.dropped)
    if fragment.blocks:
        outline.blocks.extend(fragment.blocks)
    else:
        outline.dropped["HTML markup"] += 1


def _markdown_in_text(source: str, md: Any) -> str:
    """``source`` with each text node that holds a Markdown span rendered."""
    from bs4 import BeautifulSoup, NavigableString

    soup = BeautifulSoup(source, "lxml")
    for node in soup.find_all(string=_MARKDOWN_SPAN):
        if type(node) is not NavigableString or node.find_parent(_LITERAL_TAGS):
            continue
        # escaped first: "<dice>" in the text is words, not a tag to render
        rendered = BeautifulSoup(md.renderInline(escape(str(node), quote=False)), "html.parser")
        node.replace_with(*list(rendered.contents))
    return str(soup)


def _place_footnotes(
    outline: Outline,
    notes: dict[str, list[str]],
    referred: dict[str, int],
    marks: dict[str, str],
) -> None:
    """Each footnote after the block that first refers to it; the others at the end."""
    after: dict[int, list[Block]] = {}
    for label, paragraphs in notes.items():
        if not paragraphs:
            continue
        block = Block(f"[{marks.get(label, label)}] " + " ".join(paragraphs))
        at = referred.get(label, len(outline.blocks) - 1)
        after.setdefault(max(at, -1), []).append(block)
    for at in sorted(after, reverse=True):
        outline.blocks[at + 1 : at + 1] = after[at]


def read(data: bytes, request: ReadRequest) -> ParseResult:
    text = decode_rulebook(data, request.name, request.encoding)
    outline = outline_of(text)
    result = request.units(outline, "markdown")
    # A rule number used twice (an erratum pasted under the old rule, a copied
    # section) is made unique as "4.3-2": said, since a player citing "4.3"
    # gets the first and may never learn the second exists.
    ids = {u.rule_id for u in result.units}
    for unit in result.units:
        repeat = _REPEATED_NUMBER.fullmatch(unit.rule_id)
        if repeat and repeat.group(1) in ids:
            result.warnings.append(
                f'{request.name}: heading "{repeat.group(1)} {unit.title}" is used more than '
                f"once; this one is rule {unit.rule_id}"
            )
    return result


FORMAT = Format(
    name="markdown",
    extensions=(".md", ".markdown", ".mdown", ".mkd", ".mdx"),
    read=read,
    sniff=sniff,
    priority=60,
    label="Markdown",
)
