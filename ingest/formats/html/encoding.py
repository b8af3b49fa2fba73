"""A page's bytes decoded as a browser decodes them (``decode_page``).

A byte order mark first; else the charset the page declares anywhere in
its head, under the name a browser reads it by ("iso-8859-1" as
windows-1252, "shift_jis" as cp932), bytes that do not fit it replaced and
counted in a warning; else UTF-8, else ``--encoding``; else, undeclared,
bs4's detector when the text is mostly a script other than Latin, or
windows-1252 (the HTML standard's default) with a warning.

Trade-off: detection only where the declaration is missing and the page is
not Latin: a detector's guess on a short Latin page is often wrong, and a
wrong guess garbles every accented word.
"""

from __future__ import annotations

import codecs
import re
import unicodedata

from ruleslawyer.errors import RulebookError

# Labels a page may declare that browsers widen (the WHATWG Encoding Standard's
# map): "iso-8859-1" is read as windows-1252 (such pages use 0x80-0x9F for
# “”–€), "shift_jis" as Microsoft's cp932 (its ① and Ⅲ), "euc-kr" as cp949
# (its extra Hangul), "gb2312" as gb18030, ... Python's codecs of the narrow
# names refuse those bytes, and the page was read as undeclared.
_WIDENED = {
    **dict.fromkeys(
        ("ascii", "us-ascii", "iso-8859-1", "iso8859-1", "iso_8859-1", "iso88591", "latin-1",
         "latin1", "l1", "cp819", "ibm819", "x-cp1252", "cp1252", "windows-1252",
         "iso-ir-100", "csisolatin1", "iso_8859-1:1987", "ansi_x3.4-1968", "iso646-us",
         "csascii", "us"),
        "windows-1252",
    ),
    **dict.fromkeys(
        ("iso-8859-9", "iso8859-9", "iso_8859-9", "iso88599", "latin5", "l5", "csisolatin5",
         "iso-ir-148", "iso_8859-9:1989", "x-cp1254", "cp1254", "windows-1254"),
        "cp1254",
    ),
    **dict.fromkeys(
        ("tis-620", "iso-8859-11", "iso8859-11", "iso885911", "dos-874", "windows-874",
         "cp874"),
        "cp874",
    ),
    **dict.fromkeys(
        ("shift_jis", "shift-jis", "sjis", "ms_kanji", "csshiftjis", "x-sjis", "windows-31j",
         "ms932", "cp932"),
        "cp932",
    ),
    **dict.fromkeys(
        ("euc-kr", "euc_kr", "cseuckr", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601",
         "ksc_5601", "korean", "csksc56011987", "iso-ir-149", "windows-949", "cp949"),
        "cp949",
    ),
    **dict.fromkeys(
        ("gb2312", "gb_2312", "gb_2312-80", "csgb2312", "csiso58gb231280", "iso-ir-58",
         "chinese", "gbk", "x-gbk", "cp936", "ms936", "windows-936", "gb18030"),
        "gb18030",
    ),
    **dict.fromkeys(("big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"), "big5hkscs"),
    **dict.fromkeys(("iso-8859-8-i", "csiso88598i", "logical"), "iso-8859-8"),
    **dict.fromkeys(("macintosh", "mac", "x-mac-roman", "csmacintosh"), "mac-roman"),
    **dict.fromkeys(("x-mac-cyrillic", "x-mac-ukrainian"), "mac-cyrillic"),
    **dict.fromkeys(("koi8-u", "koi8-ru"), "koi8-u"),
    **dict.fromkeys(("unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf8"), "utf-8"),
}  # fmt: skip

# How far a page's charset declaration is looked for: its whole <head>, or this
# many bytes when that is longer (a browser takes a <meta> wherever its parser
# meets it; bs4's own look stops at 2 KB, before a long style sheet's end).
DECLARATION_BYTES = 64 * 1024
_HEAD_END = re.compile(rb"</head\s*>", re.I)

# Share of a detected page's letters that must be outside the Latin script for
# the detector's guess to be trusted: a page of Russian or Japanese is nearly
# all such letters; a page of English misread as Central European has none
# (its "½" read as "˝", its quotes as other marks).
NON_LATIN_SHARE = 0.2
_MARKUP = re.compile(r"<(script|style)\b.*?</\1\s*>|<[^>]*>", re.I | re.S)


def _codec(label: str) -> str | None:
    """The Python codec a browser reads a declared ``label`` with; None for a
    label no codec knows (a browser ignores it too)."""
    label = label.strip().lower()
    if label.replace("-", "").replace("_", "").startswith("utf16"):
        return "utf-8"  # a meta saying UTF-16 in a page of bytes means UTF-8
    name = _WIDENED.get(label, label)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def _declared(data: bytes) -> str | None:
    """The label of the charset the page declares: its XML declaration, else a
    ``<meta>`` in its ``<head>`` or its first ``DECLARATION_BYTES``."""
    from bs4.dammit import EncodingDetector

    head = _HEAD_END.search(data)
    end = max(head.end() if head else 0, DECLARATION_BYTES)
    return EncodingDetector.find_declared_encoding(
        data[:end], is_html=True, search_entire_document=True
    )


def _c1_controls(err: UnicodeError) -> tuple[str, int]:
    """The five bytes windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90,
    0x9D) as the WHATWG standard reads them: the C1 controls of the same
    number, so a page read as windows-1252 has no undecodable byte."""
    assert isinstance(err, UnicodeDecodeError)
    return err.object[err.start : err.end].decode("latin-1"), err.end


codecs.register_error("ruleslawyer-c1", _c1_controls)


def _windows_1252(data: bytes) -> str:
    return data.decode("cp1252", errors="ruleslawyer-c1")


def _replaced(data: bytes, codec: str) -> tuple[str, int]:
    """``data`` decoded by ``codec``, bytes it cannot read each a U+FFFD, and how
    many such places there were (the U+FFFDs the page itself holds not counted)."""
    if codec == "cp1252":
        return _windows_1252(data), 0
    try:
        return data.decode(codec), 0
    except UnicodeDecodeError:
        text = data.decode(codec, errors="replace")
    try:
        own = data.count("\ufffd".encode(codec))
    except UnicodeEncodeError:
        own = 0
    return text, text.count("\ufffd") - own


def _non_latin(text: str) -> float:
    """The share of the page's letters (outside its tags, scripts and styles)
    that are not Latin script."""
    letters = [c for c in _MARKUP.sub(" ", text) if c.isalpha()]
    other = sum(1 for c in letters if not unicodedata.name(c, "").startswith("LATIN"))
    return other / len(letters) if letters else 0.0


def decode_page(data: bytes, name: str, encoding: str | None = None) -> tuple[str, list[str]]:
    """The page's text, and warnings about how it was decoded.

    As a browser reads it, near enough: by its byte order mark; else by the
    charset it declares (an XML declaration, ``<meta charset>`` or its
    ``http-equiv``, anywhere in the head), by the name a browser reads it as
    ("shift_jis" as cp932); else as UTF-8 if the bytes are UTF-8; else by
    ``encoding`` (``--encoding``). A declared charset is the page's word:
    bytes that do not fit it (one stray byte in a UTF-8 page) are each a
    U+FFFD, counted in a warning; trying another codec read the whole page
    as windows-1252, every accent and quote in it wrong.

    Else the page declares nothing, and the statistical detector bs4 uses
    (``UnicodeDammit``) is asked, and believed when what it reads is mostly
    in a script other than Latin (``NON_LATIN_SHARE``): Russian in
    windows-1251, Japanese in Shift_JIS, which no default reads. A guess of
    a Latin script is not believed: a page of English with "½" and curly
    quotes was guessed Central European ("6½" read as "6˝"); such a page is
    read as windows-1252, the HTML standard's default, with a warning.
    """
    from bs4.dammit import EncodingDetector, UnicodeDammit

    body, bom = EncodingDetector.strip_byte_order_mark(data)
    if bom:
        text, bad = _replaced(body, bom)
        said = f"{name}: {bad} places not valid {bom}, as its byte order mark says; each read "
        said += "as \ufffd"
        return text, [said] if bad else []
    label = _declared(data)
    codec = _codec(label) if label else None
    if codec:
        text, bad = _replaced(data, codec)
        return text, [
            f"{name}: {bad} places not valid {label}, the charset the page declares; each read "
            "as \ufffd"
        ] if bad else []
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError:
        pass
    if encoding:
        try:
            return data.decode(encoding), []
        except LookupError:
            raise RulebookError(f"{name}: unknown encoding {encoding!r}") from None
        except UnicodeDecodeError as err:
            raise RulebookError(
                f"{name}: not valid {encoding} text (byte {err.start}); check --encoding"
            ) from None
    guess = UnicodeDammit(data, is_html=True)
    found = guess.original_encoding
    if (
        guess.unicode_markup is not None
        and found
        and _non_latin(guess.unicode_markup) > NON_LATIN_SHARE
    ):
        return guess.unicode_markup, [
            f"{name}: no character set declared and not UTF-8; read as {found} by its "
            "letters (pass --encoding to name another)"
        ]
    return _windows_1252(data), [
        f"{name}: no character set declared and not UTF-8; read as windows-1252 (pass "
        "--encoding to name another)"
    ]
