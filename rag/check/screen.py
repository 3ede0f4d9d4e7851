"""What happens to a model's draft before anyone sees it: the one decision the pipeline makes.

    recites its rules -> refusal (nobody sees it)
    says the refusal sentence -> refusal
    citation checker finds problems -> review channel (``flagged``)
    else -> the asker

Kept apart from the pipeline so ``python -m rag check-eval`` takes exactly the same decision
on recorded answers as the bot takes on live ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from rag.check.citations import Report, check
from rag.check.leak import recites_rules
from rag.language import Language
from rag.messages import is_refusal_text
from rag.problems import Problem
from rag.results import Hit

RefusalReason = Literal["recited_rules", "model_refused"]


@dataclass(frozen=True, slots=True)
class Screening:
    report: Report
    refused: RefusalReason | None = None
    """Why the draft became the refusal instead (then ``report`` is empty)."""

    @property
    def flagged(self) -> bool:
        """Sent to the review channel instead of the asker."""
        return self.refused is None and not self.report.ok


def screen(
    draft: str, hits: Sequence[Hit], *, question: str = "", language: Language | None = None
) -> Screening:
    """``language``: the asker's, which problems are written in (default: the draft's)."""
    if recites_rules(draft):
        # Talked into reciting its rules: nobody sees that, not even a reviewer.
        return Screening(Report(), "recited_rules")
    if is_refusal_text(draft):
        return Screening(Report(), "model_refused")
    return Screening(check(draft, hits, question=question, language=language))


def cut_problem(language: Language) -> Problem:
    """The reply stopped at LLM_MAX_TOKENS: what it would have said next is unknown."""
    if language == "zh":
        message = "模型的回答在 token 上限（LLM_MAX_TOKENS）处被截断，后面的内容没有写完"
    else:
        message = "the model's reply was cut at its token limit (LLM_MAX_TOKENS): it is unfinished"
    return Problem("reply_cut", message)


def with_problem(screening: Screening, problem: Problem) -> Screening:
    report = replace(screening.report, problems=(*screening.report.problems, problem))
    return replace(screening, report=report)
