"""The checker's problems as a review card shows them: each sentence quoted once, what is
wrong with it under it (with the source marker it cites), answer-wide problems first.

Platform-neutral: :mod:`bot.slack.review_cards` and :mod:`bot.feishu.review_cards` draw the
same groups in their own markup. The problems arrive written in the asker's language (the
checker writes them so), which is also the language of the card's own labels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.review.texts import Texts
from rag import Problem, by_sentence

MAX_GROUPS = 8
"""Sentences with problems shown on one card; the rest are counted (the draft is above)."""
MAX_PER_GROUP = 6
QUOTE_CHARS = 300
"""A sentence longer than this is quoted by its start (the draft shows it whole)."""


@dataclass(frozen=True, slots=True)
class Shown:
    sentence: str
    """The sentence, on one line, cut to QUOTE_CHARS; empty for the answer as a whole."""
    heading: str
    """What stands above the notes: the quoted sentence, or "the answer as a whole"."""
    notes: tuple[str, ...]


def shown_problems(problems: Sequence[Problem], texts: Texts) -> tuple[list[Shown], int]:
    """The groups a card shows, and how many problems it leaves out."""
    groups = by_sentence(problems)
    shown: list[Shown] = []
    for group in groups[:MAX_GROUPS]:
        sentence = _one_line(group.sentence)
        heading = texts.quoted.format(sentence=sentence) if sentence else texts.whole_answer
        notes = tuple(problem.said for problem in group.problems[:MAX_PER_GROUP])
        shown.append(Shown(sentence, heading, notes))
    left_out = len(problems) - sum(len(group.notes) for group in shown)
    return shown, left_out


def _one_line(sentence: str) -> str:
    sentence = " ".join(sentence.split())
    return sentence if len(sentence) <= QUOTE_CHARS else sentence[: QUOTE_CHARS - 1] + "…"
