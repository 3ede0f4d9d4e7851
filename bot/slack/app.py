"""The Bolt app: listeners registered, one error handler, nothing else.

``build_app`` receives everything already built (client, answer pipeline, dedupe, the review
desk's hooks) from the composition root (``bot/root/slack.py``) or a test, and registers the thin
listeners. ``register_extra`` lets other parts (the review desk's actions, App Home) add their
listeners to the same app. Unexpected errors end in :func:`bot.slack.errors.apologise`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.answering import Answering
from bot.audience import Audiences
from bot.conversation import Conversations, FollowUpSwitch
from bot.dedupe import Dedupe
from bot.feedback import Feedback
from bot.ports import Answerer, ReviewHooks
from bot.questionlog import QuestionWatch
from bot.slack.errors import apologise
from bot.slack.listeners import assistant, questions, sources
from bot.slack.listeners import feedback as feedback_listeners
from rag import Rewriter, vote_store


def build_app(
    *,
    client: AsyncWebClient,
    signing_secret: str | None,
    answerer: Answerer,
    dedupe: Dedupe,
    review: ReviewHooks | None = None,
    register_extra: Callable[[AsyncApp], None] | None = None,
    log_questions: bool = False,
    audiences: Audiences | None = None,
    conversations: Conversations | None = None,
    rewriter: Rewriter | None = None,
    follow_ups: FollowUpSwitch | None = None,
    feedback: Feedback | None = None,
    watch: QuestionWatch | None = None,
) -> AsyncApp:
    """``signing_secret=None`` only for Socket Mode, where Slack does not sign requests.

    ``audiences``: who may see which documents where (SCOPES_FILE); ``None``: everyone, all.
    ``conversations``: what was asked earlier where (``None``: every question stands alone,
    no thread follow-ups); ``rewriter`` makes a follow-up standalone (rules by default);
    ``feedback`` keeps the 👍 / 👎 under answers and withdraws what two people vote down (in
    this process, withdrawing nothing, when not given); ``watch`` hears each question once
    it is done (the metrics)."""
    app = AsyncApp(
        client=client,
        signing_secret=signing_secret or "",
        request_verification_enabled=signing_secret is not None,
        process_before_response=False,
        name="citebot",
    )
    answering = Answering(
        answerer,
        review=review,
        conversations=conversations,
        rewriter=rewriter,
        log_questions=log_questions,
        watch=watch,
    )
    questions.register(
        app, answering=answering, dedupe=dedupe, audiences=audiences, follow_ups=follow_ups
    )
    sources.register(app, index=answerer.index, audiences=audiences)
    assistant.register(app, index=answerer.index, audiences=audiences)
    feedback_listeners.register(
        app,
        feedback=feedback or Feedback(vote_store(None, retention_days=30)),
        index=answerer.index,
    )
    if register_extra is not None:
        register_extra(app)

    @app.error
    async def on_error(error: Exception, body: dict[str, Any], client: AsyncWebClient) -> None:
        await apologise(client, body, error)

    return app
