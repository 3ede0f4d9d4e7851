"""Current documents only, conflicts shown, questions that span documents: the test knowledge base.

    .venv/bin/python -m bench.lifecycle                       # e5, as shipped
    .venv/bin/python -m bench.lifecycle --embeddings none     # lexical only
    .venv/bin/python -m bench.lifecycle --before 451eeab      # also that commit, side by side

Runs every ``bench/lifecycle/questions-NAME.jsonl`` against its own knowledge base,
``bench/lifecycle/kb/NAME/`` (two companies' documents: each set's pages would contradict the
other's, and those contradictions are not the ones written to be found), with the product's
own batch command (``python -m rag ask --questions IN --out OUT``: the offline
extractive answerer, ``DOCS_DIR`` = the knowledge base, an index of its own under ``--work``),
and scores what an asker would see. Which documents are not in force is read from the
knowledge base itself, with this code's reader, on the day of the run (the pages' dates are
set around 2024–2027), so an older commit's answers are judged by the same rule.

Per kind of question:

- every kind: **lapsed cited as current**, answers (verdict ``answer``) citing a superseded,
  deprecated, archived, expired or not-yet-effective document (goal 0), and **drafts shown**,
  answers citing a draft (the batch command asks with no scope, which never includes drafts);
- ``current``: **correct** = answered, one of ``answers`` in the text (markers removed, NFKC
  and case folded) and one of ``sources`` cited;
- ``lapsed``: only a document no longer (or not yet) in force covers it; **said plainly** = not
  answered, and the text says it is not in force;
- ``conflict``: two current documents disagree; **shown** = sent to review, or answered citing
  both ``sources``;
- ``draft``: only a draft covers it; **kept out** = not answered from the draft;
- ``multipart``: every part named = each of ``parts`` has one of its strings (case folded) in
  a sentence of the answer that carries a citation marker ``[n]``;
- ``absent``: nothing covers it; **refused** = not answered.

``--before COMMIT`` runs that commit the same way, from a git worktree of it under ``--work``
(its own index), and prints both side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import unicodedata
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

from rag.ingest.loaders import load_folder

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
KB = HERE / "kb"
_MARKER = re.compile(r"\[(\d+)(?:\.\d+)?\]")
_SENTENCE_END = re.compile(r"(?<=[。！？!?])|(?<=\.)\s+|\n")
_PLAIN = re.compile(r"不再有效|尚未生效|no longer in force|not in force yet", re.IGNORECASE)
KINDS = ("current", "lapsed", "conflict", "draft", "multipart", "absent")

Row = dict[str, Any]


def folded(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", _MARKER.sub("", text)).casefold().split())


def standings(kb: Path, today: date) -> dict[str, str]:
    """Each document of ``kb``: ``current``, ``draft``, ``lapsed`` or ``upcoming``."""
    documents, _ = load_folder(kb)
    return {doc.source: doc.lifecycle.standing(today) for doc in documents}


def question_sets() -> dict[str, list[Row]]:
    """Each ``questions-NAME.jsonl`` by NAME (its knowledge base: ``kb/NAME/``)."""
    sets: dict[str, list[Row]] = {}
    for path in sorted(HERE.glob("questions-*.jsonl")):
        name = path.stem.removeprefix("questions-")
        sets[name] = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line]
    return sets


def cited(answer: Row) -> set[str]:
    """The documents the text cites (``[n]`` markers mapped to the sources)."""
    by_n = {int(s["n"]): str(s["source"]) for s in answer.get("sources", [])}
    return {by_n[n] for n in map(int, _MARKER.findall(answer["text"])) if n in by_n}


def names_every_part(text: str, parts: list[list[str]]) -> bool:
    sentences = [s for s in _SENTENCE_END.split(text) if _MARKER.search(s)]
    lowered = [s.casefold() for s in sentences]
    return all(any(w.casefold() in s for s in lowered for w in part) for part in parts)


def judged(question: Row, answer: Row, standing: dict[str, str]) -> dict[str, bool]:
    """What the figures count for one question."""
    kind, verdict, text = question["kind"], answer["verdict"], answer["text"]
    sources = cited(answer) if verdict == "answer" else set()
    lapsed = any(standing.get(s) in ("lapsed", "upcoming") for s in sources)
    out = {
        "lapsed_as_current": lapsed,
        "draft_shown": any(standing.get(s) == "draft" for s in sources),
    }
    expected = set(question.get("sources", []))
    if kind == "current":
        hit = any(folded(a) in folded(text) for a in question.get("answers", []))
        out["ok"] = verdict == "answer" and hit and bool(sources & expected)
    elif kind == "lapsed":
        out["ok"] = verdict != "answer" and bool(_PLAIN.search(text))
    elif kind == "conflict":
        out["ok"] = verdict == "unverified" or (verdict == "answer" and expected <= sources)
    elif kind == "draft":
        out["ok"] = not (sources & expected)
    elif kind == "multipart":
        out["ok"] = verdict == "answer" and names_every_part(text, question.get("parts", []))
    else:
        out["ok"] = verdict != "answer"
    return out


def run(
    tree: Path, label: str, embeddings: str, work: Path, name: str, asked: list[Row]
) -> list[Row]:
    """``python -m rag ask --questions`` of the code in ``tree`` over the set's knowledge base."""
    index = work / f"index-{name}-{label}-{embeddings}"
    out = work / f"answers-{name}-{label}-{embeddings}.jsonl"
    file = work / f"questions-{name}.jsonl"
    file.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in asked), "utf-8")
    env = os.environ | {
        "PYTHONPATH": str(tree),
        "DOCS_DIR": str(KB / name),
        "INDEX_DIR": str(index),
        "EMBEDDINGS": embeddings,
    }
    for name in ("REDIS_URL", "SCOPES_FILE", "LLM_BASE_URL", "LLM_API_KEY"):
        env.pop(name, None)  # a shared cache or a model would not be this bench
    command = [sys.executable, "-m", "rag", "ask", "--questions", str(file), "--out", str(out)]
    subprocess.run(command, check=True, env=env, cwd=tree, stdout=subprocess.DEVNULL)
    return [json.loads(line) for line in out.read_text("utf-8").splitlines() if line]


Judged = list[tuple[Row, dict[str, bool]]]


def figures(judgements: Judged) -> list[str]:
    """One line per kind, then the two counts over every question."""
    by_kind: dict[str, list[dict[str, bool]]] = defaultdict(list)
    for question, verdict in judgements:
        by_kind[question["kind"]].append(verdict)
    words = {
        "current": "correct",
        "lapsed": "said plainly",
        "conflict": "both shown or to review",
        "draft": "kept out",
        "multipart": "every part named",
        "absent": "refused",
    }
    lines = []
    for kind in KINDS:
        found = by_kind.get(kind)
        if found:
            ok = sum(j["ok"] for j in found)
            lines.append(
                f"{kind:<10} {words[kind]:<24} {ok:>3}/{len(found):<3} ({ok / len(found):.0%})"
            )
    every = [j for found in by_kind.values() for j in found]
    lapsed = sum(j["lapsed_as_current"] for j in every)
    drafts = sum(j["draft_shown"] for j in every)
    lines.append(
        f"{'all':<10} {'lapsed cited as current':<24} {lapsed:>3}/{len(every):<3} (goal 0)"
    )
    lines.append(f"{'all':<10} {'drafts shown':<24} {drafts:>3}/{len(every):<3} (goal 0)")
    return lines


def worktree(commit: str, work: Path) -> Path:
    tree = work / f"tree-{commit}"
    if not tree.exists():
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), commit], check=True
        )
    return tree


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--embeddings", default="e5", choices=("e5", "none"))
    parser.add_argument("--before", metavar="COMMIT", help="also run this commit, side by side")
    parser.add_argument("--work", type=Path, default=Path("/tmp/citebot-bench-lifecycle"))
    parser.add_argument("--show", action="store_true", help="print each question's outcome")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    sets = question_sets()
    asked = [q for rows in sets.values() for q in rows]
    kinds = ", ".join(f"{k} {sum(q['kind'] == k for q in asked)}" for k in KINDS)
    print(f"{len(asked)} questions ({kinds}); knowledge bases {', '.join(sets)}; {args.embeddings}")
    ours = figures(answered(ROOT, "after", args, sets))
    if not args.before:
        print("\n".join(ours))
        return
    theirs = figures(answered(worktree(args.before, args.work), "before", args, sets))
    width = max(len(line) for line in theirs)
    print(f"{'before ' + args.before:<{width}}   after")
    for old, new in zip(theirs, ours, strict=True):
        print(f"{old:<{width}}   {new}")


def answered(
    tree: Path, label: str, args: argparse.Namespace, sets: dict[str, list[Row]]
) -> Judged:
    """Every set answered by the code in ``tree`` over its own knowledge base, judged."""
    judgements: Judged = []
    for name, asked in sets.items():
        standing = standings(KB / name, date.today())
        answers = run(tree, label, args.embeddings, args.work, name, asked)
        for question, answer in zip(asked, answers, strict=True):
            verdict = judged(question, answer, standing)
            judgements.append((question, verdict))
            if args.show and label == "after":
                mark = "ok " if verdict["ok"] else "NO "
                print(
                    f"{mark}{question['id']} {question['kind']:<9} {answer['verdict']:<10} "
                    f"{answer['text'][:90]!r}"
                )
    return judgements


if __name__ == "__main__":
    main()
