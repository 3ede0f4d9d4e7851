"""Follow-up rewriting: retrieval of follow-ups with and without the standalone question.

    .venv/bin/python bench/followups.py                       # docs/ with the bundled e5
    .venv/bin/python bench/followups.py --embeddings none     # lexical only

The set (``bench/followups/docs_followups.jsonl``) holds conversations over the sample
knowledge base: earlier questions (``history``, as asked), a follow-up (``message``), the file
that answers it (``gold_doc``) and a phrase of the answer (``answer``). ``inherits: false``
marks follow-ups that start a new topic and must be read on their own. A hit counts at rank k
when one of the first k passages is from the gold file and contains the answer phrase (after
NFKC, case and whitespace folding). Earlier turns are made standalone one after the other, as
the bot does.
"""

from __future__ import annotations

import argparse
import json
import os
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path

from rag.assemble import open_index
from rag.followup.rules import standalone
from rag.results import Hit
from rag.settings import Settings

SET = Path(__file__).parent / "followups" / "docs_followups.jsonl"


def fold(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def found(hits: Sequence[Hit], case: dict[str, object], k: int) -> bool:
    answer = fold(str(case["answer"]))
    return any(
        Path(hit.chunk.source).name == case["gold_doc"] and answer in fold(hit.chunk.text)
        for hit in hits[:k]
    )


def standalone_history(history: Sequence[str]) -> list[str]:
    made: list[str] = []
    for question in history:
        made.append(standalone(question, made))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", type=Path, default=SET)
    parser.add_argument("--embeddings", default=os.environ.get("EMBEDDINGS", "e5"))
    parser.add_argument("--verbose", action="store_true", help="print every rewrite")
    args = parser.parse_args()
    env = dict(os.environ, EMBEDDINGS=args.embeddings)
    index = open_index(Settings.from_env(env))
    cases = [json.loads(line) for line in args.set.read_text("utf-8").splitlines() if line]
    ways: dict[str, Callable[[dict[str, object]], str]] = {
        "as asked": lambda case: str(case["message"]),
        "rewritten": lambda case: standalone(
            str(case["message"]),
            standalone_history(list(case["history"])),  # type: ignore[call-overload]
        ),
    }
    groups: dict[str, Callable[[dict[str, object]], bool]] = {
        "all": lambda case: True,
        "zh": lambda case: str(case["id"]).startswith("zh"),
        "en": lambda case: str(case["id"]).startswith("en"),
        "inherit context": lambda case: bool(case["inherits"]),
        "new topic": lambda case: not case["inherits"],
    }
    print(f"{len(cases)} follow-ups over {len(index)} passages (embeddings: {args.embeddings})")
    print(f"{'group':<16}{'n':>4}" + "".join(f"{w + ' R@1':>16}{w + ' R@5':>16}" for w in ways))
    results = {
        way: {str(c["id"]): index.search(question(c), 5) for c in cases}
        for way, question in ways.items()
    }
    for name, member in groups.items():
        chosen = [c for c in cases if member(c)]
        row = f"{name:<16}{len(chosen):>4}"
        for way in ways:
            for k in (1, 5):
                hits = sum(found(results[way][str(c["id"])], c, k) for c in chosen)
                row += f"{hits / len(chosen):>16.3f}"
        print(row)
    if args.verbose:
        for case in cases:
            print(case["id"], "|", case["message"], "=>", ways["rewritten"](case))


if __name__ == "__main__":
    main()
