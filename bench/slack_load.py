"""Load benchmark (not a test): signed mentions against the real bot process over HTTP.

Starts the fake Slack Web API (tests/fakes/slack_api.py) in a process of its own (so answering
the bot's calls never delays sending events or reading acks here), then the bot as a separate
process exactly as production runs it (``python -m bot``, HTTP mode, SLACK_API_URL
pointing at the fake, offline extractive answerer, lexical-only index so no model loads), and
sends signed ``app_mention`` events like Slack does. Everything stays on 127.0.0.1.

    .venv/bin/python bench/slack_load.py                      # burst: 100 concurrent mentions
    .venv/bin/python bench/slack_load.py --burst 200
    .venv/bin/python bench/slack_load.py --rate 20 --duration 30
    .venv/bin/python bench/slack_load.py --rate 50 --duration 30

Prints time to HTTP 200 (p50/p99), time to the final reply (p50/p99),
replies per second, duplicates (a question answered more than once), losses (never answered),
errors (non-200, failure sentences, Slack errors) and the bot process's peak RSS (VmHWM).
Questions are distinct by default (every one computed); ``--repeat`` lets the cache answer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rag.messages import MODEL_FAILURE, REFUSAL  # noqa: E402
from tests.fakes.slack_api import BOT_TOKEN  # noqa: E402
from tests.scenarios.harness import envelope, mention, sign  # noqa: E402

SIGNING_SECRET = "test-signing-secret-citebot"
QUESTIONS = [
    "退费怎么算？",
    "流利级多少钱？",
    "转班要交手续费吗？",
    "口语课一共几个级别？",
    "How many days of annual leave do I get?",
    "How do I request leave?",
    "What can I claim for travel expenses?",
    "How do I reset my password?",
    "课程顾问第一次回访要多久？",
    "退费多久到账？",
]
NULL_SERVER = """
import sys
from aiohttp import web
async def ok(request):
    await request.read()
    return web.json_response({})
app = web.Application()
app.router.add_post("/slack/events", ok)
app.router.add_get("/healthz", ok)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None)
"""
"""A server that only says 200: the same requests against it give the floor this client
itself adds (one Python process opening and timing hundreds of connections)."""
MAX_WAIT_SECONDS = 120.0
"""Bound on waiting for replies after the last request."""


FAKE_SLACK = """
import asyncio, signal, sys
sys.path.insert(0, sys.argv[2])
from tests.fakes.slack_api import FakeSlackApi

async def main():
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with FakeSlackApi(port=int(sys.argv[1])):
        await stop.wait()

asyncio.run(main())
"""


class FakeSlackProcess:
    """The fake Slack Web API in its own process; its records read over ``/_fake/calls``."""

    def __init__(self, http: aiohttp.ClientSession) -> None:
        self.http = http
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/api/"
        self.process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, "-c", FAKE_SLACK, str(self.port), str(ROOT)
        )
        for _ in range(200):  # up to 20 s
            try:
                await self.count()
                return
            except aiohttp.ClientError:
                await asyncio.sleep(0.1)
        raise SystemExit("the fake Slack API did not start")

    async def calls(self, since: int = 0) -> tuple[int, list[dict[str, Any]]]:
        url = f"http://127.0.0.1:{self.port}/_fake/calls?since={since}"
        async with self.http.get(url) as response:
            data = await response.json()
        return int(data["count"]), list(data["calls"])

    async def count(self) -> int:
        return (await self.calls(since=10**9))[0]

    async def updates_since(self, since: int) -> int:
        _, calls = await self.calls(since)
        return sum(1 for call in calls if call["method"] == "chat.update" and call["ok"])

    async def until_updates(self, since: int, expected: int, within: float) -> bool:
        """Poll (every 50 ms, at most ``within`` seconds) for ``expected`` chat.update calls."""
        deadline = time.time() + within
        while await self.updates_since(since) < expected:
            if time.time() > deadline:
                return False
            await asyncio.sleep(0.05)
        return True

    async def replies_since(self, since: int) -> int:
        _, calls = await self.calls(since)
        return len(finals(calls))

    async def until_replies(self, since: int, expected: int, within: float) -> bool:
        """Poll (every 50 ms, at most ``within`` seconds) for ``expected`` answered questions."""
        deadline = time.time() + within
        while await self.replies_since(since) < expected:
            if time.time() > deadline:
                return False
            await asyncio.sleep(0.05)
        return True

    async def stop(self) -> None:
        if self.process is not None:
            await stop(self.process)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def wait_healthy(
    process: asyncio.subprocess.Process, port: int, within: float = 60.0
) -> None:
    async with aiohttp.ClientSession() as http:
        for _ in range(round(within * 10)):  # to build the index and start
            try:
                async with http.get(f"http://127.0.0.1:{port}/healthz") as response:
                    if response.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            if process.returncode is not None:
                break
            await asyncio.sleep(0.1)
    process.kill()
    raise SystemExit("the server did not start (run `python -m bot` with the same env to see why)")


async def stop(process: asyncio.subprocess.Process) -> None:
    process.send_signal(signal.SIGINT)
    try:
        await asyncio.wait_for(process.wait(), 10)
    except TimeoutError:
        process.kill()
        await process.wait()


async def floor(args: argparse.Namespace) -> dict[str, float]:
    port = free_port()
    null = await asyncio.create_subprocess_exec(
        sys.executable, "-c", NULL_SERVER, str(port), stdout=asyncio.subprocess.DEVNULL
    )
    try:
        await wait_healthy(null, port)
        sent = await drive(args, f"http://127.0.0.1:{port}/slack/events")
    finally:
        await stop(null)
    acks = [elapsed for _, _, elapsed, _ in sent]
    return {
        "client_floor_ack_ms_p50": round(percentile(acks, 0.5) * 1000, 1),
        "client_floor_ack_ms_p99": round(percentile(acks, 0.99) * 1000, 1),
    }


async def start_bot(
    slack: FakeSlackProcess,
    port: int,
    work: Path,
    *,
    command: tuple[str, ...] = ("-m", "bot"),
    extra_env: dict[str, str] | None = None,
    within: float = 60.0,
) -> asyncio.subprocess.Process:
    """``python -m bot`` (or ``command``) in its own process against the fake Slack API."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "LLM_", "REDIS"))},
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": slack.url,
        "REVIEW_CHANNEL": "C0REVIEW",
        "PORT": str(port),
        "EMBEDDINGS": "none",
        "MIN_SCORE": os.environ.get("BENCH_MIN_SCORE", "-1.7"),
        "INDEX_DIR": str(work / "index"),
        **(extra_env or {}),
    }
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        *command,
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=(work / "bot.log").open("wb"),
    )
    await wait_healthy(process, port, within)
    return process


Sent = tuple[str, float, float, int]
"""Per mention: its ts, when it was sent, seconds to the HTTP response, the HTTP status."""


async def send(http: aiohttp.ClientSession, url: str, text: str) -> Sent:
    event = mention(text)
    body = json.dumps(envelope(event)).encode()
    headers = {"Content-Type": "application/json", **sign(body)}
    started = time.time()  # wall clock: compared with the fake Slack process's records
    try:
        async with http.post(url, data=body, headers=headers) as response:
            await response.read()
            status = response.status
    except aiohttp.ClientError:
        status = -1
    return event["ts"], started, time.time() - started, status


async def drive(args: argparse.Namespace, url: str) -> list[Sent]:
    connector = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=connector) as http:

        def question(i: int) -> str:
            base = QUESTIONS[i % len(QUESTIONS)]
            return base if args.repeat else f"{base} #{i}"

        if args.rate:
            total = int(args.rate * args.duration)
            start = time.perf_counter()
            tasks = []
            for i in range(total):
                delay = start + i / args.rate - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                tasks.append(asyncio.create_task(send(http, url, question(i))))
            return list(await asyncio.gather(*tasks))
        return list(
            await asyncio.gather(*(send(http, url, question(i)) for i in range(args.burst)))
        )


def finals(calls: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each answered question's final reply, by the question's ts: the reply posted in its
    thread after the assistant status, or the placeholder's update when the bot fell back to a
    placeholder (a status Slack refused)."""
    posted: dict[str, dict[str, Any]] = {}
    for call in calls:
        if call["method"] == "chat.postMessage" and call["ok"]:
            posted.setdefault(call["args"].get("thread_ts") or "", call)
    updates = {c["args"]["ts"]: c for c in calls if c["method"] == "chat.update" and c["ok"]}
    return {thread: updates.get(first["ts"], first) for thread, first in posted.items() if thread}


def report(calls: list[dict[str, Any]], sent: list[Sent], wall: float) -> dict[str, Any]:
    placeholders: dict[str, list[str]] = {}
    for call in calls:
        if call["method"] == "chat.postMessage" and call["ok"]:
            placeholders.setdefault(call["args"].get("thread_ts") or "", []).append(call["ts"])
    replies = finals(calls)
    failures, refusals = set(MODEL_FAILURE.values()), set(REFUSAL.values())
    to_final, lost, failed, refused = [], 0, 0, 0
    for ts, started, _, _ in sent:
        final = replies.get(ts)
        if final is None:
            lost += 1
            continue
        to_final.append(final["at"] - started)
        failed += final["args"].get("text") in failures
        refused += final["args"].get("text") in refusals
    acks = [elapsed for _, _, elapsed, _ in sent]
    slack_errors = sum(1 for c in calls if not c["ok"])
    return {
        "requests": len(sent),
        "ack_ms_p50": round(percentile(acks, 0.5) * 1000, 1),
        "ack_ms_p99": round(percentile(acks, 0.99) * 1000, 1),
        "final_reply_ms_p50": round(percentile(to_final, 0.5) * 1000, 1),
        "final_reply_ms_p99": round(percentile(to_final, 0.99) * 1000, 1),
        "replies_per_second": round(len(to_final) / wall, 1) if wall else None,
        "duplicates": sum(max(0, len(v) - 1) for v in placeholders.values()),
        "losses": lost,
        "refusals": refused,
        "errors": sum(1 for *_, status in sent if status != 200) + failed + slack_errors,
        "mean_ack_ms": round(statistics.fmean(acks) * 1000, 1) if acks else None,
    }


async def measure(
    slack: FakeSlackProcess, bot: asyncio.subprocess.Process, port: int, args: argparse.Namespace
) -> dict[str, Any]:
    """Warm the bot up with one question, then drive ``args``' mentions and count the replies."""
    url = f"http://127.0.0.1:{port}/slack/events"
    await drive(argparse.Namespace(burst=1, rate=0, duration=1, repeat=True), url)
    await slack.until_replies(0, 1, within=30)  # warm-up: auth.test, first answer
    await asyncio.sleep(0.2)
    since = await slack.count()
    started = time.time()
    sent = await drive(args, url)
    await slack.until_replies(since, len(sent), within=MAX_WAIT_SECONDS)
    wall = time.time() - started
    await asyncio.sleep(0.5)  # let stragglers (duplicates) show
    _, calls = await slack.calls(since)
    result = report(calls, sent, wall)
    result["peak_rss_mib"] = round(peak_rss_mib(bot.pid), 1)
    return result


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--burst", type=int, default=100, help="concurrent mentions (default 100)")
    parser.add_argument("--rate", type=float, default=0.0, help="steady mentions per second")
    parser.add_argument("--duration", type=float, default=30.0, help="seconds at --rate")
    parser.add_argument("--repeat", action="store_true", help="repeat questions (cache hits)")
    args = parser.parse_args()
    if (
        not (0 < args.burst <= 5000)
        or not (0 <= args.rate <= 500)
        or not (0 < args.duration <= 600)
    ):
        raise SystemExit("keep it bounded: --burst 1..5000, --rate 0..500, --duration 1..600")
    async with aiohttp.ClientSession() as http:
        slack = FakeSlackProcess(http)
        await slack.start()
        port = free_port()
        work = Path(tempfile.mkdtemp(prefix="citebot-bench-"))
        try:
            bot = await start_bot(slack, port, work)
        except BaseException:
            await slack.stop()
            raise
        try:
            result = await measure(slack, bot, port, args)
        finally:
            await stop(bot)
            await slack.stop()
        result.update(await floor(args))
        burst = f"burst {args.burst}"
        mode = f"rate {args.rate}/s for {args.duration}s" if args.rate else burst
        print(json.dumps({"mode": mode, **result}, ensure_ascii=False, indent=2))
        print(f"bot log (one JSON line per question): {work / 'bot.log'}", file=sys.stderr)


if __name__ == "__main__":
    asyncio.run(main())
