from __future__ import annotations

from collections.abc import Sequence

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from rag.asked import Asked
from rag.check.answer_text import sentences
from rag.check.citations import check
from rag.generate.extractive import (
    ExtractiveChatModel,
    extractive_answer,
    model_identity,
)
from rag.generate.prompt import PromptSource, build_messages
from rag.generate.quotable import Candidate, quotable, split_sentences
from rag.generate.scoring import (
    DENSE_CANDIDATES,
    DENSE_CHARS,
    EXAMPLE_RATIO,
    SentenceScorer,
    ranked,
)
from rag.messages import REFUSAL, is_refusal_text
from rag.reading import match_terms
from rag.results import Hit
from rag.similarity import SentenceSimilarity
from tests.rag.factories import (
    LEAVE_TEXT,
    LEVELS_TEXT,
    LISTEN_BLOCK,
    LISTEN_FAQ,
    LISTEN_QUESTION,
    REFUND_TEXT,
    make_hit,
    policy_hits,
)


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
    assert model_identity(ExtractiveChatModel()) == "extractive/11"
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


def test_another_page_is_not_quoted_to_say_the_asked_amount_again() -> None:
    fees = "| 级别 | 课程费 |\n| 流利级 | 4800 元 |"
    refund = "学员单独报读流利级，实付课程费 4800 元，剩余 12 课时（共 16 课时）。"
    hits = [make_hit(fees, source="courses.md"), make_hit(refund, source="refund.md")]
    reply = answer("流利级的课程费是多少？", hits)
    assert "4800 元" in reply
    assert not ("[1]" in reply and "[2]" in reply), reply


def test_each_part_of_a_comparison_may_come_from_its_own_page() -> None:
    fluent = "流利级课程费 4800 元。"
    business = "商务级课程费 5600 元。"
    hits = [make_hit(fluent, source="fluent.md"), make_hit(business, source="business.md")]
    reply = answer("流利级和商务级的课程费各是多少？", hits)
    assert "4800 元[1]" in reply
    assert "5600 元[2]" in reply


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
    score = SentenceScorer(wanted=set(weight), weight=weight, asked=Asked.of("x"), last=1)
    alone = score(Candidate(source=1, position=0, text="", terms=frozenset({"whole"})))
    scores = {score(Candidate(source=1, position=0, text="", terms=frozenset(t))) for t in triples}
    assert scores == {alone}


def test_a_sentence_in_two_overlapping_passages_is_quoted_once() -> None:
    """Passages overlap by 100 characters, so the best sentence is often in two sources."""
    first = "The Dead Sea is 304 m deep, the deepest hypersaline lake in the world."
    hits = [
        make_hit(f"It borders Jordan to the east. {first}", source="dead-sea.md"),
        make_hit(f"{first} Its salinity is 34.2%.", source="dead-sea.md", n=1),
        make_hit("Salt is mined there.", source="salt.md", n=2),
    ]

    reply = answer("how deep is the dead sea", hits)

    assert reply.count("The Dead Sea is 304 m deep") == 1
    assert check(reply, hits).ok


def test_a_quote_about_him_brings_the_sentence_that_names_him() -> None:
    """ "He acts mostly in comedy …" says nothing about who without "Dilip Joshi is …", also
    past a sentence between that goes on about him."""
    text = (
        "Dilip Joshi is an Indian film and television actor. "
        "He has appeared in a number of serials as well as films. "
        "He acts mostly in comedy and is currently playing the role of Jethalal Gada in "
        "Taarak Mehta Ka Ooltah Chashmah."
    )
    hits = [make_hit(text, source="dilip-joshi.md")]

    reply = answer("real name of jethalal in taarak mehta ka ooltah chashmah", hits)

    assert reply.startswith("Dilip Joshi is an Indian film and television actor [1].")
    assert "He acts mostly in comedy" in reply
    assert "He has appeared" not in reply
    zh = "张三是公司的创始人。他负责审批所有超过五万元的采购。"
    assert answer("超过五万元的采购谁审批", [make_hit(zh)]).startswith("张三是公司的创始人[1]。")


@pytest.mark.parametrize(
    ("question", "about", "answering"),
    [
        (
            "who sings at the beginning of nice for what",
            "The beginning of Nice for What sings of Louisiana.",
            "At the beginning of Nice for What Big Freedia sings.",
        ),
        (
            "when do the ducks march",
            "The ducks march to the fountain of the lobby.",
            "The ducks march every day at 11:00 a.m.",
        ),
        (
            "where do I send the approved SF-182 form",
            "The approved SF-182 form is needed to send the payment.",
            "Send the approved SF-182 form to tts-events@gsa.gov.",
        ),
        ("口语课一共有几级？", "口语课的级别由教务部设置。", "口语课共分四个级别。"),
        ("报名截止是什么时候？", "报名截止前请先咨询顾问。", "报名截止日期为 3 月 31 日。"),
    ],
)
def test_a_sentence_holding_what_is_asked_for_outranks_one_only_about_it(
    question: str, about: str, answering: str
) -> None:
    """Equal words, the answering sentence in the lower-ranked source: it leads because it
    holds the name, time, place or amount the question asks for."""
    hits = [
        make_hit(about, source="a.md"),
        make_hit(answering, source="b.md", n=1),
        make_hit("Unrelated text. 无关的文字。", source="c.md", n=2),
    ]

    reply = answer(question, hits)

    assert reply.startswith(answering[:-1]), reply


def test_a_sentence_that_is_an_example_weighs_less_than_the_same_words_as_a_rule() -> None:
    """ "比如指定 … 为 8000" illustrates a setting; the FAQ's "默认 … 9080" is the default."""
    rule = "APISIX 默认监听端口为 9080，并且设置 etcd 地址。"
    sources = [
        PromptSource(1, "[1] install.md · 配置", f"比如指定{rule}"),
        PromptSource(1, "[1] install.md · 配置", f"For example: {rule}"),
        PromptSource(1, "[1] faq.md · 端口", rule),
        PromptSource(1, "[1] aside.md · 端口", rule.replace("9080", "9080（例如箭石）")),
    ]
    candidates = quotable(sources)
    question = "APISIX 默认监听哪个端口？"
    wanted = match_terms(question)
    values = {
        c.text: v
        for v, c in ranked(question, candidates, SentenceScorer.of(question, wanted, candidates))
    }

    assert values[f"比如指定{rule}"] == pytest.approx(values[rule] * EXAMPLE_RATIO)
    assert values[f"For example: {rule}"] == pytest.approx(values[rule] * EXAMPLE_RATIO)
    aside = rule.replace("9080", "9080（例如箭石）")
    assert values[aside] == values[rule], "an example inside a sentence is not an example one"


OVERTIME = (
    "加班须事先在人事系统中提交加班申请并经直属主管批准，未经批准的加班不计加班工资。\n\n"
    "1. 工作日延长工作时间的，按本人小时工资的 150% 支付加班工资。\n"
    "2. 休息日（周六、周日）加班的，优先在一个月内安排同等时长的调休；"
    "不能安排调休的，按本人小时工资的 200% 支付加班工资。\n"
    "3. 法定节假日加班的，按本人小时工资的 300% 支付加班工资，不以调休代替。"
)


def test_how_is_it_calculated_quotes_the_rates_each_sentence_whole() -> None:
    """A sentence whose clauses a semicolon joins is one quote: cut after "调休；" the rule
    would lose its 200 %. Every clause carries its marker, so the checker passes it."""
    hits = [make_hit(OVERTIME, source="hr/attendance.md", heading=("三、加班与加班工资",))]

    reply = answer("加班费怎么算？", hits)

    assert "调休[1]；不能安排调休的，按本人小时工资的 200% 支付加班工资[1]。" in reply
    for rate in ("150%", "200%", "300%"):
        assert rate in reply
    assert "未经批准" not in reply, "the rates answer how it is calculated, not the approval"
    assert check(reply, hits).ok


def test_a_clause_ending_in_a_semicolon_is_quoted_with_the_rest_of_its_sentence() -> None:
    text = "休息日加班的，优先在一个月内安排调休；不能安排的，按小时工资的 200% 支付。"
    hits = [make_hit(text, source="hr/attendance.md")]

    reply = answer("休息日加班怎么办？", hits)

    assert (
        reply == "休息日加班的，优先在一个月内安排调休[1]；不能安排的，按小时工资的 200% 支付[1]。"
    )
    assert check(reply, hits).ok


def test_an_amount_is_looked_for_beside_the_unit_asked_about() -> None:
    """几级 asks for a count of 级: a date in another document's sentence is no such amount,
    and that sentence (sharing only the topic's words) is not appended."""
    levels = make_hit(LEVEL_LIST, source="courses.md")
    scope = make_hit(
        "本制度适用于所有口语课程学员，自 2026 年 9 月 1 日起执行。", source="refund.md", n=1
    )
    other = make_hit("教务部负责排课。", source="office.md", n=2)

    reply = answer("口语课一共有几级？", [levels, scope, other])

    assert reply.startswith("口语课程共设四个级别")
    assert "2026" not in reply


class _MeaningFake(Embeddings):
    """Questions point one way; a sentence naming ``close`` points the same way, others not."""

    def __init__(self, close: str, *, fail: bool = False) -> None:
        self.close = close
        self.fail = fail
        self.embedded: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        if self.fail:
            raise ConnectionError("embedding endpoint down")
        self.embedded += texts
        return [[1.0, 0.1] if self.close in text else [0.2, 1.0] for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0, 0.0]


OPENING = [
    make_hit("The song opens on a long drum loop.", source="a.md"),
    make_hit("A sample of Big Freedia opens the song.", source="b.md", n=1),
]


def test_with_an_embedder_a_sentence_that_says_it_in_other_words_leads() -> None:
    """Both sentences share the question's words; the first source's wins by words alone, the
    one the embedder finds closer to the question wins with it."""
    question = "what opens the song"
    similar = SentenceSimilarity(_MeaningFake("Big Freedia"), "fake")

    alone = ExtractiveChatModel().invoke(build_messages(question, OPENING)).text
    dense = ExtractiveChatModel(similarity=similar).invoke(build_messages(question, OPENING)).text

    assert alone.startswith("The song opens on a long drum loop [1].")
    assert dense.startswith("A sample of Big Freedia opens the song [2].")
    assert check(dense, OPENING).ok


def test_only_the_best_few_sentences_are_embedded_each_cut_short() -> None:
    fake = _MeaningFake("Big Freedia")
    many = [make_hit(f"The song {i} opens. " * 3, source=f"s{i}.md", n=i) for i in range(6)]
    many.append(make_hit("Tax rules for 2024.", source="tax.md", n=7))

    ExtractiveChatModel(similarity=SentenceSimilarity(fake, "fake")).invoke(
        build_messages("what opens the song", many)
    )

    assert 2 <= len(fake.embedded) <= DENSE_CANDIDATES
    assert all(len(text) <= DENSE_CHARS for text in fake.embedded)
    assert not any("Tax" in text for text in fake.embedded), "no shared word: not compared"


def test_a_failing_embedder_leaves_the_answer_to_the_words(
    caplog: pytest.LogCaptureFixture,
) -> None:
    failing = SentenceSimilarity(_MeaningFake("Big Freedia", fail=True), "fake")

    reply = ExtractiveChatModel(similarity=failing).invoke(
        build_messages("what opens the song", OPENING)
    )

    assert (
        reply.text
        == ExtractiveChatModel().invoke(build_messages("what opens the song", OPENING)).text
    )
    assert "sentence similarity unavailable" in caplog.text


async def test_with_an_embedder_the_answer_is_computed_off_the_event_loop() -> None:
    model = ExtractiveChatModel(similarity=SentenceSimilarity(_MeaningFake("Big Freedia"), "f"))
    messages = build_messages("what opens the song", OPENING)

    assert (await model.ainvoke(messages)).text == model.invoke(messages).text


def test_the_embedder_is_part_of_the_model_identity() -> None:
    """Answers with and without sentence similarity differ: their cache keys must too."""
    similar = SentenceSimilarity(_MeaningFake("x"), "e5-small")
    assert model_identity(ExtractiveChatModel(similarity=similar)) == "extractive/11+e5-small"
    assert model_identity(ExtractiveChatModel()) == "extractive/11"


def test_a_lead_in_brings_its_code_block_as_written_and_code_is_not_quoted_alone() -> None:
    """ "cfg 咋写" is answered by the configuration under its lead-in, indentation and fences
    kept; the block's lines never become sentences of their own ("proxy_mode: http&stream
    # 启用…stream_proxy:" read as one sentence could not be checked)."""
    hits = [make_hit(LISTEN_FAQ, source="FAQ.md")]

    reply = answer(LISTEN_QUESTION, hits)

    assert f"让 APISIX 同时监听多个端口[1]：\n{LISTEN_BLOCK}" in reply
    assert check(reply, hits).ok
    code_only = make_hit(LISTEN_BLOCK, source="config.md")
    assert not any(
        c.text.startswith(("apisix", "-", "node_listen")) for c in quotable_of([code_only])
    )


def quotable_of(hits: Sequence[Hit]) -> list[Candidate]:
    return quotable(
        [PromptSource(n, f"[{n}] {h.chunk.label()}", h.chunk.text) for n, h in enumerate(hits, 1)]
    )


def test_a_sentence_is_embedded_once_for_questions_about_the_same_page(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = _MeaningFake("Big Freedia")
    model = ExtractiveChatModel(similarity=SentenceSimilarity(fake, "fake"))

    first = model.invoke(build_messages("what opens the song", OPENING)).text
    embedded = len(fake.embedded)
    again = model.invoke(build_messages("what song opens with a sample", OPENING)).text

    assert embedded == 2
    assert len(fake.embedded) == embedded, "both sentences were remembered"
    assert first.startswith("A sample of Big Freedia")
    assert again.startswith("A sample of Big Freedia")
    monkeypatch.setattr("rag.similarity.REMEMBERED", 1)
    forgetful = SentenceSimilarity(fake, "fake")
    forgetful("q", ["one", "two"])
    forgetful("q", ["one"])
    assert fake.embedded[-3:] == ["one", "two", "one"], "only the last one is kept"
