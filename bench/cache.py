"""Benchmark (not a test): what the answer cache saves, and what a dead Redis costs.

Measures ``Pipeline.answer()`` end to end over the sample knowledge base (docs/, hashing
embeddings, the offline extractive answerer), so the numbers include key building and
normalisation, not just the cache call:

- miss: the cache is empty (cleared before each question, outside the timing)
- hit: the same question again, served from the cache
- Redis down: the client points at a closed port. "Redis down" is the steady state (breaker
  open, Redis skipped); "probing" makes every question a probe (connect refused), the worst
  case; "added" compares with a miss through the in-process cache (the same work, no Redis).
  Also printed: the one question that finds Redis dead and opens the breaker, and the one
  that finds a Redis that accepts connections but never replies (bounded by the timeouts).

Run: ``.venv/bin/python -m bench.cache [--rounds 300] [--redis-url URL]`` (REDIS_URL or
redis://127.0.0.1:6379/0 by default; keys under a throw-away prefix, removed afterwards).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from rag.cache.answers import AnswerCache, MemoryCache
from rag.cache.redis_backend import RedisCache
from rag.generate.extractive import ExtractiveChatModel
from rag.generate.llm import Generator
from rag.ingest.loaders import load_folder
from rag.pipeline import Pipeline
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.index import Index

QUESTIONS = ["口语课一共有几级？", "退费怎么计算？", "How many days of annual leave do I get?"]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Scenario:
    pipeline: Pipeline
    before: Callable[[], Awaitable[object] | None] | None = None
    """Run before each timed question (outside the timing): empty the cache, move a clock."""
    samples: list[float] = field(default_factory=list)

    async def once(self, question: str) -> None:
        if self.before is not None:
            pending = self.before()
            if pending is not None:
                await pending
        started = time.perf_counter()
        await self.pipeline.answer(question)
        self.samples.append((time.perf_counter() - started) * 1000)


def pipeline_with(index: Index, cache: AnswerCache) -> Pipeline:
    generator = Generator(ExtractiveChatModel())
    return Pipeline(index=index, generator=generator, cache=cache, min_score=index.min_score)


async def bench(rounds: int, redis_url: str, docs: Path) -> None:
    documents, _ = load_folder(docs)
    index = index_documents(documents, embeddings=HashingEmbeddings())
    print(f"index: {len(index)} chunks from {len(documents)} documents in {docs}/")
    verdicts = [(await pipeline_with(index, MemoryCache()).answer(q)).verdict for q in QUESTIONS]
    print(f"verdicts of the benchmark questions: {verdicts}")

    memory_miss, memory_hit = MemoryCache(), MemoryCache()
    prefix = f"citebot-bench:{uuid.uuid4().hex}:"
    redis_miss = RedisCache.from_url(redis_url, prefix=f"{prefix}miss:")
    redis_hit = RedisCache.from_url(redis_url, prefix=f"{prefix}hit:")
    closed = f"redis://127.0.0.1:{closed_port()}/0"
    frozen, moving = [0.0], [0.0]
    down = RedisCache.from_url(closed, clock=lambda: frozen[0])
    probing = RedisCache.from_url(closed, clock=lambda: moving[0])

    def next_cooldown() -> None:
        moving[0] += probing.breaker.cooldown_seconds + 1  # every question probes: worst case

    scenarios = {
        "in-process miss": Scenario(pipeline_with(index, memory_miss), memory_miss.clear),
        "in-process hit": Scenario(pipeline_with(index, memory_hit)),
        "Redis miss": Scenario(pipeline_with(index, redis_miss), redis_miss.clear),
        "Redis hit": Scenario(pipeline_with(index, redis_hit)),
        "Redis down": Scenario(pipeline_with(index, down)),
        "Redis down, probing": Scenario(pipeline_with(index, probing), next_cooldown),
    }
    tripping = Scenario(pipeline_with(index, down))
    await tripping.once(QUESTIONS[0])  # the question that finds Redis down and opens the breaker
    with socket.socket() as silent:  # a Redis that accepts connections and never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        hung = RedisCache.from_url(f"redis://127.0.0.1:{silent.getsockname()[1]}/0")
        hanging = Scenario(pipeline_with(index, hung))
        await hanging.once(QUESTIONS[0])
        await hung.aclose()
    for question in QUESTIONS:  # fill the hit scenarios; not timed
        await scenarios["in-process hit"].pipeline.answer(question)
        await scenarios["Redis hit"].pipeline.answer(question)
    try:
        for i in range(rounds):  # interleaved, so load from others on the machine hits all alike
            for scenario in scenarios.values():
                await scenario.once(QUESTIONS[i % len(QUESTIONS)])
    finally:
        for cache in (redis_miss, redis_hit):
            await cache.clear()
        for cache in (redis_miss, redis_hit, down, probing):
            await cache.aclose()

    header = f"{'':22}{'median':>10}{'p99':>10}"
    print(f"\n{header}   (ms; {rounds} questions each, answer() end to end)")
    for name, scenario in scenarios.items():
        ordered = sorted(scenario.samples)
        p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
        print(f"{name:22}{statistics.median(ordered):10.3f}{p99:10.3f}")
    baseline = statistics.median(scenarios["in-process miss"].samples)
    for name in ("Redis down", "Redis down, probing"):
        added = statistics.median(scenarios[name].samples) - baseline
        print(f"added by {name!r} vs an in-process miss: {added:+.3f} ms (median)")
    print(f"first question after Redis died: {tripping.samples[0]:.3f} ms (opens the breaker)")
    print(
        f"first question while Redis hangs (accepts, never replies): {hanging.samples[0]:.3f} ms"
        " (bounded by the socket timeout; then the breaker skips it for its cooldown)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.cache", description=__doc__)
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL") or "redis://127.0.0.1:6379/0"
    )
    parser.add_argument("--docs", type=Path, default=Path("docs"))
    args = parser.parse_args()
    asyncio.run(bench(args.rounds, args.redis_url, args.docs))


if __name__ == "__main__":
    main()
