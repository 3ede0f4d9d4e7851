from __future__ import annotations

import pytest

from rag.check.screen import screen
from rag.check.yes_no import asks_yes_or_no
from tests.rag.factories import make_hit

RELEASE_ZH = "这个版本带来很多新的特性，比如四层协议的代理，支持 MQTT 协议代理。"
RELEASE_EN = "This release brings layer-4 proxying and supports proxying MQTT traffic."


@pytest.mark.parametrize(
    "question",
    [
        "apisix 支持 dubbo3 的 triple 协议吗？",
        "能不能把日志等级调成 info",
        "插件是否支持热加载？",
        "年假可以顺延到明年么",
        "Does APISIX support Dubbo3?",
        "can I carry leave over to next year",
        "Thanks. Is the canteen open on Sundays?",
    ],
)
def test_yes_or_no_questions(question: str) -> None:
    assert asks_yes_or_no(question)


@pytest.mark.parametrize(
    "question",
    [
        "apisix 怎么代理 dubbo3 的 triple 协议",
        "日志等级在哪里改？",
        "How do I enable Dubbo3 proxying?",
        "what does the island doc say about leave",
        "Is the canteen open? Where do I get a parking permit?",
    ],
)
def test_other_questions(question: str) -> None:
    assert not asks_yes_or_no(question)


def test_a_yes_restating_a_yes_or_no_question_needs_its_names_in_the_source() -> None:
    # What a 1.5B model answered to a question its sources do not cover.
    draft = "是的，apisix 支持 dubbo3 的 triple 协议[1]。"
    report = screen(
        draft, [make_hit(RELEASE_ZH)], question="apisix 支持 dubbo3 的 triple 协议吗？"
    ).report
    assert [p.kind for p in report.problems] == ["ungrounded_name"]
    assert report.problems[0].message.startswith(
        "「dubbo3」不在所引资料 [1] 里："
    )  # asked, yet ungrounded


def test_english_yes_needs_its_names_in_the_source_too() -> None:
    draft = "Yes, it supports Dubbo3 and MQTT proxying [1]."
    report = screen(draft, [make_hit(RELEASE_EN)], question="Does it support Dubbo3?").report
    assert [p.message for p in report.problems] == [
        "“Dubbo3” appears in no cited source ([1]): “Yes, it supports Dubbo3 and MQTT proxyi…”"
    ]


def test_other_questions_still_ground_the_names_the_asker_wrote() -> None:
    draft = "It supports Dubbo3 and MQTT proxying [1]."
    report = screen(draft, [make_hit(RELEASE_EN)], question="How does it handle Dubbo3?").report
    assert report.ok
