"""Bad rulebooks and bad datasets through the real CLI (in-process, fake embedder).

A refused file gets exactly one ``Error: `` line on stderr that names it and
says what is wrong, and leaves everything as it was: the index files, what
``rules list --json`` prints, and the library manifest. A Markdown file with
no headings is not refused: it is ingested as plain sections with a warning.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from docx_build import docx, markdown_docx, para
from odt_build import markdown_odt, odt
from PIL import Image
from pypdf import PdfReader, PdfWriter
from reportlab.lib.pagesizes import letter
from reportlab.lib.utils import ImageReader
from reportlab.pdfgen import canvas
from test_ingest_cli import SMALL_BOOK, index_state, one_error_line, rules_json
from test_pdf_reader import book_pdf

from ruleslawyer.ingest.sources import read_manifest
from ruleslawyer.settings import PROJECT_ROOT, Settings

Run = Callable[..., tuple[int, str, str]]
FIXTURES = PROJECT_ROOT / "tests" / "fixtures" / "rulebooks"


@pytest.fixture
def data_dir(seeded_settings: Settings) -> Path:
    """A private copy of the seeds index built with the fake embedder."""
    return seeded_settings.data_dir


def library_books(data_dir: Path) -> list[str]:
    return [b.file for b in read_manifest(data_dir / "rulebooks", "library").rulebooks]


# --- bad PDFs, made here ------------------------------------------------------------------------
def encrypted_pdf() -> bytes:
    """A one-page PDF with a text layer that needs the user password "secret"."""
    page = io.BytesIO()
    c = canvas.Canvas(page, pagesize=letter, invariant=1)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(72, 700, "1 Movement")
    c.setFont("Helvetica", 10)
    c.drawString(72, 670, "A unit moves up to its Move stat in inches.")
    c.showPage()
    c.save()
    writer = PdfWriter()
    writer.add_page(PdfReader(io.BytesIO(page.getvalue())).pages[0])
    writer.encrypt(user_password="secret")
    out = io.BytesIO()
    writer.write(out)
    data = out.getvalue()
    assert b"/Encrypt" in data
    return data


def image_only_pdf() -> bytes:
    """Two pages of drawn rectangles and a picture: a scan, with no text layer."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter, invariant=1)
    picture = ImageReader(Image.new("RGB", (120, 80), (180, 40, 40)))
    for _ in range(2):
        c.rect(72, 400, 300, 200, fill=1)
        c.setFillColorRGB(0.2, 0.4, 0.6)
        c.rect(100, 100, 150, 150, fill=1)
        c.drawImage(picture, 320, 120, width=200, height=130)
        c.showPage()
    c.save()
    return buf.getvalue()


def truncated_pdf() -> bytes:
    data, book = book_pdf()
    assert book.page == 5
    return data[: len(data) // 2]


def legacy_doc() -> bytes:
    """What Word 97-2003 saves, and what an encrypted .docx is: an OLE file."""
    return b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 2000


def truncated_docx() -> bytes:
    data = markdown_docx((FIXTURES / "markdown" / "01-basics.md").read_text(encoding="utf-8"))
    return data[: len(data) // 2]


def truncated_odt() -> bytes:
    data = markdown_odt((FIXTURES / "markdown" / "01-basics.md").read_text(encoding="utf-8"))
    return data[: len(data) // 2]


def encrypted_odt() -> bytes:
    """What LibreOffice saves with a password: its parts encrypted, the manifest
    saying how (here the parts are left as they were: the manifest is what tells)."""
    data = markdown_odt((FIXTURES / "markdown" / "01-basics.md").read_text(encoding="utf-8"))
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(buf, "w") as out:
        for info in src.infolist():
            part = src.read(info)
            if info.filename == "META-INF/manifest.xml":
                part = part.replace(
                    b'manifest:full-path="content.xml"',
                    b'manifest:full-path="content.xml"><manifest:encryption-data '
                    b'manifest:checksum-type="SHA1/1K" manifest:checksum="x"/'
                    b"></manifest:file-entry><manifest:file-entry manifest:full-path="
                    b'"unused.xml" manifest:media-type="text/xml"',
                    1,
                )
            out.writestr(info, part)
    return buf.getvalue()


def empty_odt() -> bytes:
    from odf.text import P

    return odt(lambda doc: doc.text.addElement(P(text="   ")))


def odt_without_content() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        z.writestr("styles.xml", "<styles/>")
    return buf.getvalue()


def zip_without_document() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("word/styles.xml", "<styles/>")
    return buf.getvalue()


# (case id, file name, bytes or a fixture path, what the one error line must also say)
REFUSED: list[tuple[str, str, Callable[[], bytes], str]] = [
    ("encrypted", "locked.pdf", encrypted_pdf, r"encrypted|password"),
    ("image-only", "scan.pdf", image_only_pdf, r"no text layer"),
    # PDFium does not repair a PDF cut in half (no cross-reference table, objects cut
    # off): it is refused, and the message asks whether the file is complete.
    ("truncated", "half.pdf", truncated_pdf, r"not a readable PDF.*complete"),
    ("not-a-pdf", "fake.pdf", lambda: SMALL_BOOK.encode() * 3, r"not a PDF"),
    ("empty-html", "empty.html", (FIXTURES / "html" / "empty.html").read_bytes, r"no text"),
    ("legacy-doc", "old.docx", legacy_doc, r"legacy Word \.doc or a password"),
    # named .doc, as it is: the same message, not the text reader's "binary file"
    ("legacy-doc-named-so", "old.doc", legacy_doc, r"legacy Word \.doc.*save it as \.docx"),
    ("truncated-docx", "half.docx", truncated_docx, r"not a readable Word document.*complete"),
    ("zip-not-docx", "parts.docx", zip_without_document, r"not a Word document"),
    ("empty-docx", "blank.docx", lambda: docx(para("   ")), r"no text in the document"),
    ("not-a-docx", "fake.docx", lambda: SMALL_BOOK.encode(), r"not a readable Word document"),
    ("truncated-odt", "half.odt", truncated_odt, r"not a readable OpenDocument text.*complete"),
    ("encrypted-odt", "locked.odt", encrypted_odt, r"password-protected"),
    ("zip-not-odt", "parts.odt", odt_without_content, r"not an OpenDocument text"),
    ("empty-odt", "blank.odt", empty_odt, r"no text in the document"),
    ("not-an-odt", "fake.odt", lambda: SMALL_BOOK.encode(), r"not a readable OpenDocument"),
]


@pytest.mark.parametrize(
    ("name", "make", "says"), [pytest.param(n, m, s, id=i) for i, n, m, s in REFUSED]
)
def test_bad_rulebook_is_refused_and_nothing_changes(
    cli_run: Run, data_dir: Path, tmp_path: Path, name: str, make: Callable[[], bytes], says: str
) -> None:
    path = tmp_path / name
    path.write_bytes(make())
    before_files = index_state(data_dir)
    before_json, before_units = rules_json(cli_run, data_dir)
    before_library = library_books(data_dir)
    assert "CURRENT" in before_files and before_units

    code, out, err = cli_run("ingest", str(path), "--game", "brass", data_dir=data_dir)
    assert code != 0
    line = one_error_line(err)
    assert line.startswith("Error: "), line
    assert name in line, line
    assert re.search(says, line, re.I), line
    assert "Indexed" not in out

    assert index_state(data_dir) == before_files
    assert rules_json(cli_run, data_dir)[0] == before_json
    assert library_books(data_dir) == before_library == []
    assert not (data_dir / "rulebooks" / name).exists()


def test_a_good_pdf_is_ingested(cli_run: Run, data_dir: Path, tmp_path: Path) -> None:
    """The control for the PDF refusals: the same CLI call takes a sound PDF."""
    path = tmp_path / "brass.pdf"
    path.write_bytes(book_pdf()[0])
    code, out, err = cli_run("ingest", str(path), "--game", "brass", data_dir=data_dir)
    assert code == 0, err
    assert "brass.pdf  [brass, pdf: pdf parser, 5 pages]  12 units" in out
    _, units = rules_json(cli_run, data_dir)
    mine = [u for u in units if u["game"] == "brass"]
    assert len(mine) == 12
    assert {u["source"]["page"] for u in mine} == {2, 3, 4, 5}
    assert library_books(data_dir) == ["brass.pdf"]


def test_markdown_without_headings_becomes_plain_sections(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    source = FIXTURES / "markdown" / "no-headings.md"
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    code, out, err = cli_run("ingest", str(path), "--game", "brass", data_dir=data_dir)
    assert code == 0, err
    assert "Error" not in err
    assert "no-headings.md  [brass, markdown: plain parser]  1 unit" in out
    warnings = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("warning:")]
    assert len(warnings) == 1
    assert re.fullmatch(
        r"warning: no-headings\.md: no headings found; ingested as 1 plain section",
        warnings[0],
    ), warnings
    _, units = rules_json(cli_run, data_dir)
    mine = [u for u in units if u["game"] == "brass"]
    assert [(u["rule_id"], u["kind"], u["source"]["file"]) for u in mine] == [
        ("no-headings §1", "section", "no-headings.md")
    ]
    text = mine[0]["text"]
    assert text.startswith("Before the first turn, the players roll off")
    assert text.endswith(
        "If both Captains are still on the table, or neither is, the game is a draw."
    )
    assert "#" not in text and "**" not in text
    assert library_books(data_dir) == ["no-headings.md"]


@pytest.mark.parametrize(
    ("game", "slug"),
    [("Bolt Action", "bolt-action"), ("a/b", "a-b"), ("../x", "x")],
)
def test_game_name_that_is_no_slug_is_refused(
    cli_run: Run, data_dir: Path, tmp_path: Path, game: str, slug: str
) -> None:
    path = tmp_path / "fortress.txt"
    path.write_text(SMALL_BOOK, encoding="utf-8")
    before_files = index_state(data_dir)
    before_json, _ = rules_json(cli_run, data_dir)

    code, out, err = cli_run("ingest", str(path), "--game", game, data_dir=data_dir)
    assert code != 0
    line = one_error_line(err)
    assert line.startswith("Error: "), line
    assert repr(game) in line, line  # names the bad value ...
    assert f"--game {slug} " in line, line  # ... and the slug to use instead
    assert "Indexed" not in out

    assert index_state(data_dir) == before_files
    assert rules_json(cli_run, data_dir)[0] == before_json
    assert library_books(data_dir) == []
    assert not (data_dir / "rulebooks").exists() or not any((data_dir / "rulebooks").iterdir())
    assert not (data_dir.parent / "x").exists()


# --- a bad eval dataset -----------------------------------------------------------------------
def test_eval_lists_every_bad_dataset_line(cli_run: Run, data_dir: Path, tmp_path: Path) -> None:
    good = {
        "id": "ok-1",
        "game": "40k",
        "question": "Can a unit shoot after it advanced?",
        "expected_verdict": "no",
        "expected_facts": ["advanced"],
        "expected_rules": [],
        "unanswerable": False,
        "source": "a test",
        "seed_quote": "",
    }
    lines = [
        json.dumps(good),  # 1: fine
        '{"id": "broken", "question": ',  # 2: invalid JSON
        "[1, 2, 3]",  # 3: not an object
        json.dumps({"id": "short", "question": "How far can I move?"}),  # 4: missing keys
        json.dumps({**good, "colour": "red"} | {"id": "ok-2"}),  # 5: unknown key
        json.dumps(good),  # 6: duplicate id
        json.dumps({**good, "id": "ok-3", "game": "Warhammer 40K"}),  # 7: game not a slug
    ]
    dataset = tmp_path / "BAD.jsonl"
    dataset.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out_dir = tmp_path / "report"

    code, out, err = cli_run(
        "eval", "--dataset", str(dataset), "--out", str(out_dir), "--no-llm", data_dir=data_dir
    )
    assert code != 0
    assert "Traceback" not in err
    err_lines = err.strip().splitlines()
    summary = f"Error: {len(err_lines) - 1} problems in {dataset}"
    assert err_lines[0] == summary
    problems = [ln.strip() for ln in err_lines[1:]]
    assert all(p.startswith(f"{dataset}:") for p in problems), problems
    by_line: dict[int, list[str]] = {}
    for p in problems:
        lineno, problem = p[len(str(dataset)) + 1 :].split(": ", 1)
        by_line.setdefault(int(lineno), []).append(problem)
    assert sorted(by_line) == [2, 3, 4, 5, 6, 7]
    assert by_line[2][0].startswith("invalid JSON")
    assert by_line[3] == ["not a JSON object"]
    assert by_line[4][0].startswith("missing keys: ")
    assert "expected_verdict" in by_line[4][0]
    assert any(p.startswith("unknown keys: colour") for p in by_line[5])
    assert any(p.startswith("duplicate id 'ok-1' (first on line 1)") for p in by_line[6])
    assert any(re.search("is not a game slug .write it as .warhammer-40k.", p) for p in by_line[7])
    assert out == ""
    assert not out_dir.exists()


def test_format_option_takes_every_reader(cli_run: Run, data_dir: Path, tmp_path: Path) -> None:
    """--format offers the readers in ingest/formats, not a list of its own: a
    Word file saved under another name is read with --format docx."""
    path = tmp_path / "house-rules.bin"
    path.write_bytes(markdown_docx((FIXTURES / "markdown" / "01-basics.md").read_text("utf-8")))
    code, out, err = cli_run(
        "ingest", str(path), "--game", "brass", "--format", "docx", data_dir=data_dir
    )
    assert code == 0, err
    assert "[brass, docx: docx parser]" in out
    _, units = rules_json(cli_run, data_dir)
    assert any(u["rule_id"] == "basics/dice" and u["game"] == "brass" for u in units)


def test_a_doc_is_told_by_its_bytes() -> None:
    """A legacy Word file gets the Word reader's message under any name; a text
    file someone named .doc is read as the text it is (sending every .doc to the
    Word reader called it 'not a readable Word document')."""
    from ruleslawyer.ingest.formats import detect

    assert detect("old.doc", legacy_doc()).name == "docx"
    assert detect("rules.doc", SMALL_BOOK.encode()).name == "text"


def test_eval_refuses_a_model_that_cannot_answer(
    cli_run: Run, data_dir: Path, tmp_path: Path
) -> None:
    """A truncated GGUF (its header intact) passed the eval's check, and every
    answer was measured as quotes alone: "All 10 questions fully correct", exit
    0. The eval has the model generate a token first: a one-line error."""
    good = {
        "id": "ok-1", "game": "40k", "question": "Can a unit shoot after it advanced?",
        "expected_verdict": "no", "expected_facts": [], "expected_rules": [],
        "unanswerable": False, "source": "a test", "seed_quote": "",
    }  # fmt: skip
    dataset = tmp_path / "one.jsonl"
    dataset.write_text(json.dumps(good) + "\n", encoding="utf-8")
    broken = tmp_path / "cut.gguf"
    broken.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\x00" * 4096)
    code, _, err = cli_run(
        "eval", "--dataset", str(dataset), "--out", str(tmp_path / "r"), "--model", str(broken),
        data_dir=data_dir,
    )  # fmt: skip
    assert code == 1 and "Traceback" not in err
    assert err.strip().startswith("Error: llama.cpp cannot load"), err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "r").exists()
