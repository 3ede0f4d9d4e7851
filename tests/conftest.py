"""Fixtures shared by every test package."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The real Redis the test command provides (scripts/test sets REDIS_URL)."""
    return os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
