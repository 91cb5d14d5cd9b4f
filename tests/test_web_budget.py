"""The page's budget over all addresses, shared in turn, and each WebSocket client's frame budget."""

from __future__ import annotations

import asyncio

import aiohttp
from devicekit import run_device
from webkit import page

from firmware_host.runtime.vtime import run_virtual
from firmware_host.web.api import live
from firmware_host.web.ratelimit import Budget


def test_however_many_addresses_flood_the_page_answers_its_rate_and_a_new_client_within_a_second():
    async def main():
        loop = asyncio.get_running_loop()
        budget = Budget(rate=250, burst=50, max_held=256, per_group=8)
        answered: list[float] = []
        refused = 0

        async def one(key: str) -> None:
            nonlocal refused
            turn = budget.ask(key)
            if turn is not True and (turn is None or not await turn):
                refused += 1
                return
            answered.append(loop.time())

        started = loop.time()
        flood = [asyncio.create_task(one(f"10.0.{i // 250}.{i % 250}")) for i in range(200) for _ in range(10)]
        await asyncio.sleep(0.01)
        newcomer_asked = loop.time()
        await one("192.168.1.50")
        newcomer_waited = answered[-1] - newcomer_asked
        await asyncio.gather(*flood)
        rate = len([t for t in answered if t > started + 0.1]) / max(1e-9, answered[-1] - started - 0.1)
        return newcomer_waited, rate, refused, budget.held

    waited, rate, refused, held = run_virtual(main)
    assert waited < 1.0
    assert rate <= 250 * 1.05
    assert refused > 1000  # the flood was refused, not queued without bound
    assert held == 0


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
                    await flood.ping()
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
    assert live.FRAME_RATE <= 5
