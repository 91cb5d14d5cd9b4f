"""A table whose clock never synced dates its games by the time a paired phone gave: kept as an
offset to the monotonic clock, said in the history, sent to BG Stats in UTC."""

from __future__ import annotations

import asyncio
import calendar
import time

from firmware_host.core.phone_clock import PhoneClock
from firmware_host.web import bgstats
from tests.devicekit import run_device
from tests.webkit import page, pair

PHONE_NOW = calendar.timegm((2026, 6, 1, 21, 30, 0))
"""21:30 UTC: 23:30 in Germany, where a local date would already be the next day's in an hour."""


def test_a_date_from_a_phone_reaches_the_history_the_bgstats_link_and_the_play_file(tmp_path):
    async def body(dev):
        async with page(dev) as (_, session, base):
            await pair(dev, session, base)
            async with session.post(
                f"{base}/api/clock", json={"now_ms": PHONE_NOW * 1000}, headers={"Origin": base}
            ) as r:
                given = r.status
            dev.start_named("bomb", ["Ann", "Ben", "Cy"])
            await asyncio.sleep(600)  # ten minutes of play
            dev.end_early()
            await asyncio.sleep(1)
            async with session.get(f"{base}/api/history") as r:
                (game,) = (await r.json())["games"]
            async with session.get(f"{base}/api/history/{game['id']}/bgstats") as r:
                link = bgstats.parse_link((await r.json())["url"])
            async with session.get(f"{base}/api/history.bgsplay") as r:
                (filed,) = (await r.json(content_type=None))["plays"]
        return given, game, link, filed, dev.wall()

    given, game, link, filed, wall = run_device(tmp_path, body)
    assert given == 200
    assert wall < 1_767_225_600  # the table's own clock never synced (and was never set)
    assert game["date_source"] == "phone" and game["date"] is not None and game["clock_synced"] is False
    assert abs(game["started"] - PHONE_NOW) < 5  # the game began right after the phone gave the time
    assert link["playDate"] == time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(game["started"]))
    assert link["playDate"].startswith("2026-06-01 21:3") and "phone" in link["comments"]
    assert filed["playDate"] == link["playDate"]


def test_only_a_paired_phone_gives_the_time_and_only_a_believable_one(tmp_path):
    async def body(dev):
        async with page(dev) as (_, session, base):
            async with session.post(
                f"{base}/api/clock", json={"now_ms": PHONE_NOW * 1000}, headers={"Origin": base}
            ) as r:
                unpaired = r.status
            await pair(dev, session, base)
            async with session.post(f"{base}/api/clock", json={"now_ms": 1000}, headers={"Origin": base}) as r:
                absurd = r.status
        return unpaired, absurd, dev.phone_clock.now(0.0)

    assert run_device(tmp_path, body) == (401, 400, None)


def test_the_phone_time_is_kept_as_an_offset_to_the_monotonic_clock():
    clock = PhoneClock()
    assert clock.now(10.0) is None
    assert clock.set(PHONE_NOW, 100.0)
    assert clock.now(160.0) == PHONE_NOW + 60
    assert not clock.set(5.0, 200.0) and clock.now(160.0) == PHONE_NOW + 60
