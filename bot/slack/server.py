"""The HTTP side: ``POST /slack/events`` (events and interactivity) and ``GET /healthz``.

Bolt's aiohttp adapter is two functions (request in, response out); this wires them to a route.
The Bolt app is built at startup (its clients live on the event loop), after aiohttp has frozen
the application, so the route reads it from a slot filled then.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web
from slack_bolt.adapter.aiohttp import to_aiohttp_response, to_bolt_request
from slack_bolt.async_app import AsyncApp

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"


@dataclass
class BoltSlot:
    bolt: AsyncApp | None = None


BOLT: web.AppKey[BoltSlot] = web.AppKey("bolt", BoltSlot)


def _garbled_timestamp(value: str | None) -> bool:
    """A timestamp header that is not an integer: slack_sdk's verifier raises on it, and bolt
    would hand the *unverified* body to the error handler (which apologises in its channel)."""
    if value is None:
        return False  # missing: bolt's verification answers 401 itself
    try:
        int(value)
    except ValueError:
        return True
    return False


async def slack_events(request: web.Request) -> web.Response:
    bolt = request.app[BOLT].bolt
    if bolt is None:  # pragma: no cover - only between bind and startup
        return web.json_response({"error": "starting"}, status=503)
    if _garbled_timestamp(request.headers.get("X-Slack-Request-Timestamp")):
        return web.json_response({"error": "invalid request"}, status=401)
    response = await bolt.async_dispatch(await to_bolt_request(request))
    return await to_aiohttp_response(response)


def add_events_route(app: web.Application) -> None:
    app.router.add_post(EVENTS_PATH, slack_events)
