"""The ``slack_api`` fixture: a started :class:`FakeSlackApi`, closed after the test.

Register it where it is needed with ``from tests.fakes.slack_fixture import slack_api`` in a
conftest.py (tests/bot/conftest.py and tests/scenarios/conftest.py do).
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakes.slack_api import FakeSlackApi


@pytest.fixture
async def slack_api() -> AsyncIterator[FakeSlackApi]:
    async with FakeSlackApi() as fake:
        yield fake
