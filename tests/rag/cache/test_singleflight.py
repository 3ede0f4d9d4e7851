"""One computation per key: shared result, shared failure, an asker leaving cancels nothing."""

from __future__ import annotations

import asyncio

import pytest

from rag.cache.singleflight import SingleFlight


async def test_callers_of_one_key_share_one_run_and_other_keys_run_apart() -> None:
    flight: SingleFlight[str] = SingleFlight()
    runs: list[str] = []
    release = asyncio.Event()

    async def work(name: str) -> str:
        runs.append(name)
        await release.wait()
        return name.upper()

    calls = [flight.run("a", lambda: work("a")) for _ in range(5)]
    calls.append(flight.run("b", lambda: work("b")))
    pending = asyncio.gather(*calls)
    await asyncio.sleep(0)
    release.set()
    outcomes = await pending
    assert sorted(runs) == ["a", "b"]
    assert [shared for _, shared in outcomes] == [False, True, True, True, True, False]
    assert len(flight) == 0


async def test_the_first_caller_going_away_does_not_cancel_the_others_result() -> None:
    flight: SingleFlight[int] = SingleFlight()
    release = asyncio.Event()

    async def work() -> int:
        await release.wait()
        return 42

    first = asyncio.create_task(flight.run("k", work))
    second = asyncio.create_task(flight.run("k", work))
    await asyncio.sleep(0)
    first.cancel()
    release.set()
    assert await second == (42, True)
    with pytest.raises(asyncio.CancelledError):
        await first


async def test_a_failure_reaches_every_waiter_and_is_not_remembered() -> None:
    flight: SingleFlight[int] = SingleFlight()

    async def fail() -> int:
        await asyncio.sleep(0)
        raise RuntimeError("model down")

    outcomes = await asyncio.gather(
        *(flight.run("k", fail) for _ in range(3)), return_exceptions=True
    )
    assert all(isinstance(outcome, RuntimeError) for outcome in outcomes)

    async def succeed() -> int:
        return 1

    assert await flight.run("k", succeed) == (1, False)
