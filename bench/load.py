"""Load benchmark (not a test): many signed mentions at once, with and without a flaky model.

Three scenarios, each against a fresh bot process on 127.0.0.1 built exactly as
``python -m bot`` builds it (HTTP mode, offline extractive answerer, lexical-only index over
docs/, in-process cache and dedupe), talking to the fake Slack Web API:

- ``burst``:  N distinct mentions sent concurrently (default 200);
- ``flaky``:  the same burst while 30 % of chat-model calls fail on their first attempt with a
  retryable HTTP 503 — the Generator retries them after a short injected wait (50–200 ms);
- ``steady``: mentions at a steady rate (default 50/s for 10 s).

For each: acknowledgement latency (HTTP 200) p50/p99, time to the final reply (placeholder
replaced) p50/p99, replies per second, duplicates, losses, errors (non-200, failure sentences,
Slack errors), unhandled errors (tracebacks in the bot's log) and the bot's peak RSS.

    .venv/bin/python -m bench.load                       # all three scenarios, ~1 minute
    .venv/bin/python -m bench.load --scenario flaky --burst 200 --fail-rate 0.3
    .venv/bin/python -m bench.load --scenario steady --rate 50 --duration 20

The harness (fake Slack in its own process, sending, matching replies to questions, the client
floor) is bench/slack_load.py's; this file adds the flaky chat model and the scenarios. Every
loop is bounded and the bot processes are stopped at the end. Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import os
import random
import sys
import tempfile
from pathlib import Path
from typing import Any

import aiohttp
import httpx2
import openai
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatResult
from tenacity.wait import wait_exponential_jitter

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.slack_load import (  # noqa: E402
    FakeSlackProcess,
    floor,
    free_port,
    measure,
    start_bot,
    stop,
)

MAX_WAIT_SECONDS = 120.0
"""Bound on waiting for replies after the last request."""
RETRY_WAIT = wait_exponential_jitter(multiplier=0.05, max=0.2, jitter=0.05)
"""Short waits between attempts in the flaky scenario (production waits ~1, 2, 4 s)."""


class FlakyChatModel(BaseChatModel):
    """Fails a share of *first* attempts with a retryable 503, then answers via ``inner``.

    A prompt is "seen" after its first attempt (content digest), so every question fails at
    most once and a retry always gets through: the failures are transient by construction.
    Seeded, so two runs fail the same questions.
    """

    inner: BaseChatModel
    fail_rate: float = 0.3
    seed: int = 7
    failures: int = 0
    calls: int = 0
    seen: set[str] = set()  # noqa: RUF012 - pydantic copies field defaults per instance

    @property
    def _llm_type(self) -> str:
        return f"flaky-{self.inner._llm_type}"

    def _fail_now(self, messages: list[BaseMessage]) -> bool:
        self.calls += 1
        digest = hashlib.blake2b(
            "\x1e".join(m.text for m in messages).encode(), digest_size=16
        ).hexdigest()
        if digest in self.seen:
            return False
        self.seen.add(digest)
        draw = random.Random(f"{self.seed}:{digest}").random()
        return draw < self.fail_rate

    def _overloaded(self) -> openai.InternalServerError:
        self.failures += 1
        request = httpx2.Request("POST", "http://flaky.invalid/v1/chat/completions")
        response = httpx2.Response(503, request=request)
        return openai.InternalServerError("overloaded (injected)", response=response, body=None)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self._fail_now(messages):
            raise self._overloaded()
        return self.inner._generate(messages, stop=stop, **kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self._fail_now(messages):
            raise self._overloaded()
        return await self.inner._agenerate(messages, stop=stop, **kwargs)


def serve() -> int:
    """The bot as ``python -m bot`` composes it (HTTP mode, :func:`bot.root.compose.compose`), over
    ``rag.build_pipeline``'s pipeline (no DOCS_DIR follower) with the flaky model when
    BENCH_FAIL_RATE > 0, and no question records. Runs in the child process the benchmark
    starts."""
    from aiohttp import web

    from bot.metrics.observers import CoreMetrics
    from bot.root.compose import compose
    from bot.root.config import Config
    from bot.root.services import ClosablePipeline, Seams
    from rag import GuardedRedis, ReviewedAnswers
    from rag.assemble import build_pipeline
    from rag.generate.llm import Generator
    from rag.generate.retry import RetryPolicy

    fail_rate = float(os.environ.get("BENCH_FAIL_RATE", "0"))

    def pipeline(
        config: Config, redis: GuardedRedis | None, reviewed: ReviewedAnswers, _core: CoreMetrics
    ) -> ClosablePipeline:
        built = build_pipeline(config.bot.rag, redis=redis, reviewed=reviewed)
        if fail_rate > 0:
            flaky = FlakyChatModel(inner=built.generator.model, fail_rate=fail_rate)
            policy = RetryPolicy(
                max_attempts=config.bot.rag.llm_max_attempts,
                deadline_seconds=config.bot.rag.llm_deadline_seconds,
                backoff=RETRY_WAIT,
            )
            built.generator = Generator(flaky, policy)
        return built

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    composed = compose(os.environ, Seams(pipeline=pipeline, records=lambda *_: None))
    assert composed.app is not None, "the benchmark sets SLACK_BOT_TOKEN"
    port = composed.config.bot.port
    web.run_app(composed.app, host="127.0.0.1", port=port, access_log=None, print=None)
    return 0


def log_counts(log: Path) -> dict[str, int]:
    text = log.read_text(encoding="utf-8", errors="replace")
    return {
        "unhandled_errors": text.count("Traceback (most recent call last)"),
        "model_retries": text.count("chat model call failed"),
    }


async def scenario(name: str, args: argparse.Namespace, *, fail_rate: float) -> dict[str, Any]:
    drive_args = argparse.Namespace(
        burst=args.burst,
        rate=args.rate if name == "steady" else 0.0,
        duration=args.duration,
        repeat=False,
    )
    work = Path(tempfile.mkdtemp(prefix=f"citebot-load-{name}-"))
    async with aiohttp.ClientSession() as http:
        slack = FakeSlackProcess(http)
        await slack.start()
        try:
            port = free_port()
            bot = await start_bot(
                slack,
                port,
                work,
                command=("-m", "bench.load", "--serve"),
                extra_env={"BENCH_FAIL_RATE": str(fail_rate)},
            )
            try:
                result = await measure(slack, bot, port, drive_args)
            finally:
                await stop(bot)
        finally:
            await slack.stop()
    result.update(log_counts(work / "bot.log"))
    mode = (
        f"{drive_args.rate:g}/s for {drive_args.duration:g} s"
        if drive_args.rate
        else f"burst {drive_args.burst}"
    )
    return {"scenario": name, "mode": mode, "fail_rate": fail_rate, **result, "log": str(work)}


async def run(args: argparse.Namespace) -> None:
    chosen = ["burst", "flaky", "steady"] if args.scenario == "all" else [args.scenario]
    results = []
    for name in chosen:
        fail_rate = args.fail_rate if name == "flaky" else 0.0
        result = await scenario(name, args, fail_rate=fail_rate)
        print(json.dumps(result, ensure_ascii=False), flush=True)
        results.append(result)
    if args.floor:
        burst = argparse.Namespace(burst=args.burst, rate=0.0, duration=1.0, repeat=False)
        print(json.dumps({"client_floor": await floor(burst)}), flush=True)
    print(table(results))


def table(results: list[dict[str, Any]]) -> str:
    columns = [
        ("scenario", "scenario"),
        ("mode", "mode"),
        ("ack_ms_p50", "ack p50 ms"),
        ("ack_ms_p99", "ack p99 ms"),
        ("final_reply_ms_p50", "reply p50 ms"),
        ("final_reply_ms_p99", "reply p99 ms"),
        ("replies_per_second", "replies/s"),
        ("duplicates", "dup"),
        ("losses", "lost"),
        ("errors", "errors"),
        ("unhandled_errors", "unhandled"),
        ("model_retries", "retries"),
        ("peak_rss_mib", "RSS MiB"),
    ]
    head = "| " + " | ".join(label for _, label in columns) + " |"
    rule = "|" + "|".join("---" for _ in columns) + "|"
    rows = ["| " + " | ".join(str(r.get(key)) for key, _ in columns) + " |" for r in results]
    return "\n".join([head, rule, *rows])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=["all", "burst", "flaky", "steady"], default="all")
    parser.add_argument("--burst", type=int, default=200, help="concurrent mentions (200)")
    parser.add_argument("--fail-rate", type=float, default=0.3, help="flaky share (0.3)")
    parser.add_argument("--rate", type=float, default=50.0, help="steady mentions/s (50)")
    parser.add_argument("--duration", type=float, default=10.0, help="steady seconds (10)")
    parser.add_argument("--floor", action="store_true", help="also measure the client floor")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve()
    if (
        not (0 < args.burst <= 2000)
        or not (0 < args.rate <= 200)
        or not (0 < args.duration <= 60)
        or not (0 <= args.fail_rate < 1)
    ):
        msg = "keep it bounded: --burst 1..2000, --rate 1..200, --duration 1..60, --fail-rate 0..<1"
        raise SystemExit(msg)
    asyncio.run(run(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
