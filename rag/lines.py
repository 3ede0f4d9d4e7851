"""What a line of Markdown-ish text is: a list item, a table row, a table's rule, a heading.

One grammar for every reader, so the offline answerer (which quotes a source's list under its
lead-in) and the checker (which reads the answer's items, and a cited table's rows) never read
the same text differently:

- a **list item** starts with a bullet followed by a space (``- `` ``* `` ``+ `` ``• ``), a
  number (``3. `` ``2)`` ``3、`` ``（2）`` ``三、``; not ``3.5``) or a step label (``Step 2:``,
  ``步骤 2：``, ``第二步：``); bold text (``**计算**``) is not a bullet;
- a **table row** starts with ``|``; a table's **rule** is the line under its header row,
  cells of dashes with optional colons (``| --- | :---: |``, ``|--|--|``);
- a **block** (its own paragraph) starts at a list item, a quote (``>``), a table row or a
  heading (``#`` to ``######`` and a space).
"""

from __future__ import annotations

import re

NUMBERING = r"\d{1,2}(?:[.．](?!\d)|[)、])|[(（]\d{1,2}[)）]|[一二三四五六七八九十]+、"
"""An item's number: "3. ", "2)", "（2）", "三、" (not the "3.5" of an amount)."""
_STEP = r"\**(?:(?i:step)\s*\d{1,2}|步骤\s*\d{1,2}|第[一二三四五六七八九十]{1,3}步)\s*[:：.、]\**"
ITEM_MARKER = rf"[-*+•](?=\s)|{NUMBERING}|{_STEP}"
"""A list item's marker, as regex text: a bullet, a number or a step label."""

_LIST_ITEM = re.compile(rf"^\s*(?:{ITEM_MARKER})")
_BLOCK_START = re.compile(rf"^\s*(?:{ITEM_MARKER}|[>|]|#{{1,6}}\s)")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
LEADING_MARKER = re.compile(rf"^\s*(?:{ITEM_MARKER}|>+|#{{1,6}})\s*")
"""A line's list marker, quote marks or heading hashes, with the spaces after them."""


def is_list_item(line: str) -> bool:
    return _LIST_ITEM.match(line) is not None


def is_table_row(line: str) -> bool:
    return line.lstrip().startswith("|")


def is_table_rule(line: str) -> bool:
    """The ``| --- | --- |`` line under a table's header row."""
    return "|" in line and "-" in line and _TABLE_RULE.match(line) is not None


def is_table_header(lines: list[str], number: int) -> bool:
    """``lines[number]`` is a table's header row: a row with its rule under it."""
    following = lines[number + 1] if number + 1 < len(lines) else ""
    return is_table_row(lines[number]) and is_table_rule(following)


def starts_block(line: str) -> bool:
    """The line starts its own paragraph: list item, quote, table row or heading."""
    return _BLOCK_START.match(line) is not None


def without_marker(text: str) -> str:
    """``text`` without its leading list marker, quote marks or heading hashes."""
    return LEADING_MARKER.sub("", text, count=1)
