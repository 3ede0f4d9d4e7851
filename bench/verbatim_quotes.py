"""Benchmark (not a test): is a passage quoted word for word ever flagged as contradicting the
passage it cites?

Every passage of each folder (split as the product splits it) is quoted as an answer citing it
as [1], two ways: whole with one closing [1], and every line cited (so every rule reads every
sentence). Prints the passages, the problems found by kind, and how many say the quote is not
what its source says (modality/negation, numbers, support, names, relatedness); the goal is 0.
The other kinds are about structure, not content: a passage's own "[3](url)" link reads as a
citation of a source that doesn't exist, and its uncited lines in the whole-quote form.

Run: ``.venv/bin/python -m bench.verbatim_quotes DIR [DIR ...]``, e.g. both corpora of
``../shared/data/realdocs-tune`` (``zh-apisix/docs``, ``en-18f/docs``; never copied). About 10 s
per 10,000 passages.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from pathlib import Path

from rag.check.citations import check
from rag.ingest.loaders import load_folder
from rag.ingest.splitter import Splitter
from rag.results import Hit

CONTRADICTING = frozenset(
    {
        "modality_mismatch",
        "ungrounded_number",
        "misattributed_number",
        "wrong_arithmetic",
        "unsupported_claim",
        "ungrounded_name",
        "unrelated_source",
    }
)


def quoted_by_line(text: str) -> str:
    return "\n".join(f"{line} [1]" if line.strip() else line for line in text.splitlines())


def measure(folder: Path) -> None:
    started = time.perf_counter()
    documents, _ = load_folder(folder)
    passages = [chunk for doc in documents for chunk in Splitter().split(doc)]
    for form, quote in (("whole", lambda t: f"{t} [1]"), ("by line", quoted_by_line)):
        kinds: Counter[str] = Counter()
        examples: list[str] = []
        for chunk in passages:
            for problem in check(quote(chunk.text), [Hit(chunk, score=1.0)]).problems:
                kinds[problem.kind] += 1
                if problem.kind in CONTRADICTING and len(examples) < 5:
                    examples.append(f"    {chunk.source}: {problem.message[:160]}")
        flagged = sum(count for kind, count in kinds.items() if kind in CONTRADICTING)
        print(
            f"{folder} ({form}): {len(passages)} passages, contradicting: {flagged}; "
            f"all kinds: {dict(sorted(kinds.items()))}"
        )
        print("\n".join(examples)) if examples else None
    print(f"  {time.perf_counter() - started:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    for folder in parser.parse_args().folders:
        measure(folder)


if __name__ == "__main__":
    main()
