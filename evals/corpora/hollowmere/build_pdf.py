"""Typeset hollowmere-cr.txt as hollowmere-cr.pdf with ReportLab (Platypus).

Usage (from /work/main):
    .venv/bin/python evals/corpora/hollowmere/build_pdf.py

The PDF carries exactly the text of the .txt file, one flowable per paragraph
(paragraphs are separated by blank lines in the .txt). Only the layout differs:
chapter and section headings are bold and larger, sub-rules and examples are
indented, and every page has a running header and a page number.
"""

from __future__ import annotations

import re
from pathlib import Path
from xml.sax.saxutils import escape

from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import LETTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

HERE = Path(__file__).resolve().parent
SRC = HERE / "hollowmere-cr.txt"
OUT = HERE / "hollowmere-cr.pdf"

HEADER = "Hollowmere Comprehensive Rules - Effective February 1, 2027"

base = ParagraphStyle("body", fontName="Times-Roman", fontSize=10, leading=12.5, spaceAfter=5)
styles = {
    "title": ParagraphStyle(
        "title",
        parent=base,
        fontName="Helvetica-Bold",
        fontSize=22,
        leading=26,
        alignment=TA_CENTER,
        spaceAfter=10,
    ),
    "date": ParagraphStyle(
        "date", parent=base, fontName="Helvetica", fontSize=11, alignment=TA_CENTER, spaceAfter=14
    ),
    "intro": ParagraphStyle("intro", parent=base, spaceAfter=14),
    "contents_head": ParagraphStyle(
        "contents_head",
        parent=base,
        fontName="Helvetica-Bold",
        fontSize=14,
        leading=17,
        spaceBefore=6,
        spaceAfter=6,
    ),
    "toc_chapter": ParagraphStyle(
        "toc_chapter", parent=base, fontName="Helvetica-Bold", spaceBefore=4, spaceAfter=1
    ),
    "toc_section": ParagraphStyle("toc_section", parent=base, leftIndent=18, spaceAfter=1),
    "chapter": ParagraphStyle(
        "chapter",
        parent=base,
        fontName="Helvetica-Bold",
        fontSize=16,
        leading=20,
        spaceBefore=16,
        spaceAfter=8,
    ),
    "section": ParagraphStyle(
        "section",
        parent=base,
        fontName="Helvetica-Bold",
        fontSize=12.5,
        leading=15,
        spaceBefore=10,
        spaceAfter=6,
    ),
    "rule": base,
    "subrule": ParagraphStyle("subrule", parent=base, leftIndent=18),
    "example": ParagraphStyle("example", parent=base, fontName="Times-Italic", leftIndent=18),
    "term": ParagraphStyle("term", parent=base, fontName="Times-Bold", spaceBefore=4, spaceAfter=1),
    "definition": ParagraphStyle("definition", parent=base, leftIndent=18),
}

CHAPTER = re.compile(r"^\d\. \S")
SECTION = re.compile(r"^\d{3}\. \S")
RULE = re.compile(r"^\d{3}\.\d+\. ")
SUBRULE = re.compile(r"^\d{3}\.\d+[a-z] ")


def blocks(text: str) -> list[str]:
    return [b.strip() for b in re.split(r"\n\s*\n", text) if b.strip()]


def classify(paras: list[str]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    out.append(("title", paras[0]))
    out.append(("date", paras[1]))
    out.append(("intro", paras[2]))
    i = 3
    assert paras[i] == "Contents"
    out.append(("contents_head", paras[i]))
    i += 1
    # The contents list runs until the body's first chapter heading repeats.
    first_chapter = paras[i]
    seen_glossary = False
    while not seen_glossary:
        p = paras[i]
        if p == "Glossary":
            out.append(("toc_chapter", p))
            seen_glossary = True
        elif CHAPTER.match(p):
            out.append(("toc_chapter", p))
        else:
            out.append(("toc_section", p))
        i += 1
    assert paras[i] == first_chapter
    in_glossary = False
    term_next = True
    for p in paras[i:]:
        if in_glossary:
            out.append(("term" if term_next else "definition", p))
            term_next = not term_next
        elif p == "Glossary":
            out.append(("chapter", p))
            in_glossary = True
        elif CHAPTER.match(p):
            out.append(("chapter", p))
        elif SECTION.match(p):
            out.append(("section", p))
        elif RULE.match(p):
            out.append(("rule", p))
        elif SUBRULE.match(p):
            out.append(("subrule", p))
        elif p.startswith("Example:"):
            out.append(("example", p))
        else:
            raise ValueError(f"unclassified paragraph: {p[:60]!r}")
    return out


def on_page(canvas, doc) -> None:
    canvas.saveState()
    width, height = doc.pagesize
    canvas.setFont("Helvetica", 8.5)
    canvas.drawString(doc.leftMargin, height - 0.55 * inch, HEADER)
    canvas.setLineWidth(0.4)
    canvas.line(doc.leftMargin, height - 0.6 * inch, width - doc.rightMargin, height - 0.6 * inch)
    canvas.drawCentredString(width / 2, 0.5 * inch, f"Page {doc.page}")
    canvas.restoreState()


def main() -> None:
    text = SRC.read_text(encoding="utf-8")
    story = []
    for kind, para in classify(blocks(text)):
        story.append(Paragraph(escape(" ".join(para.split())), styles[kind]))
        if kind == "intro":
            story.append(Spacer(1, 6))
    doc = SimpleDocTemplate(
        str(OUT),
        pagesize=LETTER,
        leftMargin=0.9 * inch,
        rightMargin=0.9 * inch,
        topMargin=0.85 * inch,
        bottomMargin=0.8 * inch,
        title="Hollowmere Comprehensive Rules",
        author="Hollowmere Rules Team",
        subject="Comprehensive Rules, effective February 1, 2027",
    )
    count = len(story)
    doc.build(story, onFirstPage=on_page, onLaterPages=on_page)
    print(f"wrote {OUT} ({count} flowables)")


if __name__ == "__main__":
    main()
