"""Posting the weekly digest (:mod:`bot.digest`) to REVIEW_CHANNEL, and nowhere else."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from slack_sdk.web.async_client import AsyncWebClient


def poster(client: AsyncWebClient, review_channel: str) -> Callable[[str], Awaitable[None]]:
    async def post(text: str) -> None:
        await client.chat_postMessage(
            channel=review_channel, text=text, unfurl_links=False, unfurl_media=False
        )

    return post
