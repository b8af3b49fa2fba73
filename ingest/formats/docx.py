"""Word documents (``.docx``), converted to HTML by mammoth and read as HTML.

Word, Google Docs and LibreOffice all save ``.docx``, and a homebrew
rulebook is as often a Word file as a PDF. mammoth (BSD) turns the
document's structure into plain HTML: a paragraph styled "Heading 1" to
"Heading 6" becomes ``<h1>``-``<h6>``, lists stay lists, tables tables, and
footnotes and endnotes come with links to and from their marks. The HTML
reader then reads it like any page (``ingest.formats.html``), so a Word
rulebook's rules, breadcrumbs and footnotes come out as a web page's do:
a footnote goes after the paragraph that refers to it.

A heading is what the document says is one: a paragraph style with an
outline level (Word's own notion, which its navigation pane and table of
contents use) is read as a heading of that level, so a house style such as
"Rule Title", based on "Heading 2" or given level 2, is one too. A document
that uses no such style at all, its headings made by hand, is read by its
type instead, as the PDF reader reads a page: a short line, not ending as a
sentence does, set all in bold or larger than the text (the size most of
its characters have), is a heading, its level ranked by size and weight;
the largest, used once and first, is the document's title. Where heading
styles are used, hand-made look-alikes are text (a bold warning line is not
a section), and a document with neither is plain sections, with a warning,
as in every format. mammoth's own notes are not passed on: it
notes every style it has no mapping for, body styles included, which tells
a player nothing. Images are not read (their bytes never leave the file).
The document's title is its Title property, when it has one.

Headings numbered by a multilevel list (how Word and LibreOffice number a
book's rules: "1.1 Components") get their number written into their text,
counted as Word counts it, since mammoth drops it and players cite by it:
the lists made from one list definition count on together, a second one
going on from the first unless it restarts a level (``_list_levels``).
A numbered list's items keep the label Word shows too: mammoth writes a
bare ``<ol>``, which read 1., 2., 3. whatever the list's level said ("a)",
"(i)", "iv."), so each item's number, counted the same way, and its level's
format and text around the number go to the HTML reader as the ``<ol>``'s
type and label and each ``<li>``'s value, as the OpenDocument reader passes
Writer's on. (A level's text with the higher levels' numbers in it,
"%1.%2.", is filled in: they are the same for every item of one ``<ol>``.)

What Word neither shows nor prints is not read (``_unseen``): text formatted
hidden (``w:vanish``), a content control's placeholder ("Click or tap here
to enter text."), and the second copy Word keeps of a text box or a
drawing for newer versions (``mc:Choice``; mammoth reads the
``mc:Fallback``): counted twice, a heading in a sidebar put every later
rule's number one too high.

A line break inside a paragraph (Shift+Enter, ``w:br``) is a line break in
the rule's text: mammoth writes it as ``<br>``, which the HTML reader keeps
as one (a heading's stays a space).

A legacy ``.doc`` or a password-protected document (both OLE files, not
zips) gets a one-line error saying so, and so does a file that unpacks to
more than ``MAX_UNPACKED_MB``.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections import Counter
from typing import Any, NamedTuple

from ruleslawyer.errors import RulebookError
from ruleslawyer.ingest.formats import Format, ReadRequest, html
from ruleslawyer.ingest.typeset import HEADING_WORDS, Line, typeset_headings
from ruleslawyer.ingest.units import ParseResult

_ZIP = b"PK\x03\x04"
_OLE = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # a .doc, or an encrypted Office file
_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
# what mammoth's "p.StyleId" matcher takes (ASCII letters, digits after the first, - and _)
_STYLE_ID = re.compile(r"^[A-Za-z_-][A-Za-z0-9_-]*$")
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_TYPED = "RulesLawyerHeading"  # the styles given to hand-made headings
# What a .docx may unpack to. A 300-page rulebook's parts come to 10-20 MB;
# reading takes about ten times what it unpacks to.
MAX_UNPACKED_MB = 64
MAX_LIST_START = 32767  # Word's largest start value for a list level
# mammoth's own map makes Heading 1-6 headings even without an outline level
# Word's built-in styles of a table of contents' entries: "toc 1" to "toc 9"
_TOC_STYLE = re.compile(r"^toc [1-9]$", re.I)
_WORD_HEADINGS = frozenset(f"Heading{n}" for n in range(1, 7))


def sniff(head: bytes) -> bool:
    """A zip whose first entries name Word's parts, or a legacy Word file (an
    OLE compound file: refused with its own message, whatever its name)."""
    return (head.startswith(_ZIP) and b"word/" in head) or head.startswith(_OLE)


def _matcher(sid: str, name: str) -> str:
    """mammoth's matcher for a paragraph style: by ID where its syntax takes
    the ID ("p.RuleTitle"), else by name ("RègleSpéciale", an ID with a space
    or a leading digit, as LibreOffice and python-docx write them)."""
    if _STYLE_ID.match(sid) or not name:
        return f"p.{sid}"
    quoted = name.replace("\\", "\\\\").replace("'", "\\'")
    return f"p[style-name='{quoted}']"


def to_html(data: bytes, name: str) -> tuple[str, str, int]:
    """The document as HTML, and its Title property ("" when it has none)."""
    import mammoth

    if data.startswith(_OLE):
        raise RulebookError(
            f"{name}: a legacy Word .doc or a password-protected document; "
            "save it as .docx (or PDF) without a password"
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            parts = set(z.namelist())
            if "word/document.xml" not in parts:
                raise RulebookError(f"{name}: not a Word document (no word/document.xml)")
            # What it unpacks to, not its size, is what reading costs (about
            # ten times that in memory): a small file can unpack to gigabytes.
            unpacked = sum(info.file_size for info in z.infolist())
            if unpacked > MAX_UNPACKED_MB * 1024 * 1024:
                raise RulebookError(
                    f"{name}: unpacks to {unpacked // (1024 * 1024)} MB; a Word rulebook may "
                    f"unpack to at most {MAX_UNPACKED_MB} MB (split it, or save it as PDF)"
                )
            styles = _Styles(z.read("word/styles.xml") if "word/styles.xml" in parts else b"")
            core = z.read("docProps/core.xml") if "docProps/core.xml" in parts else b""
            numbering = z.read("word/numbering.xml") if "word/numbering.xml" in parts else b""
            root = _xml(z.read("word/document.xml"))
        unseen = _unseen(root)
        headings = styles.heading_levels()
        levels = {_matcher(sid, name): level for sid, (level, name) in headings.items()}
        outlined = set(headings)
        contents = _drop_contents_field(root, styles)
        styled_title = _title_line(root, styles, _core_title(core) if core else "")
        typed, typed_title = _typeset_headings(root, outlined, styles)
        if typed:
            levels.update({f"p.{_TYPED}{n}": n for n in range(1, 7)})
            outlined |= {f"{_TYPED}{n}" for n in range(1, 7)}
        labels: list[_ListLabel] = []
        try:
            numbered = (
                _number_headings(root, outlined, styles, numbering, labels) if numbering else False
            )
        except Exception:  # odd numbering: no numbers, the rules still read
            # (items marked before it failed keep their labels: the marks are
            # taken out of the HTML whatever happens)
            numbered = False
        if typed or numbered or contents or styled_title or labels or unseen:
            data = _with_document(data, root)
        style_map = "\n".join(f"{match} => h{level}:fresh" for match, level in levels.items())
        result = mammoth.convert_to_html(
            io.BytesIO(data),
            style_map=style_map,
            convert_image=mammoth.images.img_element(lambda image: {}),
        )
        title = (_core_title(core) if core else "") or styled_title or typed_title
        page = _mend_html(result.value, labels)
    except RulebookError:
        raise
    except Exception as e:  # zip, XML or mammoth errors: a damaged or foreign file
        reason = " ".join(str(e).split())[:120] or type(e).__name__
        raise RulebookError(
            f"{name}: not a readable Word document ({reason}); is the file complete?"
        ) from None
    return page, title, contents


def _title_line(root: Any, styles: _Styles, named: str) -> str:
    """Take the document's title line out of its text, and return it: its first
    paragraph, when that is in Word's own "Title" style and holds only a name
    (the one such line, agreeing with the Title property ``named`` if the
    file has one). Left in, it was a rule of its own holding only the book's
    name, which a question naming the game found as an exact name match."""
    body = root.find(f"{_W}body")
    if body is None:
        return ""
    first = next((p for p in body.iter(f"{_W}p") if _words(p)), None)
    titled = [p for p in body.iter(f"{_W}p") if _is_title(p, styles)]
    # the one line in that style, first in the book and not in a table; only
    # a name (no sentence, no line break, no box anchored to it): a rule set
    # in the Title style, or headings all in it, stay as they are
    # (in the body, or in a content control around it, as templates set it)
    home = first.getparent() if first is not None else None
    if home is not None and home.tag == f"{_W}sdtContent":
        home = home.getparent().getparent() if home.getparent() is not None else None
    if first is None or titled != [first] or home is not body:
        return ""
    text = " ".join("".join(t.text or "" for t in first.iter(f"{_W}t")).split())
    if (
        len(text.split()) > HEADING_WORDS
        or text.endswith((".", "!", "?", ":", ";"))
        or any(first.find(f".//{_W}{tag}") is not None for tag in _NOT_A_NAME)
        # a Title property that says otherwise leaves the line as it is
        or (named and named.casefold() != text.casefold())
    ):
        return ""
    first.getparent().remove(first)
    return text


# What makes a Title paragraph more than a name: a second line or column, a
# note, a box or a picture anchored to it.
_NOT_A_NAME = (
    "br", "cr", "tab", "ptab", "footnoteReference", "endnoteReference", "txbxContent",
    "drawing", "pict", "object",
)  # fmt: skip


def _is_title(p: Any, styles: _Styles) -> bool:
    return styles.name_of(p).lower() == "title" and _words(p)


def _drop_contents_field(root: Any, styles: _Styles) -> int:
    """Remove the document's table of contents; returns how many lines went.

    Word writes it as a TOC field (``{ TOC \\o "1-3" }``) over paragraphs in
    its own "toc 1"-"toc 9" styles, under a title in its "TOC Heading" style,
    often all in a "Table of Contents" content control. Its entries are the
    headings' text and page numbers; read as text they made a rule that held
    every heading's name. (With hyperlinks, mammoth makes them links to the
    headings, which the HTML reader would drop as a contents list too; this
    catches the ones without, and ones whose field was turned to plain text,
    which keep their styles.) A paragraph goes when all its text is inside the
    field or it is in a "toc N" style; in one that goes on after the field
    ends, only the field's text goes. The title goes when what follows it is
    the contents. Text typed into the content control outside the field stays.
    """
    body = root.find(f"{_W}body")
    if body is None:
        return 0
    # fields nest (a PAGEREF in each entry): a stack of each open field's code
    # so far (Word may split " TOC \\o" over several runs)
    stack: list[str] = []
    contents: list[Any] = []  # paragraphs all inside the field, or in a toc style
    emptied: list[list[Any]] = []  # the field's text in paragraphs that go on
    mixed: set[int] = set()  # those paragraphs
    # every paragraph's field marks count (Word ends a contents field in an
    # empty paragraph of its own), only those with words can go
    paragraphs = [p for p in body.iter(f"{_W}p") if _words(p)]
    for p in body.iter(f"{_W}p"):
        if p.getparent() is not None and p.getparent().tag == f"{_W}txbxContent":
            continue  # a text box's paragraph: read with the paragraph it sits in
        inside = outside = False
        texts: list[Any] = []  # the field's text in this paragraph
        for node in p.iter(f"{_W}fldChar", f"{_W}instrText", f"{_W}t", f"{_W}fldSimple"):
            tag = node.tag
            if tag == f"{_W}fldChar":
                kind = node.get(f"{_W}fldCharType")
                if kind == "begin":
                    stack.append("")
                elif kind == "end" and stack:
                    stack.pop()
            elif tag == f"{_W}instrText":
                if stack:
                    stack[-1] += node.text or ""
            elif tag == f"{_W}fldSimple":
                if (node.get(f"{_W}instr") or "").strip().upper().startswith("TOC"):
                    inside = True
            elif (node.text or "").strip():
                if _in_text_box(node, p):
                    outside = True  # a box anchored here (a sidebar) is no entry
                elif _in_toc(stack) or _in_toc_simple(node):
                    inside = True
                    texts.append(node)
                else:
                    outside = True
        if inside and not outside:
            contents.append(p)
        elif inside:
            # the field ends (or starts) inside a paragraph that goes on
            emptied.append(texts)
            mixed.add(id(p))
    if _in_toc(stack):
        # A TOC field that never ends (a damaged file) would take the rest of
        # the book with it: then only the contents' own styles are trusted.
        contents, emptied, mixed = [], [], set()
    for p in paragraphs:
        if _TOC_STYLE.match(styles.name_of(p)) and id(p) not in mixed:
            own = [t for t in p.iter(f"{_W}t") if not _in_text_box(t, p)]
            if len(own) < len(p.findall(f".//{_W}t")):
                # a box anchored in the entry keeps its paragraph
                emptied.append(own)
                mixed.add(id(p))
            else:
                contents.append(p)
    doomed = {id(p) for p in contents} | mixed
    for n, p in enumerate(paragraphs[:-1]):
        if styles.name_of(p).lower() == "toc heading" and id(paragraphs[n + 1]) in doomed:
            contents.append(p)
    for texts in emptied:
        for node in texts:
            node.text = ""
    gone = len(emptied)
    for p in {id(p): p for p in contents}.values():
        parent = p.getparent()
        if parent is not None:
            parent.remove(p)
            gone += 1
    return gone


def _in_toc(stack: list[str]) -> bool:
    """Is any of the open fields a TOC field?"""
    return any(code.strip().upper().startswith("TOC") for code in stack)


def _in_text_box(node: Any, p: Any) -> bool:
    """Is this text in a text box anchored in paragraph ``p``?"""
    for up in node.iterancestors():
        if up is p:
            return False
        if up.tag == f"{_W}txbxContent":
            return True
    return False


def _in_toc_simple(node: Any) -> bool:
    """Is this text inside a simple TOC field (``w:fldSimple``)?"""
    if node.getparent() is None:
        return False
    for up in node.iterancestors(f"{_W}fldSimple"):
        if (up.get(f"{_W}instr") or "").strip().upper().startswith("TOC"):
            return True
    return False


def _words(p: Any) -> bool:
    return any((t.text or "").strip() for t in p.iter(f"{_W}t"))


def _unseen(root: Any) -> int:
    """Take out of the document what Word neither shows nor prints (see the
    module docstring); how many pieces."""
    gone: list[Any] = [
        # the newer copy; mammoth reads the Fallback, and so must every pass here
        *(c for c in root.iter(f"{_MC}Choice") if c.getparent().tag == f"{_MC}AlternateContent"),
        *(
            r
            for r in root.iter(f"{_W}r")
            if (v := r.find(f"{_W}rPr/{_W}vanish")) is not None
            and v.get(f"{_W}val", "true") not in ("0", "false", "off")
        ),
    ]
    for sdt in root.iter(f"{_W}sdt"):
        content = sdt.find(f"{_W}sdtContent")
        if sdt.find(f"{_W}sdtPr/{_W}showingPlcHdr") is not None and content is not None:
            gone.extend(content.iter(f"{_W}r"))
    for node in gone:
        if node.getparent() is not None:
            node.getparent().remove(node)
    return len(gone)


def _body_paragraphs(body: Any) -> list[Any]:
    """The body's own paragraphs, those in its content controls too (a template
    wraps the whole text in one); not a table's or a text box's."""
    out: list[Any] = []
    for child in body:
        if child.tag == f"{_W}p":
            out.append(child)
        elif child.tag == f"{_W}sdt":
            content = child.find(f"{_W}sdtContent")
            if content is not None:
                out.extend(_body_paragraphs(content))
    return out


def _typeset_headings(root: Any, styled: set[str], styles: _Styles) -> tuple[bool, str]:
    """Give the document's hand-made headings heading styles (``_TYPED`` 1-6), as
    ``ingest.typeset`` chooses them; whether it did, and the title line's text.
    Not when the document uses heading styles already."""
    from lxml import etree

    body = root.find(f"{_W}body")
    if body is None:
        return False, ""
    styled = styled | _WORD_HEADINGS
    if any(_style_of(p) in styled for p in root.iter(f"{_W}p")):
        return False, ""
    chars: Counter[float] = Counter()
    bold_chars = 0
    lines: list[Line] = []
    for p in _body_paragraphs(body):  # not those in tables or text boxes
        runs = [(r, "".join(t.text or "" for t in r.iter(f"{_W}t"))) for r in p.iter(f"{_W}r")]
        runs = [(r, t) for r, t in runs if t.strip()]
        if not runs:
            continue
        sid = _style_of(p)
        seen = [styles.looks(r, sid) for r, _ in runs]
        for (_, t), (size, bold) in zip(runs, seen, strict=True):
            chars[size] += len(t)
            bold_chars += len(t) if bold else 0
        lines.append(
            Line(
                p,
                " ".join("".join(t for _, t in runs).split()),
                max(size for size, _ in seen),
                all(bold for _, bold in seen),
                # a list item, numbered or bulleted by itself or by its style
                listed=p.find(f"{_W}pPr/{_W}numPr") is not None
                or styles.number_of(sid) is not None,
            )
        )
    found = typeset_headings(lines, chars, bold_chars)
    for p, level in found.headings:
        props = p.find(f"{_W}pPr")
        if props is None:
            props = etree.SubElement(p, f"{_W}pPr")
            p.insert(0, props)
        for old in props.findall(f"{_W}pStyle"):
            props.remove(old)
        style = etree.Element(f"{_W}pStyle")
        style.set(f"{_W}val", f"{_TYPED}{level}")
        props.insert(0, style)
    if found.title_line is not None and found.title_line.getparent() is not None:
        found.title_line.getparent().remove(found.title_line)  # it names the book
    return bool(found.headings), found.title


def _style_of(p: Any) -> str:
    style = p.find(f"{_W}pPr/{_W}pStyle")
    return (style.get(f"{_W}val") or "") if style is not None else ""


def _with_document(data: bytes, root: Any) -> bytes:
    """The .docx ``data`` with ``root`` as its document.xml."""
    from lxml import etree

    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z,
    ):
        for info in src.infolist():
            content = src.read(info.filename)
            if info.filename == "word/document.xml":
                content = etree.tostring(
                    root, xml_declaration=True, encoding="UTF-8", standalone=True
                )
            z.writestr(info, content)
    return out.getvalue()


class _ListLabel(NamedTuple):
    """A numbered list item's label as Word shows it: the HTML ``<ol>`` type of
    its level's format ("a", "I", "1"), what goes before and after the number
    ("(" and ")", "1." and "."), and its number."""

    kind: str
    prefix: str
    suffix: str
    number: int


# Marks a list item's paragraph with the index of its label, from the document
# to mammoth's HTML (private-use characters, which no rulebook's text holds).
_LABEL_MARK = "\ue0f0{}\ue0f1"
_LABEL_MARKS = re.compile("\ue0f0(\\d+)\ue0f1")
# Word's list formats an HTML <ol> can show; others (decimalZero, ordinal,
# a language's own digits) are left to the reader's 1, 2, 3
_HTML_LIST_KINDS = {
    "decimal": "1", "lowerLetter": "a", "upperLetter": "A", "lowerRoman": "i", "upperRoman": "I",
}  # fmt: skip


def _number_headings(
    root: Any,
    headings: set[str],
    styles: _Styles,
    numbering: bytes,
    labels: list[_ListLabel] | None = None,
) -> bool:
    """Write each auto-numbered heading's number into its text ("1.1 Components"),
    as Word shows it; whether any was. Word and LibreOffice number a book's
    rules by tying the heading styles to a multilevel list, and mammoth drops
    the number, which is what players cite by.

    The number is counted as Word counts it: per list, a level's counter goes
    up at each paragraph on that level and the deeper ones start again; the
    level's text ("%1.%2") is filled with the counters in the level's format
    (decimal, letters, roman numerals). A numbered list stays a list: each of
    its items (not a heading) gets a mark at its start, the index of its
    label in ``labels``, which ``_mend_html`` gives the HTML reader.
    """
    try:
        formats = _list_levels(numbering)
    except Exception:  # a damaged numbering part: no numbers, the rules still read
        return False
    headings = headings | _WORD_HEADINGS
    # per list definition: the lists made from one share their counters
    counters: dict[str, list[int]] = {}
    started: dict[str, list[bool]] = {}
    begun: set[tuple[str, int]] = set()  # (numId, level) met so far
    wrote = False
    for p in root.iter(f"{_W}p"):
        sid = _style_of(p)
        own = p.find(f"{_W}pPr/{_W}numPr")
        num_id, level = styles.number_of(sid) or ("", None)
        if own is not None:
            found_id = own.find(f"{_W}numId")
            found_level = own.find(f"{_W}ilvl")
            num_id = found_id.get(f"{_W}val", "") if found_id is not None else num_id
            if (value := _number(found_level)) is not None:
                level = value
        listed = formats.get(num_id)
        if listed is None or not listed.levels or num_id == "0":
            continue
        levels = listed.levels
        if level is None:  # the list's level tied to this style, else the first
            level = next((n for n, lvl in levels.items() if lvl[3] == sid), 0)
        if level not in levels or not 0 <= level < 9:
            continue
        count = counters.setdefault(listed.counted_with, [0] * 9)
        began = started.setdefault(listed.counted_with, [False] * 9)
        if (num_id, level) not in begun and level in listed.restarts:
            # a list restarting a level at its first item there ("Restart at 1")
            count[level] = listed.restarts[level]
        else:
            # "started" apart from the count: a list may start at 0 ("Chapter 0")
            count[level] = count[level] + 1 if began[level] else levels[level][0]
        begun.add((num_id, level))
        began[level] = True
        for deeper in range(level + 1, 9):
            count[deeper], began[deeper] = 0, False
        if sid not in headings:
            item = _item_label(levels, level, count)
            if item is not None and labels is not None:
                _prepend_run(p, _LABEL_MARK.format(len(labels)))
                labels.append(item)
            continue
        label = _level_text(levels, level, count)
        if not label:
            continue
        _prepend_run(p, f"{label} ")
        wrote = True
    return wrote


def _prepend_run(p: Any, text: str) -> None:
    """A run of ``text`` first in paragraph ``p`` (after its properties)."""
    from lxml import etree

    run = etree.Element(f"{_W}r")
    node = etree.SubElement(run, f"{_W}t")
    node.text = text
    node.set("{http://www.w3.org/XML/1998/namespace}space", "preserve")
    p.insert(1 if p.find(f"{_W}pPr") is not None else 0, run)


def _fill(
    levels: dict[int, tuple[int, str, str, str]], level: int, count: list[int], text: str
) -> str:
    """A level's text ("%1.%2") filled with the counters, each in its level's format."""

    def fill(m: re.Match[str]) -> str:
        k = int(m.group(1)) - 1
        start, fmt, _, _ = levels.get(k, (1, "decimal", "", ""))
        return _format_number(count[k] if count[k] or k == level else start, fmt)

    return re.sub(r"%([1-9])", fill, text)


def _level_text(levels: dict[int, tuple[int, str, str, str]], level: int, count: list[int]) -> str:
    """A numbered item's whole label, its level's text filled (``_fill``); empty
    for a bullet or a list shown with no number."""
    if levels[level][1] in ("bullet", "none"):
        return ""  # a bullet's "number" is its glyph
    return _fill(levels, level, count, levels[level][2]).strip()


def _item_label(
    levels: dict[int, tuple[int, str, str, str]], level: int, count: list[int]
) -> _ListLabel | None:
    """A list item's label: its own number's place in the level's text ("%2" in
    "(%2)") splits it into what goes before and after; None for a bullet, a
    format an HTML list cannot show, or a text without the item's number."""
    _, fmt, text, _ = levels[level]
    kind = _HTML_LIST_KINDS.get(fmt)
    own = f"%{level + 1}"
    if kind is None or own not in text:
        return None
    before, _, after = text.partition(own)
    return _ListLabel(
        kind,
        _fill(levels, level, count, before).lstrip(),
        _fill(levels, level, count, after).rstrip(),
        count[level],
    )


def _mend_html(page: str, labels: list[_ListLabel]) -> str:
    """mammoth's HTML with each numbered list's labels as Word shows them (see the
    module docstring); a page with no list marked is returned as it is."""
    if not labels and "\ue0f0" not in page:
        return page
    from bs4 import BeautifulSoup, NavigableString

    soup = BeautifulSoup(page, "html.parser")
    items: dict[int, _ListLabel] = {}  # id(<li>) -> its label
    for node in soup.find_all(string=_LABEL_MARKS):
        found = [int(k) for k in _LABEL_MARKS.findall(str(node))]
        item = node.find_parent("li")
        if item is not None and found and found[0] < len(labels):
            items.setdefault(id(item), labels[found[0]])
        node.replace_with(NavigableString(_LABEL_MARKS.sub("", str(node))))
    for ol in soup.find_all("ol"):
        own = [li for li in ol.find_all("li", recursive=False) if id(li) in items]
        if not own:
            continue
        first = items[id(own[0])]
        ol["type"] = first.kind
        ol["data-prefix"], ol["data-suffix"] = first.prefix, first.suffix
        for li in own:
            li["value"] = str(items[id(li)].number)
    return str(soup)


class _ListInstance(NamedTuple):
    """A list as a paragraph names it (Word's ``w:num``): the list definition
    it shares its counters with (``w:abstractNum``), its levels (start,
    format, level text, the style tied to it) with its own overrides applied,
    and the levels it restarts at a value of its own (``w:startOverride``)."""

    counted_with: str
    levels: dict[int, tuple[int, str, str, str]]
    restarts: dict[int, int]


def _level_index(node: Any) -> int:
    ilvl = node.get(f"{_W}ilvl") or "0"
    return int(ilvl) if ilvl.isascii() and ilvl.isdigit() else 0


def _level(lvl: Any) -> tuple[int, str, str, str]:
    """(start, format, level text, the style tied to it) of a ``w:lvl``."""
    start, fmt, text, style = (
        lvl.find(f"{_W}{k}") for k in ("start", "numFmt", "lvlText", "pStyle")
    )
    first = _number(start)
    return (
        # Word's own limit: a hostile 10^10 would be written out in full
        min(first, MAX_LIST_START) if first is not None else 1,
        (fmt.get(f"{_W}val") or "decimal") if fmt is not None else "decimal",
        (text.get(f"{_W}val") or "") if text is not None else "",
        (style.get(f"{_W}val") or "") if style is not None else "",
    )


def _list_levels(numbering: bytes) -> dict[str, _ListInstance]:
    """numId -> the list it names (``_ListInstance``).

    Word counts a list definition's numbers across every ``w:num`` that uses
    it: a second list made from the same definition goes on from the first
    ("4., 5.") unless it restarts a level (``w:lvlOverride/w:startOverride``,
    what Word's "Restart at 1" writes); a level redefined in the override
    (``w:lvlOverride/w:lvl``) is that list's own."""
    root = _xml(numbering)
    abstract: dict[str, dict[int, tuple[int, str, str, str]]] = {}
    for node in root.iter(f"{_W}abstractNum"):
        abstract[node.get(f"{_W}abstractNumId") or ""] = {
            _level_index(lvl): _level(lvl) for lvl in node.iter(f"{_W}lvl")
        }
    out = {}
    for num in root.iter(f"{_W}num"):
        ref = num.find(f"{_W}abstractNumId")
        if ref is None or (definition := ref.get(f"{_W}val") or "") not in abstract:
            continue
        levels = dict(abstract[definition])
        restarts: dict[int, int] = {}
        for override in num.iter(f"{_W}lvlOverride"):
            k = _level_index(override)
            if (own := override.find(f"{_W}lvl")) is not None:
                levels[k] = _level(own)
            if (value := _number(override.find(f"{_W}startOverride"))) is not None:
                restarts[k] = min(value, MAX_LIST_START)
        out[num.get(f"{_W}numId") or ""] = _ListInstance(definition, levels, restarts)
    return out


_WORD_FORMATS = {"lowerLetter": "a", "upperLetter": "A", "lowerRoman": "i", "upperRoman": "I"}


def _format_number(n: int, fmt: str) -> str:
    """A list number in Word's format ("lowerLetter": b, "upperRoman": IV, ...)."""
    if fmt in ("none", "bullet"):
        return ""
    return html.list_number(n, _WORD_FORMATS.get(fmt, "1"))


class _Styles:
    """styles.xml, read once: each style's own settings and the style it is
    based on, with one walk up that chain (``_inherited``) for whichever
    setting is asked: a heading's outline level, the list a style is tied
    to, and how big and how bold a run's text is.

    A run's type is resolved as Word resolves it: the run's own setting, else
    its character style's ("Strong"), else its paragraph style's, else the
    default paragraph style's ("Normal"), else the document's defaults
    (Word's own: 10 pt, not bold). Only the run's or its character style's
    bold counts: a paragraph style's bold is a quote's or a caption's
    ("Intense Quote"), not a heading's.
    """

    def __init__(self, xml: bytes) -> None:
        self.based: dict[str, str] = {}
        self.names: dict[str, str] = {}
        self.paragraph: list[str] = []  # paragraph style IDs, in order
        self.outline: dict[str, int] = {}  # a paragraph style's own outline level
        self.numbers: dict[str, tuple[str, int | None]] = {}  # (numId, level) of its list
        self.size: dict[str, float] = {}
        self.bold: dict[str, bool] = {}
        self.normal = ""
        self.default_size = 10.0
        if not xml:
            return
        root = _xml(xml)
        found = root.find(f"{_W}docDefaults/{_W}rPrDefault/{_W}rPr/{_W}sz")
        if (value := _number(found)) is not None:
            self.default_size = value / 2
        for style in root.iter(f"{_W}style"):
            sid = style.get(f"{_W}styleId") or ""
            based = style.find(f"{_W}basedOn")
            if based is not None:
                self.based[sid] = based.get(f"{_W}val") or ""
            if style.get(f"{_W}type") == "paragraph":
                self.paragraph.append(sid)
                if style.get(f"{_W}default") in ("1", "true"):
                    self.normal = sid
                name = style.find(f"{_W}name")
                self.names[sid] = (name.get(f"{_W}val") or "") if name is not None else ""
                level = style.find(f"{_W}pPr/{_W}outlineLvl")
                level_value = level.get(f"{_W}val") if level is not None else None
                if level_value is not None and level_value.isdigit():
                    self.outline[sid] = int(level_value)
            num = style.find(f"{_W}pPr/{_W}numPr/{_W}numId")
            if num is not None:
                self.numbers[sid] = (
                    num.get(f"{_W}val") or "",
                    _number(style.find(f"{_W}pPr/{_W}numPr/{_W}ilvl")),
                )
            if (value := _number(style.find(f"{_W}rPr/{_W}sz"))) is not None:
                self.size[sid] = value / 2
            bold = style.find(f"{_W}rPr/{_W}b")
            if bold is not None:
                self.bold[sid] = bold.get(f"{_W}val") not in ("0", "false", "off")

    def _inherited(self, sid: str, table: dict[str, Any]) -> Any:
        """``table``'s value for style ``sid`` or the nearest style it is based
        on that has one; None when none has (a basedOn loop ends the walk)."""
        seen: set[str] = set()
        while sid and sid not in seen:
            seen.add(sid)
            if sid in table:
                return table[sid]
            sid = self.based.get(sid, "")
        return None

    def name_of(self, p: Any) -> str:
        """The name of paragraph ``p``'s style ("toc 1", "Title"), or ""."""
        return self.names.get(_style_of(p), "")

    def heading_levels(self) -> dict[str, tuple[int, str]]:
        """Paragraph style ID -> (heading level 1-6, style name), for every
        style with an outline level of its own or inherited through basedOn
        (Word's levels are 0-8 for headings, 9 for body text)."""
        out = {}
        for sid in self.paragraph:
            level = self._inherited(sid, self.outline)
            if level is not None and level < 6:
                out[sid] = (level + 1, self.names.get(sid, ""))
        return out

    def number_of(self, sid: str) -> tuple[str, int | None] | None:
        """(numId, level or None) of the list style ``sid`` is tied to, its own
        or that of the style it is based on ("Rule Title" on Heading 2)."""
        found: tuple[str, int | None] | None = self._inherited(sid, self.numbers)
        return found

    def looks(self, run: Any, paragraph_style: str) -> tuple[float, bool]:
        """A run's size in points and whether it is bold (see the class)."""
        own_size = _number(run.find(f"{_W}rPr/{_W}sz"))
        own_bold = run.find(f"{_W}rPr/{_W}b")
        char = run.find(f"{_W}rPr/{_W}rStyle")
        char_style = (char.get(f"{_W}val") or "") if char is not None else ""
        size: float | None = own_size / 2 if own_size is not None else None
        for sid in (char_style, paragraph_style or self.normal, self.normal):
            if size is None:
                size = self._inherited(sid, self.size)
        bold: bool | None = (
            own_bold.get(f"{_W}val") not in ("0", "false", "off") if own_bold is not None else None
        )
        if bold is None:
            bold = self._inherited(char_style, self.bold)
        return (size if size is not None else self.default_size), bool(bold)


def _number(node: Any) -> int | None:
    """A node's w:val as a whole number (ASCII digits only), or None."""
    value = node.get(f"{_W}val") if node is not None else None
    return int(value) if value and value.isascii() and value.isdigit() else None


def _xml(data: bytes) -> Any:
    from lxml import etree

    # a hostile file's entities are not expanded, nor anything fetched
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False)
    return etree.fromstring(data, parser)


def _core_title(core: bytes) -> str:
    found = _xml(core).find(f".//{_DC_TITLE}")
    return " ".join((found.text or "").split()) if found is not None else ""


def read(data: bytes, request: ReadRequest) -> ParseResult:
    page, title, contents = to_html(data, request.name)
    left_out = {"table of contents lines": contents} if contents else {}
    return html.read_document(page, title, left_out, request, "docx")


FORMAT = Format(
    name="docx",
    # (a legacy .doc, or a .docx renamed .doc, is known by its bytes: a text
    # or RTF file named .doc is read as text)
    extensions=(".docx",),
    read=read,
    sniff=sniff,
    binary=True,
    priority=15,
    sniff_overrides_extension=True,
    label="Word",
)
