"""The question splits and the rulebook corpora they are answered from.

Every tuned number is fitted on *fit*, its operating point chosen on
*choose*, and reported on the unseen splits (*test*, *cross* on a second
game's rulebook read from ``../shared/corpora``, the fresh sets and
*long*), which nothing is ever fitted or chosen on:

- fit: the dev questions about the seeds, questions about a small
  heading-structured Markdown rulebook written for the tests (so nothing
  is fitted to the seeds' layout alone), two thirds of a second batch of
  questions on both (``more-*``, most of its unanswerable ones near misses:
  a topic the rules cover without the asked detail), and two thirds of the
  questions on "Tidewater", a rulebook of long sections written for fitting
  (so the relevance model and fusion also see long rules), and two thirds
  of a third batch on the seeds, Brass & Bayonet and Tidewater
  (``more2-*``, ``tidewater2-*``), written in the fresh sets' casual style
  and reviewed by a second session (so *fit* and *choose* hold questions
  like the unseen sets' too);
- choose: the held-out seed questions, a third of the new seed questions,
  and the other thirds of the ``more-*``, ``more2-*`` and Tidewater
  questions (split by a hash of their IDs within each game and kind);
- test: the other two thirds of the new seed questions;
- cross: questions about Skirmishers, a real third-party rulebook, ingested
  from its PDF or from its HTML pages;
- cross-fresh: new questions about Skirmishers (its PDF), written from the
  rules by someone who had not seen what the pipeline answers, after
  *cross* had been looked at too often to count as unseen (its failures
  are discussed in the README); nothing was run on them before they were
  final;
- test-fresh and cross-fresh2: new questions about the seeds and about
  Skirmishers, written from the rules by helper sessions that never ran the
  pipeline (and checked by two more that read only the rules), once *test*,
  *cross* and *cross-fresh* had all been looked at; their unanswerable
  questions are near misses (all but one of the 26). Nothing was run on
  them before they were final;
- long: questions about "Delvers of the Deep", a rulebook of long sections
  (1,600-3,800 characters each) written for the evals after the tuning was
  fixed: a second rulebook nothing was fitted or chosen on. (Fitting on it
  was tried: it moved recall on *choose* up and turned away fewer
  unanswerable questions, a tie on fully correct, so the tuning fitted
  without it stayed.) *long-odt*: the same questions on the same six
  files as LibreOffice documents set by pandoc 2.17 (2026-12-06), to show
  the OpenDocument reader gives the rules the Markdown gives;
- ember and ember-html: questions about "Ember Lanterns", a third game's
  rulebook written for a player's test on 2026-12-02 by a helper session
  that never ran the pipeline, typeset as a two-column PDF (running
  headers naming the chapter, a glossary) and as one wiki page (page
  tabs, a contents sidebar, "[Edit | History]" links, a glossary as a
  ``<dl>``); the PDF and HTML readers were mended on the book itself (its
  chapter headers, its glossary page, its page tabs) before any question
  was asked, and nothing was fitted or chosen on its questions;
- ember-print: the same questions on the wiki page as a player would save
  it from a browser: printed to PDF by headless Chromium with the
  browser's own header and footer (date, title, address, page numbers) and
  the page's sidebar, tabs and "[Edit | History]" links as printed
  (``evals/corpora/ember/ember-print.pdf``, 2026-12-02): a third PDF
  producer, after LaTeX (Skirmishers) and reportlab (ember);
- ember-fresh: 30 new questions on Ember Lanterns (its PDF: 8 yes, 8 no,
  6 open, 8 unanswerable, 7 of those near misses), written on 2026-12-05
  by a helper session from the rules alone, without running the pipeline
  or reading ``ember.jsonl``, to measure that day's retrieval change (the
  top rules re-ordered by their best sentence) on questions no one had
  seen; nothing is fitted or chosen on them;
- cross-fresh3 and cross-fresh3-html: Skirmishers a fourth time (12 yes,
  12 no, 8 open, 8 unanswerable near misses), in its PDF and its HTML
  pages, written on 2026-12-05 by a helper session from the rules alone
  (only ``ingest`` and ``rules list``/``show`` run, for the rule IDs; no
  other dataset read), spread over the whole book (tables, vehicles, power
  armour, advanced combat and mobility) after *cross-fresh2* had been
  looked at twice; nothing is fitted or chosen on them;
- cinder, cinder-md, cinder-odt, cinder-docx: "Cinder Reach", a fourth
  game's rulebook (64 sections, 8 tables) written on 2026-12-06 by a helper
  session with 36 questions (12 yes, 12 no, 6 open, 6 unanswerable near
  misses), the questions written from the rules before anything ran, then
  the book saved as a player's word processor would: Markdown, and by
  pandoc as ODT (with a running header and page numbers) and DOCX, the
  ODT exported to PDF by LibreOffice (a fourth PDF producer, after LaTeX,
  reportlab and Chromium). The PDF reader was mended on this PDF after the
  session's first run (its header and page numbers inside an inch's
  margin, tables written cell by cell); nothing is fitted or chosen on the
  questions;
- cinder-weasyprint: the same questions on the same Markdown set as a web
  page by pandoc and printed by WeasyPrint (``weasyprint.css`` beside it:
  A5, running headers naming the chapter, page numbers, bordered tables
  whose cells the browser centres in tall rows), a fifth PDF producer
  (2026-12-06); the reader was mended on probe files of WeasyPrint's
  footnotes, lists, columns and tall rows first, and on this file's tall
  rows; nothing is fitted or chosen on the questions;
- cards, cards-txt: "Hollowmere", a card game's comprehensive rules as
  card games write them (25 numbered sections, 245 numbered paragraphs
  such as "601.1a", examples, cross-references, a glossary), written on
  2026-12-06 by a helper session with 40 questions (14 yes, 14 no, 6 open,
  6 unanswerable near misses) before anything answered them, as plain text
  and as a PDF set by ReportLab (``evals/corpora/hollowmere/build_pdf.py``).
  The readers were taught numbered paragraphs that day, and mended on this
  book's ingest (its keyword rules' lettered sub-rules, paragraphs set
  closer than half a line apart) before any question was asked; nothing
  is fitted or chosen on the questions.

- faq: "Gravelmoor Raiders", core rules and an FAQ in Markdown (12 entries
  as question headings over answers opening "Yes." or "No.", 8 as "Q: ...
  A: ..." lines in one section), written on 2026-12-07 by a helper session
  with 36 yes/no questions before anything answered them (10 asked as an
  entry asks, 10 paraphrased as players talk, 10 near misses whose answer
  is the opposite of the nearby entry's, 6 on the core rules only), to
  measure the FAQ's own verdicts on questions nobody tuned on; nothing is
  fitted or chosen on them.
- faq2: "Ashgrove Warbands", a second FAQ book written the same day by
  another helper session that did not see the first (14 question headings,
  9 "Q: ... A:" lines under three headings) with 36 yes/no questions of
  the same four kinds; measured once, after the first, with nothing changed
  between them.
- faq3: "Saltmire", a third FAQ book, as HTML pages this time (14 question
  headings, 8 "Q: ... A:" paragraphs under three headings), with 36 yes/no
  questions of the same four kinds, written by a third helper session that
  saw neither earlier set nor any answer; the set a change to the FAQ's
  verdicts chosen on the first two is reported on.

Each corpus gets its own data dir under ``.ruleslawyer/bench/``, built once
and reused (ingest skips an unchanged corpus).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import settings_for
from ruleslawyer.evals.dataset import EvalItem, load_dataset
from ruleslawyer.service import RulesService
from ruleslawyer.settings import PROJECT_ROOT

DATASETS = PROJECT_ROOT / "evals" / "datasets"
SHARED = PROJECT_ROOT.parent / "shared" / "corpora"


@dataclass(frozen=True)
class Corpus:
    """Rulebooks added to the seeds for some questions: one game's files."""

    game: str
    name: str
    paths: tuple[Path, ...]

    def available(self) -> bool:
        return bool(self.paths) and all(p.exists() for p in self.paths)


FIXTURE = PROJECT_ROOT / "tests" / "fixtures" / "rulebooks" / "markdown"
EVAL_CORPORA = PROJECT_ROOT / "evals" / "corpora"
CORPORA: dict[str, Corpus] = {
    "brass": Corpus("brass-and-bayonet", "Brass & Bayonet", tuple(sorted(FIXTURE.glob("0*.md")))),
    "delvers": Corpus(
        "delvers", "Delvers of the Deep", tuple(sorted((EVAL_CORPORA / "delvers").glob("*.md")))
    ),
    # the same six files as LibreOffice documents, set by pandoc 2.17 (a word
    # processor's curly quotes, its title line, its list and table markup)
    "delvers-odt": Corpus(
        "delvers",
        "Delvers of the Deep",
        tuple(sorted((EVAL_CORPORA / "delvers" / "odt").glob("*.odt"))),
    ),
    "tidewater": Corpus(
        "tidewater", "Tidewater", tuple(sorted((EVAL_CORPORA / "tidewater").glob("*.md")))
    ),
    "skirmishers-pdf": Corpus(
        "skirmishers", "Skirmishers", (SHARED / "skirmishers" / "skirmishers.pdf",)
    ),
    "skirmishers-html": Corpus(
        "skirmishers", "Skirmishers", tuple(sorted((SHARED / "skirmishers").glob("*.html")))
    ),
    "ember-pdf": Corpus("ember", "Ember Lanterns", (EVAL_CORPORA / "ember" / "ember.pdf",)),
    "ember-html": Corpus("ember", "Ember Lanterns", (EVAL_CORPORA / "ember" / "ember.html",)),
    "ember-print": Corpus("ember", "Ember Lanterns", (EVAL_CORPORA / "ember" / "ember-print.pdf",)),
    # one book typed once and saved four ways (see the module docstring)
    **{
        f"cinder-{ext}": Corpus(
            "cinder-reach", "Cinder Reach", (EVAL_CORPORA / "cinder-reach" / f"cinder-reach.{ext}",)
        )
        for ext in ("pdf", "md", "odt", "docx")
    },
    "cinder-weasyprint": Corpus(
        "cinder-reach",
        "Cinder Reach",
        (EVAL_CORPORA / "cinder-reach" / "cinder-reach-weasyprint.pdf",),
    ),
    # an FAQ as players' sites write one: question headings, and "Q: ... A:" lines
    "gravelmoor": Corpus(
        "gravelmoor",
        "Gravelmoor Raiders",
        tuple(sorted((EVAL_CORPORA / "gravelmoor").glob("*.md"))),
    ),
    "ashgrove": Corpus(
        "ashgrove",
        "Ashgrove Warbands",
        tuple(sorted((EVAL_CORPORA / "ashgrove").glob("*.md"))),
    ),
    "saltmire": Corpus(
        "saltmire",
        "Saltmire",
        tuple(sorted((EVAL_CORPORA / "saltmire").glob("*.html"))),
    ),
    # a card game's comprehensive rules: numbered paragraphs, not headings
    **{
        f"hollowmere-{ext}": Corpus(
            "hollowmere", "Hollowmere", (EVAL_CORPORA / "hollowmere" / f"hollowmere-cr.{ext}",)
        )
        for ext in ("pdf", "txt")
    },
}

# split -> (dataset file, corpus it is answered from beside the seeds)
SPLITS: dict[str, tuple[tuple[str, str], ...]] = {
    "fit": (
        ("dev.jsonl", "brass"),
        ("brass-and-bayonet.jsonl", "brass"),
        ("more-fit.jsonl", "brass"),
        ("tidewater-fit.jsonl", "tidewater"),
        ("more2-fit.jsonl", "brass"),
        ("tidewater2-fit.jsonl", "tidewater"),
    ),
    "choose": (
        ("heldout.jsonl", "brass"),
        ("choose.jsonl", "brass"),
        ("more-choose.jsonl", "brass"),
        ("tidewater-choose.jsonl", "tidewater"),
        ("more2-choose.jsonl", "brass"),
        ("tidewater2-choose.jsonl", "tidewater"),
    ),
    "test": (("test.jsonl", "brass"),),
    "cross": (("skirmishers.jsonl", "skirmishers-pdf"),),
    "cross-html": (("skirmishers.jsonl", "skirmishers-html"),),
    "cross-fresh": (("skirmishers-fresh.jsonl", "skirmishers-pdf"),),
    "test-fresh": (("test-fresh.jsonl", "brass"),),
    "cross-fresh2": (("skirmishers-fresh2.jsonl", "skirmishers-pdf"),),
    "long": (("delvers.jsonl", "delvers"),),
    "long-odt": (("delvers.jsonl", "delvers-odt"),),
    "ember": (("ember.jsonl", "ember-pdf"),),
    "ember-html": (("ember.jsonl", "ember-html"),),
    "ember-print": (("ember.jsonl", "ember-print"),),
    "ember-fresh": (("ember-fresh.jsonl", "ember-pdf"),),
    "cross-fresh3": (("skirmishers-fresh3.jsonl", "skirmishers-pdf"),),
    "cross-fresh3-html": (("skirmishers-fresh3.jsonl", "skirmishers-html"),),
    "cinder": (("cinder-reach.jsonl", "cinder-pdf"),),
    "cinder-md": (("cinder-reach.jsonl", "cinder-md"),),
    "cinder-odt": (("cinder-reach.jsonl", "cinder-odt"),),
    "cinder-docx": (("cinder-reach.jsonl", "cinder-docx"),),
    "cinder-weasyprint": (("cinder-reach.jsonl", "cinder-weasyprint"),),
    "cards": (("hollowmere.jsonl", "hollowmere-pdf"),),
    "cards-txt": (("hollowmere.jsonl", "hollowmere-txt"),),
    "faq": (("gravelmoor.jsonl", "gravelmoor"),),
    "faq2": (("ashgrove.jsonl", "ashgrove"),),
    "faq3": (("saltmire.jsonl", "saltmire"),),
}


def service(corpus: str, **settings: Any) -> RulesService:
    """A service over the seeds plus ``corpus``, in its own cached data dir."""
    spec = CORPORA[corpus]
    if not spec.available():
        missing = ", ".join(str(p) for p in spec.paths if not p.exists())
        raise SystemExit(f"corpus {corpus!r} is not on this machine ({missing})")
    data = PROJECT_ROOT / ".ruleslawyer" / "bench" / corpus
    svc = RulesService(settings_for(data, **settings))
    # Cheap when nothing changed (vectors are reused by chunk hash); picks up edits.
    svc.ingest(list(spec.paths), game=spec.game, game_name=spec.name)
    return svc


def questions(split: str) -> list[tuple[EvalItem, str]]:
    """(question, corpus) for every question of ``split``."""
    out: list[tuple[EvalItem, str]] = []
    for name, corpus in SPLITS[split]:
        out += [(item, corpus) for item in load_dataset(DATASETS / name)]
    return out
