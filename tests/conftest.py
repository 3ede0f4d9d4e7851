"""Fixtures shared by every test package, and what keeps the tests off other people's Redis.

Before any test runs, REDIS_URL and REDIS_KEY_PREFIX are removed from the environment and
``.env`` files are not read (PYTHON_DOTENV_DISABLED): a developer's Redis, named there or
merely answering on 6379, is never written to, neither by the tests nor by the bot processes
and CLI runs they start. Tests that need Redis take :func:`redis_area` (the suite's Redis,
:mod:`tests.redis_area`, with a key prefix of the test's own).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator

import pytest

from tests.redis_area import RedisArea, fresh_prefix, suite_redis

NOT_FOR_TESTS = ("REDIS_URL", "REDIS_KEY_PREFIX")


def pytest_configure(config: pytest.Config) -> None:
    for name in NOT_FOR_TESTS:
        os.environ.pop(name, None)
    os.environ["PYTHON_DOTENV_DISABLED"] = "1"  # the checkout's .env may name a real Redis


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """The suite's Redis: TEST_REDIS_URL, else a redis-server of the session's own (started
    when first needed). What a test writes there goes under :func:`redis_prefix`."""
    yield from suite_redis(dict(os.environ))


@pytest.fixture
def redis_prefix() -> str:
    """A key prefix of this test's own (for its stores and the bots it starts)."""
    return fresh_prefix()


@pytest.fixture
def redis_area(redis_url: str, redis_prefix: str) -> Iterator[RedisArea]:
    """This test's place in the suite's Redis; its keys are deleted when the test ends."""
    area = RedisArea(redis_url, redis_prefix)
    yield area
    area.clear()


@pytest.fixture(scope="session", autouse=True)
def _embedding_batches_end_before_the_interpreter() -> Iterator[None]:
    """A stopped bot drops the batch under way without waiting (rag.serving.background), and
    its daemon thread may still be inside onnxruntime when the last test ends; the interpreter
    tearing down under native code aborts the run ("terminate called"). The suite waits for
    such threads instead (a bot process exits through the same path, but nothing runs after)."""
    yield
    for thread in threading.enumerate():
        if thread.name == "citebot-embed-batch":  # ends when its batch's vectors come
            thread.join(timeout=120)
