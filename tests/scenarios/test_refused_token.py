"""``python -m bot`` with a well-formed SLACK_BOT_TOKEN that Slack refuses: one line, exit 2.

It once started, served ``/healthz`` saying ok and failed every reply. The real entry point in
a process of its own, against the fake Slack Web API (SLACK_API_URL), which refuses the token
as Slack does (``auth.test`` -> ``invalid_auth``)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from tests.fakes.redis_server import free_port
from tests.fakes.slack_api import FakeSlackApi

ROOT = Path(__file__).resolve().parents[2]
REVOKED = "xoxb-1234-5678-revoked"


async def test_a_refused_bot_token_stops_start_up_with_one_line(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "leave.md").write_text("# 年假\n\n全职员工每年 15 天年假。\n", encoding="utf-8")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "FEISHU_"))},
        "PYTHONPATH": str(ROOT),
        "SLACK_BOT_TOKEN": REVOKED,
        "SLACK_SIGNING_SECRET": "secret",
        "REVIEW_CHANNEL": "C0REVIEW",
        "DOCS_DIR": str(docs),
        "INDEX_DIR": str(tmp_path / "index"),
        "EMBEDDINGS": "none",
        "PORT": str(free_port()),
    }
    env.pop("REDIS_URL", None)
    async with FakeSlackApi() as slack:
        slack.refused_tokens.add(REVOKED)
        env["SLACK_API_URL"] = slack.url
        bot = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bot",
            cwd=tmp_path,  # no .env here
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(bot.communicate(), 120)
    assert bot.returncode == 2
    assert err.decode().splitlines() == [
        "citebot: SLACK_BOT_TOKEN was refused by Slack (invalid_auth); set the app's Bot User "
        "OAuth Token (xoxb-…, OAuth & Permissions) of the workspace it is installed in"
    ]
    assert out == b""
    assert [call.method for call in slack.calls] == ["auth.test"]
