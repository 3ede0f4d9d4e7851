"""What the offline answerer's question-sentence similarity costs per answer.

    nice .venv/bin/python -m bench.extractive_speed                 # 40 questions per corpus
    nice .venv/bin/python -m bench.extractive_speed --questions 100 --corpus clapnq

For each corpus of ``bench/realdocs.py`` the passages a question retrieves (lexical index,
as ``rag ask`` builds it under ``--work``) are answered twice by the extractive model: by
words alone, and with the bundled e5 comparing the best sentences with the question
(:mod:`rag.generate.scoring`). Prints the median and 90th percentile milliseconds of each and
the median of the per-question ratio. The e5 model is loaded before timing.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from pathlib import Path

from langchain_core.messages import BaseMessage

from bench.realdocs import CORPORA, load_corpus
from rag.assemble import build_pipeline
from rag.generate.extractive import ExtractiveChatModel
from rag.generate.prompt import build_messages
from rag.search.embeddings import E5Embeddings
from rag.settings import Settings
from rag.similarity import SentenceSimilarity


def _ms(model: ExtractiveChatModel, messages: list[BaseMessage]) -> float:
    started = time.perf_counter()
    model.invoke(messages)
    return (time.perf_counter() - started) * 1000


def measure(name: str, work: Path, count: int) -> None:
    corpus = load_corpus(name, work)
    settings = Settings(
        docs_dir=corpus.docs, index_dir=work / f"index-{name}-none", embeddings="none"
    )
    pipeline = build_pipeline(settings, redis=None)
    e5 = E5Embeddings()
    e5.embed_query("warm up")
    words = ExtractiveChatModel()
    shared = ExtractiveChatModel(similarity=SentenceSimilarity(e5, E5Embeddings.identity))
    alone, cold, warm = [], [], []
    asked = [q for q in corpus.questions if q["kind"] != "absent"][:count]
    for question in asked:
        hits = asyncio.run(pipeline.retrieve(question["question"]))
        messages = build_messages(question["question"], hits)
        alone.append(_ms(words, messages))
        fresh = SentenceSimilarity(e5, E5Embeddings.identity)  # remembers no sentence yet
        cold.append(_ms(ExtractiveChatModel(similarity=fresh), messages))
        warm.append(_ms(shared, messages))  # remembers the sentences of earlier questions
    ratios = [b / a for a, b in zip(alone, cold, strict=True)]
    print(
        f"{name}: {len(asked)} answers · words alone {_summary(alone, 1)} · with e5 "
        f"{_summary(cold, 0)} (paired ratio median {statistics.median(ratios):.0f}x) · "
        f"with e5 remembering earlier questions' sentences {_summary(warm, 0)}"
    )


def _summary(ms: list[float], digits: int) -> str:
    p90 = sorted(ms)[int(len(ms) * 0.9)]
    return f"median {statistics.median(ms):.{digits}f} ms (p90 {p90:.{digits}f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", choices=CORPORA, action="append")
    parser.add_argument("--questions", type=int, default=40)
    parser.add_argument("--work", type=Path, default=Path("/tmp/citebot-realdocs"))
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    for name in args.corpus or CORPORA:
        measure(name, args.work, args.questions)


if __name__ == "__main__":
    main()
