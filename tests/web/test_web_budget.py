"""The page's budget over all addresses, the least answered first, and each WebSocket client's frame budget."""

from __future__ import annotations

import asyncio
from collections import Counter

import aiohttp
import pytest

from firmware_host.runtime.vtime import run_virtual
from firmware_host.web.guards import frames
from firmware_host.web.guards.budget import Budget
from tests.devicekit import run_device
from tests.webkit import page


def _flood_and_a_newcomer(addresses: int, at_once: int):
    """``addresses`` flooding addresses ask ``at_once`` requests each, for a while; then a
    phone asks once. How long the phone waited, the page's rate meanwhile, the flood's refusals,
    what is left waiting, and the answers per flooding address."""

    async def main():
        loop = asyncio.get_running_loop()
        budget = Budget(rate=250, burst=50, max_held=256, per_group=8)
        answered: list[float] = []
        tally: Counter[str] = Counter()
        refused = 0
        started = loop.time()

        async def one(key: str) -> bool:
            nonlocal refused
            turn = budget.ask(key)
            if turn is not True and (turn is None or not await turn):
                refused += 1
                return False
            answered.append(loop.time())
            tally[key] += 1
            return True

        async def flooder(key: str) -> None:  # as fast as answered, a few at a time, for 6 s
            until = loop.time() + 6.0
            while loop.time() < until:
                if not all(await asyncio.gather(*(one(key) for _ in range(at_once)))):
                    await asyncio.sleep(0.2)  # refused (429): asks again a moment later

        flood = [asyncio.create_task(flooder(f"10.0.{i // 250}.{i % 250}")) for i in range(addresses)]
        await asyncio.sleep(4.0)  # the flood is in full swing: every address has been answered
        newcomer_asked = loop.time()
        await one("192.168.1.50")
        newcomer_waited = answered[-1] - newcomer_asked
        await asyncio.gather(*flood)
        rate = len([t for t in answered if t > started + 0.5]) / max(1e-9, answered[-1] - started - 0.5)
        flooders = [tally[k] for k in tally if k.startswith("10.")]
        return newcomer_waited, rate, refused, budget.held, flooders

    return run_virtual(main)


@pytest.mark.parametrize("addresses", [50, 200, 600])
def test_however_many_addresses_flood_a_new_client_is_answered_at_once_and_the_page_keeps_its_rate(addresses):
    waited, rate, refused, held, flooders = _flood_and_a_newcomer(addresses, at_once=8)
    assert waited < 0.05  # a turn or two; served in turn it waited 0.8 s behind 200 addresses, 2 s behind 600
    assert rate <= 250 * 1.05
    assert refused > 0  # past its waiting room the flood is refused, not queued without bound
    assert held == 0
    mean = sum(flooders) / len(flooders)
    assert len(flooders) == addresses and min(flooders) >= 1  # none starved
    assert max(flooders) <= 2 * mean + 8  # none more than its share (but 8 at once at the very start)


@pytest.mark.parametrize(("addresses", "comes_at"), [(200, 0.3), (2000, 0.3), (2000, 1.5)])
def test_a_new_client_is_not_kept_behind_a_flood_that_began_just_before_it(addresses, comes_at):
    """At a flood's start every flooding address is as new as a phone that comes a moment later:
    in the order they came the phone waited behind them all (here 0.5 s behind 200 addresses, and
    1.0 s behind 2,000, at their start or 1.5 s into it: while only answers counted, an address
    refused at once stayed as new as the phone). Now it goes first."""

    async def main():
        loop = asyncio.get_running_loop()
        budget = Budget()
        waited: list[float] = []

        async def one(key: str) -> bool:
            asked = loop.time()
            turn = budget.ask(key)
            if turn is not True and (turn is None or not await turn):
                return False
            waited.append(loop.time() - asked)
            return True

        async def flooder(key: str, start: float) -> None:  # one request at a time, again at once
            await asyncio.sleep(start)
            until = comes_at + 1.0
            while loop.time() < until:
                if not await one(key):
                    await asyncio.sleep(0.2)  # refused (429): again a moment later

        flood = [
            asyncio.create_task(flooder(f"10.0.{i // 250}.{i % 250}", 0.1 * i / addresses)) for i in range(addresses)
        ]
        await asyncio.sleep(comes_at)
        answered = await one("192.168.1.50")
        phone = waited[-1] if answered else None
        await asyncio.gather(*flood)
        return phone

    waited = run_virtual(main)
    assert waited is not None and waited < 0.05


def test_when_every_place_is_taken_the_most_answered_address_gives_way_to_a_lighter_one():
    async def main():
        budget = Budget(rate=10, burst=1, max_held=4, per_group=4)
        assert budget.ask("flood") is True  # answered once: heavier than a newcomer
        flood = [budget.ask("flood") for _ in range(4)]  # every place taken
        phone = budget.ask("phone")
        again = budget.ask("flood")  # the heaviest address asks once more: no lighter one to give way
        first = await asyncio.wait({phone, *flood[:-1]}, return_when=asyncio.FIRST_COMPLETED)
        return flood, phone, again, first, budget

    flood, phone, again, (done, _), budget = run_virtual(main)
    assert flood[-1].result() is False  # the flood's newest gave its place (refused, 429)
    assert again is None
    assert phone in done and phone.result() is True  # and the phone went first
    assert budget.held == 3


def test_an_address_count_of_answers_halves_every_half_life_and_the_table_stays_small():
    async def main():
        loop = asyncio.get_running_loop()
        budget = Budget(rate=1000, burst=1000, half_life=10.0, max_addresses=64)
        for _ in range(8):
            assert budget.ask("phone") is True
        now = budget.answers("phone", loop.time())
        await asyncio.sleep(10.0)
        later = budget.answers("phone", loop.time())
        for i in range(500):
            budget.ask(f"10.0.{i // 250}.{i % 250}")
        return now, later, len(budget._asked.keys)

    now, later, kept = run_virtual(main)
    assert now == pytest.approx(8.0) and later == pytest.approx(4.0)
    assert kept <= 64


def test_a_flood_of_one_address_is_refused_past_its_waiting_room_and_others_still_get_their_turn():
    async def main():
        budget = Budget(rate=10, burst=1, max_held=4, per_group=2)
        assert budget.ask("flood") is True
        waiting = [budget.ask("flood") for _ in range(4)]
        other = budget.ask("phone")
        return waiting, other, await other if other not in (True, None) else other

    waiting, _other, got = run_virtual(main)
    assert [w is None for w in waiting] == [False, False, True, True]
    assert got is True


def test_a_websocket_client_over_its_frame_budget_is_closed_and_a_scoreboard_is_not(tmp_path):
    async def body(dev):
        async with page(dev) as (_, session, base):
            async with session.ws_connect(f"{base}/ws", autoping=False) as flood:
                await flood.receive()
                for _ in range(200):
                    if flood.closed:
                        break
                    try:
                        await flood.ping()
                    except aiohttp.ClientConnectionResetError:  # the page closed it meanwhile
                        break
                    await asyncio.sleep(0)
                closed = await flood.receive()
                while closed.type not in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    closed = await flood.receive()
            try:  # the flooding address is refused for a while: coming back at once would cost the same again
                async with session.get(f"{base}/api/state", timeout=aiohttp.ClientTimeout(total=2)) as r:
                    again = r.status
            except (TimeoutError, aiohttp.ClientError):  # the kernel drops its SYNs: no answer
                again = None
            other = aiohttp.TCPConnector(local_addr=("127.0.0.3", 0))
            async with aiohttp.ClientSession(connector=other) as screen, screen.ws_connect(f"{base}/ws") as board:
                await board.receive()
                for _ in range(60):  # a ping a second for a minute
                    await board.send_json({"event_type": "ping"})
                    pong = await board.receive()
                    await asyncio.sleep(1.0)
                still = not board.closed
        return closed.data, again, pong.json(), still

    code, again, pong, still = run_device(tmp_path, body)
    assert code == 1008 and again is None
    assert pong["event_type"] == "pong" and still
    assert frames.FRAME_RATE <= 5
