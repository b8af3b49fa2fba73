"""Tokens for lexical search that keep rules vocabulary intact.

Generic tokenizers shred exactly what players search for: ``[SUSTAINED HITS
2]`` becomes three unrelated words, ``2+`` and ``D6`` vanish as numbers,
``OC`` is dropped as too short. Here:

- a bracketed weapon keyword yields one token for the whole keyword
  (``[sustained hits]``, numbers stripped so ``[SUSTAINED HITS X]`` in the
  rule matches ``[SUSTAINED HITS 2]`` in a question) plus its words;
- dice and thresholds (``d6``, ``2d6``, ``2+``, ``4"``) are kept as written;
- hyphenated words give the parts and the joined form (``battle-shocked`` ->
  ``battle``, ``shocked``, ``battleshocked``), so "battleshocked" matches;
- words are lower-cased, stop-worded and Snowball-stemmed.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ruleslawyer.ingest.normalize import normalize

_TOKEN = re.compile(
    r"\[[a-z][a-z0-9 +\-]*\]"  # [lance], [anti-x y+]
    r"|\d*d\d+(?:\+\d+)?"  # d6, 2d6, d6+2
    r"|\d+\+"  # 2+, 4+
    r"|\d+(?:\.\d+)?\"?"  # 12, 24.21, 6"
    r"|[a-z]+(?:['\-][a-z]+)*"  # words, can't, battle-shocked
)
_STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "so",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
        "i",
        "me",
        "my",
        "we",
        "our",
        "you",
        "your",
        "do",
        "does",
        "did",
        "can",
        "could",
        "would",
        "should",
        "what",
        "when",
        "which",
        "who",
        "how",
    ]
)


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    try:
        import Stemmer

        return Stemmer.Stemmer("english")
    except ImportError:  # PyStemmer missing: plain words still work
        return None


def tokenize(text: str) -> list[str]:
    stemmer = _stemmer()
    out: list[str] = []
    for tok in _TOKEN.findall(normalize(text).lower()):
        if tok.startswith("["):
            name = re.sub(r"(?:[ \-](?:\d+\+?|x|y\+?))+\]$", "]", tok)
            out.append(name)
            if "-" in name:  # [anti-vehicle] also searches as [anti]
                out.append(name.split("-")[0] + "]")
            out.extend(w for w in re.findall(r"[a-z]+", name) if w not in _STOP)
            continue
        if tok[0].isdigit() or re.fullmatch(r"\d*d\d+(?:\+\d+)?", tok):
            out.append(tok.rstrip('"'))
            continue
        if tok in _STOP:
            continue
        parts = re.split(r"[\-']", tok)
        if len(parts) > 1 and "'" not in tok:
            out.extend(p for p in parts if p not in _STOP)
            out.append("".join(parts))
        else:
            out.append(tok.replace("'", ""))
    if stemmer is not None:
        out = [t if not t[0].isalpha() else stemmer.stemWord(t) for t in out]
    return out
