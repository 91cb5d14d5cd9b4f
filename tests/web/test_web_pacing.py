"""The page's work comes in short loop turns: a press waits for one batch of requests, never for a
flood's hundreds, and nothing of the flood is lost or reordered on the way."""

from __future__ import annotations

import asyncio

from firmware_host.runtime.vtime import run_virtual
from firmware_host.web.guards.connection import Connection
from firmware_host.web.guards.gate import Gate
from firmware_host.web.guards.pacing import TurnShare


def test_a_press_waits_for_one_batch_of_requests_not_for_a_hundred():
    async def main():
        share = TurnShare(per_turn=16)
        begun: list[int] = []

        async def request(i: int) -> None:
            await share.begin()
            begun.append(i)

        tasks = [asyncio.create_task(request(i)) for i in range(100)]
        await asyncio.sleep(0)  # one turn: the hundred are ready at once
        pressed: list[int] = []
        asyncio.get_running_loop().call_soon(lambda: pressed.append(len(begun)))  # a button, posted now
        await asyncio.gather(*tasks)
        return begun, pressed, share.waiting

    begun, pressed, waiting = run_virtual(main)
    assert begun == list(range(100))  # every request, in the order it came
    assert pressed[0] <= 32  # the press came after a batch or two, not after the hundred
    assert waiting == 0


def test_a_request_cancelled_while_it_waits_gives_its_place_to_the_next():
    async def main():
        share = TurnShare(per_turn=1)
        begun: list[str] = []

        async def request(name: str) -> None:
            await share.begin()
            begun.append(name)

        first, gone, last = (asyncio.create_task(request(n)) for n in ("first", "gone", "last"))
        await asyncio.sleep(0)
        gone.cancel()
        await asyncio.gather(first, last)
        return begun, share.waiting

    assert run_virtual(main) == (["first", "last"], 0)


class _Transport(asyncio.Transport):
    def __init__(self) -> None:
        super().__init__()
        self.reading, self.closing = True, False

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def is_closing(self) -> bool:
        return self.closing

    def get_extra_info(self, name, default=None):
        return default

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        pass


class _Parser(asyncio.Protocol):
    def __init__(self, got: list[tuple[int, bytes]], n: int) -> None:
        self.got, self.n = got, n

    def data_received(self, data: bytes) -> None:
        self.got.append((self.n, data))


def test_a_flood_of_connections_reaches_the_parser_a_batch_a_turn_in_order_and_whole():
    async def main():
        gate = Gate(header_seconds=3600.0, clock=lambda: 0.0)
        got: list[tuple[int, bytes]] = []
        connections = []
        for n in range(50):
            transport = _Transport()
            gated = Connection(gate, lambda n=n: _Parser(got, n), "10.0.0.9", "10.0.0.9")
            gated.connection_made(transport)
            connections.append((gated, transport))
        for gated, _ in connections:  # fifty sockets readable in one turn
            gated.data_received(b"GET / HTTP/1.1\r\n")
        connections[-1][0].data_received(b"Host: x\r\n\r\n")  # more of the last one while it waits
        in_this_turn = len(got)
        paused = sum(not t.reading for _, t in connections)
        for _ in range(10):
            await asyncio.sleep(0)
        # the last has a whole request in hand: its reading waits for the answer (one at a time)
        return got, in_this_turn, paused, all(t.reading for _, t in connections[:-1]) and not transport.reading

    got, in_this_turn, paused, reading_again = run_virtual(main)
    assert in_this_turn == 16 and paused == 34  # the rest wait, their sockets not read meanwhile
    assert [n for n, _ in got] == [*range(50), 49]  # every connection's bytes, in the order they came
    assert got[-2:] == [(49, b"GET / HTTP/1.1\r\n"), (49, b"Host: x\r\n\r\n")]
    assert reading_again


def test_while_a_press_is_on_its_way_no_request_begins_and_all_begin_once_its_frame_is_handed():
    from firmware_host.runtime.precedence import Precedence

    async def main():
        loop = asyncio.get_running_loop()
        first = Precedence(longest=1.0, clock=loop.time)
        share = TurnShare(per_turn=16, first=first)
        begun: list[int] = []

        async def request(i: int) -> None:
            await share.begin()
            begun.append(i)

        first.hold()  # a button's edge, seen on the driver's thread
        tasks = [asyncio.create_task(request(i)) for i in range(20)]
        for _ in range(5):
            await asyncio.sleep(0)
        during = len(begun)
        first.release()  # the press's frame is handed to the display
        await asyncio.gather(*tasks)
        return during, begun

    during, begun = run_virtual(main)
    assert during == 0  # the page waited for the table's press
    assert begun == list(range(20))  # then every request began, in order


def test_a_press_that_shows_nothing_holds_the_page_off_only_for_a_moment():
    from firmware_host.runtime.precedence import LONGEST, Precedence

    async def main():
        loop = asyncio.get_running_loop()
        first = Precedence(clock=loop.time)
        share = TurnShare(per_turn=16, first=first)
        first.hold()  # never released
        start = loop.time()
        await share.begin()
        return loop.time() - start

    waited = run_virtual(main)
    assert 0 < waited <= LONGEST + 0.01


def test_the_collectors_young_passes_come_at_most_every_few_milliseconds_while_the_page_works():
    from firmware_host.web.guards.pacing import YoungSteps

    async def main():
        now = [0.0]
        young = YoungSteps(every=0.02, clock=lambda: now[0])
        for _ in range(10):  # ten turns of page work within one interval
            young.poke()
            await asyncio.sleep(0)
        first = young.passes
        now[0] = 0.05
        young.poke()
        await asyncio.sleep(0)
        return first, young.passes

    assert run_virtual(main) == (1, 2)
