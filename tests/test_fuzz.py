"""Property tests: the parser and the question path never crash on any text.

CI runs a few hundred examples each; the full fuzz run (10,000 inputs each) is
    HYPOTHESIS_PROFILE=fuzz .venv/bin/python -m pytest tests/test_fuzz.py
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ruleslawyer.errors import InputError
from ruleslawyer.ingest.parse import parse_rulebook

settings.register_profile("ci", max_examples=300, deadline=None)
settings.register_profile(
    "fuzz", max_examples=10_000, deadline=None, suppress_health_check=list(HealthCheck)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Text that looks like rulebooks: numbers, brackets, bullets, caps, odd unicode.
_PIECES = st.sampled_from(
    [
        "24.21",
        "10.0",
        " [LANCE] ",
        "[]",
        "\n",
        "\n\n",
        "  \u2022 ",
        "1. ",
        "EFFECT: ",
        "DECLARE:",
        "++ FLAVOUR ++",
        " 78\n",
        "(Edit)",
        "Q: ",
        " A: Yes. ",
        "RULES APPENDIX ",
        "\u2011",
        "\u201c",
        "(",
        ")",
        "See 13.08",
        "Passive\n\n",
        "Rally (1 cp)\n\n",
        "\u25ba",
        "x" * 50,
    ]
)
rulebook_text = st.lists(st.one_of(_PIECES, st.text(max_size=30)), max_size=60).map("".join)


@given(rulebook_text)
def test_parser_never_crashes_and_keeps_every_character(text: str) -> None:
    result = parse_rulebook(text, file="fuzz.txt", game="40k", parent="Fuzz")
    for u in result.units:
        assert 0 <= u.source.start <= u.source.end <= len(text)
        assert u.rule_id and u.text.strip()
    if result.parser == "plain":  # the fallback must keep every character
        assert result.uncovered(text) == []


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=300))
def test_search_and_ask_never_crash(seeded_service, question: str) -> None:
    try:
        answer = seeded_service.ask(question)
    except InputError:
        return  # empty after cleaning, or too long: a one-line refusal
    for c in answer.citations:
        assert seeded_service.lookup(c.unit.game, c.unit.rule_id) is not None
        assert c.quote in c.unit.text
