"""OpenDocument text (``.odt``), converted to HTML by odfpy and read as HTML.

LibreOffice saves ``.odt`` unless told otherwise, so a rulebook typed there
arrives as one as often as a Word file does. odfpy (Apache-2.0) is the
maintained Python reader of the format; its ``ODF2XHTML`` turns the
document's structure into plain XHTML: a heading (``text:h``, which carries
its outline level itself: Writer's "Heading 1"-"Heading 10" and any style
on the outline) becomes ``<h1>``-``<h6>``, lists stay lists, tables tables,
and footnotes become links to notes at the end. The HTML reader then reads
it as it reads a Word document's HTML (``ingest.formats.docx``): as a
fragment, with no page chrome to look for, footnotes put back after the
paragraph that cites them.

What odfpy does not do is done here, on the parsed document before it is
converted, so that what is read is what Writer shows:

- Headings keep the numbers Writer shows ("1.2 Charging"), which odfpy drops
  and players cite by: from Writer's heading numbering (unnumbered headings
  not counted, restarts and start values kept), or from a numbered list
  holding the heading (a Word file saved by Writer). See ``_number_headings``.
- Generated indexes (a table of contents, an alphabetical index), tracked
  deletions and hidden text are left out and counted. See ``_tidy`` for the
  rest: headings in text boxes, footnotes in headings, list headers, a
  title line.
- The document's title is its Title property (``dc:title``) or a first
  paragraph in the Title style, never the first heading (odfpy's fallback),
  which is a rule of its own.
- A flat ``.fodt`` (the whole document as one XML file) is packed as the zip
  odfpy reads; a template (``.ott``) reads as a document.

- A document with no heading at all, its headings made by hand (bold or
  larger type), has them read by their type, as the Word reader does
  (``ingest.typeset``): the largest line, used once and first, is the title.

- Numbered lists count as Writer counts them (continued lists, start
  values) in their own format (a, i, I), written as the ``<ol>``'s type and
  each ``<li>``'s value, which the HTML reader honours.

Known and left: a list's prefix and suffix and its levels shown together
("a)", "(i)", "1.1.") read as "a.", "i.", "1."; heading levels 7-10 are
read as level 6.

A password-protected document (its parts encrypted), a file that is not an
OpenDocument text or one that unpacks to more than ``MAX_UNPACKED_MB`` gets
a one-line error. Pictures are not read.
"""

from __future__ import annotations

import contextlib
import io
import re
import zipfile
from collections import Counter
from typing import Any

from ruleslawyer.errors import RulebookError
from ruleslawyer.ingest.formats import Format, ReadRequest, html
from ruleslawyer.ingest.units import ParseResult

_ZIP = b"PK\x03\x04"
# The first entry of every OpenDocument file, stored uncompressed, so it is
# in the first bytes: "mimetype" then the media type.
_MEDIA_TYPE = b"application/vnd.oasis.opendocument.text"
MAX_UNPACKED_MB = 64  # as for Word files: a 300-page rulebook unpacks to 10-20 MB
# Indexes Writer generates from the document's own headings and marks.
_INDEXES = (
    "table-of-content",
    "alphabetical-index",
    "illustration-index",
    "table-index",
    "object-index",
    "user-index",
    "bibliography",
)
_NUMBER_FORMATS = {"1", "a", "A", "i", "I"}
# A numbering's levels: level -> (format, prefix, suffix, levels shown, start value)
Levels = dict[int, tuple[str, str, str, int, int]]


def sniff(head: bytes) -> bool:
    """A zip whose first entry says it is an OpenDocument text, or the same
    document as one XML file (a "flat" .fodt, which Writer also saves)."""
    if head.startswith(_ZIP):
        return _MEDIA_TYPE in head[:200]
    return b"<office:document" in head[:4096] and _MEDIA_TYPE in head[:4096]


def _package(flat: bytes) -> bytes:
    """A flat .fodt as the zip odfpy reads: its one XML file as the content
    part (odfpy's loader takes the styles, meta and body from any part)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("mimetype", _MEDIA_TYPE)
        z.writestr("content.xml", flat)
        z.writestr(
            "META-INF/manifest.xml",
            '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest='
            '"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry '
            'manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>'
            '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
            "</manifest:manifest>",
        )
    return out.getvalue()


def to_html(data: bytes, name: str) -> tuple[str, str, dict[str, int]]:
    """The document as XHTML, its title ("" when none) and what was left out
    (index lines, tracked changes, hidden text), by kind."""
    from odf.namespaces import TEXTNS

    if not data.startswith(_ZIP) and sniff(data[:4096]):
        data = _package(data)
    try:
        doc = _load(data, name)
        left_out = _drop_indexes(doc, TEXTNS)
        tidied, title_line = _tidy(doc, TEXTNS)
        left_out.update(tidied)
        typed_title = _typeset_headings(doc, TEXTNS)
        lists = _list_styles(doc)
        _number_headings(doc, TEXTNS, lists)
        # What ODF2XHTML.load() does after parsing the file itself, on the
        # document as edited above (odfpy 1.4 has had no release since 2020).
        converter = _converter(lists)
        converter.lines = []
        converter._wfunc = converter._wlines
        converter.document = doc
        converter._walknode(doc.topnode)
        page = converter.xhtml()
        title = _title(doc) or title_line or typed_title
    except RulebookError:
        raise
    except Exception as e:  # zip, XML or odfpy errors: a damaged or foreign file
        reason = " ".join(str(e).split())[:120] or type(e).__name__
        raise RulebookError(
            f"{name}: not a readable OpenDocument text ({reason}); is the file complete?"
        ) from None
    return page, title, left_out


_XML_PARTS = ("content.xml", "styles.xml", "meta.xml", "settings.xml")
# A start tag's namespace declarations on lines of their own, as pandoc writes them
_NEWLINE_XMLNS = re.compile(rb"[\t\r\n]+(xmlns:)")


def _load(data: bytes, name: str) -> Any:
    """The document, parsed by odfpy, once the package is seen to be a whole,
    readable OpenDocument text (not encrypted, not a zip bomb).

    odfpy adds the namespaces a part "lacks" by looking for " xmlns:style"
    with a space before it: declarations each on its own line (pandoc's
    styles) were declared twice, and the part failed to parse. Such a
    failure odfpy prints, whole, to stdout, and goes on without the part.
    So the declarations get a space, what odfpy prints is kept off stdout,
    and a content part that still fails is a damaged file.
    """
    from odf.opendocument import load

    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        parts = set(src.namelist())
        if "content.xml" not in parts:
            raise RulebookError(f"{name}: not an OpenDocument text (no content.xml)")
        manifest = src.read("META-INF/manifest.xml") if "META-INF/manifest.xml" in parts else b""
        if b"encryption-data" in manifest:  # its parts are encrypted
            raise RulebookError(
                f"{name}: the document is password-protected; save it without a password"
            )
        unpacked = sum(info.file_size for info in src.infolist())
        if unpacked > MAX_UNPACKED_MB * 1024 * 1024:
            raise RulebookError(
                f"{name}: unpacks to {unpacked // (1024 * 1024)} MB; a document may "
                f"unpack to at most {MAX_UNPACKED_MB} MB (split it, or save it as PDF)"
            )
        for info in src.infolist():
            part = src.read(info)
            if info.filename in _XML_PARTS:
                # only in the root element's start tag (its first ">")
                root = part.find(b"<office:")
                end = part.find(b">", root) + 1 if root >= 0 else 0
                part = _NEWLINE_XMLNS.sub(rb" \1", part[:end]) + part[end:]
            dst.writestr(info, part)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        doc = load(io.BytesIO(out.getvalue()))
    if "SAX FAILED" in printed.getvalue() and _failed_part(printed.getvalue()) == "content":
        raise RulebookError(
            f"{name}: not a readable OpenDocument text (its text is not well-formed XML)"
        )
    # odfpy takes the body's first child for the text, which is a line break
    # where the XML is indented (pandoc's): every edit below then saw nothing.
    from odf.namespaces import OFFICENS

    texts = [n for n in doc.body.childNodes if getattr(n, "qname", None) == (OFFICENS, "text")]
    if not texts:
        kind = str(getattr(doc, "mimetype", "") or "").rsplit(".", 1)[-1] or "document"
        raise RulebookError(
            f"{name}: an OpenDocument {kind}, not a text document; "
            "save the rules as a text document (.odt) or PDF"
        )
    doc.text = texts[0]
    return doc


def _failed_part(printed: str) -> str:
    """Which part odfpy printed as failed: its root element names it."""
    return "content" if "office:document-content" in printed else "other"


def _list_styles(doc: Any) -> dict[str, Levels]:
    """Numbered list style -> its levels (what headings in lists are numbered
    by, and what the converter writes as each ``<ol>``'s type)."""
    from odf.namespaces import STYLENS, TEXTNS

    return {
        node.attributes.get((STYLENS, "name"), "") or "": _level_styles(
            node, "list-level-style-number"
        )
        for root in (doc.styles, doc.automaticstyles)
        for node in _elements(root, TEXTNS, "list-style")
    }


def _converter(lists: dict[str, Levels]) -> Any:
    """odfpy's converter, mended where it misread Writer's documents: numbered
    lists carry their format and numbers (``lists``, the list styles); a
    ``text:s`` space stays where it stands; footnotes are linked as the HTML
    reader places them, each mark and its note to each other as a word
    processor's export does (odfpy linked only the mark to the note, so
    every note stayed in the last rule, and wrote the mark as a number, which
    its own join refuses)."""
    from odf.namespaces import TEXTNS
    from odf.odf2xhtml import ODF2XHTML

    class Converter(ODF2XHTML):
        def s_text_list(self, tag: Any, attrs: Any) -> None:
            # A numbered list as Writer numbers it: its level's format as the
            # <ol>'s type, each item's number as its value (odfpy wrote a bare
            # <ol>, read as 1., 2. whatever Writer showed: "b)", "7.", "iv.").
            name = attrs.get((TEXTNS, "style-name")) or self.tagstack.rfindattr(
                (TEXTNS, "style-name")
            )
            level = self.tagstack.count_tags(tag) + 1
            tag_name = self.listtypes.get(f"{str(name).replace('.', '_')}_{level}", "ul")
            style = lists.get(str(name), {}).get(level)
            attrs = {"type": style[0] if style else "1"}
            if style:
                # the label as Writer shows it: "a)", "(i)", not "a.", "i."
                attrs |= {"data-prefix": style[1], "data-suffix": style[2]}
            self.opentag(tag_name, attrs if tag_name == "ol" else {})
            self.purgedata()

        def s_text_list_item(self, tag: Any, attrs: Any) -> None:
            value = _int(attrs.get((TEXTNS, "start-value")))
            self.opentag("li", {"value": str(value)} if value is not None else {})
            self.purgedata()

        def s_text_s(self, tag: Any, attrs: Any) -> None:
            # odfpy wrote the spaces out at once, ahead of the text it had not
            # written yet: "Figure 1shows" for "Figure 1 shows" after a field.
            self.data.append(" " * (_int(attrs.get((TEXTNS, "c"))) or 1))

        def e_text_note_citation(self, tag: Any, attrs: Any) -> None:
            n = self.currentnote
            self.notedict[n]["citation"] = "".join(self.data)
            self.opentag("a", {"href": f"#footnote-{n}", "id": f"footnote-ref-{n}"})
            self.opentag("sup")
            self.writeout(str(n))
            self.closetag("sup")
            self.closetag("a")

        def generate_footnotes(self) -> None:
            if not self.currentnote:
                return
            self.opentag("ol")
            for n in range(1, self.currentnote + 1):
                self.opentag("li", {"id": f"footnote-{n}"})
                self.writeout(self.notedict[n].get("body", ""))
                self.opentag("a", {"href": f"#footnote-ref-{n}"})
                self.writeout("\u2191")
                self.closetag("a")
                self.closetag("li")
            self.closetag("ol")

    return Converter(generate_css=False, embedable=False)


def _elements(node: Any, ns: str, local: str) -> list[Any]:
    """Every element ``ns:local`` under ``node``, in document order."""
    found = []
    stack = [node]
    while stack:
        n = stack.pop()
        if getattr(n, "qname", None) == (ns, local):
            found.append(n)
        stack.extend(reversed(getattr(n, "childNodes", [])))
    return found


def _text_of(node: Any) -> str:
    return (
        str(node)
        if node.nodeType == node.TEXT_NODE
        else "".join(_text_of(c) for c in node.childNodes)
    )


def _drop_indexes(doc: Any, textns: str) -> dict[str, int]:
    """Remove generated indexes; returns how many of their lines went, by kind."""
    gone: dict[str, int] = {}
    for local in _INDEXES:
        kind = "table of contents lines" if local == "table-of-content" else "index lines"
        for index in _elements(doc.text, textns, local):
            lines = sum(1 for p in _elements(index, textns, "p") if _text_of(p).strip())
            gone[kind] = gone.get(kind, 0) + lines
            index.parentNode.removeChild(index)
    return gone


def _tidy(doc: Any, textns: str) -> tuple[dict[str, int], str]:
    """What the reader reads is what Writer shows, in the body's order: returns
    what was left out, by kind, and the title line's text ("" when none).

    - Tracked changes: a deletion Writer keeps for review is not the text.
    - Hidden sections, paragraphs and text (a style that hides it, or a
      hiding condition that holds) are not shown.
    - A heading in a text box (a sidebar) is text of the rule it is anchored
      in: Writer numbers it apart from the body's headings, and read as a
      heading it split its paragraph and took the rest of it.
    - A footnote in a heading goes after the heading as "[1] text": in it,
      the mark became part of the rule's title and ID.
    - A list header (a list's unnumbered first paragraph) goes before its list:
      odfpy writes it as a paragraph straight inside the list, which HTML
      readers drop.
    - A first paragraph in the "Title" style (pandoc's title line) names the
      book; left in, it was a rule holding only the book's name.
    """
    from odf.namespaces import DRAWNS, STYLENS
    from odf.text import P

    gone: dict[str, int] = {}

    def drop(node: Any, kind: str) -> None:
        gone[kind] = gone.get(kind, 0) + 1
        node.parentNode.removeChild(node)

    for changes in _elements(doc.text, textns, "tracked-changes"):
        drop(changes, "tracked changes")
    for ruby in _elements(doc.text, textns, "ruby-text"):
        ruby.parentNode.removeChild(ruby)  # a reading aid over a word, not a word
    hidden_styles = set()
    for root in (doc.styles, doc.automaticstyles):
        for st in _elements(root, STYLENS, "style"):
            props = _elements(st, STYLENS, "text-properties")
            if any(pr.attributes.get((textns, "display")) == "none" for pr in props):
                hidden_styles.add(st.attributes.get((STYLENS, "name"), ""))
    for section in _elements(doc.text, textns, "section"):
        if section.attributes.get((textns, "display")) == "none" and section.parentNode:
            drop(section, "hidden text")
    for node in _elements(doc.text, textns, "hidden-text"):
        drop(node, "hidden text")
    for node in _elements(doc.text, textns, "hidden-paragraph"):
        # the field hides the paragraph it sits in, not itself alone
        hidden = node.attributes.get((textns, "is-hidden")) == "true"
        paragraph = node.parentNode if hidden else node
        if paragraph is not None and paragraph.parentNode is not None:
            drop(paragraph, "hidden text")
    for local in ("span", "p", "h"):
        for node in _elements(doc.text, textns, local):
            if node.attributes.get((textns, "style-name")) in hidden_styles and node.parentNode:
                drop(node, "hidden text")
    for box in _elements(doc.text, DRAWNS, "text-box"):
        for h in _elements(box, textns, "h"):
            _replace(h, P())
    for h in _elements(doc.text, textns, "h"):
        after = h.nextSibling
        for note in _elements(h, textns, "note"):
            cited = _elements(note, textns, "note-citation")
            mark = _text_of(cited[0]).strip() if cited else ""
            body = " ".join(
                _text_of(p).strip()
                for b in _elements(note, textns, "note-body")
                for p in b.childNodes
                if getattr(p, "qname", None) is not None
            )
            note.parentNode.removeChild(note)
            if body:
                line = P(text=f"[{mark}] {body}" if mark else body)
                if after is not None:
                    h.parentNode.insertBefore(line, after)
                else:
                    h.parentNode.appendChild(line)
    for header in _elements(doc.text, textns, "list-header"):
        lst = header.parentNode
        for child in [c for c in header.childNodes if getattr(c, "qname", None) is not None]:
            header.removeChild(child)
            lst.parentNode.insertBefore(child, lst)
        lst.removeChild(header)
    title = ""
    first = next(
        (
            n
            for n in getattr(doc.text, "childNodes", [])
            if getattr(n, "qname", None) in ((textns, "p"), (textns, "h")) and _text_of(n).strip()
        ),
        None,
    )
    if first is not None and first.qname == (textns, "p"):
        style = first.attributes.get((textns, "style-name"), "") or ""
        if "Title" in (style, _paragraph_styles(doc).get(style, ("", None))[0]):
            title = " ".join(_text_of(first).split())
            first.parentNode.removeChild(first)
    return gone, title


class _Looks:
    """How big and how bold text is, resolved as Writer resolves it: a span's
    own text style, else its paragraph's style, else the style that one is
    based on, up to the document's default paragraph style (a size in
    percent is of the size it would have had)."""

    def __init__(self, doc: Any) -> None:
        from odf.namespaces import FONS, STYLENS

        self.styles: dict[tuple[str, str], tuple[str, str, str]] = {}
        self.defaults: dict[str, tuple[str, str]] = {}
        for root in (doc.styles, doc.automaticstyles):
            for node in _elements(root, STYLENS, "style") + _elements(
                root, STYLENS, "default-style"
            ):
                props = _elements(node, STYLENS, "text-properties")
                size = props[0].attributes.get((FONS, "font-size"), "") if props else ""
                weight = props[0].attributes.get((FONS, "font-weight"), "") if props else ""
                family = node.attributes.get((STYLENS, "family"), "") or ""
                if node.qname[1] == "default-style":
                    self.defaults[family] = (size or "", weight or "")
                    continue
                name = node.attributes.get((STYLENS, "name"), "") or ""
                parent = node.attributes.get((STYLENS, "parent-style-name"), "") or ""
                self.styles[(family, name)] = (parent, size or "", weight or "")

    def _resolve(self, family: str, name: str, base: tuple[float, bool]) -> tuple[float, bool]:
        chain: list[tuple[str, str]] = []
        seen: set[str] = set()
        while name and name not in seen and (family, name) in self.styles:
            seen.add(name)
            parent, raw_size, raw_weight = self.styles[(family, name)]
            chain.append((raw_size, raw_weight))
            name = parent
        if family == "paragraph":
            chain.append(self.defaults.get("paragraph", ("", "")))
        size, bold = base
        for raw_size, raw_weight in reversed(chain):  # the base first, the style last
            size = _points(raw_size, size)
            if raw_weight:
                bold = raw_weight == "bold" or (raw_weight.isdigit() and int(raw_weight) >= 600)
        return size, bold

    def paragraph(self, name: str) -> tuple[float, bool]:
        return self._resolve("paragraph", name, (12.0, False))  # Writer's own default

    def span(self, name: str, base: tuple[float, bool]) -> tuple[float, bool]:
        return self._resolve("text", name, base)


def _points(raw: str, base: float) -> float:
    """A font size in points: "14pt", or "130%" of ``base``."""
    raw = raw.strip()
    try:
        if raw.endswith("%"):
            return base * float(raw[:-1]) / 100
        if raw.endswith("pt"):
            return float(raw[:-2])
    except ValueError:
        pass
    return base


def _pieces(node: Any, looks: _Looks, base: tuple[float, bool], textns: str) -> list[Any]:
    """(text, size, bold) of each run of text in a paragraph."""
    out = []
    for child in node.childNodes:
        if child.nodeType == child.TEXT_NODE:
            if str(child).strip():
                out.append((str(child), *base))
        elif child.qname == (textns, "span"):
            name = child.attributes.get((textns, "style-name"), "") or ""
            out += _pieces(child, looks, looks.span(name, base), textns)
        elif child.qname not in ((textns, "note"),):
            out += _pieces(child, looks, base, textns)
    return out


def _typeset_headings(doc: Any, textns: str) -> str:
    """Make the document's hand-made headings headings (``text:h``), as
    ``ingest.typeset`` chooses them, the same as for a Word file; the title
    line's text ("" when none). Not when the document has a heading already."""
    from odf.text import H

    from ruleslawyer.ingest.typeset import Line, typeset_headings

    if _elements(doc.text, textns, "h"):
        return ""
    looks = _Looks(doc)
    # the text's own paragraphs (and its sections'): not those in lists, tables or frames
    paragraphs = [
        p
        for parent in [doc.text, *_elements(doc.text, textns, "section")]
        for p in parent.childNodes
        if getattr(p, "qname", None) == (textns, "p")
    ]
    chars: Counter[float] = Counter()
    bold_chars = 0
    lines: list[Line] = []
    for p in paragraphs:
        base = looks.paragraph(p.attributes.get((textns, "style-name"), "") or "")
        runs = _pieces(p, looks, base, textns)
        if not runs:
            continue
        for text, size, bold in runs:
            chars[size] += len(text)
            bold_chars += len(text) if bold else 0
        words = " ".join("".join(t for t, _, _ in runs).split())
        lines.append(Line(p, words, max(r[1] for r in runs), all(r[2] for r in runs)))
    found = typeset_headings(lines, chars, bold_chars)
    for p, level in found.headings:
        _replace(p, H(outlinelevel=level))
    if found.title_line is not None and found.title_line.parentNode is not None:
        found.title_line.parentNode.removeChild(found.title_line)  # it names the book
    return found.title if found.headings else ""


def _level_styles(node: Any, local: str) -> Levels:
    """A numbering's levels, from its ``text:outline-level-style`` or
    ``text:list-level-style-number`` children (the same attributes)."""
    from odf.namespaces import STYLENS, TEXTNS

    levels: Levels = {}
    for lvl in _elements(node, TEXTNS, local):
        level = _int(lvl.attributes.get((TEXTNS, "level")))
        fmt = lvl.attributes.get((STYLENS, "num-format"), "") or ""
        if level is None or fmt not in _NUMBER_FORMATS:
            continue
        shown = _int(lvl.attributes.get((TEXTNS, "display-levels"))) or 1
        start = _int(lvl.attributes.get((TEXTNS, "start-value")))
        levels[level] = (
            fmt,
            lvl.attributes.get((STYLENS, "num-prefix"), "") or "",
            lvl.attributes.get((STYLENS, "num-suffix"), "") or "",
            min(shown, level),
            1 if start is None else start,
        )
    return levels


class _Counter:
    """One numbering's counters, as Writer counts: a level starts at its start
    value, a deeper level starts again under each new number, and a level
    skipped on the way down shows its start value (1.1.1 under 1, not 1.0.1)."""

    def __init__(self, levels: Levels) -> None:
        self.levels = levels
        self.count = [0] * 11
        self.began = [False] * 11

    def _start(self, level: int) -> int:
        return self.levels[level][4] if level in self.levels else 1

    def step(self, level: int, restart: int | None = None) -> None:
        if restart is not None:
            self.count[level] = restart
        else:
            self.count[level] = self.count[level] + 1 if self.began[level] else self._start(level)
        self.began[level] = True
        for deeper in range(level + 1, 11):
            self.count[deeper], self.began[deeper] = 0, False

    def label(self, level: int) -> str:
        if level not in self.levels:
            return ""
        fmt, prefix, suffix, shown, _ = self.levels[level]
        parts = [
            html.list_number(
                self.count[k] if self.began[k] else self._start(k),
                self.levels[k][0] if k in self.levels else fmt,
            )
            for k in range(level - shown + 1, level + 1)
        ]
        return f"{prefix}{'.'.join(parts)}{suffix}".strip()


def _paragraph_styles(doc: Any) -> dict[str, tuple[str, str | None]]:
    """Paragraph style -> (the style it is based on, its list style: None when
    it sets none, "" when it turns numbering off)."""
    from odf.namespaces import STYLENS

    styles: dict[str, tuple[str, str | None]] = {}
    for root in (doc.styles, doc.automaticstyles):
        for st in _elements(root, STYLENS, "style"):
            if st.attributes.get((STYLENS, "family")) != "paragraph":
                continue
            name = st.attributes.get((STYLENS, "name"), "") or ""
            styles[name] = (
                st.attributes.get((STYLENS, "parent-style-name"), "") or "",
                st.attributes.get((STYLENS, "list-style-name")),
            )
    return styles


def _numbering_off(style: str, styles: dict[str, tuple[str, str | None]]) -> bool:
    """Does this paragraph style (or the nearest it is based on that says)
    turn numbering off? How Writer saves a heading set to "No List"."""
    seen: set[str] = set()
    while style and style not in seen:
        seen.add(style)
        parent, listed = styles.get(style, ("", None))
        if listed is not None:
            return listed == ""
        style = parent
    return False


def _number_headings(doc: Any, textns: str, lists: dict[str, Levels]) -> None:
    """Write each numbered heading's number into its text ("1.2 ").

    Writer numbers headings one of two ways. Its own (Tools > Heading
    Numbering) is the outline style, counted over the numbered headings by
    outline level: a heading set to "No List" (its style's list style empty)
    or marked a list header has no number and is not counted, and a heading
    may restart its level at a value of its own. A Word file opened and saved
    in Writer keeps Word's way: each heading inside a one-item list
    (``text:list``) in a numbered list style, counted over that style's lists
    (a list that continues numbering goes on from the one before). Such a
    heading is taken out of its list, number written in: read inside the
    list it was a list item, not a heading.
    """
    outline: Levels = {}
    for root in (doc.styles, doc.automaticstyles):
        for node in _elements(root, textns, "outline-style"):
            outline.update(_level_styles(node, "outline-level-style"))
    in_lists = _number_listed_headings(doc, textns, lists)
    paragraph_styles = _paragraph_styles(doc)
    counter = _Counter(outline)
    for h in _elements(doc.text, textns, "h"):
        if id(h) in in_lists or h.attributes.get((textns, "is-list-header")) == "true":
            continue
        if _numbering_off(h.attributes.get((textns, "style-name"), "") or "", paragraph_styles):
            continue
        level = min(max(_int(h.attributes.get((textns, "outline-level"))) or 1, 1), 10)
        restart = h.attributes.get((textns, "restart-numbering")) == "true"
        counter.step(level, _int(h.attributes.get((textns, "start-value"))) if restart else None)
        stored = _elements(h, textns, "number")
        if stored:  # Writer wrote the number it shows: that one, as text
            label = _text_of(stored[0]).strip()
            for n in stored:
                n.parentNode.removeChild(n)
        else:
            label = counter.label(level)
        _prepend(h, label)


def _number_listed_headings(doc: Any, textns: str, styles: dict[str, Levels]) -> set[int]:
    """Number and lift out the headings inside lists; returns their ids."""
    lifted: set[int] = set()
    counters: dict[str, _Counter] = {}
    for top in _elements(doc.text, textns, "list"):
        if _inside(top, textns, "list"):
            continue  # counted with the list it is nested in
        headings = _elements(top, textns, "h")
        style = top.attributes.get((textns, "style-name"), "") or ""
        continues = top.attributes.get((textns, "continue-numbering")) == "true" or bool(
            top.attributes.get((textns, "continue-list"))
        )
        if style not in counters or not continues:
            counters[style] = _Counter(styles.get(style, {}))
        labels: dict[int, str] = {}
        _count_items(top, 1, textns, counters[style], labels)
        if not headings:
            continue
        # The list held a heading: its blocks go where it stood, in order.
        parent = top.parentNode
        for block in _blocks(top, textns):
            block.parentNode.removeChild(block)
            parent.insertBefore(block, top)
            if block.qname == (textns, "h"):
                _prepend(block, labels.get(id(block), ""))
                lifted.add(id(block))
        parent.removeChild(top)
    return lifted


def _count_items(
    lst: Any, depth: int, textns: str, counter: _Counter, labels: dict[int, str]
) -> None:
    """Count a list's items as Writer numbers them, and label its headings.

    An item whose first content is a nested list has no number of its own
    (how a level-2 heading's list is written: an empty level-1 item around it).
    """
    for item in lst.childNodes:
        if getattr(item, "qname", None) != (textns, "list-item"):
            continue
        children = [c for c in item.childNodes if getattr(c, "qname", None) is not None]
        if children and children[0].qname != (textns, "list") and depth <= 10:
            counter.step(depth, _int(item.attributes.get((textns, "start-value"))))
            if depth in counter.levels:
                # the number Writer shows, for the converter's <li value="...">
                item.attributes[(textns, "start-value")] = str(counter.count[depth])
        for child in children:
            if child.qname == (textns, "list"):
                _count_items(child, depth + 1, textns, counter, labels)
            elif child.qname == (textns, "h"):
                labels[id(child)] = counter.label(depth)


def _blocks(lst: Any, textns: str) -> list[Any]:
    """A list's paragraphs, headings and tables, in order, however deep."""
    out = []
    for item in lst.childNodes:
        for child in getattr(item, "childNodes", []):
            if getattr(child, "qname", None) == (textns, "list"):
                out += _blocks(child, textns)
            elif getattr(child, "qname", None) is not None:
                out.append(child)
    return out


def _inside(node: Any, ns: str, local: str) -> bool:
    up = node.parentNode
    while up is not None:
        if getattr(up, "qname", None) == (ns, local):
            return True
        up = up.parentNode
    return False


def _replace(old: Any, new: Any) -> None:
    """Put ``new`` where ``old`` stands, holding ``old``'s children (a heading
    made a paragraph, or the other way round)."""
    for child in list(old.childNodes):
        # odfpy's removeChild refuses text nodes (its caches hold elements)
        old.childNodes.remove(child)
        child.parentNode = None
        new.appendChild(child)
    old.parentNode.insertBefore(new, old)
    old.parentNode.removeChild(old)


def _prepend(h: Any, label: str) -> None:
    from odf.element import Text

    if not label:
        return
    number = Text(f"{label} ")
    if h.firstChild is not None:
        h.insertBefore(number, h.firstChild)
    else:
        h.appendChild(number)


def _int(value: Any) -> int | None:
    text = str(value) if value is not None else ""
    return int(text) if text.isascii() and text.isdigit() else None


def _title(doc: Any) -> str:
    from odf.namespaces import DCNS

    found = _elements(doc.meta, DCNS, "title")
    return " ".join(_text_of(found[0]).split()) if found else ""


def read(data: bytes, request: ReadRequest) -> ParseResult:
    page, title, left_out = to_html(data, request.name)
    return html.read_document(page, title, left_out, request, "odt")


FORMAT = Format(
    name="odt",
    extensions=(".odt", ".fodt", ".ott"),
    read=read,
    sniff=sniff,
    binary=True,
    priority=15,
    sniff_overrides_extension=True,
    label="OpenDocument",
)
