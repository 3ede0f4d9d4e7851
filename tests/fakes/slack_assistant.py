"""The fake Slack API's ``assistant.threads.*`` methods, checked as Slack checks them.

``assistant.threads.setStatus`` (docs.slack.dev/reference/methods/assistant.threads.setStatus):
``channel_id``, ``thread_ts`` and ``status`` required (an empty status clears it), at most 10
``loading_messages``; errors ``channel_not_found``, ``invalid_thread_ts``, ``invalid_arguments``.
``missing_scope`` (with ``needed``/``provided``) and ``ratelimited`` (HTTP 429) are injected by
the test: ``slack.refuse_scope(...)`` / ``slack.rate_limit(...)``.
``assistant.threads.setSuggestedPrompts``: ``channel_id`` and 1–4 ``prompts`` of
``{"title", "message"}``.
"""

from __future__ import annotations

import json
import re
from typing import Any

Args = dict[str, Any]
Reply = dict[str, Any]

MAX_LOADING_MESSAGES = 10
MAX_PROMPTS = 4
_TS = re.compile(r"^\d+\.\d+$")


def _listed(value: Any) -> Any:
    """Form-encoded arrays arrive as JSON text."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return None
    return value


def _where_problem(args: Args, *, thread_required: bool) -> Reply | None:
    channel = args.get("channel_id")
    if not isinstance(channel, str) or channel[:1] not in {"C", "D", "G"}:
        return {"ok": False, "error": "channel_not_found"}
    thread = args.get("thread_ts")
    if thread is None and not thread_required:
        return None
    if not isinstance(thread, str) or not _TS.match(thread):
        return {"ok": False, "error": "invalid_thread_ts"}
    return None


def set_status(args: Args, statuses: list[Args]) -> Reply:
    problem = _where_problem(args, thread_required=True)
    if problem:
        return problem
    loading = _listed(args.get("loading_messages", []))
    if (
        not isinstance(args.get("status"), str)
        or not isinstance(loading, list)
        or len(loading) > MAX_LOADING_MESSAGES
    ):
        return {"ok": False, "error": "invalid_arguments"}
    statuses.append({**args, "loading_messages": loading})
    return {"ok": True}


def set_suggested_prompts(args: Args, prompts: list[Args]) -> Reply:
    problem = _where_problem(args, thread_required=False)
    if problem:
        return problem
    given = _listed(args.get("prompts"))
    if (
        not isinstance(given, list)
        or not 1 <= len(given) <= MAX_PROMPTS
        or not all(isinstance(p, dict) and p.get("title") and p.get("message") for p in given)
    ):
        return {"ok": False, "error": "invalid_arguments"}
    prompts.append({**args, "prompts": given})
    return {"ok": True}
