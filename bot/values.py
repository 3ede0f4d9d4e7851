"""Fitting what a button carries into a platform's limit on its value.

A button value holds what a click needs (a review ticket, a vote) so that the click needs no
lookup. When it would run over the platform's limit the least needed parts go first: trailing
sources, then the end of the question.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from rag import CitebotError

Item = TypeVar("Item")


class ValueTooLong(CitebotError, ValueError):
    """Even without sources and question the value is over the limit."""


def fitted(
    render: Callable[[Sequence[Item], str], str],
    items: Sequence[Item],
    question: str,
    limit: int,
) -> str:
    """``render(items, question)`` within ``limit`` characters: trailing items dropped first,
    then the question shortened (never emptied: a one-character question is still one)."""
    kept = list(items)
    while True:
        value = render(kept, question)
        if len(value) <= limit:
            return value
        if kept:
            kept.pop()
        elif len(question) > 1:
            question = question[: len(question) - max(1, len(value) - limit)]
        else:
            msg = f"a button value is {len(value)} characters (max {limit}) even when bare"
            raise ValueTooLong(msg)
