"""Fixtures for the Slack edge tests."""

from __future__ import annotations

from tests.fakes.slack_fixture import slack_api

__all__ = ["slack_api"]  # re-exported so pytest finds the shared fixture
