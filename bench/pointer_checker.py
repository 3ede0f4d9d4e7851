"""Benchmark (not a test): what sentence pointers (CITE_SENTENCES) give the checker when the
model points where it should.

The labelled answers of ``bench/checker.py`` (hand-written over ``docs/`` and drawn from
``../shared/data/cmrc2018-trial``, each correct answer with its faulty variants, same seed) are
checked twice: as written (``[2]``: the whole passage), and with every marker turned into
pointers to the sentences of that passage holding the claim's content words and numbers
(``[2.3][2.5]``, at most three, as a model asked to point should; a faulty claim points where
its correct original came from, since only its number or name changed). Prints false alarms
and catches of both, overall and per fault. This is the checker's side only, with pointers as
good as they get; ``bench/model_path.py --env CITE_SENTENCES=on`` measures a real model's.

Run: ``.venv/bin/python -m bench.pointer_checker [--queries 150] [--seed 2026]``
"""

from __future__ import annotations

import argparse
import random
import re
from collections import Counter
from collections.abc import Sequence

from bench.checker import (
    DEFAULT_DATA,
    ROOT,
    Case,
    cmrc_cases,
    extractive_cases,
    hand_cases,
    with_faults,
)
from rag.check.answer_text import sentences
from rag.check.citations import check
from rag.check.pointers import screen_pointed
from rag.generate.prompt import source_sentences
from rag.markers import MARKER, marker_numbers
from rag.reading import claim_terms

MAX_POINTERS = 3
"""Pointers one marker becomes at most: a claim resting on more sentences cites the passage."""
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def pointed(answer: str, case: Case, original: str) -> str:
    """``answer`` with each ``[n]`` pointing at the sentence of passage n that the matching
    sentence of ``original`` (the correct answer it was made from) shares most words with."""
    originals = {s.text: s.plain for s in sentences(original)}
    by_position = list(originals.values())
    out = []
    for index, sentence in enumerate(sentences(answer)):
        claim = originals.get(sentence.text) or (
            by_position[index] if index < len(by_position) else sentence.plain
        )
        wanted = claim_terms(claim) | set(_NUMBER.findall(claim))

        def point(match: re.Match[str], wanted: set[str] = wanted) -> str:
            marks = []
            for n in marker_numbers(match[1]):
                if not 1 <= n <= len(case.hits):
                    marks.append(f"[{n}]")
                    continue
                marks += [f"[{n}.{s}]" for s in covering(wanted, case.hits[n - 1].chunk.text)]
            return "".join(marks)

        out.append(MARKER.sub(point, sentence.text))
    return "\n".join(out)


def covering(wanted: set[str], passage: str) -> list[int]:
    """The sentences (numbered from 1) that together hold most of ``wanted``: the one holding
    most, then the one adding most, up to :data:`MAX_POINTERS`."""
    found = [claim_terms(s) | set(_NUMBER.findall(s)) for s in source_sentences(passage)]
    chosen: list[int] = []
    left = set(wanted)
    while len(chosen) < MAX_POINTERS:
        best = max(range(len(found)), key=lambda i: len(left & found[i]))
        if not left & found[best]:
            break
        chosen.append(best + 1)
        left -= found[best]
    return sorted(chosen) or [1]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--queries", type=int, default=150, help="cmrc queries to draw from")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    base = hand_cases(ROOT / "bench" / "checker_cases", ROOT / "docs")
    data = next(
        (
            up / "shared" / "data" / "cmrc2018-trial"
            for up in ROOT.parents
            if (up / "shared").is_dir()
        ),
        DEFAULT_DATA,
    )  # ../shared beside the repository (a worktree sits one level deeper)
    if data.is_dir():
        base += cmrc_cases(data, args.queries, rng)
    else:
        print(f"(no {data}: sample-docs cases only)")
    base += extractive_cases(base)
    cases = with_faults(base, rng)
    originals = {c.id: c.answer for c in cases if c.label == "ok"}
    flagged: Counter[tuple[str, str]] = Counter()
    totals: Counter[str] = Counter()
    for case in cases:
        original = originals.get(case.id.split("+")[0], case.answer)
        whole = not check(case.answer, case.hits, question=case.question).ok
        text = pointed(case.answer, case, original)
        _, screening = screen_pointed(text, case.hits, question=case.question)
        by_pointer = screening.refused is None and not screening.report.ok
        label = "ok" if case.label == "ok" else "faulty"
        for group in (label, case.label) if label != "ok" else (label,):
            totals[group] += 1
            flagged[group, "whole"] += whole
            flagged[group, "pointed"] += by_pointer
    print(f"{len(cases)} answers ({totals['ok']} correct, {totals['faulty']} faulty)")
    print("                      whole passage   pointed sentence")
    for group in ["ok", "faulty", *sorted(g for g in totals if g not in {"ok", "faulty"})]:
        name = "false alarms (correct)" if group == "ok" else group
        as_cited, as_pointed = flagged[group, "whole"], flagged[group, "pointed"]
        n = totals[group]
        print(
            f"{name:<22}{100 * as_cited / n:8.1f} %       {100 * as_pointed / n:8.1f} %   (of {n})"
        )


if __name__ == "__main__":
    main()
