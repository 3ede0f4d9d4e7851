"""The recital guard (rag/check/leak.py): the rules recited, whole or in part, are recognised; real
answers, refusals and questions about company rules are not."""

from __future__ import annotations

import pytest

from rag.check.leak import recites_rules
from rag.generate.prompt import SYSTEM_RULES
from rag.messages import REFUSAL

RECITALS = [
    SYSTEM_RULES,
    SYSTEM_RULES.upper(),
    "Sure! " + " ".join(SYSTEM_RULES.split()[:30]),
    SYSTEM_RULES.replace("\n", " [1]\n"),
    "规则如下：" + SYSTEM_RULES.splitlines()[3] + "【1】" + SYSTEM_RULES.splitlines()[4],
]
HONEST = [
    "退费金额 = 已付金额 × 剩余课时 ÷ 总课时 − 手续费[1]。手续费为可退金额的 5%，最低 50 元[1]。",
    "Full-time employees receive 20 days of paid annual leave per year [1].",
    "Requests go to your line manager two weeks ahead [2]. Use only the official form [2].",
    "The travel policy: cite the cost centre on every claim, never add personal items [1].",
    *REFUSAL.values(),
]


@pytest.mark.parametrize("text", RECITALS)
def test_a_recital_of_the_rules_is_recognised(text: str) -> None:
    assert recites_rules(text)


@pytest.mark.parametrize("text", HONEST)
def test_answers_and_refusals_are_not_mistaken_for_a_recital(text: str) -> None:
    assert not recites_rules(text)
