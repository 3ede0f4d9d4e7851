"""Syncing Feishu / Lark wiki spaces into DOCS_DIR, against a fake Open API."""

from __future__ import annotations

import aiohttp

from rag.http.feishu import FeishuOpenApi
from rag.http.retry import HttpRetry
from rag.ingest.loaders import load_file
from rag.sync.feishu import FeishuClient
from tests.fakes import feishu_wiki
from tests.fakes.feishu_wiki import FakeFeishuWiki, heading, run, text
from tests.rag.sync.conftest import Syncer, Waits, secrets_env, sources_toml


def handbook(wiki: FakeFeishuWiki) -> tuple[str, dict[str, str]]:
    """员工手册: 报销 (with 差旅 and 餐补 below it), a sheet with a docx below it, 入职."""
    space = wiki.add_space("员工手册")
    claims = wiki.add_doc(
        space,
        "报销",
        [heading(1, "报销流程"), text("金额", run("超过 5000 元", bold=True), "需总监审批。")],
    )
    travel = wiki.add_doc(space, "差旅", [text("高铁二等座。")], parent=claims)
    meals = wiki.add_doc(space, "餐补", [text("每天 100 元。")], parent=claims)
    sheet = wiki.add_doc(space, "预算表", [], kind="sheet")
    under = wiki.add_doc(space, "预算说明", [text("按季度编制。")], parent=sheet)
    onboarding = wiki.add_doc(space, "入职", [text("第一天领电脑。")] * 5)
    wiki.add_shortcut(space, travel, parent=sheet)  # 差旅 shown a second time: synced once
    nodes = {"claims": claims, "travel": travel, "meals": meals, "under": under}
    return space, nodes | {"onboarding": onboarding}


async def test_a_wiki_space_is_written_as_its_tree_with_links_that_open_the_node(
    feishu: FakeFeishuWiki, syncer: Syncer
) -> None:
    space, nodes = handbook(feishu)

    [summary] = await syncer.sync(sources_toml(feishu=feishu, feishu_spaces=(space,)))

    assert syncer.files() == [
        "feishu/员工手册/入职.md",
        "feishu/员工手册/报销.md",
        "feishu/员工手册/报销/差旅.md",
        "feishu/员工手册/报销/餐补.md",
        "feishu/员工手册/预算表/预算说明.md",  # the sheet is no document; its child is
    ]
    assert summary.last.added == 5
    document = load_file(syncer.docs / "feishu/员工手册/报销.md", syncer.docs)
    assert document.title == "报销"
    assert document.link == f"https://acme.feishu.cn/wiki/{nodes['claims']}"
    assert "# 报销流程\n\n金额**超过 5000 元**需总监审批。" in document.text
    # page_size 2: the top level takes 2 pages, 入职's 6 blocks 3 pages
    top = [c for c in feishu.calls_to("nodes") if "parent_node_token" not in c.query]
    assert len(top) == 2
    assert "第一天领电脑。\n\n第一天领电脑。" in syncer.read("feishu/员工手册/入职.md")


async def test_only_edited_documents_are_fetched_again(
    feishu: FakeFeishuWiki, syncer: Syncer
) -> None:
    space, nodes = handbook(feishu)
    toml = sources_toml(feishu=feishu, feishu_spaces=(space,))
    await syncer.sync(toml)
    fetched = len(feishu.calls_to("blocks"))

    feishu.edit(nodes["meals"], [text("每天 120 元。")])
    [summary] = await syncer.sync(toml)

    assert len(feishu.calls_to("blocks")) == fetched + 1
    assert summary.last.changed == 1
    assert "每天 120 元。" in syncer.read("feishu/员工手册/报销/餐补.md")


async def test_rate_limits_wait_the_gateways_reset_and_expired_tokens_are_renewed(
    feishu: FakeFeishuWiki, syncer: Syncer
) -> None:
    space, _ = handbook(feishu)
    feishu.rate_limit("blocks", times=2, reset=3)

    [summary] = await syncer.sync(sources_toml(feishu=feishu, feishu_spaces=(space,)))

    assert summary.last.outcome == "ok"
    assert syncer.waits.seconds == [3.0, 3.0]
    assert len(syncer.files()) == 5


async def test_a_token_that_expires_mid_sync_is_fetched_again_once(
    feishu: FakeFeishuWiki,
) -> None:
    async with aiohttp.ClientSession() as session:
        api = FeishuOpenApi(
            session,
            base_url=feishu.url,
            app_id=feishu_wiki.APP_ID,
            app_secret=feishu_wiki.APP_SECRET,
            retry=HttpRetry(sleep=Waits()),
        )
        client = FeishuClient(api, credentials="FEISHU_APP_ID and FEISHU_APP_SECRET")
        space = feishu.add_space("手册")
        assert (await client.get(f"/open-apis/wiki/v2/spaces/{space}"))["space"]["name"] == "手册"

        feishu.revoke_tokens()
        data = await client.get(f"/open-apis/wiki/v2/spaces/{space}")

    assert data["space"]["name"] == "手册"
    assert len(feishu.calls_to("token")) == 2
    assert [c.status for c in feishu.calls_to("space")] == [200, 400, 200]


async def test_deleted_and_forbidden_documents_are_dropped_and_moved_ones_follow(
    feishu: FakeFeishuWiki, syncer: Syncer
) -> None:
    space, nodes = handbook(feishu)
    toml = sources_toml(feishu=feishu, feishu_spaces=(space,))
    await syncer.sync(toml)

    feishu.edit(nodes["travel"], [text("飞机经济舱。")])
    feishu.vanish_on_fetch(nodes["travel"])  # deleted between the listing and the fetch
    feishu.edit(nodes["meals"], [text("x")])
    feishu.forbid(nodes["meals"])
    feishu.delete(nodes["under"])
    feishu.nodes[nodes["onboarding"]].parent = nodes["claims"]  # moved under 报销
    [summary] = await syncer.sync(toml)

    assert syncer.files() == ["feishu/员工手册/报销.md", "feishu/员工手册/报销/入职.md"]
    assert summary.last.removed == 3
    assert summary.last.failed == []


async def test_a_space_the_app_may_not_read_fails_and_keeps_the_copies(
    feishu: FakeFeishuWiki, syncer: Syncer
) -> None:
    space, _ = handbook(feishu)
    await syncer.sync(sources_toml(feishu=feishu, feishu_spaces=(space,)))

    [summary] = await syncer.sync(sources_toml(feishu=feishu, feishu_spaces=(space, "7999")))

    assert summary.last.outcome == "failed"
    assert "wiki space 7999 cannot be read (131005" in str(summary.last.error)
    assert len(syncer.files()) == 5


async def test_a_wrong_app_secret_says_the_credentials_were_refused(
    feishu: FakeFeishuWiki, syncer: Syncer
) -> None:
    """It used to say "add the app to the space's members": no space can be read without a
    token, and the secret is what to fix."""
    space, _ = handbook(feishu)
    wrong = {**secrets_env(), "FEISHU_APP_SECRET": "not-the-secret"}

    [summary] = await syncer.sync(sources_toml(feishu=feishu, feishu_spaces=(space,)), wrong)

    assert summary.last.outcome == "failed"
    assert str(summary.last.error) == (
        "Feishu refused the app's credentials (10014: app secret invalid); check "
        "FEISHU_APP_ID and FEISHU_APP_SECRET"
    )
    assert "members" not in summary.line()
    assert len(feishu.calls_to("token")) == 1  # refused credentials are not asked again
    assert feishu.calls_to("space") == []


async def test_block_types_the_converter_does_not_know_reach_the_file_as_text(
    feishu: FakeFeishuWiki, syncer: Syncer
) -> None:
    space = feishu.add_space("手册")
    widget = {"block_type": 40, "add_ons": {"record": {"elements": [run("插件内容")]}}}
    feishu.add_doc(space, "插件", [text("前言"), widget, {"block_type": 36, "okr": {}}])

    await syncer.sync(sources_toml(feishu=feishu, feishu_spaces=(space,)))

    body = syncer.read("feishu/手册/插件.md")
    assert "插件内容" in body
    assert "[unsupported block: 36]" in body
