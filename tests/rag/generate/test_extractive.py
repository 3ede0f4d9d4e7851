from __future__ import annotations

from collections.abc import Sequence

import pytest
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from rag.check.answer_text import sentences
from rag.check.citations import check
from rag.generate.extractive import (
    ExtractiveChatModel,
    _Scorer,
    extractive_answer,
    model_identity,
)
from rag.generate.prompt import PromptSource, build_messages
from rag.generate.quotable import Candidate, split_sentences
from rag.messages import REFUSAL, is_refusal_text
from rag.results import Hit
from tests.rag.factories import LEAVE_TEXT, LEVELS_TEXT, REFUND_TEXT, make_hit, policy_hits


def answer(question: str, hits: Sequence[Hit] | None = None) -> str:
    messages = build_messages(question, policy_hits() if hits is None else hits)
    return ExtractiveChatModel().invoke(messages).text


def test_sentences_are_exact_substrings_split_at_chinese_and_english_ends() -> None:
    text = "退费按剩余课时计算。手续费 5%；最低 50 元！\n- 单价 3.5 元? Yes. Contact us"
    sentences = split_sentences(text)
    assert sentences == [
        "退费按剩余课时计算。",
        "手续费 5%；",
        "最低 50 元！",
        "单价 3.5 元?",
        "Yes.",
        "Contact us",
    ]
    assert all(sentence in text for sentence in sentences)


def test_sentences_are_cut_where_the_checker_cuts_them() -> None:
    """One sentence reading (rag.reading): an abbreviation doesn't end the quoted sentence."""
    text = "Bring an ID, e.g. a passport. Fees vs. refunds differ."
    assert split_sentences(text) == ["Bring an ID, e.g. a passport.", "Fees vs. refunds differ."]
    assert [s.plain for s in sentences(text)] == split_sentences(text)


def test_chinese_question_gets_the_relevant_sentence_with_its_citation() -> None:
    reply = answer("流利级原价多少钱？")
    assert reply == "流利级原价 4800 元，共 16 课时[1]。"


def test_quantity_question_prefers_the_sentence_with_the_number() -> None:
    reply = answer("每课时多长时间？")
    assert "每课时 45 分钟[2]。" in reply
    assert "[1]" not in reply


def test_english_question_gets_the_relevant_sentence_with_its_citation() -> None:
    reply = answer("How many days of annual leave do employees get?")
    assert reply.startswith(
        "Full-time employees receive 20 days of paid annual leave per year [3]."
    )


def test_an_english_question_meets_the_sentence_that_inflects_its_words() -> None:
    """ "change my password" is what "Passwords are changed only when …" answers; the other rules
    share only "password"."""
    passwords = (
        "Passwords must be at least 12 characters long. "
        "Use a different password for every system. "
        "Never share your password. "
        "Passwords are changed only when there is a reason to believe they are known."
    )
    reply = answer("How often must I change my password?", [make_hit(passwords)])
    assert (
        reply == "Passwords are changed only when there is a reason to believe they are known [1]."
    )


def test_markers_point_at_the_source_each_sentence_was_quoted_from() -> None:
    hits = [make_hit(LEAVE_TEXT, source="hr/leave.md"), make_hit(REFUND_TEXT)]
    reply = answer("When does unused annual leave expire?", hits)
    assert "Unused leave expires on 31 March of the following year [1]." in reply
    assert "[2]" not in reply


def test_quotes_are_verbatim_once_markers_are_removed() -> None:
    hits = policy_hits()
    reply = answer("退费手续费最低多少？", hits)
    quoted = reply.replace("[1]", "").replace("[2]", "").replace("[3]", "")
    assert quoted == "退费时收取退款金额 5% 的手续费，最低 50 元。"
    assert quoted in hits[0].chunk.text


def test_the_same_prompt_always_gets_the_same_answer() -> None:
    replies = {answer("口语课有几个级别？") for _ in range(5)}
    assert len(replies) == 1
    assert "口语课共分四个级别" in replies.pop()


@pytest.mark.parametrize(
    ("question", "refusal"),
    [("公司年会在哪里举办？", REFUSAL["zh"]), ("Who won the football match?", REFUSAL["en"])],
)
def test_refuses_when_no_sentence_shares_a_term_with_the_question(
    question: str, refusal: str
) -> None:
    reply = answer(question)
    assert reply == refusal
    assert is_refusal_text(reply)


def test_refuses_a_prompt_without_sources() -> None:
    reply = ExtractiveChatModel().invoke([HumanMessage(content="退费怎么算？")]).text
    assert reply == REFUSAL["zh"]


def test_quotes_in_another_language_than_the_question_get_a_lead_in_without_quantities() -> None:
    reply = answer("口语课 levels 是什么？", [make_hit("Spoken English has four levels.")])
    assert reply == "资料原文如下：Spoken English has four levels [1]."
    reply = answer("Which course level is 流利级?", [make_hit(LEVELS_TEXT)])
    assert reply.startswith("From our documents, as written: 口语课共分四个级别")
    assert not any(char.isdigit() for char in reply.split(":")[0])


async def test_async_invoke_answers_like_invoke() -> None:
    messages = build_messages("流利级原价多少钱？", policy_hits())
    model = ExtractiveChatModel()
    assert (await model.ainvoke(messages)).text == model.invoke(messages).text


def test_model_identity_names_the_model_for_cache_keys() -> None:
    assert model_identity(ExtractiveChatModel()) == "extractive/7"
    remote = ChatOpenAI(
        base_url="https://api.deepseek.com/v1", api_key=SecretStr("k"), model="deepseek-chat"
    )
    assert model_identity(remote) == "openai-compatible:api.deepseek.com/deepseek-chat"


LEVEL_LIST = """口语课程共设四个级别，从低到高依次为：

1. 入门级：能用简单句进行日常交流。
2. 进阶级：能就工作和学习进行连续的对话。
3. 流利级：能较自然地参与讨论。
4. 商务级：能进行会议发言和商务谈判。

课程只有以上四个级别。"""

HOTEL_TABLE = """## 3. Hotels

| City tier | Limit per night |
| --- | --- |
| Beijing, Shanghai | 600 CNY |
| All other cities | 350 CNY |
"""

WRAPPED = """1. Submit requests in the HR portal at least 10 working days in advance for leave of
   three days or more, and at least 2 working days in advance for shorter leave.
2. Your line manager approves or declines within 3 working days."""


def test_a_lead_in_is_quoted_with_the_list_it_introduces_and_passes_the_checker() -> None:
    hits = [make_hit(LEVEL_LIST, source="courses.md")]
    reply = answer("口语课一共有几级？", hits)
    assert reply.startswith("口语课程共设四个级别，从低到高依次为[1]：\n1. 入门级")
    assert "4. 商务级：能进行会议发言和商务谈判。" in reply
    assert reply.count("商务级") == 1, "an item is not quoted again on its own"
    assert check(reply, hits).ok


def test_table_rows_are_quoted_each_with_its_citation() -> None:
    hits = [make_hit(HOTEL_TABLE, source="finance/travel.md")]
    reply = answer("What is the hotel limit per night?", hits)
    assert "| Beijing, Shanghai | 600 CNY | [1]" in reply
    assert "| All other cities | 350 CNY | [1]" in reply
    assert "| --- |" not in reply
    assert check(reply, hits).ok


def test_a_soft_wrapped_sentence_is_quoted_whole() -> None:
    hits = [make_hit(WRAPPED, source="hr/leave.md")]
    reply = answer("How far in advance must I request leave of three days or more?", hits)
    assert "for leave of three days or more, and at least 2 working days in advance" in reply
    assert check(reply, hits).ok


def test_how_is_it_calculated_prefers_the_formula() -> None:
    text = (
        "退费需要填写申请表。退费由教务部审核。退费原路退回。退费不含教材费。\n\n"
        "退费金额 = 实付课程费 × 剩余课时 ÷ 总课时 − 手续费。"
    )
    reply = answer("退费怎么算？", [make_hit(text)])
    assert "退费金额 = 实付课程费 × 剩余课时 ÷ 总课时 − 手续费[1]。" in reply


def test_a_loosely_matching_sentence_of_a_lower_ranked_source_is_not_quoted() -> None:
    entitlement = "Full-time staff receive 15 working days of paid annual leave per calendar year."
    requests = "Submit leave requests in the HR portal at least 10 working days in advance."
    hits = [make_hit(entitlement, source="leave.md"), make_hit(requests, source="requests.md")]
    reply = answer("How many days of annual leave do I get?", hits)
    assert reply == f"{entitlement[:-1]} [1]."


def test_the_best_ranked_source_is_preferred_over_a_rarer_word_elsewhere() -> None:
    transfer = "转班指在同一级别内更换上课时间。每个级别最多可免费转班两次，第三次起收取服务费。"
    advisor = "接待新学员咨询，介绍课程内容和收费标准。"
    hits = [make_hit(transfer, source="refund.md"), make_hit(advisor, source="handbook.md")]
    reply = answer("转班要收费吗？", hits)
    assert "免费转班两次" in reply


def test_a_sentence_announcing_the_list_after_its_paragraph_brings_the_list() -> None:
    source = PromptSource(
        1,
        "[1] leave.md · Advanced sick leave",
        "To get approval you will need to submit the following paperwork to your HR "
        "specialist. Note: draft everything first.\n\n"
        "1. A request form.\n2. An original medical certification.\n3. A timesheet report.",
    )

    reply = extractive_answer(
        "what paperwork do I need to get advanced sick leave approved", [source]
    )

    assert reply.startswith("To get approval you will need to submit the following paperwork")
    assert "medical certification" in reply
    assert "timesheet report" in reply


def test_the_rule_leads_and_its_worked_example_follows_at_most() -> None:
    rule = PromptSource(
        3,
        "[3] refund.md · 三、退费计算口径",
        "退费金额 = 实付课程费 ×（剩余课时 ÷ 总课时）− 手续费。",
    )
    example = PromptSource(
        1,
        "[1] refund.md · 计算示例一 (退费 › 三、退费计算口径 › 计算示例一)",
        "学员单独报读流利级，实付课程费 4800 元，退费金额 = 4800 × 12 ÷ 16 − 180 = 3420 元。",
    )

    reply = extractive_answer("退费怎么算？", [example, rule])

    assert reply.startswith("退费金额 = 实付课程费")


def test_a_sentence_scores_the_same_whatever_order_its_shared_terms_come_in() -> None:
    # A set's order follows the process's hash seed; a float sum in that order could make one
    # of two equally good sentences win in one bot process and the other in the next.
    triples = [(f"a{i}", f"b{i}", f"c{i}") for i in range(24)]
    weight = {t: w for triple in triples for t, w in zip(triple, (0.1, 0.2, 0.3), strict=True)}
    weight["whole"] = 0.6
    score = _Scorer(
        wanted=set(weight), weight=weight, wants_quantity=False, wants_formula=False, last=1
    )
    alone = score(Candidate(source=1, position=0, text="", terms=frozenset({"whole"})))
    scores = {score(Candidate(source=1, position=0, text="", terms=frozenset(t))) for t in triples}
    assert scores == {alone}
