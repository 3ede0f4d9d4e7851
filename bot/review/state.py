"""Review state: the exactly-once guard on decisions and the list of open reviews.

Two places hold a review, on purpose:

- the **card** (its buttons carry a compact :class:`Ticket`: review id, origin channel, thread,
  asker, draft time, the sources' ids and hashes; the draft and question are on the card), so
  a review can still be decided after a restart or a Redis flush;
- **Redis** holds the full record while it is open (what App Home lists) and the guard: a
  decision is ``SET NX`` on the review id, so two reviewers clicking at once, or Slack
  delivering a click twice, apply it once; the loser reads who won and when.

When Redis is unset or fails (the shared :class:`rag.GuardedRedis`: short timeouts, one
breaker, one warning per outage), an in-process copy answers instead: one process stays
exactly-once — claims on one review are serialised in the process, so two clicks racing
inside it while Redis fails still apply once (and the loser learns the real winner); several
processes without Redis could not be, and say so in the log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypeVar

from redis.asyncio import Redis

from rag import GuardedRedis, RedisUnavailable, guarded

logger = logging.getLogger(__name__)

Kind = Literal["review", "gap"]
Verdict = Literal["approved", "edited", "rejected", "answered", "dismissed"]

MAX_VALUE_CHARS = 2000
"""Slack's limit on a button value."""

DECISION_TTL_SECONDS = 30 * 86400
MAX_LOCAL = 10_000
"""Decisions and "once" marks this process remembers (oldest forgotten first)."""
DEFAULT_PREFIX = "citebot:review:"
T = TypeVar("T")


class TicketError(ValueError):
    """A button value or modal metadata that is not one of ours (or from an old version)."""


@dataclass(frozen=True, slots=True)
class Ticket:
    """What a card's buttons carry: enough to deliver a decision with no server state."""

    review_id: str
    kind: Kind
    channel: str
    """Where the question was asked."""
    thread_ts: str
    """The asker's thread: decisions are posted there."""
    asker: str
    message_ts: str = ""
    """The question's own message (for its permalink)."""
    scope: str = "all"
    created: float = 0.0
    """When the draft (or the request for a human) was made, epoch seconds."""
    sources: tuple[tuple[str, str, float], ...] = ()
    """(chunk id, content hash, score) of each numbered source, in order."""
    question: str = ""
    """Only on "Ask a human" buttons (the refusal message does not show the question)."""

    def to_value(self) -> str:
        """Compact JSON within Slack's 2000 characters: trailing sources dropped, then the
        question shortened, if needed."""
        sources = list(self.sources)
        question = self.question
        while True:
            data: dict[str, Any] = {
                "v": 1,
                "r": self.review_id,
                "k": self.kind,
                "c": self.channel,
                "t": self.thread_ts,
                "u": self.asker,
                "m": self.message_ts,
                "s": self.scope,
                "a": round(self.created, 3),
                "h": [[cid, digest, round(score, 4)] for cid, digest, score in sources],
            }
            if question:
                data["q"] = question
            value = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
            if len(value) <= MAX_VALUE_CHARS:
                return value
            if sources:
                sources.pop()
            elif len(question) > 1:
                question = question[: len(question) - max(1, len(value) - MAX_VALUE_CHARS)]
            else:
                msg = f"ticket for review {self.review_id} is {len(value)} chars even bare"
                raise TicketError(msg)

    @classmethod
    def from_value(cls, value: str) -> Ticket:
        try:
            data = json.loads(value)
            if data.get("v") != 1 or data.get("k") not in ("review", "gap"):
                msg = f"unknown ticket version/kind in {value[:80]!r}"
                raise TicketError(msg)
            return cls(
                review_id=str(data["r"]),
                kind=data["k"],
                channel=str(data["c"]),
                thread_ts=str(data["t"]),
                asker=str(data["u"]),
                message_ts=str(data.get("m", "")),
                scope=str(data.get("s", "all")),
                created=float(data.get("a", 0.0)),
                sources=tuple((str(c), str(h), float(s)) for c, h, s in data.get("h", [])),
                question=str(data.get("q", "")),
            )
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            if isinstance(error, TicketError):
                raise
            msg = f"not a review ticket: {value[:80]!r}"
            raise TicketError(msg) from error


@dataclass(frozen=True, slots=True)
class Decision:
    verdict: Verdict
    reviewer: str
    at: float
    """Epoch seconds."""
    reason: str = ""

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: str | bytes) -> Decision:
        data = json.loads(raw)
        return cls(data["verdict"], data["reviewer"], float(data["at"]), data.get("reason", ""))


@dataclass(frozen=True, slots=True)
class OpenReview:
    """An undecided review as App Home lists it (and the draft when Redis still has it)."""

    ticket: Ticket
    question: str
    draft: str = ""
    card_channel: str = ""
    card_ts: str = ""
    permalink: str = ""
    problems: tuple[str, ...] = field(default=())

    def to_json(self) -> str:
        data: dict[str, Any] = {
            "ticket": self.ticket.to_value(),
            "question": self.question,
            "draft": self.draft,
            "card_channel": self.card_channel,
            "card_ts": self.card_ts,
            "permalink": self.permalink,
            "problems": list(self.problems),
        }
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, raw: str | bytes) -> OpenReview:
        data = json.loads(raw)
        return cls(
            ticket=Ticket.from_value(data["ticket"]),
            question=data["question"],
            draft=data.get("draft", ""),
            card_channel=data.get("card_channel", ""),
            card_ts=data.get("card_ts", ""),
            permalink=data.get("permalink", ""),
            problems=tuple(data.get("problems", ())),
        )


class ReviewState:
    """Redis when given (shared by every process), else — or when it fails — this process."""

    def __init__(
        self,
        redis: Redis | GuardedRedis | None = None,
        *,
        prefix: str = DEFAULT_PREFIX,
        clock: Callable[[], float] = time.time,
        owns_client: bool = False,
    ) -> None:
        self._redis = guarded(redis)
        self._owns_client = owns_client
        self._prefix = prefix
        self._clock = clock
        self._decisions: dict[str, Decision] = {}
        self._open: dict[str, OpenReview] = {}
        self._marks: dict[str, None] = {}
        self._claiming: dict[str, asyncio.Lock] = {}

    @property
    def _open_key(self) -> str:
        return f"{self._prefix}open"

    def _decision_key(self, review_id: str) -> str:
        return f"{self._prefix}decided:{review_id}"

    async def _shared(self, command: Callable[[Redis], Awaitable[T]], fallback: T) -> T:
        """``command`` on the shared Redis, or ``fallback`` when there is none or it is down
        (the shared breaker has logged the outage once)."""
        redis = self._redis
        if redis is None:
            return fallback
        try:
            return await redis.run(lambda: command(redis.client))
        except RedisUnavailable:
            return fallback

    async def claim(self, review_id: str, decision: Decision) -> Decision | None:
        """Record ``decision`` unless one exists: ``None`` if ours won, else the one that did."""
        # One claim per review at a time in this process: a click racing this one waits and
        # then sees the outcome, even when Redis fails and this process decides alone.
        async with self._claiming.setdefault(review_id, asyncio.Lock()):
            earlier = self._decisions.get(review_id)
            if earlier is not None:
                return earlier
            key, value, redis = self._decision_key(review_id), decision.to_json(), self._redis
            try:
                if redis is not None and not await redis.run(
                    lambda: redis.client.set(key, value, nx=True, ex=DECISION_TTL_SECONDS)
                ):
                    raw = await redis.run(lambda: redis.client.get(key))
                    if raw is not None:
                        return Decision.from_json(raw)
            except RedisUnavailable:
                logger.info("review guard: deciding %s in this process only", review_id)
            self._remember(self._decisions, review_id, decision)
            return None

    @staticmethod
    def _remember(store: dict[str, Any], key: str, value: Any) -> None:
        store[key] = value
        while len(store) > MAX_LOCAL:
            del store[next(iter(store))]

    async def first(self, key: str, *, ttl_seconds: int = DECISION_TTL_SECONDS) -> bool:
        """``True`` only for the first caller with ``key`` (e.g. one "Ask a human" per reply)."""
        if key in self._marks:
            return False
        self._remember(self._marks, key, None)
        once = f"{self._prefix}once:{key}"
        return bool(await self._shared(lambda r: r.set(once, "1", nx=True, ex=ttl_seconds), True))

    async def release(self, review_id: str) -> None:
        """Undo a claim whose decision could not be delivered, so it can be tried again."""
        self._decisions.pop(review_id, None)
        key = self._decision_key(review_id)
        await self._shared(lambda r: r.delete(key), 0)

    async def decision(self, review_id: str) -> Decision | None:
        key = self._decision_key(review_id)
        raw = await self._shared(lambda r: r.get(key), None)
        return Decision.from_json(raw) if raw is not None else self._decisions.get(review_id)

    async def open(self, review: OpenReview) -> None:
        review_id, value = review.ticket.review_id, review.to_json()
        self._open[review_id] = review
        await self._shared(lambda r: r.hset(self._open_key, review_id, value), 0)

    async def get(self, review_id: str) -> OpenReview | None:
        raw = await self._shared(lambda r: r.hget(self._open_key, review_id), None)
        return OpenReview.from_json(raw) if raw is not None else self._open.get(review_id)

    async def close(self, review_id: str) -> None:
        self._open.pop(review_id, None)
        await self._shared(lambda r: r.hdel(self._open_key, review_id), 0)

    async def pending(self) -> list[OpenReview]:
        """Open reviews, oldest first (this process's own when Redis is unset or down)."""
        stored = await self._shared(lambda r: r.hgetall(self._open_key), None)
        reviews = dict(self._open)
        if stored is not None:
            reviews = {}
            for value in stored.values():
                review = OpenReview.from_json(value)
                reviews[review.ticket.review_id] = review
        return sorted(reviews.values(), key=lambda review: review.ticket.created)

    async def aclose(self) -> None:
        """Closes the Redis client only if this object was told it owns it."""
        if self._redis is not None and self._owns_client:
            await self._redis.aclose()
