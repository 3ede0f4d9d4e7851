"""What the checker found, on a review card: each sentence quoted once, its problems under it
with the source each cites, in the asker's language — on Slack (Block Kit) and Feishu (card
JSON 2.0) alike."""

from __future__ import annotations

import json
from typing import Any

from bot.feishu.review_cards import review_card as feishu_card
from bot.ports import NewCard
from bot.review.problems import MAX_GROUPS
from bot.review.records import Ticket
from bot.slack.review_cards import review_card as slack_card
from rag.check.citations import check
from rag.problems import Problem
from tests.fakes.feishu_api import card_problem
from tests.fakes.slack_blocks import block_problems
from tests.rag.factories import policy_hits

TICKET = Ticket("r1", "review", "C0ASK", "1718000000.000100", "UASKER", created=1718000000.0)
LEVELS = "口语课一共六级[2]，每级 12 课时[2]。"
FEE = "退费时收取 8% 的手续费[1]。"
DRAFT = LEVELS + FEE
SOURCES = (("refund.md · 退费政策", 0.81, None), ("levels.md · 课程体系", 0.77, None))


def _problems(language: str) -> tuple[Problem, ...]:
    """What the real checker finds in DRAFT, written for an asker of ``language``."""
    report = check(DRAFT, policy_hits(), question="口语课有几级？", language=language)  # type: ignore[arg-type]
    return report.problems


def _slack_sections(question: str, problems: tuple[Problem, ...]) -> list[str]:
    """The mrkdwn texts of the blocks between the problems label and the sources label."""
    _, blocks = slack_card(
        TICKET, question=question, draft=DRAFT, problems=problems, sources=SOURCES, permalink=""
    )
    assert block_problems(blocks) == []
    texts = [_text(block) for block in blocks]
    start = next(
        n
        for n, text in enumerate(texts)
        if text in ("*核对发现的问题*", "*What the checker found*")
    )
    end = next(
        n for n, text in enumerate(texts) if "Retrieved sources" in text or "检索到的资料" in text
    )
    return texts[start + 1 : end]


def _text(block: dict[str, Any]) -> str:
    if "text" in block:
        return str(block["text"]["text"])
    return " ".join(str(element.get("text", "")) for element in block.get("elements", []))


def _feishu_problems(question: str, problems: tuple[Problem, ...]) -> list[str]:
    card = feishu_card(NewCard(TICKET, question, DRAFT, problems, SOURCES))
    assert card_problem(card, json.dumps(card, ensure_ascii=False)) is None
    elements = card["body"]["elements"]
    start = next(
        n
        for n, e in enumerate(elements)
        if e.get("content") in ("**核对发现的问题**", "**What the checker found**")
    )
    end = next(
        n
        for n, e in enumerate(elements[start:], start)
        if "**" in e.get("content", "") and n > start
    )
    assert all(e["text"]["tag"] == "plain_text" for e in elements[start + 1 : end])  # model text
    return [e["text"]["content"] for e in elements[start + 1 : end]]


def test_slack_quotes_each_sentence_once_with_its_problems_and_markers_in_chinese() -> None:
    sections = _slack_sections("口语课有几级？", _problems("zh"))

    assert sections == [
        f"> {LEVELS}\n"
        "• 回答说「六级」，所引资料 [2] 写的是「四个级别」；"
        "回答说「12 课时」，所引资料 [2] 写的是「16 课时」",
        f"> {FEE}\n• 回答说「8%」，所引资料 [1] 写的是「5%」",
    ]


def test_slack_says_the_same_in_english_for_an_english_asker() -> None:
    sections = _slack_sections("How many levels are there?", _problems("en"))

    assert sections == [
        f"> {LEVELS}\n"
        "• the answer says “六级”, [2] has “四个级别”; "
        "the answer says “12 课时”, [2] has “16 课时”",
        f"> {FEE}\n• the answer says “8%”, [1] has “5%”",
    ]


def test_feishu_groups_the_same_way_in_plain_text_in_both_languages() -> None:
    chinese = _feishu_problems("口语课有几级？", _problems("zh"))
    english = _feishu_problems("How many levels are there?", _problems("en"))

    assert chinese[1] == f"「{FEE}」\n  • 回答说「8%」，所引资料 [1] 写的是「5%」"
    assert english[1] == f"“{FEE}”\n  • the answer says “8%”, [1] has “5%”"
    assert [text.count(LEVELS) for text in chinese + english] == [1, 0, 1, 0]


def test_answer_wide_problems_come_first_and_a_sentence_with_two_is_quoted_once() -> None:
    sentence = "口语课一共六级[2]。"
    problems = (
        Problem(
            "ungrounded_number",
            "数字「六级」…",
            sentence,
            (2,),
            "回答说「六级」，所引资料 [2] 写的是「四个级别」",
        ),
        Problem("judge_unavailable", "模型审核没有给出结论（超时），请人工核对"),
        Problem(
            "unsupported_claim", "…", sentence, (2,), "所引资料 [2] 里找不到这句话的大部分内容"
        ),
    )

    sections = _slack_sections("口语课有几级？", problems)
    feishu = _feishu_problems("口语课有几级？", problems)

    assert sections == [
        "_整个回答_\n• 模型审核没有给出结论（超时），请人工核对",
        f"> {sentence}\n• 回答说「六级」，所引资料 [2] 写的是「四个级别」\n"
        "• 所引资料 [2] 里找不到这句话的大部分内容",
    ]
    assert feishu[0] == "整个回答\n  • 模型审核没有给出结论（超时），请人工核对"


def test_a_draft_with_many_bad_sentences_stays_within_the_card_and_counts_the_rest() -> None:
    problems = tuple(
        Problem("no_citation", f"m{n}", f"第 {n} 句。", note="这句话陈述了事实，却没有标注出处")
        for n in range(MAX_GROUPS + 3)
    )

    sections = _slack_sections("口语课有几级？", problems)
    feishu = _feishu_problems("口语课有几级？", problems)

    assert len(sections) == MAX_GROUPS + 1
    assert sections[-1] == "另有 3 个问题未列出。"
    assert feishu[-1] == "另有 3 个问题未列出。"
