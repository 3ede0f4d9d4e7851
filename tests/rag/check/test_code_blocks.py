"""Code blocks in answers over technical documentation: "cfg 咋写" is answered with YAML."""

from __future__ import annotations

from rag.check.answer_text import sentences
from rag.check.attribution import attribute
from rag.check.code_blocks import identifiers
from rag.check.screen import screen
from tests.rag.factories import LISTEN_BLOCK, LISTEN_FAQ, LISTEN_QUESTION, make_hit

HITS = [make_hit(LISTEN_FAQ, source="FAQ.md"), make_hit("Admin API 默认只允许 127.0.0.1 访问。")]
QUESTION = LISTEN_QUESTION
BLOCK = LISTEN_BLOCK


def _kinds(draft: str) -> list[str]:
    report = screen(draft, HITS, question=QUESTION, language="zh").report
    return [p.kind for p in report.problems]


def test_a_block_is_one_unit_whose_brackets_are_not_citations() -> None:
    found = sentences("修改 `node_listen`[1]：\n\n```lua\nlocal port = ports[2]\n```\n\n完成[1]。")
    assert [(s.code, s.cites) for s in found] == [(False, (1,)), (True, ()), (False, (1,))]
    assert found[1].plain == "local port = ports[2]"


def test_a_block_under_a_cited_lead_in_passes() -> None:
    assert _kinds(f"在 `conf/config.yaml` 中修改 `node_listen`[1]：\n\n{BLOCK}") == []


def test_a_block_followed_by_a_cited_sentence_passes() -> None:
    # the 1.5B model's answer on the model-path benchmark, once its last sentence is cited
    draft = (
        f"在 `conf/config.yaml` 中，你可以这样配置：\n\n{BLOCK}\n\n"
        "这样 APISIX 就会同时监听 9080 和 9081 端口[1]。"
    )
    assert _kinds(draft) == []


def test_a_key_the_documentation_lacks_is_flagged() -> None:
    draft = f"在 `conf/config.yaml` 中修改[1]：\n\n{BLOCK.replace('node_listen', 'listen_ports')}"
    assert _kinds(draft) == ["ungrounded_name"]


def test_a_number_the_documentation_lacks_is_flagged() -> None:
    draft = f"在 `conf/config.yaml` 中修改 `node_listen`[1]：\n\n{BLOCK.replace('9081', '9082')}"
    assert _kinds(draft) == ["ungrounded_number"]


def test_a_block_nothing_cites_is_flagged_though_the_answer_cites_elsewhere() -> None:
    draft = f"Apache APISIX 默认只监听 9080 端口[1]。\n\n你可以这样配置：\n\n{BLOCK}"
    report = screen(draft, HITS, question=QUESTION, language="zh").report
    assert [(p.kind, p.sentence) for p in report.problems] == [("no_citation", BLOCK)]


def test_a_block_cut_before_its_closing_fence_is_still_code() -> None:
    found = sentences("修改 `node_listen`[1]：\n```yaml\napisix:\n  node_listen:")
    assert [s.code for s in found] == [False, True]


def test_attribution_cites_the_sentence_after_a_block_not_the_fence() -> None:
    draft = f"你可以这样配置：\n\n{BLOCK}\n\n这样 APISIX 就会同时监听 9080 和 9081 端口。"
    text, given = attribute(draft, HITS)
    assert given == 1
    assert f"{BLOCK}\n\n这样 APISIX 就会同时监听 9080 和 9081 端口[1]。" in text
    assert "```[" not in text


def test_keys_and_identifiers_are_read_but_not_urls() -> None:
    code = 'curl http://127.0.0.1:9180/apisix/admin -H "X-API-KEY: $key"\nerror_log_level: info'
    assert identifiers(code) == ["X-API-KEY", "error_log_level"]


def test_a_short_block_ending_in_a_key_is_still_checked() -> None:
    # "listen_ports:" ends in a colon like a lead-in, and has too few words for a claim
    assert _kinds("这样配置[1]：\n\n```yaml\nlisten_ports:\n```") == ["ungrounded_name"]
