"""The weekly digest for REVIEW_CHANNEL: what the documents could not answer this week.

Content (platform-neutral text): the most-asked unanswered questions, grouped by meaning as in
``rag report``; the review backlog; how many 👎 on how many answers. Posting is the platform's
(:mod:`bot.slack.digest`), and only ever to REVIEW_CHANNEL — the channel trusted with every
scope, since the questions come from every channel.

Schedule (``DIGEST=weekly``, the default; ``off``): never at start-up. The first digest is due
one week after the bot first ran (remembered in Redis, else under INDEX_DIR), then weekly. Each
week is claimed once across all processes (Redis ``SET NX``, else an exclusive file create), so
however many processes run, one digest is posted per week.

Redis goes through the process's guarded client (:class:`rag.GuardedRedis`): while it is away
the breaker has said so once, and a check that needed it waits for the next one quietly — no
traceback every ten minutes of an outage.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from bot.review.state import ReviewState
from rag import GuardedRedis, RecordStore, RedisUnavailable, VoteStore, build_report

logger = logging.getLogger(__name__)

WEEK_SECONDS = 7 * 86400
CHECK_SECONDS = 600.0
"""How often a process checks whether a digest is due (a week late by at most this)."""
TOP_QUESTIONS = 5
KEYS = "digest:"
"""The digest's part of the deployment's keys, after REDIS_KEY_PREFIX."""


def digest_text(report: dict[str, Any], backlog: int) -> str:
    totals = report["totals"]
    lines = [
        f"*Weekly digest* ({report['since'][:10]} – {report['until'][:10]}): "
        f"{totals['asked']} questions, {totals['answered']} answered, {totals['refused']} "
        f"refused, {totals['sent_to_review']} sent to review.",
        "",
        "*Asked but not answered by the documents* (most asked first):",
    ]
    groups = report["unanswered"][:TOP_QUESTIONS]
    for group in groups:
        wording = group["question"] or "(text not kept: RECORD_QUESTIONS=false)"
        lines.append(f"• {group['count']}× {wording}")
    if not groups:
        lines.append("• none this week")
    feedback = report["feedback"]
    down = feedback["down"]
    lines += [
        "",
        f"*Review backlog:* {backlog} open",
        "*👎 feedback:* "
        + ("not readable" if down is None else f"{down} on {feedback['answers_down']} answers"),
    ]
    return "\n".join(lines)


class WeekClaims:
    """When the bot first ran, and which week's digest is already claimed — shared."""

    def __init__(self, redis: GuardedRedis | None, directory: Path) -> None:
        """Raise :class:`rag.RedisUnavailable` while Redis is away (never a redis-py error)."""
        self.redis = redis
        self.directory = directory / "digest"

    async def first_run(self, now: float) -> float:
        if self.redis is not None:
            client, key = self.redis.client, f"{self.redis.key_prefix}{KEYS}first-run"
            await self.redis.run(lambda: client.set(key, str(now), nx=True))
            value = await self.redis.run(lambda: client.get(key))
            return float(value) if value is not None else now
        # On the loop, not in a thread: creating one small file takes microseconds, and a
        # thread cancelled at shutdown went on writing into INDEX_DIR while it was removed.
        return self._file_first_run(now)

    def _file_first_run(self, now: float) -> float:
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / "first-run"
        if self._create(path, str(now)):
            return now
        return float(path.read_text(encoding="utf-8"))

    async def claim(self, week: int) -> bool:
        if self.redis is not None:
            client, key = self.redis.client, f"{self.redis.key_prefix}{KEYS}week:{week}"
            claimed = await self.redis.run(
                lambda: client.set(key, str(os.getpid()), nx=True, ex=2 * WEEK_SECONDS)
            )
            return bool(claimed)
        return self._create(self.directory / f"week-{week}", "")  # on the loop, as above

    @staticmethod
    def _create(path: Path, text: str) -> bool:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            with path.open("x", encoding="utf-8") as file:  # exclusive: one creator wins
                file.write(text)
        except FileExistsError:
            return False
        return True


def weekly_report(
    records: RecordStore, state: ReviewState, votes: VoteStore | None = None
) -> Callable[[], Awaitable[str]]:
    """The digest's text from the last week's records, votes and the open reviews (``votes``
    ``None``, or unreadable now: the 👎 line says so instead of a count)."""

    async def compose() -> str:
        until = time.time()
        since = until - WEEK_SECONDS
        questions, reviews = await records.questions(since), await records.reviews(since)
        voted = None
        if votes is not None:
            with contextlib.suppress(RedisUnavailable, OSError):
                voted = await votes.since(since)
        # Identical questions are grouped (as spelled); ``rag report`` also groups by meaning.
        report = build_report(
            questions,
            reviews,
            since=since,
            until=until,
            where=records.where,
            documents=None,
            embeddings=None,
            votes=voted,
        )
        return digest_text(report, len(await state.pending()))

    return compose


class WeeklyDigest:
    def __init__(
        self,
        claims: WeekClaims,
        compose: Callable[[], Awaitable[str]],
        post: Callable[[str], Awaitable[None]],
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.claims = claims
        self.compose = compose
        self.post = post
        self.clock = clock
        self.sleep = sleep
        self._first: float | None = None

    async def tick(self) -> bool:
        """Post this week's digest if it is due and no process has; ``True`` when posted."""
        now = self.clock()
        if self._first is None:
            self._first = await self.claims.first_run(now)
        week = int((now - self._first) // WEEK_SECONDS)
        if week < 1 or not await self.claims.claim(week):
            return False
        await self.post(await self.compose())
        logger.info("weekly digest %d posted", week)
        return True

    async def run(self) -> None:
        while True:
            try:
                await self.tick()
            except RedisUnavailable:
                # The guarded client warned once when the outage began; a week's claim must be
                # shared, so this check waits for the next one.
                logger.debug("weekly digest check skipped: Redis unavailable")
            except Exception:
                # A background loop that must outlive any one failed week (Redis away, Slack
                # refusing, a bug in one report): logged, and checked again later.
                logger.exception("weekly digest check failed; trying again later")
            await self.sleep(CHECK_SECONDS)
