"""Syncing Confluence (Cloud and Data Center) into DOCS_DIR, against a fake Confluence."""

from __future__ import annotations

from rag.ingest.loaders import load_file
from tests.fakes.confluence_api import FakeConfluence
from tests.rag.sync.conftest import Syncer, secrets_env, sources_toml

LEAVE = "<h2>Annual leave</h2><p>Employees get <strong>15 working days</strong> a year.</p>"


def hr_space(confluence: FakeConfluence, pages: int = 5) -> list[str]:
    ids = [confluence.add_page("HR", "Annual leave", LEAVE)]
    ids += [confluence.add_page("HR", f"Policy {n}", f"<p>Rule {n}.</p>") for n in range(pages - 1)]
    confluence.add_page("ENG", "Deploys", "<p>Not synced: ENG is not configured.</p>")
    return ids


async def test_a_cloud_space_is_written_page_by_page_with_front_matter_the_loader_reads(
    confluence: FakeConfluence, syncer: Syncer
) -> None:
    ids = hr_space(confluence)

    [summary] = await syncer.sync(sources_toml(confluence))

    assert syncer.files() == [
        "confluence/HR/Annual leave.md",
        *(f"confluence/HR/Policy {n}.md" for n in range(4)),
    ]
    assert len(confluence.calls_to("pages")) == 3  # 5 pages, 2 a page: every cursor followed
    assert summary.last.added == 5
    assert summary.line().startswith("wiki: 5 added, 0 changed, 0 removed, 0 failed; ")
    document = load_file(syncer.docs / "confluence/HR/Annual leave.md", syncer.docs)
    assert document.title == "Annual leave"
    assert document.link == f"{confluence.cloud_url}/spaces/HR/pages/{ids[0]}"
    assert "Employees get **15 working days** a year." in document.text


async def test_the_next_sync_fetches_only_the_page_that_changed(
    confluence: FakeConfluence, syncer: Syncer
) -> None:
    ids = hr_space(confluence)
    await syncer.sync(sources_toml(confluence))
    fetched = len(confluence.calls_to("page"))

    confluence.edit(ids[0], LEAVE.replace("15", "20"))
    [summary] = await syncer.sync(sources_toml(confluence))

    assert len(confluence.calls_to("page")) == fetched + 1
    assert (summary.last.added, summary.last.changed, summary.last.removed) == (0, 1, 0)
    assert "**20 working days**" in syncer.read("confluence/HR/Annual leave.md")
    [quiet] = await syncer.sync(sources_toml(confluence))
    assert len(confluence.calls_to("page")) == fetched + 1
    assert not quiet.changed_files


async def test_deleted_and_renamed_pages_leave_no_file_behind(
    confluence: FakeConfluence, syncer: Syncer
) -> None:
    ids = hr_space(confluence)
    (syncer.docs / "confluence").mkdir()
    (syncer.docs / "confluence/README.md").write_text("Written by hand.\n", encoding="utf-8")
    await syncer.sync(sources_toml(confluence))

    confluence.delete(ids[1])
    confluence.edit(ids[2], title="Policy one (renamed)")
    [summary] = await syncer.sync(sources_toml(confluence))

    assert "confluence/HR/Policy 0.md" not in syncer.files()
    assert "confluence/HR/Policy 1.md" not in syncer.files()
    assert "confluence/HR/Policy one (renamed).md" in syncer.files()
    assert "confluence/README.md" in syncer.files()  # not the sync's: never removed
    assert (summary.last.changed, summary.last.removed) == (1, 1)


async def test_rate_limits_wait_what_retry_after_says_and_server_errors_are_retried(
    confluence: FakeConfluence, syncer: Syncer
) -> None:
    hr_space(confluence)
    confluence.rate_limit("pages", times=2, wait=7)
    confluence.fail("page", status=502, times=1)

    [summary] = await syncer.sync(sources_toml(confluence))

    assert summary.last.outcome == "ok"
    assert syncer.waits.seconds[:2] == [7.0, 7.0]
    assert len(syncer.waits.seconds) == 3  # and one backoff after the 502
    assert len(syncer.files()) == 5


async def test_a_page_deleted_between_list_and_fetch_is_dropped_not_failed(
    confluence: FakeConfluence, syncer: Syncer
) -> None:
    ids = hr_space(confluence)
    await syncer.sync(sources_toml(confluence))
    confluence.edit(ids[0], LEAVE)
    confluence.vanish_on_fetch(ids[0])
    late = confluence.add_page("HR", "Late", "<p>x</p>")
    confluence.vanish_on_fetch(late)

    [summary] = await syncer.sync(sources_toml(confluence))

    assert "confluence/HR/Annual leave.md" not in syncer.files()
    assert "confluence/HR/Late.md" not in syncer.files()
    assert (summary.last.added, summary.last.removed, summary.last.failed) == (0, 1, [])


async def test_a_page_the_token_may_no_longer_read_is_dropped(
    confluence: FakeConfluence, syncer: Syncer
) -> None:
    ids = hr_space(confluence)
    await syncer.sync(sources_toml(confluence))
    confluence.edit(ids[0], LEAVE)  # restricted with an edit: the listing still names it
    confluence.forbid(ids[0])

    [summary] = await syncer.sync(sources_toml(confluence))

    assert "confluence/HR/Annual leave.md" not in syncer.files()
    assert summary.last.removed == 1


async def test_refused_credentials_fail_the_sync_and_keep_every_last_good_copy(
    confluence: FakeConfluence, syncer: Syncer
) -> None:
    hr_space(confluence)
    await syncer.sync(sources_toml(confluence))
    before = syncer.files()

    env = {**secrets_env(), "CONFLUENCE_API_TOKEN": "revoked"}
    [summary] = await syncer.sync(sources_toml(confluence), env)

    assert summary.last.outcome == "failed"
    assert "HTTP 401" in str(summary.last.error)
    assert "CONFLUENCE_API_TOKEN" in str(summary.last.error)
    assert summary.line().startswith("wiki: failed, kept the last good copy: ")
    assert syncer.files() == before


async def test_a_page_that_keeps_failing_keeps_its_copy_and_is_fetched_next_time(
    confluence: FakeConfluence, syncer: Syncer
) -> None:
    ids = hr_space(confluence)
    await syncer.sync(sources_toml(confluence))
    confluence.edit(ids[0], LEAVE.replace("15", "20"))
    confluence.fail("page", status=500, times=5)  # every attempt

    [failed] = await syncer.sync(sources_toml(confluence))

    assert failed.last.outcome == "partial"
    assert failed.last.failed == [("confluence/HR/Annual leave.md", "HTTP 500")]
    assert "(confluence/HR/Annual leave.md: HTTP 500)" in failed.line()
    assert "15 working days" in syncer.read("confluence/HR/Annual leave.md")
    [healed] = await syncer.sync(sources_toml(confluence))
    assert healed.last.changed == 1
    assert "20 working days" in syncer.read("confluence/HR/Annual leave.md")


async def test_a_missing_space_fails_without_touching_the_files(
    confluence: FakeConfluence, syncer: Syncer
) -> None:
    hr_space(confluence)
    [summary] = await syncer.sync(sources_toml(confluence, spaces=("HR", "LEGAL")))

    assert summary.last.outcome == "failed"
    assert "space LEGAL was not found" in str(summary.last.error)
    assert syncer.files() == []


async def test_unknown_macros_reach_the_file_as_text(
    confluence: FakeConfluence, syncer: Syncer
) -> None:
    confluence.add_page(
        "HR",
        "Budget",
        '<p>Caps:</p><ac:structured-macro ac:name="acme-cap">'
        '<ac:parameter ac:name="amount">12000</ac:parameter></ac:structured-macro>',
    )

    await syncer.sync(sources_toml(confluence))

    assert "[acme-cap: amount=12000]" in syncer.read("confluence/HR/Budget.md")


async def test_data_center_pages_with_start_paging_bearer_token_and_local_times(
    confluence: FakeConfluence, syncer: Syncer
) -> None:
    ids = hr_space(confluence, pages=3)

    [summary] = await syncer.sync(sources_toml(confluence, data_center=True))

    assert summary.last.added == 3
    assert len(confluence.calls_to("pages")) == 2
    assert [call.query.get("start", "0") for call in confluence.calls_to("pages")] == ["0", "2"]
    text = syncer.read("confluence/HR/Annual leave.md")
    assert f"url: {confluence.url}/pages/viewpage.action?pageId={ids[0]}" in text
    assert 'modified: "2026-11-02T09:01:00.000Z"' in text  # +08:00 from the server, stored in UTC
    confluence.edit(ids[1], "<p>Rule changed.</p>")
    [again] = await syncer.sync(sources_toml(confluence, data_center=True))
    assert (again.last.changed, again.last.added) == (1, 0)
