"""One worked example, shown to the model as an earlier turn before the real question.

Small open models follow a shown answer far more readily than a written rule: told to "cite
every claim like [1]", a 1.5B model mostly writes no marker at all or refuses questions its
sources answer. One short exchange in the asker's language — the same tagged blocks the real
question comes in, and an answer that cites after every claim — shows both the format and that
answering from the sources is expected.

The example is invented and self-contained (a parking permit and a canteen), so it cannot be
mistaken for the organisation's documents, and its second source is there to be *not* cited:
the model sees that only the source a claim rests on is named.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rag.language import Language


@dataclass(frozen=True, slots=True)
class ExampleSource:
    header: str
    """What :func:`rag.generate.prompt.source_header` would write after ``[n]``."""
    sentences: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Example:
    question: str
    sources: tuple[ExampleSource, ...]
    answer: str
    """The cited answer, with ``{n.s}`` where a citation goes: rendered as ``[n]``, or as
    ``[n.s]`` when the sources are shown numbered by sentence (CITE_SENTENCES)."""

    def cited(self, *, sentences: bool) -> str:
        return _SLOT.sub(
            lambda slot: f"[{slot['n']}.{slot['s']}]" if sentences else f"[{slot['n']}]",
            self.answer,
        )


_SLOT = re.compile(r"\{(?P<n>\d+)\.(?P<s>\d+)\}")

EXAMPLES: dict[Language, Example] = {
    "en": Example(
        question="how much is a parking permit and where do I get one?",
        sources=(
            ExampleSource(
                "parking.md · Parking permits",
                (
                    "Staff may park in the north car park with a permit.",
                    "A permit costs 30 euros a month.",
                    "Permits are issued at the front desk.",
                ),
            ),
            ExampleSource(
                "canteen.md · Opening hours",
                (
                    "The canteen is open from 8:00 to 15:00.",
                    "It is closed on public holidays.",
                ),
            ),
        ),
        answer="A parking permit costs 30 euros a month {1.2}. You get it at the front desk {1.3}.",
    ),
    "zh": Example(
        question="停车证多少钱？在哪里办？",
        sources=(
            ExampleSource(
                "停车.md · 停车证",
                (
                    "员工凭停车证可在北区停车场停车。",
                    "停车证每月 30 元。",
                    "停车证在前台办理。",
                ),
            ),
            ExampleSource(
                "食堂.md · 开放时间",
                (
                    "食堂开放时间为 8:00 至 15:00。",
                    "法定节假日不开放。",
                ),
            ),
        ),
        answer="停车证每月 30 元{1.2}，在前台办理{1.3}。",
    ),
}
