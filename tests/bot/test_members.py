"""The one membership cache (reviewers' channel, Slack user groups): fresh for its TTL, asked
again after it, the last known list while the platform cannot say, nothing known: ``None``."""

from __future__ import annotations

import pytest

from bot.members import KnownMembers


class Platform:
    def __init__(self) -> None:
        self.members: dict[str, frozenset[str] | None] = {}
        self.calls: list[str] = []

    async def fetch(self, group: str) -> frozenset[str] | None:
        self.calls.append(group)
        return self.members.get(group)


async def test_members_are_kept_for_the_ttl_per_group() -> None:
    now = [0.0]
    platform = Platform()
    platform.members = {"A": frozenset({"U1"}), "B": frozenset({"U2"})}
    known = KnownMembers(platform.fetch, ttl_seconds=60, clock=lambda: now[0])
    assert await known.of("A") == {"U1"}
    assert await known.of("B") == {"U2"}
    platform.members["A"] = frozenset({"U1", "U3"})
    now[0] = 59.0
    assert await known.of("A") == {"U1"}
    now[0] = 60.0
    assert await known.of("A") == {"U1", "U3"}
    assert platform.calls == ["A", "B", "A"]


async def test_the_last_known_members_answer_while_the_platform_cannot_say() -> None:
    now = [0.0]
    platform = Platform()
    platform.members = {"A": frozenset({"U1"})}
    known = KnownMembers(platform.fetch, ttl_seconds=60, clock=lambda: now[0])
    assert await known.of("A") == {"U1"}
    platform.members["A"] = None
    now[0] = 600.0
    assert await known.of("A") == {"U1"}
    assert await known.of("B") is None  # never known


def test_a_negative_ttl_is_refused_with_its_value() -> None:
    with pytest.raises(ValueError, match=r"ttl_seconds \(-1\)"):
        KnownMembers(Platform().fetch, ttl_seconds=-1)
