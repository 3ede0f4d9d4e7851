"""Where one deployment's data lives in Redis: every key starts with its REDIS_KEY_PREFIX.

The prefix travels with the process's one :class:`~rag.storage.redis_guard.GuardedRedis`
(like the database number in REDIS_URL), and each store puts its own part after it::

    {prefix}answer:…          the answer cache (rag.cache.redis_backend)
    {prefix}reviewed:…        reviewed, rejected and withdrawn answers (rag.reviewed)
    {prefix}records:…         question and review records for ``rag report`` (rag.report.store)
    {prefix}votes:…           votes on answers (rag.feedback.votes)
    {prefix}index:…           build lock, version and shared vectors (rag.serving)
    {prefix}review:…          Slack's open reviews and decisions (bot.review.state)
    {prefix}feishu:review:…   Feishu's; {prefix}feishu:dedupe:… its event dedupe
    {prefix}dedupe:…          Slack's event dedupe (bot.dedupe)
    {prefix}conversation:…    thread and DM context (bot.conversation)
    {prefix}digest:…          the weekly digest's first run and claimed weeks (bot.digest)

So two deployments (or a test suite and a deployment) share one Redis database without seeing
each other's data when their prefixes differ and neither starts with the other.
"""

from __future__ import annotations

from pydantic import SecretStr

DEFAULT_KEY_PREFIX = "citebot:"
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
"""What redis-py accepts; anything else was a traceback at its first call."""


def checked_redis_url(raw: object) -> object:
    """REDIS_URL's value as given; a value redis-py would refuse with a traceback at its first
    call is refused here, as every setting is: one line (``ValueError``, which the settings
    report as it is), the URL shown without its password."""
    url = raw.get_secret_value() if isinstance(raw, SecretStr) else str(raw)
    if raw is None or url.lower().startswith(REDIS_SCHEMES):
        return raw
    shown = url if "@" not in url else "…@" + url.rsplit("@", 1)[1]
    msg = (
        f"REDIS_URL={shown!r} is not a Redis URL; set one such as redis://localhost:6379/0 (or "
        "rediss://, unix://), or unset it to keep everything in this process"
    )
    raise ValueError(msg)


def key_prefix_problem(prefix: str) -> str | None:
    """What is wrong with ``prefix`` as a key prefix, ``None`` when nothing is."""
    if not prefix:
        return "must not be empty (every key of the deployment starts with it)"
    if any(char.isspace() or not char.isprintable() for char in prefix):
        return "must not contain spaces or control characters"
    return None
