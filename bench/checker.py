"""Benchmark (not a test): how often the citation checker catches a faulty answer, and how
often it flags a correct one.

The labelled set is built at run time, deterministically (fixed seed), from two places:

1. ``bench/checker_cases/*.jsonl`` — hand-written answers over excerpts of the sample
   knowledge base in ``docs/`` (each excerpt is verified to still be in its document):
   correct answers in the styles models write, and realistic fabrications ("六级，每级 12 课时",
   "80%"), including kinds the checker is not built to catch (a number taken from the wrong row,
   a contradiction without a number), so the figure stays honest.
2. ``../shared/data/cmrc2018-trial`` (read, never copied): for answerable queries, the hits are
   the chunk holding the gold answer plus the two chunks of other documents that BM25 ranks
   highest for the question (near misses, as retrieval would give them), in shuffled order.
   Correct answers quote the sentence with the gold answer in varied styles (verbatim, answer
   span, two sentences, lead-in, marker after the full stop, numbers rewritten as Chinese
   numerals / with thousands separators / full-width, a correct sum appended).

The offline extractive answerer's reply to each question over the same hits is added as a
correct answer too. Every correct answer (from either place) also yields faulty variants: a
number altered, a number swapped for another that the source counts in the same unit, a number
invented, a reference to a source that doesn't exist, wrong arithmetic, the citation moved to
another retrieved source (cmrc only, see ``HAND_WRITTEN_ONLY``), the last sentence's citation
dropped.

Run: ``.venv/bin/python -m bench.checker [--queries 150] [--seed 2026] [--verbose]``
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bench.checker_faults import EXPECTED_KIND, FAULTS, arabic_numbers, cite, sum_sentence
from rag.check.citations import check
from rag.chunks import Chunk
from rag.generate.extractive import extractive_answer
from rag.generate.prompt import PromptSource
from rag.generate.quotable import split_sentences
from rag.results import Hit
from rag.search.lexical import LexicalIndex

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "cmrc2018-trial"
DISTRACTORS = 2
HAND_WRITTEN_ONLY = {"sample-docs": ("moved_citation",)}
"""The sample-doc cases retrieve related excerpts on purpose (the fee table and the refund
example both say 4800): moving a citation among them often still cites a supporting source,
so wrong-source cases there are written by hand."""
ZH_DIGITS = "零一二三四五六七八九"
_COUNTED = "个|名|人|年|月|天|次|分钟|岁|种|位|座"


@dataclass(frozen=True, slots=True)
class Case:
    id: str
    origin: str
    label: str
    """``ok`` or the fault (see ``EXPECTED_KIND`` for the problem kind it should raise)."""
    question: str
    answer: str
    hits: tuple[Hit, ...]
    note: str = ""


def _hit(source: str, text: str, n: int, title: str = "") -> Hit:
    return Hit(Chunk(source=source, text=text, n=n, title=title), score=1.0)


def _title(document: str) -> str:
    """The front-matter title, which the index gives every chunk of the document."""
    found = re.search(r"^title:\s*(.+)$", document, re.MULTILINE)
    return found.group(1).strip() if found else ""


def hand_cases(cases_dir: Path, docs_dir: Path) -> list[Case]:
    cases: list[Case] = []
    for path in sorted(cases_dir.glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            hits = []
            for n, source in enumerate(row["sources"]):
                document = (docs_dir / source["doc"]).read_text(encoding="utf-8")
                if source["text"] not in document:
                    msg = f"{path.name} {row['id']}: excerpt no longer in docs/{source['doc']}"
                    raise SystemExit(msg)
                hits.append(_hit(source["doc"], source["text"], n, _title(document)))
            cases.append(
                Case(
                    row["id"],
                    "sample-docs",
                    row["label"],
                    row["question"],
                    row["answer"],
                    tuple(hits),
                    row.get("note", ""),
                )
            )
    return cases


def _read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _zh_numeral(match_text: str) -> str:
    value = int(match_text)
    if value < 10:
        return ZH_DIGITS[value]
    tens, ones = divmod(value, 10)
    return ("" if tens == 1 else ZH_DIGITS[tens]) + "十" + (ZH_DIGITS[ones] if ones else "")


def _restyle_numbers(sentence: str, rng: random.Random) -> str | None:
    """The same sentence with its numbers written differently, or None if it has none."""
    style = rng.choice(["chinese", "thousands", "full-width"])
    if style == "chinese":
        pattern = re.compile(rf"(?<![\d.])([1-9]\d?)(?![\d.%])(?=\s*(?:{_COUNTED}))")
        changed = pattern.sub(lambda m: _zh_numeral(m[1]), sentence)
    elif style == "thousands":
        pattern = re.compile(r"(?<![\d.,])(\d{4,7})(?![\d.年])")
        changed = pattern.sub(lambda m: f"{int(m[1]):,}", sentence)
    else:
        changed = sentence.translate(str.maketrans("0123456789", "０１２３４５６７８９"))
    return changed if changed != sentence else None


def _correct_styles(
    sentence: str, neighbour: str | None, span: str, k: int, rng: random.Random
) -> dict[str, str]:
    styles = {
        "verbatim": cite(sentence, k),
        "lead-in": "资料原文如下：" + cite(sentence, k),
        "marker-after-stop": sentence.rstrip()
        + ("" if sentence.endswith("。") else "。")
        + f"[{k}]",
        "wide-marker": cite(sentence, k).replace(f"[{k}]", rng.choice([f"【{k}】", f"［{k}］"])),
    }
    if 2 <= len(span) <= 40 and span != sentence:
        styles["answer-span"] = cite(span, k)
    if neighbour:
        styles["two-sentences"] = cite(neighbour, k) + cite(sentence, k)
        styles["one-marker-per-paragraph"] = neighbour + cite(sentence, k)
    restyled = _restyle_numbers(sentence, rng)
    if restyled:
        styles["numbers-restyled"] = cite(restyled, k)
    numbers = sorted(set(arabic_numbers(sentence)))
    if len(numbers) >= 2:
        a, b = rng.sample(numbers, 2)
        styles["correct-sum"] = cite(sentence, k) + sum_sentence(a, b, a + b, k, zh=True)
    return styles


def cmrc_cases(data_dir: Path, n_queries: int, rng: random.Random) -> list[Case]:
    chunks = _read_jsonl(data_dir / "chunks.jsonl")
    queries = [q for q in _read_jsonl(data_dir / "queries.jsonl") if q["gold_doc_id"]]
    index = LexicalIndex([str(c["text"]) for c in chunks])
    rng.shuffle(queries)
    cases: list[Case] = []
    used = 0
    for query in queries:
        if used >= n_queries:
            break
        answers = [str(a) for a in query["answers"]]  # type: ignore[attr-defined]
        gold = next(
            (
                c
                for c in chunks
                if c["doc_id"] == query["gold_doc_id"] and any(a in str(c["text"]) for a in answers)
            ),
            None,
        )
        if gold is None:
            continue
        sentences = split_sentences(str(gold["text"]))
        position, span = next(
            ((i, a) for i, s in enumerate(sentences) for a in answers if a in s), (None, "")
        )
        if position is None:
            continue
        scores = index.scores(str(query["question"])).bm25
        ranked = sorted(range(len(chunks)), key=lambda i: (-scores[i], i))
        others = [chunks[i] for i in ranked if chunks[i]["doc_id"] != gold["doc_id"]]
        picked = [gold, *others[:DISTRACTORS]]
        rng.shuffle(picked)
        hits = tuple(_hit(str(c["doc_id"]), str(c["text"]), n) for n, c in enumerate(picked))
        k = picked.index(gold) + 1
        neighbour = sentences[position - 1] if position > 0 else None
        styles = _correct_styles(sentences[position], neighbour, span, k, rng)
        used += 1
        for style in rng.sample(sorted(styles), min(2, len(styles))):
            cases.append(
                Case(
                    f"{query['id']}/{style}",
                    "cmrc2018",
                    "ok",
                    str(query["question"]),
                    styles[style],
                    hits,
                )
            )
    return cases


def extractive_cases(cases: Sequence[Case]) -> list[Case]:
    """What the offline extractive answerer says to each distinct question over the same hits:
    verbatim quotes, so every one must pass (refusals included)."""
    seen: set[tuple[str, tuple[str, ...]]] = set()
    out: list[Case] = []
    for case in cases:
        identity = (case.question, tuple(hit.chunk.text for hit in case.hits))
        if identity in seen:
            continue
        seen.add(identity)
        sources = [PromptSource(n, "", hit.chunk.text) for n, hit in enumerate(case.hits, 1)]
        answer = extractive_answer(case.question, sources)
        base = case.id.split("/")[0]
        out.append(replace(case, id=f"{base}/extractive", label="ok", answer=answer, note=""))
    return out


def with_faults(cases: Sequence[Case], rng: random.Random) -> list[Case]:
    """The correct cases, their faulty variants, and the hand-written faulty cases."""
    out = list(cases)
    for case in cases:
        if case.label != "ok":
            continue
        for name, make in FAULTS.items():
            if name in HAND_WRITTEN_ONLY.get(case.origin, ()):
                continue
            answer = make(case.answer, case.hits, case.question, rng)
            if answer is not None and answer != case.answer:
                out.append(replace(case, id=f"{case.id}+{name}", label=name, answer=answer))
    return out


def _rate(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f} %" if whole else "    –  "


def report(cases: Sequence[Case], *, verbose: bool) -> None:
    started = time.perf_counter()
    results = [(case, check(case.answer, case.hits, question=case.question)) for case in cases]
    elapsed = time.perf_counter() - started
    correct = [(c, r) for c, r in results if c.label == "ok"]
    faulty = [(c, r) for c, r in results if c.label != "ok"]
    false_alarms = [(c, r) for c, r in correct if not r.ok]
    caught = [(c, r) for c, r in faulty if not r.ok]
    right_kind = [
        (c, r) for c, r in caught if EXPECTED_KIND.get(c.label) in {p.kind for p in r.problems}
    ]
    origins = Counter(c.origin for c in cases)
    print(
        f"citation checker benchmark: {len(cases)} answers "
        f"({', '.join(f'{o} {n}' for o, n in sorted(origins.items()))}), "
        f"{1000 * elapsed / len(cases):.2f} ms per answer"
    )
    print(
        f"  correct answers {len(correct):4d}   false alarms {len(false_alarms):4d}   "
        f"false-alarm rate {_rate(len(false_alarms), len(correct))}"
    )
    print(
        f"  faulty answers  {len(faulty):4d}   caught       {len(caught):4d}   "
        f"catch rate       {_rate(len(caught), len(faulty))}   "
        f"(the expected problem named: {_rate(len(right_kind), len(faulty))})"
    )
    print("\n  by label (origin)                          n   flagged    rate   expected kind")
    groups: dict[tuple[str, str], list[tuple[Case, bool, bool]]] = {}
    for case, result in results:
        kinds = {p.kind for p in result.problems}
        named = EXPECTED_KIND.get(case.label) in kinds
        groups.setdefault((case.label, case.origin), []).append((case, not result.ok, named))
    for (label, origin), rows in sorted(groups.items(), key=lambda g: (g[0][0] != "ok", g[0])):
        flagged = sum(f for _, f, _ in rows)
        n_named = sum(n for _, _, n in rows)
        expected = "" if label == "ok" else _rate(n_named, len(rows))
        print(
            f"  {label + ' (' + origin + ')':40s} {len(rows):4d}   {flagged:7d}  "
            f"{_rate(flagged, len(rows))}   {expected}"
        )
    if verbose:
        wrong = false_alarms + [(c, r) for c, r in faulty if r.ok]
        print(f"\nmisclassified ({len(wrong)}):")
        for case, result in wrong:
            print(f"- [{case.label}] {case.id}{' — ' + case.note if case.note else ''}")
            print(f"  answer:   {case.answer!r}")
            for problem in result.problems:
                print(f"  problem:  {problem.kind}: {problem.message}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="cmrc2018-trial folder")
    parser.add_argument("--docs", type=Path, default=ROOT / "docs")
    parser.add_argument("--cases", type=Path, default=ROOT / "bench" / "checker_cases")
    parser.add_argument("--queries", type=int, default=150, help="cmrc queries to draw from")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--verbose", action="store_true", help="print misclassified answers")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    base = hand_cases(args.cases, args.docs)
    if args.data.is_dir():
        base += cmrc_cases(args.data, args.queries, rng)
    else:
        print(f"(no {args.data}: sample-docs cases only)")
    base += extractive_cases(base)
    report(with_faults(base, rng), verbose=args.verbose)


if __name__ == "__main__":
    main()
