"""Hybrid retrieval on the seeds (fake hash embedder: exercises fusion, exact
lookup, game scoping and references; the real-model tests cover MiniLM)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ruleslawyer.errors import InputError, RuleNotFoundError
from ruleslawyer.retrieval.games import GameDetector
from ruleslawyer.retrieval.hybrid import RELEVANCE_FEATURES
from ruleslawyer.retrieval.tokens import tokenize


def ids(result):  # type: ignore[no-untyped-def]
    return [(h.unit.game, h.unit.rule_id) for h in result.hits]


def test_rule_number_goes_straight_to_the_rule(seeded_service) -> None:
    result = seeded_service.search("24.21")
    assert ids(result)[0] == ("40k", "24.21")
    assert "exact" in result.hits[0].why
    assert result.relevant


def test_rule_name_goes_to_the_rule(seeded_service) -> None:
    assert ids(seeded_service.search("what does lance do"))[0] == ("40k", "24.21")
    assert ids(seeded_service.search("how does Redeploy work in AoS"))[0] == ("aos", "Redeploy")


@pytest.mark.parametrize(
    ("question", "game"),
    [
        ("In AoS, can my unit redeploy?", "aos"),
        ("Can my warcaster cast a spell before it runs?", "warmachine"),
        ("Can a battle-shocked unit start an action in 40k?", "40k"),
        ("can my WIZARD unbind a spell", "aos"),
        ("Can I use tactical gambit if I went second?", "aos"),
    ],
)
def test_game_is_detected(seeded_service, question: str, game: str) -> None:
    result = seeded_service.search(question)
    assert result.game == game
    assert result.game_detected
    assert {h.unit.game for h in result.hits} == {game}


def test_known_game_never_returns_another_game(seeded_service) -> None:
    for game in ("40k", "aos", "warmachine"):
        result = seeded_service.search("can my unit charge after it moved", game=game, k=10)
        assert result.hits
        assert {h.unit.game for h in result.hits} == {game}
        assert not result.game_detected


def test_ambiguous_question_searches_all_games(seeded_service) -> None:
    result = seeded_service.search("what happens when I roll a 1")
    assert result.game is None


def test_cross_reference_is_brought_along(seeded_service) -> None:
    # 24.27 [PISTOL] says "See [CLOSE-QUARTERS]": 24.07 must come with it.
    result = seeded_service.search("24.27", k=1)
    got = {h.unit.rule_id: h.why for h in result.hits}
    assert "24.27" in got
    assert got.get("24.07") == ("ref",)


def test_dangling_pdf_reference_is_linked_at_ingest(seeded_service) -> None:
    # "...can shoot using assault shooting (" lost its number in the PDF
    unit = seeded_service.find_rules("24.04", "40k")[0]
    assert "10.05" in unit.refs


def test_empty_query_is_refused(seeded_service) -> None:
    for q in ("", "   ", "\x00\x01", "?", " ?! "):
        with pytest.raises(InputError, match="empty"):
            seeded_service.search(q)


def test_huge_query_is_truncated_with_a_warning(seeded_service) -> None:
    result = seeded_service.search("can a battle-shocked unit start an action " * 3000)
    assert any("truncated" in w for w in result.warnings)
    assert len(result.query) <= seeded_service.settings.max_question_chars


def test_tokens_keep_rules_vocabulary() -> None:
    toks = tokenize("[SUSTAINED HITS 2] on a 2+ with D6, battle-shocked, OC 0")
    assert "[sustained hits]" in toks
    assert "2+" in toks and "d6" in toks and "oc" in toks
    assert "battleshock" in toks  # the joined form matches "battleshocked"
    assert tokenize("[ANTI-VEHICLE 4+]")[:2] == ["[anti-vehicle]", "[anti]"]


def test_detector_needs_a_clear_winner(seeded_service) -> None:
    detector = GameDetector(seeded_service.units(), seeded_service.games())
    assert detector.detect("in warmachine can I feat") == "warmachine"
    assert detector.detect("hello there") is None


def test_detector_learns_a_game_without_cues(seeded_service) -> None:
    """A game with no manifest cues is still found: by its name, and by words only its rules use."""
    from ruleslawyer.records import GameInfo, RuleUnit

    texts = [
        "Dots are laid out on mapsheets; a trooper moves between adjacent dots.",
        "Each trooper spends AP to move one dot, and 2 AP to move while prone.",
        "A trooper with 8 AP may stand, crawl and fire in one turn.",
        "Firing arcs cost AP; a trooper may hold one arc per weapon.",
    ]
    units = [
        *seeded_service.units(),
        *(
            RuleUnit(f"rules/r{i}", "skirmishers", f"R{i}", t, search_text=t)
            for i, t in enumerate(texts)
        ),
    ]
    games = [*seeded_service.games(), GameInfo("skirmishers", "Skirmishers")]
    detector = GameDetector(units, games)
    assert detector.detect("in skirmishers can I move twice") == "skirmishers"
    assert detector.detect("how many AP does my trooper spend per dot") == "skirmishers"


def test_search_cli_json_and_batch(cli_run, seeded_settings, tmp_path) -> None:
    code, out, _ = cli_run(
        "search", "what does lance do", "--json", data_dir=seeded_settings.data_dir
    )
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"query", "game", "results"}
    first = data["results"][0]
    assert set(first) >= {"rule_id", "game", "title", "text", "score", "why", "source"}
    assert first["rule_id"] == "24.21"

    batch = tmp_path / "q.jsonl"
    batch.write_text(
        json.dumps({"id": "a", "question": "24.21"})
        + "\n"
        + json.dumps({"question": "Redeploy", "game": "aos"})
        + "\n"
    )
    code, out, _ = cli_run("search", "--batch", str(batch), data_dir=seeded_settings.data_dir)
    lines = [json.loads(x) for x in out.splitlines()]
    assert code == 0 and [x["id"] for x in lines] == ["a", 2]
    assert lines[1]["game"] == "aos" and lines[1]["results"][0]["rule_id"] == "Redeploy"


def test_search_cli_refuses_empty_query(cli_run, seeded_settings) -> None:
    code, _, err = cli_run("search", "  ", data_dir=seeded_settings.data_dir)
    assert code == 1
    assert err.strip().startswith("Error:") and len(err.strip().splitlines()) == 1


def club_service(settings: Any, tmp_path: Path, markdown: str) -> Any:
    """A service over the seeds and ``markdown`` saved as club.md, game "club"."""
    from ruleslawyer.service import RulesService

    book = tmp_path / "club.md"
    book.write_text(markdown, encoding="utf-8")
    service = RulesService(settings)
    service.ingest([book], game="club")
    return service


def test_a_dotted_rule_number_of_any_depth_is_a_lookup(fake_settings, tmp_path) -> None:
    """ "what does 3.2 say" finds rule 3.2 of a Markdown book, first and relevant."""
    service = club_service(
        fake_settings,
        tmp_path,
        "# Movement\n\nUnits move.\n\n## 3.1 Walking\n\nA unit walks 6 inches.\n\n"
        "## 3.2 Charge\n\nA unit charges 2D6 inches at the nearest enemy.\n\n"
        "### 3.2.1 Failed charges\n\nA failed charge ends the unit's move.\n",
    )
    for number in ("3.2", "3.2.1"):
        result = service.search(f"what does {number} say", game="club")
        assert result.hits[0].unit.rule_id == number and result.relevance == 1.0
    assert service.search("a unit walks 2.5 inches", game="club").hits[0].unit.rule_id != "2.5"


def test_a_lettered_sub_rule_is_a_lookup(fake_settings, tmp_path) -> None:
    """A card game's "100.2a" (or "100.2A") finds that paragraph's rule, not
    100.2; "3.2a" is rule 3.2 where no 3.2a is printed; a section whose text
    is all in its numbered paragraphs is found by its number."""
    service = club_service(
        fake_settings,
        tmp_path,
        "# Rules\n\n## 100. General\n\n100.1. These rules apply to every game.\n\n"
        "100.2. Each player needs a deck.\n\n100.2a A constructed deck holds sixty cards.\n\n"
        "100.2b A limited deck holds forty cards.\n\n## 3.2 Charge\n\nA unit charges 2D6 inches.\n\n"
        "## 4.1 Morale\n\n4.1.1 A unit that loses half its models tests.\n\n"
        "4.1.2 A unit that fails flees.\n",
    )
    for question, expected in (
        ("what does rule 100.2a say", "100.2a"),
        ("is 100.2b about limited decks?", "100.2b"),
        ("Rule 100.2B?", "100.2b"),
        ("rule 100.2?", "100.2"),
        ("what does 3.2a say", "3.2"),
        # a section whose text is all in its numbered paragraphs, by its number
        ("what does rule 4.1 say", "4.1.1"),
        ("what does rule 100 say", "100.1"),
    ):
        result = service.search(question, game="club")
        assert (result.hits[0].unit.rule_id, result.relevance) == (expected, 1.0), question
    # unnamed, a number no rule has is no lookup of the rules under it
    hits = service.search("a charging unit moves 4.1 inches further", game="club").hits
    assert not any("exact" in h.why for h in hits if h.unit.rule_id.startswith("4.1."))
    asked = service.search("what does 4.1 say?", game="club")  # asked about alone
    assert (asked.hits[0].unit.rule_id, asked.relevance) == ("4.1.1", 1.0)
    # named, it is no rule the book lacks ("There is no rule 4.1")
    assert service.search("what does rule 4.1 say?", game="club").missing_numbers == ()
    assert service.search("what does rule 4.7 say?", game="club").missing_numbers == ("4.7",)
    # another game's rule 4.1 does not hide this game's rules under 4.1
    other = tmp_path / "other.md"
    other.write_text("# Other\n\n## 4.1 Foo\n\nFoo text.\n", encoding="utf-8")
    service.ingest([other], game="other")
    result = service.search("what does rule 4.1 say", game="club")
    assert (result.hits[0].unit.rule_id, result.hits[0].unit.game) == ("4.1.1", "club")
    assert [u.rule_id for u in service.find_rules("100", "club")][:4] == [
        "100.1",
        "100.2",
        "100.2a",
        "100.2b",
    ]


def test_a_wargames_section_is_found_by_its_number_through_its_cases(
    fake_settings, tmp_path
) -> None:
    """A wargame's section "8.3" whose text is all in its cases (8.31, 8.32,
    rules of their own, read in its paragraphs) is found by its number, as
    "100" is by 100.1. Headings "1.10" and "1.12" are no cases of a "1.1"
    the book lacks: that stays a rule it does not have."""
    service = club_service(
        fake_settings,
        tmp_path,
        "# 8.0 Combat\n\n## 8.3 Advance After Combat\n\n"
        "8.31 If the defending hex is vacated, one attacker may advance.\n\n"
        "8.32 Artillery units may never advance after combat.\n\n"
        "## 8.4 Retreats\n\nA unit retreats one hex.\n",
    )
    assert [u.rule_id for u in service.find_rules("8.3", "club")] == ["8.31", "8.32"]
    result = service.search("what does rule 8.3 say?", game="club")
    assert (result.hits[0].unit.rule_id, result.relevance) == ("8.31", 1.0)
    assert result.missing_numbers == ()
    errata = tmp_path / "errata.md"
    errata.write_text(
        "# Errata\n\n## 1.10 Stacking\n\nThree units a hex.\n\n"
        "## 1.12 Overruns\n\nAn overrun costs 2 MP.\n\n## 2.3 Retreats\n\nOne hex.\n",
        encoding="utf-8",
    )
    service.ingest([errata], game="errata")
    assert service.search("what does rule 1.1 say?", game="errata").missing_numbers == ("1.1",)
    with pytest.raises(RuleNotFoundError):
        service.find_rules("1.1", "errata")


def test_a_chapter_number_named_as_one_finds_its_heading(fake_settings, tmp_path) -> None:
    """ "2. Morale" has a slug ID, but "rule 2" and "chapter 2" find it, first and
    relevant; a bare "2" (inches, dice) is no lookup."""
    service = club_service(
        fake_settings,
        tmp_path,
        "# Club Rules\n\n## 1. Setup\n\nEach player deploys three units.\n\n"
        "## 2. Morale\n\nA unit that loses half its models tests its nerve.\n\n"
        "### 2.1 Rallying\n\nA broken unit rallies on a 4+.\n",
    )
    for question in ("what does rule 2 say", "chapter 2?", "explain §2"):
        result = service.search(question, game="club")
        top = result.hits[0].unit
        assert (top.rule_id, top.number, result.relevance) == ("club-rules/morale", "2", 1.0)
        assert top.label == "club 2 Morale"
    hits = service.search("does a unit move 2 inches when it rallies", game="club").hits
    assert not any(m == "exact" for h in hits if h.unit.number == "2" for m in h.why)
    assert [u.rule_id for u in service.find_rules("2", "club")] == ["club-rules/morale", "2.1"]
    assert [u.rule_id for u in service.find_rules("1", "club")] == ["club-rules/setup"]


def test_a_single_game_index_contrasts_with_the_fitted_background(tmp_path) -> None:
    """With no other game loaded, relevance compares against the background fitted
    on the fit split, not against nothing (which made every question look covered)."""
    from ruleslawyer.service import RulesService
    from ruleslawyer.settings import Settings

    seeds = tmp_path / "no-seeds"
    seeds.mkdir()
    (seeds / "manifest.toml").write_text("", encoding="utf-8")
    book = tmp_path / "club.md"
    book.write_text(
        "# Movement\n\n## Walking\n\nA unit walks 6 inches.\n\n"
        "## Charge\n\nA unit charges 2D6 inches at the nearest enemy.\n",
        encoding="utf-8",
    )
    service = RulesService(
        Settings(data_dir=tmp_path / "data", seeds_dir=seeds, embedder="fake", llm="fake")
    )
    service.ingest([book], game="club")
    retriever = service.retriever()
    tuning = retriever.tuning
    assert tuning.bg_dense > 0 and tuning.bg_log_bm25 > 0  # the shipped tuning has one
    x = dict(
        zip(
            RELEVANCE_FEATURES,
            retriever.relevance_inputs(retriever.signals("how far does a unit walk")),
            strict=True,
        )
    )
    assert x["dense_contrast"] == pytest.approx(x["dense"] - tuning.bg_dense)
    assert x["bm25_contrast"] == pytest.approx(x["log_bm25"] - tuning.bg_log_bm25)


class _Matches:
    """Stands in for the sentence cache: a fixed best-sentence match per rule ID."""

    def __init__(self, by_rule: dict[str, float]) -> None:
        self.by_rule = by_rule
        self.asked: list[list[str]] = []

    def best_match(self, _vector, units):  # type: ignore[no-untyped-def]
        self.asked.append([u.rule_id for u in units])
        return [self.by_rule.get(u.rule_id, 0.0) for u in units]


def test_top_rules_are_reordered_by_their_best_sentence(seeded_service) -> None:
    from dataclasses import replace

    from ruleslawyer.retrieval.hybrid import SENTENCE_DEPTH

    retriever = seeded_service.retriever()
    sig = retriever.signals("can my unit charge after it advanced", game="40k")
    off = replace(retriever.tuning, w_sentence=0.0)
    fused = [
        h.unit.rule_id
        for h in retriever.fuse(sig, k=SENTENCE_DEPTH + 3, refs=False, tuning=off).hits
    ]
    # the fourth rule's best sentence matches far better than the others'
    fake = _Matches({fused[3]: 0.9})
    retriever.sentences = fake
    on = retriever.fuse(sig, k=SENTENCE_DEPTH + 3, refs=False, tuning=replace(off, w_sentence=1.0))
    got = [h.unit.rule_id for h in on.hits]
    assert got[0] == fused[3]
    assert got[1:4] == [fused[0], fused[1], fused[2]]  # ties keep the fused order
    assert got[SENTENCE_DEPTH:] == fused[SENTENCE_DEPTH:]  # beyond the depth: untouched
    assert fake.asked == [fused[:SENTENCE_DEPTH]]
    scores = [h.score for h in on.hits]
    assert scores[0] == 1.0 and scores == sorted(scores, reverse=True)
    # relevance reads the fused order it was fitted on, whatever the re-ordering
    assert (
        on.relevance == retriever.fuse(sig, k=SENTENCE_DEPTH + 3, refs=False, tuning=off).relevance
    )
    # off: the sentences are never embedded
    fake.asked.clear()
    assert [
        h.unit.rule_id
        for h in retriever.fuse(sig, k=SENTENCE_DEPTH + 3, refs=False, tuning=off).hits
    ] == fused
    assert fake.asked == []


def test_a_looked_up_rule_stays_first_whatever_the_sentences(seeded_service) -> None:
    from dataclasses import replace

    retriever = seeded_service.retriever()
    sig = retriever.signals("24.21")
    t = replace(retriever.tuning, w_sentence=0.0)
    fused = [h.unit.rule_id for h in retriever.fuse(sig, k=5, refs=False, tuning=t).hits]
    assert fused[0] == "24.21"
    retriever.sentences = _Matches({fused[-1]: 1.0})
    got = retriever.fuse(sig, k=5, refs=False, tuning=replace(t, w_sentence=3.0)).hits
    assert got[0].unit.rule_id == "24.21" and got[0].score == 1.0
    assert got[1].unit.rule_id == fused[-1] and got[1].score == 1.0
    assert [h.score for h in got[1:]] == sorted((h.score for h in got[1:]), reverse=True)


def test_a_search_for_fewer_rules_gets_the_first_ones_an_answer_would(seeded_service) -> None:
    from dataclasses import replace

    retriever = seeded_service.retriever()
    sig = retriever.signals("can my unit charge after it advanced", game="40k")
    t = replace(retriever.tuning, w_sentence=0.0)
    fused = [h.unit.rule_id for h in retriever.fuse(sig, k=5, refs=False, tuning=t).hits]
    retriever.sentences = _Matches({fused[4]: 0.9})
    on = replace(t, w_sentence=1.0)
    five = [h.unit.rule_id for h in retriever.fuse(sig, k=5, refs=False, tuning=on).hits]
    assert five[0] == fused[4]
    for k in (1, 3):
        got = [h.unit.rule_id for h in retriever.fuse(sig, k=k, refs=False, tuning=on).hits]
        assert got == five[:k]


def test_sentence_vectors_embed_each_text_once_and_forget_the_oldest() -> None:
    from ruleslawyer.ingest.embed import HashEmbedder
    from ruleslawyer.records import RuleUnit
    from ruleslawyer.retrieval.sentences import SentenceVectors

    class Counting(HashEmbedder):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def embed(self, texts, **kw):  # type: ignore[no-untyped-def]
            self.seen += list(texts)
            return super().embed(texts, **kw)

    emb = Counting()
    vectors = SentenceVectors(emb, cache_size=3)
    first = vectors.embed(["a b", "c d", "a b"])
    assert emb.seen == ["a b", "c d"] and first.shape[0] == 3
    assert (first[0] == first[2]).all()
    vectors.embed(["a b", "e f", "g h"])  # "c d" is now the oldest: dropped
    emb.seen.clear()
    vectors.embed(["a b", "c d"])
    assert emb.seen == ["c d"]
    unit = RuleUnit(
        game="g", rule_id="1", title="Walk", text="A unit walks six inches. It cannot fly."
    )
    query = emb.embed(["cannot fly"])[0]
    best = vectors.best_match(query, [unit])
    assert best[0] == pytest.approx(float(emb.embed(["It cannot fly."])[0] @ query))


def test_a_term_defined_in_a_run_in_label_is_found_by_name(fake_settings, tmp_path) -> None:
    """A glossary written as bold paragraphs ("**Pierce:** ...") is one rule, so
    `rules show Pierce` found nothing; it finds the rules that define the term,
    and a name nothing defines is still no rule."""
    from ruleslawyer.errors import RuleNotFoundError

    service = club_service(
        fake_settings,
        tmp_path,
        "# Club Rules\n\n## Guard Rolls\n\nRoll a D6 for each hit.\n\n"
        "**Pierce:** each point of Pierce worsens the Guard value by 1.\n\n"
        "## Glossary\n\n**Blast:** a weapon trait that hits models near the target.\n\n"
        "**Pierce:** a value that worsens the target's Guard value.\n",
    )
    assert [u.title for u in service.find_rules("pierce", "club")] == ["Guard Rolls", "Glossary"]
    assert [u.title for u in service.find_rules("Blast", "club")] == ["Glossary"]
    with pytest.raises(RuleNotFoundError):
        service.find_rules("Weapon", "club")


def test_the_game_a_question_names_picks_the_game_not_the_rule(fake_settings, tmp_path) -> None:
    """ "in Club Skirmish, can a unit dash and then shoot?": the game's name
    matched the chapter blurb that names the game, which came first; the rules
    are searched for what the question asks, the name still choosing the game."""
    from ruleslawyer.service import RulesService

    book = tmp_path / "club.md"
    book.write_text(
        "# Club Skirmish\n\nClub Skirmish is the club's game: Club Skirmish units fight "
        "Club Skirmish battles at the club every week.\n\n## Dashing\n\nA unit that dashes "
        "moves double and may not shoot afterwards.\n\n## Shooting\n\nRoll a die to hit.\n",
        encoding="utf-8",
    )
    service = RulesService(fake_settings)
    service.ingest([book], game="club", game_name="Club Skirmish")
    result = service.search("in Club Skirmish, can a unit dash and then shoot?")
    assert result.game == "club"
    assert [h.unit.title for h in result.hits[:2]] == ["Dashing", "Club Skirmish"]
