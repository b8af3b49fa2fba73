"""The ``ruleslawyer`` command line. Each command's docstring is its --help.

Domain errors (``RulesLawyerError``) become one ``Error: ...`` line and exit
code 1 here, at the edge; nothing below prints or exits.
"""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import click

from ruleslawyer.errors import InputError, RulesLawyerError, require_question
from ruleslawyer.ingest import formats
from ruleslawyer.records import RuleUnit
from ruleslawyer.settings import Settings

# Any game in the index (its slug, name or an alias); `ruleslawyer games` lists them.
GAME_HELP = "Only this game (default: detected from the question); see `ruleslawyer games`."
# Every reader in ingest/formats (a new format needs no change here).
FORMATS = ("auto", *formats.names())


class Context:
    """What every command gets: the settings, and the service built from them on demand."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._service: Any = None

    def service(self, **overrides: Any) -> Any:
        from ruleslawyer.service import RulesService

        if overrides:
            self.settings = self.settings.with_overrides(**overrides)
            self._service = None
        if self._service is None:
            self._service = RulesService(self.settings)
        return self._service


pass_ctx = click.make_pass_decorator(Context)


def _game(value: str | None) -> str | None:
    return None if value is None or value.strip().lower() in ("", "auto") else value


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--data-dir",
    type=click.Path(path_type=Path),
    envvar="RULESLAWYER_DATA_DIR",
    help="Where the index and added rulebooks live (default: .ruleslawyer/ in a checkout).",
)
@click.version_option(package_name="ruleslawyer")
@click.pass_context
def cli(ctx: click.Context, data_dir: Path | None) -> None:
    """ruleslawyer: answers tabletop wargame rules questions from the rulebooks,
    quoting and citing the rules, offline."""
    # Quiet third-party progress bars before anything imports transformers.
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    settings = Settings.from_env()
    if data_dir:
        settings = settings.with_overrides(data_dir=data_dir)
    ctx.obj = Context(settings)


# --- ingest -----------------------------------------------------------------
@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--game",
    help="Game of the rulebooks in PATHS (required with PATHS): a loaded game, or a new "
    "game's slug such as bolt-action.",
)
@click.option("--game-name", help="How a new game is shown, e.g. 'Bolt Action'.")
@click.option("--edition", help="The game's edition, e.g. '3rd edition'.")
@click.option("--title", help="Title of the rulebook(s) in PATHS (default: the file name).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS, case_sensitive=False),
    default="auto",
    show_default=True,
    help="Read PATHS as this format instead of detecting it from the name and content.",
)
@click.option("--encoding", help="Text encoding of PATHS when not UTF-8 (e.g. cp1252).")
@click.option("--force", is_flag=True, help="Rebuild even when nothing changed.")
@click.option(
    "--replace",
    is_flag=True,
    help="Let a file take the place of the library's file of the same name added from "
    "elsewhere, or move a file to --game; without it both are refused (a file added "
    "again from where it was, edited, needs no --replace).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_ctx
def ingest(
    ctx: Context,
    paths: tuple[Path, ...],
    game: str | None,
    game_name: str | None,
    edition: str | None,
    title: str | None,
    fmt: str,
    encoding: str | None,
    force: bool,
    replace: bool,
    as_json: bool,
) -> None:
    """Build the rules index from the seed rulebooks and any added ones.

    With PATHS (PDF, Word, Markdown, HTML or text files, or folders of them), each
    file is read and checked, copied into your rulebook library as a GAME
    rulebook, and indexed with the rest. A bad file is refused with a message
    and the existing index is left untouched. Files added together that share
    a name (core/index.md, combat/index.md) are stored by their folders
    (core-index.md, combat-index.md), and a file added again from the same
    place keeps its name. A file named like one already in your library from
    elsewhere (a second rules.md), or already added for another game, is
    refused unless --replace says it takes that one's place.
    """
    service = ctx.service()
    if paths and game and not game_name and (close := _slipped(service, game)):
        # a slip would start a game of its own, its rules apart from the book's
        raise InputError(
            f"no game {game!r} is loaded; did you mean --game {close}? To start a new game "
            f'of that name, name it too: --game-name "{game}"'
        )
    bar = _Bar(enabled=not as_json)
    report = service.ingest(
        list(paths),
        game=game,
        encoding=encoding,
        force=force,
        progress=bar,
        format=None if fmt == "auto" else fmt,
        game_name=game_name,
        edition=edition,
        title=title,
        replace=replace,
    )
    bar.close()
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
        return
    if report.up_to_date:
        click.echo(
            f"Index is up to date ({report.units} rules); nothing to do. Use --force to rebuild."
        )
    # With files added, their report; the rest (the seeds, earlier books) would bury it.
    shown = [f for f in report.files if f.file in report.added] if report.added else report.files
    for f in shown:
        pages = f", {f.pages} page{'' if f.pages == 1 else 's'}" if f.pages else ""
        units = f"{f.units} unit{'' if f.units == 1 else 's'}"
        click.echo(f"{f.file}  [{f.game}, {f.format}: {f.parser} parser{pages}]  {units}")
        click.echo(f"    titles: {f.titles_printed} printed, {len(f.titles_inferred)} recovered")
        for t in f.titles_inferred:
            click.echo(f"      {t}")
        if f.merged:
            click.echo(f"    duplicates merged: {', '.join(f.merged)}")
        if f.furniture_chars:
            click.echo(
                f"    left out as page furniture: {f.furniture_chars} chars ({'; '.join(f.furniture)})"
            )
        if f.dropped:
            dropped = ", ".join(f"{n} {why}" for why, n in sorted(f.dropped.items()))
            click.echo(f"    left out: {dropped}")
        for w in f.warnings:
            click.echo(f"    warning: {w}")
    if len(shown) < len(report.files):
        others = len(report.files) - len(shown)
        click.echo(
            f"(and {others} other rulebook{'' if others == 1 else 's'}: `ruleslawyer ingest` "
            "alone reports every one)"
        )
    for line in report.replaced:
        click.echo(line)
    by_game = ", ".join(f"{g}: {n}" for g, n in report.units_by_game.items())
    if not report.up_to_date:
        click.echo(
            f"Indexed {report.units} rules ({by_game}) in {report.seconds:.1f}s "
            f"({report.embedded_chunks} chunks embedded, {report.reused_vectors} reused) -> {report.index_path}"
        )
    for info in service.games() if paths and game else ():
        if info.slug == game and not info.name:
            # Otherwise the page's selectors and every answer show the bare slug.
            named = " ".join(w.capitalize() for w in info.slug.split("-"))
            click.echo(
                f'note: {info.slug} has no name, so it is shown as "{info.slug}": '
                f'run this again with --game-name "{named}" (or your own) to name it'
            )


@cli.command()
@click.argument("files", nargs=-1)
@click.option(
    "--game",
    help="Remove every rulebook added for this game; with FILES, only those (of this game).",
)
@pass_ctx
def remove(ctx: Context, files: tuple[str, ...], game: str | None) -> None:
    """Remove added rulebooks (FILES, by the names `ruleslawyer games` lists, or
    by the paths they were added from) from your library, and rebuild the
    index without them.

    The seed rulebooks stay. The index is rebuilt before the library
    changes, so a failed rebuild leaves both as they were.
    """
    service = ctx.service()
    bar = _Bar(enabled=True)
    removed, report = service.remove(list(files), game=game, progress=bar)
    bar.close()
    by_game = ", ".join(f"{g}: {n}" for g, n in report.units_by_game.items())
    click.echo(
        f"Removed {', '.join(removed)}. The index now holds {report.units} rules ({by_game})."
    )


GAMES_FILES_SHOWN = 4  # a rulebook's files listed by `games` before a count


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array.")
@pass_ctx
def games(ctx: Context, as_json: bool) -> None:
    """List the games in the index: slug, name, edition, rulebooks and rules."""
    service = ctx.service()
    units = service.units()
    books = service.rulebooks()
    rows = []
    for info in service.games():
        files = [b.file for b in books if b.game == info.slug]
        count = sum(1 for u in units if u.game == info.slug)
        rows.append({**info.to_dict(), "rulebooks": files, "rules": count})
    if as_json:
        click.echo(json.dumps(rows, indent=1, ensure_ascii=False))
        return
    for r in rows:
        name = f"{r['name']}, {r['edition']}" if r["edition"] else r["name"]
        books = r["rulebooks"]
        # A rulebook in 50 chapter files would fill the screen: the first few, then a count.
        shown = ", ".join(books[:GAMES_FILES_SHOWN])
        if len(books) > GAMES_FILES_SHOWN:
            shown += f", ... ({len(books)} files; --json lists them all)"
        click.echo(f"{r['slug']:14s} {name or '-':32s} {r['rules']:5d} rules  {shown}")


class _Bar:
    """A tqdm progress bar on stderr, one per ingest stage (reading files, embedding)."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled and sys.stderr.isatty()
        self._bar: Any = None
        self._stage = ""

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled or not total:
            return
        if self._bar is None or stage != self._stage:
            from tqdm import tqdm

            self.close()
            unit = "file" if stage == "reading" else "chunk"
            self._bar = tqdm(total=total, desc=stage, unit=unit, file=sys.stderr, leave=False)
            self._stage = stage
        self._bar.n = done
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


# --- rules ------------------------------------------------------------------
@cli.group()
def rules() -> None:
    """List and read the rules in the index."""


@rules.command("list")
@click.option("--game", help="Only this game (see `ruleslawyer games`).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON array of rule units.")
@pass_ctx
def rules_list(ctx: Context, game: str | None, as_json: bool) -> None:
    """List the loaded rules: game, ID and title."""
    units = ctx.service().units(game)
    if as_json:
        click.echo(json.dumps([u.to_dict() for u in units], indent=1, ensure_ascii=False))
        return
    # columns as wide as what they hold (a heading's slug path can be long),
    # so an ID never runs into its title
    game_w = max((len(u.game) for u in units), default=0)
    id_w = min(max((len(u.rule_id) for u in units), default=0), 48)
    for u in units:
        flag = " *" if u.title_inferred and u.title_source != "first-words" else ""
        click.echo(f"{u.game:{game_w}s}  {u.rule_id:{id_w}s}  {_numbered_title(u)}{flag}")
    click.echo(f"{len(units)} rules (* title recovered at ingest)")


@rules.command("show")
@click.argument("rule_id")
@click.option("--game", help="Only this game (see `ruleslawyer games`).")
@click.option("--json", "as_json", is_flag=True, help="Print the unit(s) as JSON.")
@pass_ctx
def rules_show(ctx: Context, rule_id: str, game: str | None, as_json: bool) -> None:
    """Print one rule by its number, heading or name (e.g. 24.21, Redeploy, "Line of Sight").

    A chapter number (24, or the 2 of a heading "2. Morale") prints the rules
    numbered under it, after the chapter's heading when that has text of its own;
    a heading with no text of its own (Movement over 2.1-2.5) the rules under it;
    a term a glossary or rule defines in a run-in label ("Pierce: ...") prints the
    rules that define it.
    """
    units = ctx.service().find_rules(rule_id, game)
    if as_json:
        payload: Any = units[0].to_dict() if len(units) == 1 else [u.to_dict() for u in units]
        click.echo(json.dumps(payload, indent=1, ensure_ascii=False))
        return
    for u in units:
        click.echo(_format_unit(u))


def _numbered_title(u: RuleUnit) -> str:
    """The title as printed: "2 Morale" for a heading numbered "2." whose ID is a slug."""
    return f"{u.number} {u.title}" if u.number and u.title else u.title


def _format_unit(u: RuleUnit) -> str:
    title = f" {_numbered_title(u)}" if u.title else ""
    note = (
        f"  (title {_title_note(u)})"
        if u.title_inferred and u.title_source != "first-words"
        else ""
    )
    lines = [
        click.style(f"{u.game} {u.rule_id}{title}", bold=True) + note,
        " · ".join(
            x for x in (u.parent, u.source.where, f"chars {u.source.start}-{u.source.end}") if x
        ),
        "",
        u.text,
    ]
    if u.refs:
        lines += ["", f"Refers to: {', '.join(u.refs)}"]
    if u.merged:
        lines += [f"(printed {u.merged + 1} times in the source; merged)"]
    return "\n".join(lines) + "\n"


def _title_note(u: RuleUnit) -> str:
    return {
        "body": "recovered from the rule text",
        "nav": "recovered from page navigation",
        "chapter": "taken from the chapter heading",
        "manifest": "supplied by the rulebook manifest",
    }.get(u.title_source, "inferred")


# --- search -------------------------------------------------------------------
@cli.command()
@click.argument("query", required=False)
@click.option("--game", help=GAME_HELP)
@click.option(
    "-k",
    "k",
    type=click.IntRange(1, 50),
    default=5,
    show_default=True,
    help="How many rules to find; up to three rules the first ones refer to follow, marked (ref).",
)
@click.option(
    "--batch",
    type=click.File("r", encoding="utf-8", errors="replace"),
    help='JSON Lines file of {"question", "id"?, "game"?} objects (\'-\' for stdin).',
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print JSON (one line per query with --batch)."
)
@pass_ctx
def search(
    ctx: Context, query: str | None, game: str | None, k: int, batch: Any, as_json: bool
) -> None:
    """Find the rules that match QUERY (a question, a rule number, or a rule name)."""
    service = ctx.service()
    if batch is not None:
        if query:
            raise click.UsageError("give either QUERY or --batch, not both")
        _run_batch(batch, game, "query", lambda q, g: service.search(q, game=g, k=k).to_dict())
        return
    if query is None:
        raise click.UsageError("give a QUERY, or --batch FILE")
    result = service.search(query, game=_game(game), k=k)
    if as_json:
        click.echo(json.dumps(result.to_dict(), ensure_ascii=False, indent=1))
        return
    for w in result.warnings:
        click.echo(f"warning: {w}", err=True)
    scope = result.game or "all games"
    click.echo(f"Game: {scope}{' (detected)' if result.game_detected else ''}")
    if not result.relevant:
        click.echo("No rule clearly matches; the closest ones:")
    for n, h in enumerate(result.hits, 1):
        u = h.unit
        place = " · ".join(_where(u))
        where = f"  {place}" if place else ""
        click.echo(
            click.style(f"{n}. [{u.label}]", bold=True)
            + f"{where}  score {h.score:.2f}  ({', '.join(h.why)})"
        )
        snippet = " ".join(u.text.split())
        click.echo(f"   {snippet[:240]}{'...' if len(snippet) > 240 else ''}")


# --- ask ----------------------------------------------------------------------
def _llm_overrides(
    model: Path | None,
    llm_url: str | None,
    no_llm: bool,
    default_model: str | None,
    explain: bool | None = None,
) -> dict[str, Any]:
    chosen = sum(bool(x) for x in (model, llm_url, no_llm, default_model))
    if chosen > 1:
        # (--default-model beside --model was quietly ignored)
        raise click.UsageError("choose one of --model, --default-model, --llm-url and --no-llm")
    if no_llm:
        if explain:
            raise click.UsageError("--explain needs a model: drop --no-llm")
        return {"llm": "none"}
    # Only when asked: None leaves the measured choice (and RULESLAWYER_EXPLAIN).
    extra = {} if explain is None else {"explain": explain}
    if llm_url:
        return {"llm": "openai", "llm_url": llm_url, **extra}
    if model:
        return {"llm": "llama_cpp", "model_path": model, **extra}
    if default_model:
        return {"llm": "llama_cpp", "default_model": default_model, **extra}
    return extra


def llm_options(f: Any) -> Any:
    f = click.option("--no-llm", is_flag=True, help="Evidence only: quote the rules, no model.")(f)
    f = click.option(
        "--llm-url",
        metavar="URL",
        help="OpenAI-compatible server (llama-server, vLLM, Ollama), e.g. http://127.0.0.1:8080/v1",
    )(f)
    f = click.option(
        "--model",
        type=click.Path(path_type=Path),
        metavar="PATH.gguf",
        help="Any local GGUF model instead of the default.",
    )(f)
    f = click.option(
        "--default-model",
        type=click.Choice(["qwen2.5-0.5b", "qwen2.5-1.5b", "smollm2-135m", "gemma3-270m"]),
        help="Which PyPI-shipped model to use.",
    )(f)
    f = click.option(
        "--explain/--no-explain",
        default=None,
        help="Have the model explain open questions in a sentence, or not. By default "
        "as measured for the model: the shipped models' explanations were mostly "
        "wrong, so theirs are off; a model of your own or a server explains.",
    )(f)
    return f


@cli.command()
@click.argument("question", required=False)
@click.option("--game", help=GAME_HELP)
@click.option(
    "--batch",
    type=click.File("r", encoding="utf-8", errors="replace"),
    help='JSON Lines file of {"id", "question", "game"?} objects (\'-\' for stdin).',
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print JSON (one line per question with --batch)."
)
@click.option(
    "--no-server",
    is_flag=True,
    help="Answer in this process: use no background server, and start none.",
)
@click.option("--timings", is_flag=True, help="Print where the time went to stderr.")
@llm_options
@pass_ctx
def ask(
    ctx: Context,
    question: str | None,
    game: str | None,
    batch: Any,
    as_json: bool,
    no_server: bool,
    timings: bool,
    model: Path | None,
    llm_url: str | None,
    no_llm: bool,
    default_model: str | None,
    explain: bool | None,
) -> None:
    """Answer a rules QUESTION, quoting and citing the rules it rests on.

    Reads the question from stdin when QUESTION is '-'. The question goes to
    a `ruleslawyer serve` with the same settings, which keeps the models
    loaded. When none is running, this process answers, then starts one in
    the background that loads while you read and stops by itself after 15
    idle minutes (RULESLAWYER_SERVE_IDLE seconds). So only the first
    question pays for loading. --no-server, or RULESLAWYER_AUTO_SERVE=0,
    always answers in this process and starts none; `ruleslawyer serve
    --stop` stops the background server.
    """
    overrides = _llm_overrides(model, llm_url, no_llm, default_model, explain)
    if batch is not None:
        if question:
            raise click.UsageError("give either QUESTION or --batch, not both")
        service = ctx.service(**overrides)
        service.check_llm()  # fail fast on a bad model or server, before reading the batch
        _run_batch(batch, game, "question", lambda q, g: service.ask(q, game=g).to_dict())
        return
    if question is None:
        raise click.UsageError("give a QUESTION (or '-' to read it from stdin), or --batch FILE")
    if question == "-":
        question = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    require_question(question)
    started = _process_age_ms() if timings else 0.0
    answer, waited_ms = (
        (None, 0.0) if no_server else _ask_server(ctx.settings, overrides, question, _game(game))
    )
    if answer is not None:
        where = {"process start to command": started}
        if waited_ms:
            where["waiting for the background server to load"] = waited_ms
        where["server"] = answer["timings_ms"]["total"]
    else:
        # One question, so no later one to keep the scoring prefix for: one
        # llama.cpp context, one mapping of the weights (~0.5 GB less RSS).
        service = ctx.service(**overrides, llm_chat_context="shared")
        # Refused before the model starts loading: the process would wait for it.
        service.check_question(question)
        if timings:
            loads = service.warm_up(question)
        else:
            loads = {}
            service.check_llm()
            service.preload_llm(question)
        result = service.ask(question, game=_game(game))
        answer = result.to_dict()
        where = {
            "process start to command": started,
            **loads,
            "answer": answer["timings_ms"]["total"],
        }
    if timings:
        parts = ", ".join(f"{k} {v:,.0f} ms" for k, v in where.items())
        click.echo(f"timings: {parts}; answer steps: {answer['timings_ms']}", err=True)
        answer["startup_ms"] = {k: round(v, 1) for k, v in where.items()}
    if as_json:
        click.echo(json.dumps(answer, ensure_ascii=False, indent=1))
    else:
        print_answer(answer)
    if "server" not in where and not no_server:
        _start_server(ctx.settings, overrides)


def _start_server(settings: Settings, overrides: dict[str, Any]) -> None:
    """Start the background server for the next question, once this one is answered
    (it loads while the player reads; a quotes-only ask needs none)."""
    from ruleslawyer.server import find_server, spawn_background, starting_server

    if not settings.auto_serve or overrides.get("llm") == "none":
        return
    wanted = settings.with_overrides(**overrides)
    # One server per data dir: one for other settings (another --model) stays.
    if find_server(wanted.data_dir) is None and starting_server(wanted.data_dir) is None:
        sys.stdout.flush()
        spawn_background(wanted.data_dir, _serve_args(overrides), idle_s=settings.serve_idle_s)


def _ask_server(
    settings: Settings, overrides: dict[str, Any], question: str, game: str | None
) -> tuple[dict[str, Any] | None, float]:
    """The answer from a `ruleslawyer serve` with these settings, or None; and the ms
    spent waiting for one that was still loading (started by an earlier ``ask``)."""
    import time

    from ruleslawyer.server import find_server, remote_ask, starting_server, wait_for_server

    evidence_only = overrides.get("llm") == "none"
    wanted = settings.with_overrides(**({} if evidence_only else overrides))
    key = wanted.answering_key()
    info = find_server(wanted.data_dir, key)
    waited_ms = 0.0
    # A quotes-only question is answered faster here than a loading server is ready.
    if info is None and settings.auto_serve and not evidence_only:
        pid = starting_server(wanted.data_dir)
        if pid is not None:
            t0 = time.perf_counter()
            info = wait_for_server(wanted.data_dir, key, pid)
            waited_ms = (time.perf_counter() - t0) * 1000
    if info is None:
        return None, waited_ms
    return remote_ask(info, question, game, evidence_only), waited_ms


def _serve_args(overrides: dict[str, Any]) -> list[str]:
    """The `serve` options that give a server the model (and the explanations)
    these overrides ask for."""
    if overrides.get("llm") == "openai":
        args = ["--llm-url", str(overrides["llm_url"])]
    elif overrides.get("model_path"):
        args = ["--model", str(overrides["model_path"])]
    elif overrides.get("default_model"):
        args = ["--default-model", str(overrides["default_model"])]
    else:
        args = []
    if overrides.get("explain") is not None:
        args.append("--explain" if overrides["explain"] else "--no-explain")
    return args


def _process_age_ms() -> float:
    """Milliseconds since this process started: interpreter start-up and imports."""
    import time

    import psutil

    return (time.time() - psutil.Process().create_time()) * 1000


def print_answer(answer: dict[str, Any]) -> None:
    """Print ``Answer.to_dict()`` for a player (the same from a server or in-process)."""
    from ruleslawyer.records import first_game_first, shown_quote, verdict_words

    badge = verdict_words(answer["verdict"], answer.get("verdict_source", ""))
    scope = answer["game"] or "all games"
    click.echo(click.style(f"[{badge.upper()}]", bold=True) + f" ({scope}; {answer['model']})")
    click.echo(answer["answer"])
    above: list[str] = []  # the rules of quotes the answer shows, said once together
    own, others = first_game_first(answer["citations"], lambda c: str(c["game"]))
    for c in [*own, *others]:
        if others and c is others[0]:
            if above:
                click.echo(click.style("\n" + " ".join(above), bold=True) + " quoted above")
                above = []
            click.echo(click.style("\nFrom other games:", bold=True))
        heading = f"[{citation_heading(c)}]"
        quoted = f'"{shown_quote(c["quote"])}"'
        if quoted in answer["answer"]:
            # Where the answer's own quotes come from, without printing them twice
            # (a table or a list quoted whole would fill the screen again).
            above.append(heading)
            continue
        if above:
            click.echo(click.style("\n" + " ".join(above), bold=True) + " quoted above")
            above = []
        click.echo(click.style("\n" + heading, bold=True))
        click.echo(textwrap.indent(quoted, "  "))
    if above:
        click.echo(click.style("\n" + " ".join(above), bold=True) + " quoted above")
    for note in answer["notes"]:
        click.echo(f"note: {note}", err=True)


def _slipped(service: Any, game: str) -> str | None:
    """The loaded game ``game`` is a slip for, unless the two differ only in
    digits: another edition ("aos4" beside aos, "kt2" beside kt) is a game of
    its own, as a player names one."""
    from ruleslawyer.ingest.sources import slugify

    close = service.close_game(game)
    plain = re.sub(r"\d", "", slugify(game))
    return close if close and re.sub(r"\d", "", close) != plain else None


def citation_heading(c: dict[str, Any]) -> str:
    """``40k 24.21 Lance`` or ``skirmishers Resolving Fire (Infantry > Combat; rules.pdf p. 9)``."""
    unit = RuleUnit.from_dict({**c, "text": c.get("text", "")})
    # the page the quote is printed on, not the one its rule starts on
    where = "; ".join(_where(unit, c.get("page", unit.source.page)))
    return f"{unit.label} ({where})" if where else unit.label


def _where(unit: RuleUnit, page: int | None = None) -> list[str]:
    """Where a rule is, as its label does not say: the headings above a rule named
    by its heading path, and always the file and page (a game's rules may come
    from several pages or files, and a number does not say which): ``page``
    where a quote is printed, else all the rule's pages ("pp. 20-21")."""
    source = unit.source
    place = f"{source.file} p. {page}" if page is not None else source.where
    return [x for x in (unit.parent if unit.slug_id else "", place) if x]


# --- eval -----------------------------------------------------------------------
@cli.command("eval")
@click.option(
    "--dataset", type=click.Path(path_type=Path), help="JSON Lines dataset (default: the dev set)."
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("eval-report"),
    show_default=True,
    help="Folder for report.json, report.md and chart.png.",
)
@click.option(
    "--compare", type=click.Path(path_type=Path), help="An earlier report.json to compare with."
)
@click.option(
    "--given-game", is_flag=True, help="Pass each question's game instead of detecting it."
)
@click.option(
    "--check",
    "profile",
    help="Fail (exit 1) when a figure is below the floors of this "
    "profile in evals/thresholds.toml (default_model or no_llm).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@llm_options
@pass_ctx
def eval_cmd(
    ctx: Context,
    dataset: Path | None,
    out: Path,
    compare: Path | None,
    given_game: bool,
    profile: str | None,
    as_json: bool,
    model: Path | None,
    llm_url: str | None,
    no_llm: bool,
    default_model: str | None,
    explain: bool | None,
) -> None:
    """Run the answer-accuracy suite and write report.json, report.md and chart.png."""
    from ruleslawyer.evals.dataset import load_dataset
    from ruleslawyer.evals.report import (
        check_thresholds,
        format_failures,
        format_table,
        load_report,
        write_reports,
    )
    from ruleslawyer.evals.runner import run_eval
    from ruleslawyer.settings import PROJECT_ROOT

    service = ctx.service(**_llm_overrides(model, llm_url, no_llm, default_model, explain))
    path = dataset or PROJECT_ROOT / "evals" / "datasets" / "dev.jsonl"
    corpus = _corpus_texts(service)
    items = load_dataset(path, corpus)
    before = load_report(compare) if compare else None
    service.check_llm(probe=True)  # a bad model or server fails here, before the run starts
    report = run_eval(items, service, pass_game=given_game, progress=not as_json, dataset=path)
    files = write_reports(report, out, compare=before)
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=1))
    else:
        click.echo(format_table(report, compare=before))
        failures = format_failures(report)
        if failures:
            click.echo("\n" + failures)
        click.echo("\nWrote " + ", ".join(str(p) for p in files.values()))
    if profile:
        problems = check_thresholds(report, profile=profile)
        for p in problems:
            click.echo(f"below floor: {p}", err=True)
        if problems:
            ctx_exit = click.get_current_context()
            ctx_exit.exit(1)


def _corpus_texts(service: Any) -> dict[str, str]:
    """Text of every loaded rulebook by game, for checking seed_quote fields: the
    indexed rule text (any format), plus the raw text of plain-text books."""
    from ruleslawyer.ingest import formats
    from ruleslawyer.ingest.reader import read_rulebook

    texts: dict[str, list[str]] = {}
    for unit in service.units():
        texts.setdefault(unit.game, []).append(unit.text)
    for book in service.rulebooks():
        if book.path.suffix.lower() not in formats.by_name("text").extensions:
            continue
        try:
            texts.setdefault(book.game, []).append(
                read_rulebook(book.path, max_bytes=service.settings.max_rulebook_bytes)
            )
        except RulesLawyerError:
            continue
    return {g: "\n\n".join(t) for g, t in texts.items()}


# --- serve --------------------------------------------------------------------
@cli.command()
@click.option(
    "--port",
    default=7861,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="0 = any free port.",
)
@click.option("--verbose", is_flag=True, help="Log every request.")
@click.option(
    "--idle-timeout",
    type=click.FloatRange(min=0),
    default=0,
    help="Stop after this many seconds without a question (0 = never).",
)
@click.option("--no-warm-up", is_flag=True, help="Do not answer a warm-up question before serving.")
@click.option("--stop", is_flag=True, help="Stop the server running for this data dir.")
@llm_options
@pass_ctx
def serve(
    ctx: Context,
    port: int,
    verbose: bool,
    idle_timeout: float,
    no_warm_up: bool,
    stop: bool,
    model: Path | None,
    llm_url: str | None,
    no_llm: bool,
    default_model: str | None,
    explain: bool | None,
) -> None:
    """Keep the models loaded so `ruleslawyer ask` answers in seconds.

    Listens on 127.0.0.1 only, with a token only this user can read; `ask`
    finds it through the data dir and uses it whenever it runs with the same
    settings (`ask` also starts one by itself when none runs). Stop it with
    Ctrl-C, or with `ruleslawyer serve --stop` from anywhere.
    """
    import signal

    from ruleslawyer.server import Server, stop_server

    if stop:
        stopped = stop_server(ctx.settings.data_dir)
        if stopped is None:
            click.echo(f"No ruleslawyer server is running for {ctx.settings.data_dir}.")
        else:
            click.echo(f"Stopped the ruleslawyer server (pid {stopped.pid}, port {stopped.port}).")
        return
    service = ctx.service(**_llm_overrides(model, llm_url, no_llm, default_model, explain))
    server = Server(
        service, port, verbose=verbose, warm_up=not no_warm_up, idle_s=idle_timeout or None
    )
    # `kill` (systemd, a process manager, `serve --stop`) stops it as cleanly as Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    idle = f"; stops after {idle_timeout:.0f} s idle" if idle_timeout else ""
    click.echo(
        f"ruleslawyer is answering on 127.0.0.1:{server.info.port} with {server.info.model} "
        f"({len(service.index().units)} rules){idle}; `ruleslawyer ask` will use it. "
        "Ctrl-C or `ruleslawyer serve --stop` stops it.",
        err=True,
    )
    try:
        server.serve_forever()
    finally:
        server.close()


# --- ui -----------------------------------------------------------------------
@cli.command()
@click.option(
    "--host", default="127.0.0.1", show_default=True, help="Interface to bind (0.0.0.0 = your LAN)."
)
@click.option("--port", default=7860, show_default=True, type=click.IntRange(1, 65535))
@click.option("--share", is_flag=True, help="Ask Gradio for a public share link (off by default).")
@click.option(
    "--auth",
    envvar="RULESLAWYER_AUTH",
    metavar="USER:PASS",
    help="Require this login (also from RULESLAWYER_AUTH).",
)
@llm_options
@pass_ctx
def ui(
    ctx: Context,
    host: str,
    port: int,
    share: bool,
    auth: str | None,
    model: Path | None,
    llm_url: str | None,
    no_llm: bool,
    default_model: str | None,
    explain: bool | None,
) -> None:
    """Serve the chat page in your browser (http://127.0.0.1:7860 by default)."""
    from ruleslawyer.ui.app import launch

    if auth is not None and (
        ":" not in auth or not auth.split(":", 1)[0] or not auth.split(":", 1)[1]
    ):
        raise InputError("--auth must be USER:PASS, e.g. --auth alice:tabletop")
    if host not in ("127.0.0.1", "localhost", "::1") and not auth:
        click.echo(
            f"warning: serving on {host} without --auth: anyone on your network can use this page",
            err=True,
        )
    service = ctx.service(**_llm_overrides(model, llm_url, no_llm, default_model, explain))
    launch(
        service,
        host=host,
        port=port,
        share=share,
        auth=(auth.split(":", 1)[0], auth.split(":", 1)[1]) if auth else None,
    )


def _run_batch(handle: Any, game: str | None, field: str, run: Any) -> None:
    """One JSON line out per line in: the result plus ``id``, or the error for that line.

    A line that is not a JSON object with a question gets its error line too, and
    the rest are still answered (a long batch is not lost to one typo); the exit
    status then says some lines could not be read.
    """
    unreadable: list[int] = []
    for lineno, item, problem in _read_batch(handle):
        if problem:
            unreadable.append(lineno)
            click.echo(json.dumps({"id": lineno, "error": problem}, ensure_ascii=False))
            continue
        ident = item.get("id", lineno)
        try:
            payload = {"id": ident, **run(item["question"], _game(item.get("game") or game))}
        except RulesLawyerError as err:
            payload = {"id": ident, field: item.get("question"), "error": str(err)}
        click.echo(json.dumps(payload, ensure_ascii=False))
    if unreadable:
        shown = ", ".join(map(str, unreadable[:10])) + (", ..." if len(unreadable) > 10 else "")
        raise InputError(
            f"{len(unreadable)} batch line{'s' if len(unreadable) > 1 else ''} could not be "
            f"read (line {shown}); their errors are in the output, every other line was answered"
        )


def _read_batch(handle: Any) -> Any:
    """Yield (line number, object, problem) from a JSON Lines batch; a bad line has an
    empty object and says what is wrong with it."""

    for lineno, line in enumerate(handle, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except ValueError:
            yield lineno, {}, f"batch line {lineno}: not valid JSON"
            continue
        if not isinstance(item, dict) or not isinstance(item.get("question"), str):
            yield lineno, {}, f'batch line {lineno}: needs an object with a "question" string'
            continue
        yield lineno, item, ""


# --- entry point --------------------------------------------------------------
def run(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code; domain errors become one line on stderr."""
    try:
        result = cli.main(args=argv, prog_name="ruleslawyer", standalone_mode=False)
        return result if isinstance(result, int) else 0
    except click.exceptions.Exit as err:
        return err.exit_code
    except click.exceptions.Abort:
        click.echo("Aborted.", err=True)
        return 130
    except click.ClickException as err:
        err.show()
        return err.exit_code
    except RulesLawyerError as err:
        click.echo(f"Error: {_one_line(str(err))}", err=True)
        # A dataset with 12 bad lines lists all 12, one per line, so they
        # can all be fixed in one pass.
        for detail in getattr(err, "problems", ()):
            click.echo(f"  {detail}", err=True)
        return 1
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        return 130
    except BrokenPipeError:  # `ruleslawyer rules list | head`
        return 0
    except Exception as err:  # a bug: still one line unless asked for the traceback
        if os.environ.get("RULESLAWYER_DEBUG"):
            raise
        click.echo(
            f"Internal error: {err.__class__.__name__}: {_one_line(str(err))} "
            "(set RULESLAWYER_DEBUG=1 for the traceback)",
            err=True,
        )
        return 70


def main() -> None:
    sys.exit(run(sys.argv[1:]))


def _one_line(msg: str) -> str:
    first = msg.strip().splitlines()[0] if msg.strip() else "unknown error"
    return first


if __name__ == "__main__":
    main()
