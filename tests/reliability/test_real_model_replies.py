"""What real local chat models wrote on the model-path benchmark, replayed through the fake
OpenAI-compatible server and the pipeline as the settings assemble it (bench/model_path.py).

Each reply below has the shape a real model gave instead of the one the prompt asks for; the
asker must get the answer in the prompt's format, the refusal, or nothing (review) — never the
odd shape and never a cut-off answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from rag.assemble import pipeline_around
from rag.ingest.documents import SourceDocument
from rag.markers import cited_numbers
from rag.messages import REFUSAL
from rag.pipeline import Pipeline
from rag.results import Answer, Refusal, Unverified
from rag.search.build import index_documents
from rag.search.embeddings import HashingEmbeddings
from rag.search.index import Index
from rag.settings import Settings
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.rag.factories import LISTEN_BLOCK, LISTEN_FAQ, LISTEN_QUESTION
from tests.reliability.corpus import IN_KB, small_index, threshold

LEVELS = "口语课共分四个级别：入门级、进阶级、流利级、商务级"
LEAVE_QUESTION = "How many days of paid annual leave do full-time employees receive?"


@pytest.fixture(scope="module")
def index() -> Index:
    return small_index()


_OPEN: list[Pipeline] = []


@pytest.fixture(autouse=True)
async def _close_clients() -> AsyncIterator[None]:
    yield
    while _OPEN:  # the chat model's HTTP client the settings built, closed with the test
        await _OPEN.pop().aclose()


def _pipeline(server: FakeOpenAIServer, index: Index, **env: str) -> Pipeline:
    settings = Settings.from_env(
        {
            "LLM_BASE_URL": server.base_url,
            "LLM_API_KEY": server.api_key,
            "LLM_MODEL": "qwen2.5-coder-1.5b",
            "LLM_MAX_ATTEMPTS": "1",
            "MIN_SCORE": str(threshold(index)),
            "TOP_K": "3",
            **env,
        }
    )
    pipeline = pipeline_around(index, settings, redis=None)
    _OPEN.append(pipeline)
    return pipeline


async def _levels_number(pipeline: Pipeline) -> int:
    hits = await pipeline.retrieve(IN_KB)
    return next(n for n, hit in enumerate(hits, 1) if hit.chunk.source == "courses/levels.md")


@pytest.mark.parametrize(
    "written",
    [
        "【{n}】",
        "({n})",
        "（{n}）",
        "[^{n}]",
        "[source {n}]",
        "[Source {n}]",
        "[来源{n}]",
        "(Source {n})",
    ],
)
async def test_markers_in_the_shapes_models_write_are_read_as_citations(
    openai_server: FakeOpenAIServer, index: Index, written: str
) -> None:
    pipeline = _pipeline(openai_server, index)
    n = await _levels_number(pipeline)
    footnote = f"\n\n[^{n}]: courses/levels.md" if written.startswith("[^") else ""
    openai_server.script(f"{LEVELS}{written.format(n=n)}。{footnote}")

    result = await pipeline.answer(IN_KB)

    assert isinstance(result, Answer), result
    assert cited_numbers(result.text) == [1]  # renumbered in citation order: the levels passage
    assert result.hits[0].chunk.source == "courses/levels.md"
    assert "source" not in result.text.lower()
    assert "^" not in result.text


async def test_a_list_number_in_brackets_is_not_read_as_a_citation(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index)
    n = await _levels_number(pipeline)
    openai_server.script(f"口语课共分四个级别[{n}]：\n(1) 入门级\n(2) 进阶级")

    result = await pipeline.answer(IN_KB)

    assert "(1) 入门级" in result.text
    assert "(2) 进阶级" in result.text


@pytest.mark.parametrize(
    "written",
    [
        "根据提供的资料，{a}",
        "回答：\n{a}",
        "Answer: {a}",
        "**答案：**\n{a}",
        '{{"answer": "{a}"}}',
        '```json\n{{"answer": "{a}", "sources": [{n}]}}\n```',
        "```\n{a}\n```",
    ],
    ids=["preamble-zh", "label-zh", "label-en", "bold", "json", "fenced-json", "fenced"],
)
async def test_a_preamble_json_or_fence_around_the_answer_is_not_shown(
    openai_server: FakeOpenAIServer, index: Index, written: str
) -> None:
    pipeline = _pipeline(openai_server, index)
    n = await _levels_number(pipeline)
    openai_server.script(written.format(a=f"{LEVELS}[{n}]。", n=n))

    result = await pipeline.answer(IN_KB)

    assert isinstance(result, Answer)
    assert result.text == f"{LEVELS}[1]。"


async def test_an_english_preamble_is_dropped_and_the_answer_starts_with_a_capital(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index)
    hits = await pipeline.retrieve(LEAVE_QUESTION)
    n = next(i for i, hit in enumerate(hits, 1) if hit.chunk.source == "hr/leave.md")
    openai_server.script(
        f"Based on the provided sources, full-time employees receive 20 days of paid annual "
        f"leave per year [{n}]."
    )

    result = await pipeline.answer(LEAVE_QUESTION)

    assert isinstance(result, Answer)
    assert result.text.startswith("Full-time employees receive 20 days")


@pytest.mark.parametrize(
    ("question", "reply", "language"),
    [
        (IN_KB, "资料中没有提到口语课的级别数量。", "zh"),
        (IN_KB, "抱歉，根据提供的资料，无法回答这个问题。", "zh"),
        (
            LEAVE_QUESTION,
            "The provided sources do not contain information about annual leave.",
            "en",
        ),
        (LEAVE_QUESTION, "I'm sorry, but I cannot find that in the documents.", "en"),
    ],
)
async def test_a_refusal_in_the_models_own_words_is_the_refusal(
    openai_server: FakeOpenAIServer, index: Index, question: str, reply: str, language: str
) -> None:
    openai_server.script(reply)

    result = await _pipeline(openai_server, index).answer(question)

    assert isinstance(result, Refusal)
    assert result.reason == "model_refused"
    assert result.text == REFUSAL[language]  # type: ignore[index]


async def test_an_answer_that_only_mentions_a_gap_is_still_checked_not_refused(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index)
    n = await _levels_number(pipeline)
    openai_server.script(f"资料中没有提到价格。{LEVELS}[{n}]。")

    result = await pipeline.answer(IN_KB)

    assert isinstance(result, Answer | Unverified)
    assert LEVELS in result.text


async def test_an_endless_reply_is_bounded_and_its_cut_draft_goes_to_review(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index, LLM_MAX_TOKENS="200")
    n = await _levels_number(pipeline)
    openai_server.script(Reply(f"{LEVELS}[{n}]。" * 12 + "每个级别", finish_reason="length"))

    result = await pipeline.answer(IN_KB)

    assert isinstance(result, Unverified)
    assert "reply_cut" in {p.kind for p in result.problems}
    [request] = openai_server.requests
    # llama.cpp's servers read only max_tokens: the bound must be sent there to hold.
    assert request.params["max_tokens"] == 200
    assert "max_completion_tokens" not in request.params


async def test_every_answer_is_bounded_by_default(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index)
    n = await _levels_number(pipeline)
    openai_server.script(f"{LEVELS}[{n}]。")

    await pipeline.answer(IN_KB)

    assert openai_server.requests[0].params["max_tokens"] == 1500


async def test_with_sentence_pointers_the_model_cites_sentences_and_the_asker_sees_passages(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index, CITE_SENTENCES="on")
    n = await _levels_number(pipeline)
    openai_server.script(f"{LEVELS}[{n}.1]。", f"{LEVELS}[{n}.9]。")

    shown = await pipeline.answer(IN_KB)
    pointing_at_nothing = await _pipeline(openai_server, index, CITE_SENTENCES="on").answer(
        IN_KB + " "
    )

    assert f"[{n}.1] {LEVELS}" in openai_server.requests[0].content_of("user")
    assert isinstance(shown, Answer)
    assert shown.text == f"{LEVELS}[1]。"
    assert isinstance(pointing_at_nothing, Unverified)
    assert {p.kind for p in pointing_at_nothing.problems} == {"unknown_reference"}


async def test_an_answer_in_another_language_than_the_askers_is_asked_for_again_in_it(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index)
    n = await _levels_number(pipeline)
    in_english = f"Spoken English has four levels: beginner, intermediate, fluent, business [{n}]."
    openai_server.script(in_english, f"{LEVELS}[{n}]。")

    result = await pipeline.answer(IN_KB)

    assert isinstance(result, Answer)
    assert result.text == f"{LEVELS}[1]。"
    again = openai_server.requests[1]
    assert again.messages[-2] == {"role": "assistant", "content": in_english}
    assert "again in Chinese" in again.messages[-1]["content"]


async def test_a_preamble_carrying_the_citation_is_kept_with_it(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index)
    n = await _levels_number(pipeline)
    openai_server.script(f"根据资料[{n}]，{LEVELS}。")

    result = await pipeline.answer(IN_KB)

    assert cited_numbers(result.text) == [1]
    assert result.text.startswith("根据资料[1]")


async def test_an_answer_citing_nothing_gets_each_sentence_the_source_holding_it(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index)
    # What the 1.5B model wrote for most questions: the right answer, no marker at all; asked
    # again, it wrote the same text word for word.
    openai_server.script(f"{LEVELS}。每个级别 16 课时，每课时 45 分钟。")

    result = await pipeline.answer(IN_KB)

    assert isinstance(result, Answer)
    assert result.text == f"{LEVELS}[1]。每个级别 16 课时，每课时 45 分钟[1]。"
    assert result.hits[0].chunk.source == "courses/levels.md"
    assert len(openai_server.requests) == 1  # not asked again


async def test_a_sentence_no_source_holds_stays_uncited_and_the_answer_goes_to_review(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index)
    openai_server.script(f"{LEVELS}。商务级由外教一对一授课，可以随时免费换老师。")

    result = await pipeline.answer(IN_KB)

    assert isinstance(result, Unverified)
    assert [p.kind for p in result.problems] == ["no_citation"]
    assert result.problems[0].sentence == "商务级由外教一对一授课，可以随时免费换老师。"
    assert result.text.startswith(f"{LEVELS}[")  # the sentence a source holds got its marker


async def test_a_given_source_is_checked_like_one_the_model_chose(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index)
    openai_server.script(f"{LEVELS}。每个级别 20 课时，每课时 45 分钟。")  # the source says 16

    result = await pipeline.answer(IN_KB)

    assert isinstance(result, Unverified)
    assert "ungrounded_number" in {p.kind for p in result.problems}


async def test_an_uncited_answer_in_the_wrong_language_is_asked_for_once_with_both(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index, CITE_SENTENCES="on")
    n = await _levels_number(pipeline)
    openai_server.script(
        "Spoken English has four levels: beginner, intermediate, fluent and business.",
        f"{LEVELS}[{n}.1]。",
    )

    result = await pipeline.answer(IN_KB)

    assert isinstance(result, Answer)
    assert result.text == f"{LEVELS}[1]。"
    told = openai_server.requests[1].messages[-1]["content"]
    assert "again in Chinese, with the number of the source" in told
    assert "like [2.3] (source 2, sentence 3)" in told
    assert len(openai_server.requests) == 2


def _listen_faq_pipeline(server: FakeOpenAIServer) -> Pipeline:
    """A knowledge base of one configuration FAQ, whose answer is a YAML block."""
    faq = SourceDocument(source="FAQ.md", text=f"# FAQ\n\n{LISTEN_FAQ}", title="FAQ")
    return _pipeline(server, index_documents((faq,), embeddings=HashingEmbeddings()), MIN_SCORE="0")


async def test_an_uncited_configuration_answer_is_shown_with_its_last_sentence_cited(
    openai_server: FakeOpenAIServer,
) -> None:
    pipeline = _listen_faq_pipeline(openai_server)
    block = LISTEN_BLOCK
    # The 1.5B model's reply on the model-path benchmark, word for word: no marker anywhere.
    openai_server.script(
        f"在 `conf/config.yaml` 中，你可以这样配置：\n\n{block}\n\n"
        "这样 APISIX 就会同时监听 9080 和 9081 端口。"
    )

    result = await pipeline.answer(LISTEN_QUESTION)

    assert isinstance(result, Answer), result
    assert result.text.endswith(f"{block}\n\n这样 APISIX 就会同时监听 9080 和 9081 端口[1]。")


async def test_a_configuration_key_the_documentation_lacks_goes_to_review(
    openai_server: FakeOpenAIServer,
) -> None:
    pipeline = _listen_faq_pipeline(openai_server)
    invented = LISTEN_BLOCK.replace("node_listen", "listen_ports")
    openai_server.script(f"在 `conf/config.yaml` 中这样配置[1]：\n\n{invented}")

    result = await pipeline.answer(LISTEN_QUESTION)

    assert isinstance(result, Unverified)
    assert [p.kind for p in result.problems] == ["ungrounded_name"]
    assert "listen_ports" in result.problems[0].message


async def test_a_citation_to_a_source_not_holding_the_sentence_is_moved_to_the_one_that_does(
    openai_server: FakeOpenAIServer, index: Index
) -> None:
    pipeline = _pipeline(openai_server, index)
    hits = await pipeline.retrieve(IN_KB)
    wrong = next(n for n, hit in enumerate(hits, 1) if hit.chunk.source == "policies/refund.md")
    # The 1.5B model's "4分钟内不得进行配对[3]": the right sentence, another source's number.
    openai_server.script(f"{LEVELS}[{wrong}]。")

    result = await pipeline.answer(IN_KB)

    assert isinstance(result, Answer), result
    assert result.text == f"{LEVELS}[1]。"
    assert result.hits[0].chunk.source == "courses/levels.md"
