"""The App Home tab's listeners: republish the list of open reviews when it is opened.

The desk is injected by name (see :func:`bot.slack.listeners.review.register`).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.review.desk import ReviewDesk
from bot.slack.home import home_view

HOME_LINK = re.compile(r"^home_open_")


async def home_link(ack: Callable[[], Awaitable[Any]]) -> None:
    await ack()  # a link button: Slack opens the URL, the app only acknowledges


async def home_opened(event: dict[str, Any], client: AsyncWebClient, desk: ReviewDesk) -> None:
    if event.get("tab", "home") != "home":
        return
    user = str(event.get("user", ""))
    is_reviewer = await desk.is_reviewer(user)
    reviews = await desk.pending() if is_reviewer else []
    view = home_view(reviews, now=desk.now(), is_reviewer=is_reviewer)
    await client.views_publish(user_id=user, view=view)


def register(app: AsyncApp) -> None:
    app.action(HOME_LINK)(home_link)
    app.event("app_home_opened")(home_opened)
