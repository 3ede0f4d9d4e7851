"""The tests keep to their own Redis: a "foreign" Redis named in REDIS_URL and in the checkout's
``.env`` is left byte for byte as it was, and a shared one named by TEST_REDIS_URL keeps nothing
of theirs.

A representative few of the Redis-using tests (the CLI reading the environment and ``.env``,
the cache CLI, review state, the weekly digest whose first-run key has no expiry, a review
scenario that starts the bot) run in a pytest of their own, from a copy of the checkout, as a
developer would run them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from tests.fakes.redis_server import OwnRedis

ROOT = Path(__file__).resolve().parents[1]
SUBSET = (
    # ``rag index`` reading the environment (REDIS_URL), ``rag ask`` reading .env as well
    "tests/rag/search/test_index.py::test_index_command_summarises_files_skips_chunks_and_version",
    "tests/rag/test_ask_batch_cli.py::test_answers_each_question_in_order_with_its_sources",
    "tests/rag/cache/test_cache_cli.py",
    "tests/bot/review/test_review_state.py",
    "tests/bot/test_digest.py",
    "tests/scenarios/test_review.py::test_approve_posts_the_draft_in_the_askers_thread_and_updates_the_card",
)
TESTS = 30
"""How many tests SUBSET holds: all of them ran, none was skipped."""
Snapshot = dict[bytes, tuple[bytes, bool]]


def seed(client: redis.Redis) -> None:
    """Someone else's data, some of it under the bot's own default key names."""
    client.set("citebot:digest:first-run", "1700000000.0")  # no expiry
    client.set("citebot:answer:stats:hits", 41)
    client.zadd("citebot:records:questions", {'{"at": 1700000000.0}\tabcd': 1700000000.0})
    client.expire("citebot:records:questions", 86400)
    client.hset("citebot:review:open", "r1", '{"v": 2}')
    client.set("session:42", "someone's", ex=3600)
    client.rpush("queue", "a", "b")


def snapshot(client: redis.Redis) -> Snapshot:
    """Every key's serialised value (DUMP: type, encoding and bytes) and whether it expires."""
    return {
        key: (client.dump(key) or b"", client.pttl(key) > 0) for key in client.scan_iter(count=1000)
    }


def writes(client: redis.Redis) -> int:
    """Changes the server has applied so far (persistence is off: never reset)."""
    return int(client.info("persistence")["rdb_changes_since_last_save"])


@pytest.fixture
def foreign() -> Iterator[redis.Redis]:
    server = OwnRedis()
    server.start()
    client = redis.Redis.from_url(server.url)
    seed(client)
    yield client
    client.close()
    server.kill()


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout, whose ``.env`` the code under test would find and read."""
    copy = tmp_path_factory.mktemp("checkout")
    for name in ("rag", "bot", "tests", "docs"):
        shutil.copytree(ROOT / name, copy / name)  # with __pycache__: its sources' times kept
    shutil.copy(ROOT / "pyproject.toml", copy)
    return copy


def run_subset(checkout: Path, url: str, **extra: str) -> subprocess.CompletedProcess[str]:
    (checkout / ".env").write_text(f"REDIS_URL={url}\nREDIS_KEY_PREFIX=citebot:\n", "utf-8")
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST")}
    env.pop("PYTHON_DOTENV_DISABLED", None)  # the inner run's conftest must do it itself
    env.pop("TEST_REDIS_URL", None)
    env |= {"REDIS_URL": url, "REDIS_KEY_PREFIX": "citebot:", **extra}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--durations=3", *SUBSET],
        cwd=checkout,  # "python -m" puts the copy first on sys.path
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_redis_named_in_redis_url_and_dotenv_is_never_written_to(
    foreign: redis.Redis, checkout: Path
) -> None:
    url = f"redis://127.0.0.1:{foreign.connection_pool.connection_kwargs['port']}/0"
    before, changes = snapshot(foreign), writes(foreign)

    done = run_subset(checkout, url)

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"{TESTS} passed" in done.stdout
    assert writes(foreign) == changes  # not one write, not even one undone later
    assert snapshot(foreign) == before


def test_a_shared_test_redis_url_keeps_nothing_of_the_tests(
    foreign: redis.Redis, checkout: Path
) -> None:
    url = f"redis://127.0.0.1:{foreign.connection_pool.connection_kwargs['port']}/0"
    before, changes = snapshot(foreign), writes(foreign)

    done = run_subset(checkout, url, TEST_REDIS_URL=url)

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert writes(foreign) > changes  # the tests did use it (and deleted what they wrote)
    assert snapshot(foreign) == before  # and left exactly what was there
