"""One machine's flood of the page is slowed per address, so it cannot take the loop from the
buttons: a token bucket that delays, then refuses with the one error envelope (429)."""

from __future__ import annotations

import asyncio

import pytest

from firmware_host.web.guards.ratelimit import RateLimit
from tests.devicekit import run_device
from tests.webkit import page


def test_a_burst_is_answered_at_once_then_requests_wait_for_their_token():
    limit = RateLimit(rate=10, burst=3, max_wait=1.0)
    waits = [limit.reserve("10.0.0.5", 100.0) for _ in range(6)]
    assert waits == pytest.approx([0, 0, 0, 0.1, 0.2, 0.3])


def test_a_request_that_would_wait_too_long_is_refused_and_costs_nothing():
    limit = RateLimit(rate=10, burst=1, max_wait=0.25)
    assert [limit.reserve("a", 0.0) for _ in range(3)] == pytest.approx([0, 0.1, 0.2])
    assert limit.reserve("a", 0.0) is None
    assert limit.reserve("a", 0.0) is None  # refusals took no token: the wait did not grow
    assert limit.reserve("a", 0.06) == pytest.approx(0.24)


def test_an_address_that_rested_has_its_whole_burst_again_and_others_are_not_slowed():
    limit = RateLimit(rate=10, burst=5, max_wait=1.0)
    for _ in range(10):
        limit.reserve("flood", 0.0)
    assert limit.reserve("phone", 0.0) == 0
    assert [limit.reserve("flood", 2.0) for _ in range(5)] == pytest.approx([0] * 5)


def test_the_table_of_addresses_stays_small():
    limit = RateLimit(rate=10, burst=2, max_wait=1.0, max_addresses=8)
    for i in range(100):
        limit.reserve(f"10.0.0.{i}", float(i))
    assert len(limit) <= 8


@pytest.mark.parametrize("args", [{"rate": 0}, {"burst": 0}, {"max_wait": -1}])
def test_a_limit_that_would_refuse_everything_is_refused(args):
    with pytest.raises(ValueError):
        RateLimit(**args)


def test_a_flood_is_slowed_then_refused_with_the_error_envelope_and_a_retry_after(tmp_path):
    async def body(dev):
        async with page(dev) as (companion, session, base):
            companion.limit = RateLimit(rate=10, burst=3, max_wait=0.5)
            loop = asyncio.get_running_loop()
            started = loop.time()

            async def get() -> tuple[int, dict, str | None]:
                async with session.get(f"{base}/api/state") as r:
                    return r.status, await r.json(), r.headers.get("Retry-After")

            answers = await asyncio.gather(*(get() for _ in range(12)))
            took = loop.time() - started
            await asyncio.sleep(1.0)  # the address rests: it is answered at once again
            again = await get()
        return answers, took, again

    answers, took, again = run_device(tmp_path, body)
    statuses = sorted(status for status, _, _ in answers)
    assert statuses == [200] * 8 + [429] * 4  # three at once, five held up to half a second, four refused
    refused = [(e, retry) for status, e, retry in answers if status == 429]
    assert all(e["ok"] is False and e["result"]["error"] == "TooManyRequestsError" for e, _ in refused)
    assert all(e["result"]["error_msg"] and retry == "1" for e, retry in refused)
    assert 0.45 <= took < 1.0
    assert again[0] == 200 and "players" in again[1]
