"""Slack's limits and small formatting helpers, defined once (slack-facts §7).

Block Kit rejects a message over these (``invalid_blocks``, ``msg_too_long``); the renderers
cut or split below them. Sources: docs.slack.dev/reference/block-kit, cross-checked in
``slack_sdk/models/blocks``.
"""

from __future__ import annotations

from datetime import UTC, datetime

SECTION_TEXT = 3000
"""A section's text, a plain_text_input's value."""
SECTION_SAFE = 2900
"""What the renderers put in one section: room for the splitter's care at boundaries."""
MESSAGE_TEXT = 3900
"""A message's ``text``: under the recommended 4,000 and chat.update's hard limit."""
MAX_BLOCKS = 50
"""Blocks per message."""
ACTIONS_ELEMENTS = 25
"""Elements per actions block."""
BUTTON_TEXT = 75
"""A button's label."""
BUTTON_VALUE = 2000
"""A button's value."""
MODAL_TITLE = 24
"""A modal's title, submit and close labels."""


def slack_date(when: datetime | float) -> str:
    """A date Slack shows in each reader's own time zone, with a UTC fallback
    (``when``: a datetime, naive meaning UTC, or epoch seconds)."""
    if isinstance(when, datetime):
        moment = when if when.tzinfo else when.replace(tzinfo=UTC)
    else:
        moment = datetime.fromtimestamp(when, UTC)
    fallback = moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"<!date^{int(moment.timestamp())}^{{date_short_pretty}} {{time}}|{fallback}>"
