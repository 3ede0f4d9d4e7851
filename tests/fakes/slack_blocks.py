"""Slack's documented Block Kit and message limits, checked the way the real API rejects them.

The fake Web API (:mod:`tests.fakes.slack_api`) runs every message and view through
:func:`block_problems`; a non-empty list becomes ``{"ok": false, "error": "invalid_blocks"}``
with the problems under ``errors``, so a renderer that oversteps a limit fails in tests the
way it would fail in a workspace. Limits from docs.slack.dev/reference/block-kit (see
/work/shared/slack-facts.md §7).
"""

from __future__ import annotations

from typing import Any

MAX_MESSAGE_BLOCKS = 50
MAX_MODAL_BLOCKS = 100
MAX_SECTION_TEXT = 3000
MAX_SECTION_FIELDS = 10
MAX_FIELD_TEXT = 2000
MAX_HEADER_TEXT = 150
MAX_ACTIONS_ELEMENTS = 25
MAX_CONTEXT_ELEMENTS = 10
MAX_BLOCK_ID = 255
MAX_BUTTON_TEXT = 75
MAX_ACTION_ID = 255
MAX_BUTTON_VALUE = 2000
MAX_BUTTON_URL = 3000
MAX_MODAL_TITLE = 24
MAX_PRIVATE_METADATA = 3000
MAX_POST_TEXT = 40_000
"""chat.postMessage truncates text beyond this."""
MAX_UPDATE_TEXT = 4_000
"""chat.update and chat.postEphemeral answer ``msg_too_long`` beyond this."""


def _text_of(obj: Any) -> str:
    if isinstance(obj, dict) and isinstance(obj.get("text"), str):
        return str(obj["text"])
    return ""


def _element_problems(where: str, element: Any, action_ids: set[str]) -> list[str]:
    if not isinstance(element, dict):
        return [f"{where}: element is not an object"]
    problems: list[str] = []
    action_id = element.get("action_id")
    if action_id is not None:
        if len(str(action_id)) > MAX_ACTION_ID:
            problems.append(f"{where}: action_id longer than {MAX_ACTION_ID}")
        if action_id in action_ids:
            problems.append(f"{where}: action_id {action_id!r} is not unique")
        action_ids.add(str(action_id))
    if element.get("type") == "button":
        label = _text_of(element.get("text"))
        if not label:
            problems.append(f"{where}: button without text")
        if len(label) > MAX_BUTTON_TEXT:
            problems.append(f"{where}: button text longer than {MAX_BUTTON_TEXT} ({len(label)})")
        if len(str(element.get("value", ""))) > MAX_BUTTON_VALUE:
            problems.append(f"{where}: button value longer than {MAX_BUTTON_VALUE}")
        if len(str(element.get("url", ""))) > MAX_BUTTON_URL:
            problems.append(f"{where}: button url longer than {MAX_BUTTON_URL}")
    return problems


MAX_CONTEXT_ACTIONS = 5
FEEDBACK_BUTTON_TEXT = 75


def _context_actions_problems(where: str, block: dict[str, Any], action_ids: set[str]) -> list[str]:
    """docs.slack.dev/reference/block-kit/blocks/context-actions-block: 1..5 feedback or icon
    buttons; a feedback button's text is plain_text of at most 75, its value at most 2000."""
    elements = block.get("elements") or []
    if not elements or len(elements) > MAX_CONTEXT_ACTIONS:
        return [f"{where}: context_actions needs 1..{MAX_CONTEXT_ACTIONS} elements"]
    problems: list[str] = []
    for element in elements:
        if element.get("type") not in {"feedback_buttons", "icon_button"}:
            problems.append(f"{where}: context_actions element {element.get('type')!r}")
            continue
        action_id = element.get("action_id")
        if action_id is not None and action_id in action_ids:
            problems.append(f"{where}: action_id {action_id!r} is not unique")
        action_ids.add(str(action_id))
        for side in ("positive_button", "negative_button"):
            if element["type"] != "feedback_buttons":
                break
            button = element.get(side) or {}
            text = button.get("text") or {}
            if text.get("type") != "plain_text" or len(str(text.get("text", ""))) > 75:
                problems.append(f"{where}: {side} text must be plain_text of at most 75")
            if not button.get("value") or len(str(button["value"])) > MAX_BUTTON_VALUE:
                problems.append(f"{where}: {side} value must be 1..{MAX_BUTTON_VALUE}")
    return problems


def _block_problems(where: str, block: dict[str, Any], action_ids: set[str]) -> list[str]:
    problems: list[str] = []
    kind = block.get("type")
    if kind == "section":
        text = _text_of(block.get("text"))
        fields = block.get("fields") or []
        if not text and not fields:
            problems.append(f"{where}: section needs text or fields")
        if len(text) > MAX_SECTION_TEXT:
            problems.append(f"{where}: section text longer than {MAX_SECTION_TEXT} ({len(text)})")
        if len(fields) > MAX_SECTION_FIELDS:
            problems.append(f"{where}: more than {MAX_SECTION_FIELDS} fields")
        problems += [
            f"{where}: field longer than {MAX_FIELD_TEXT}"
            for field in fields
            if len(_text_of(field)) > MAX_FIELD_TEXT
        ]
        if "accessory" in block:
            problems += _element_problems(where, block["accessory"], action_ids)
    elif kind == "header":
        if len(_text_of(block.get("text"))) > MAX_HEADER_TEXT:
            problems.append(f"{where}: header text longer than {MAX_HEADER_TEXT}")
    elif kind == "actions":
        elements = block.get("elements") or []
        if not elements or len(elements) > MAX_ACTIONS_ELEMENTS:
            problems.append(f"{where}: actions needs 1..{MAX_ACTIONS_ELEMENTS} elements")
        for element in elements:
            problems += _element_problems(where, element, action_ids)
    elif kind == "context_actions":
        problems += _context_actions_problems(where, block, action_ids)
    elif kind == "context":
        elements = block.get("elements") or []
        if not elements or len(elements) > MAX_CONTEXT_ELEMENTS:
            problems.append(f"{where}: context needs 1..{MAX_CONTEXT_ELEMENTS} elements")
    elif kind in {"divider", "input", "rich_text", "image", "markdown"}:
        pass
    else:
        problems.append(f"{where}: unknown block type {kind!r}")
    return problems


def block_problems(blocks: Any, *, limit: int = MAX_MESSAGE_BLOCKS) -> list[str]:
    """Every documented limit ``blocks`` breaks; empty when Slack would accept them."""
    if not isinstance(blocks, list):
        return ["blocks must be an array"]
    problems: list[str] = []
    if len(blocks) > limit:
        problems.append(f"more than {limit} blocks ({len(blocks)})")
    block_ids: set[str] = set()
    action_ids: set[str] = set()
    for position, block in enumerate(blocks):
        where = f"blocks[{position}]"
        if not isinstance(block, dict):
            problems.append(f"{where}: not an object")
            continue
        block_id = block.get("block_id")
        if block_id is not None:
            if len(str(block_id)) > MAX_BLOCK_ID:
                problems.append(f"{where}: block_id longer than {MAX_BLOCK_ID}")
            if block_id in block_ids:
                problems.append(f"{where}: block_id {block_id!r} is not unique")
            block_ids.add(str(block_id))
        problems += _block_problems(where, block, action_ids)
    return problems


def view_problems(view: Any) -> list[str]:
    """Limits of a modal or Home tab view."""
    if not isinstance(view, dict):
        return ["view must be an object"]
    problems: list[str] = []
    if view.get("type") == "modal":
        title = _text_of(view.get("title"))
        if not title or len(title) > MAX_MODAL_TITLE:
            problems.append(f"modal title must be 1..{MAX_MODAL_TITLE} characters")
        for part in ("submit", "close"):
            if len(_text_of(view.get(part))) > MAX_MODAL_TITLE:
                problems.append(f"modal {part} longer than {MAX_MODAL_TITLE}")
    elif view.get("type") != "home":
        problems.append(f"unknown view type {view.get('type')!r}")
    if len(str(view.get("private_metadata", ""))) > MAX_PRIVATE_METADATA:
        problems.append(f"private_metadata longer than {MAX_PRIVATE_METADATA}")
    return problems + block_problems(view.get("blocks", []), limit=MAX_MODAL_BLOCKS)
