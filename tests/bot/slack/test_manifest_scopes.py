"""manifest.json asks for the scopes the code uses, no more, no fewer.

The Slack Web API methods are read from the code (every ``<client>.<method>(`` call in bot/
whose name is an ``AsyncWebClient`` method), the events from the listeners' registrations;
each method's and event's scopes are Slack's reference (docs.slack.dev/reference/methods/<m>,
/reference/events/<e>). A new call without its scope, or a scope nothing calls any more, fails
here instead of in a workspace admin's first hour.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from slack_sdk.web.async_client import AsyncWebClient

ROOT = Path(__file__).resolve().parents[3]

METHOD_SCOPES: dict[str, set[str]] = {
    "chat.postMessage": {"chat:write"},
    "chat.postEphemeral": {"chat:write"},
    "chat.update": {"chat:write"},
    "chat.delete": {"chat:write"},
    "auth.test": set(),  # no scope: who the token belongs to, asked at start
    "chat.getPermalink": set(),  # no scope
    "views.open": set(),
    "views.publish": set(),
    # the review channel may be public or private: both kinds of scope
    "conversations.members": {"channels:read", "groups:read"},
    "conversations.replies": {"channels:history", "groups:history"},
    "usergroups.users.list": {"usergroups:read"},
    # accepts assistant:write or chat:write; Slack is moving it to chat:write only
    "assistant.threads.setStatus": {"chat:write"},
    "assistant.threads.setSuggestedPrompts": {"assistant:write"},
}
"""Bot-token scopes of each method the code calls (Slack's method reference)."""

EVENT_SCOPES: dict[str, set[str]] = {
    "app_mention": {"app_mentions:read"},
    "message.im": {"im:history"},
    "message.channels": {"channels:history"},
    "message.groups": {"groups:history"},
    "assistant_thread_started": {"assistant:write"},
    "app_home_opened": set(),
}

LISTENED_AS = {"message": {"message.im", "message.channels", "message.groups"}}
"""``app.event("message")`` handles DMs and thread follow-ups in public and private channels."""


def manifest() -> dict[str, object]:
    data: dict[str, object] = json.loads((ROOT / "manifest.json").read_text(encoding="utf-8"))
    return data


def _calls(tree: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            names.add(node.func.attr)
    return names


def _events(tree: ast.AST) -> set[str]:
    """``app.event("x")`` / ``@app.event("x")`` registrations."""
    events = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "event"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            events.add(node.args[0].value)
    return events


def _sources() -> list[ast.AST]:
    return [ast.parse(path.read_text(encoding="utf-8")) for path in (ROOT / "bot").rglob("*.py")]


def called_methods() -> set[str]:
    client_methods = {
        name
        for name in dir(AsyncWebClient)
        if "_" in name and not name.startswith("_") and name not in {"api_call"}
    }
    called = set().union(*(_calls(tree) for tree in _sources())) & client_methods
    return {name.replace("_", ".") for name in called}


def listened_events() -> set[str]:
    events = set().union(*(_events(tree) for tree in _sources()))
    return set().union(*(LISTENED_AS.get(event, {event}) for event in events))


def test_the_code_calls_only_methods_whose_scopes_are_known() -> None:
    called = called_methods()
    assert "chat.postMessage" in called  # the scan finds calls at all
    assert called == set(METHOD_SCOPES), "add the new method's scopes from Slack's reference"


def test_the_manifest_subscribes_to_exactly_the_events_listened_to() -> None:
    settings = manifest()["settings"]
    assert isinstance(settings, dict)
    assert set(settings["event_subscriptions"]["bot_events"]) == listened_events()


def test_the_manifest_asks_for_exactly_the_scopes_the_code_uses() -> None:
    needed = set().union(*(METHOD_SCOPES[m] for m in called_methods()))
    needed |= set().union(*(EVENT_SCOPES[e] for e in listened_events()))
    features = manifest()["oauth_config"]
    assert isinstance(features, dict)
    asked = set(features["scopes"]["bot"])
    assert asked - needed == set(), "scopes nothing uses"
    assert needed - asked == set(), "scopes the code needs"
